// SPDX-License-Identifier: GPL-2.0
/* guests.conf parsing: one directive per line, "guest NAME" opens a block. */
#include "guestconf.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/fileio.h"
#include "base/pathtrust.h"

static const char *const kind_names[GM_KIND_NR] = {
	[GM_KIND_DEFAULT] = "default",	 [GM_KIND_DIR] = "dir",
	[GM_KIND_KALLSYMS] = "kallsyms", [GM_KIND_SYSTEM_MAP] = "system-map",
	[GM_KIND_VMLINUX] = "vmlinux",	 [GM_KIND_VMLINUZ] = "vmlinuz",
	[GM_KIND_MODULES] = "modules",	 [GM_KIND_MODULE] = "module",
	[GM_KIND_CONFIG] = "config",	 [GM_KIND_VERSION] = "version",
	[GM_KIND_BUILD_ID] = "build-id", [GM_KIND_INFO] = "info",
};

const char *gm_format_name(enum gm_format fmt)
{
	return fmt == GM_FMT_QCOW2 ? "qcow2" : "raw";
}

const char *gm_kind_name(enum gm_kind kind)
{
	return kind < GM_KIND_NR ? kind_names[kind] : "?";
}

int gm_config_init(struct gm_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->cache_dir = strdup(GM_DEFAULT_CACHE);
	cfg->mountpoint = strdup(GUEST_MOUNT_DEFAULT);
	cfg->max_file_size = 256ULL << 20;
	cfg->max_total_size = 2ULL << 30;
	cfg->max_derived_size = 2ULL << 30;
	cfg->max_files = 20000;
	cfg->max_kernels = 16;
	cfg->appliance_cpus = 2;
	return cfg->cache_dir && cfg->mountpoint ? 0 : -ENOMEM;
}

void gm_config_release(struct gm_config *cfg)
{
	free(cfg->cache_dir);
	free(cfg->mountpoint);
	free(cfg->kvm_debugfs);
	free(cfg->qemu_user);
	for (size_t i = 0; i < GM_KIND_NR; i++)
		free(cfg->labels[i]);
	for (size_t i = 0; i < cfg->nr_allow_backing; i++)
		free(cfg->allow_backing[i]);
	free(cfg->allow_backing);
	for (size_t i = 0; i < cfg->nr_guests; i++) {
		struct gm_guest_conf *g = &cfg->guests[i];

		for (size_t d = 0; d < g->nr_disks; d++)
			free(g->disks[d].path);
		free(g->kernel);
	}
	free(cfg->guests);
	memset(cfg, 0, sizeof(*cfg));
}

const char *gm_config_label(const struct gm_config *cfg, enum gm_kind kind)
{
	if (kind < GM_KIND_NR && cfg->labels[kind])
		return cfg->labels[kind];
	if (cfg->labels[GM_KIND_DEFAULT])
		return cfg->labels[GM_KIND_DEFAULT];
	return GM_DEFAULT_CONTEXT;
}

bool gm_version_valid(const char *ver)
{
	size_t len = strnlen(ver, GM_VERSION_MAX);

	if (!len || len >= GM_VERSION_MAX || !strcmp(ver, ".") || !strcmp(ver, ".."))
		return false;
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)ver[i];

		if (!isalnum(c) && !strchr("._+-~", c))
			return false;
	}
	return true;
}

int gm_parse_size(const char *s, uint64_t *out)
{
	unsigned long long v;
	unsigned shift = 0;
	char *end;

	if (!isdigit((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno)
		return -EINVAL;
	switch (*end) {
	case '\0':
		break;
	case 'K':
	case 'k':
		shift = 10;
		break;
	case 'M':
	case 'm':
		shift = 20;
		break;
	case 'G':
	case 'g':
		shift = 30;
		break;
	case 'T':
	case 't':
		shift = 40;
		break;
	default:
		return -EINVAL;
	}
	if (*end && end[1] && strcmp(end + 1, "iB") && strcmp(end + 1, "B"))
		return -EINVAL;
	if (shift && v > (UINT64_MAX >> shift))
		return -EINVAL;
	*out = (uint64_t)v << shift;
	return 0;
}

/* user:role:type[:level]: the fields SELinux contexts always have, plain characters. */
static bool context_valid(const char *ctx)
{
	const char *p = ctx;
	int fields = 1;

	if (strlen(ctx) > 255)
		return false;
	for (; *p; p++) {
		if (*p == ':') {
			if (p == ctx || p[-1] == ':')
				return false;
			fields++;
		} else if (!isalnum((unsigned char)*p) && !strchr("_.,-", *p)) {
			return false;
		}
	}
	return fields >= 3 && p > ctx && p[-1] != ':';
}

struct parser {
	const char *what;
	unsigned line;
	struct gm_config *cfg;
	struct gm_guest_conf *guest; /* the block being read, or NULL */
	struct kp_err *err;
};

static int perr(struct parser *p, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int perr(struct parser *p, int code, const char *fmt, ...)
{
	char msg[384];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return kp_errorf(p->err, code, "%s:%u: %s", p->what, p->line, msg);
}

static int set_string(char **dst, const char *val)
{
	char *s = strdup(val);

	if (!s)
		return -ENOMEM;
	free(*dst);
	*dst = s;
	return 0;
}

static int parse_count(struct parser *p, const char *key, const char *val, unsigned max,
		       unsigned *out)
{
	unsigned long v;
	char *end;

	errno = 0;
	v = strtoul(val, &end, 10);
	if (errno || end == val || *end || !isdigit((unsigned char)*val) || v == 0 ||
	    v > max)
		return perr(p, EINVAL,
			    "%s wants a whole number from 1 to the built-in limit", key);
	*out = (unsigned)v;
	return 0;
}

static int add_guest(struct parser *p, const char *name)
{
	struct gm_config *cfg = p->cfg;
	struct gm_guest_conf *g;

	if (strchr(name, ' ') || strchr(name, '\t'))
		return perr(p, EINVAL, "'guest' takes one name, not '%s'", name);
	if (!guest_name_valid(name))
		return perr(
			p, EINVAL,
			"invalid guest name '%s' (1-63 bytes, no '/', spaces or control "
			"characters, not '.' or '..')",
			name);
	if (!strcmp(name, GUEST_TREE_BY_PID))
		return perr(p, EINVAL, "guest name '%s' is reserved for the by-pid view",
			    name);
	for (size_t i = 0; i < cfg->nr_guests; i++)
		if (!strcmp(cfg->guests[i].name, name))
			return perr(p, EEXIST, "guest '%s' is defined twice", name);
	if (cfg->nr_guests >= GM_MAX_GUESTS)
		return perr(p, E2BIG, "too many guests (the limit is %d)", GM_MAX_GUESTS);
	g = realloc(cfg->guests, (cfg->nr_guests + 1) * sizeof(*g));
	if (!g)
		return -ENOMEM;
	cfg->guests = g;
	g = &cfg->guests[cfg->nr_guests++];
	memset(g, 0, sizeof(*g));
	snprintf(g->name, sizeof(g->name), "%s", name);
	g->line = p->line;
	p->guest = g;
	return 0;
}

static int add_disk(struct parser *p, const char *val)
{
	struct gm_guest_conf *g = p->guest;
	enum gm_format fmt;
	const char *path;
	size_t flen = strcspn(val, " \t");

	if (!g)
		return perr(p, EINVAL, "'disk' outside a 'guest' block");
	if (flen == 3 && !strncmp(val, "raw", 3))
		fmt = GM_FMT_RAW;
	else if (flen == 5 && !strncmp(val, "qcow2", 5))
		fmt = GM_FMT_QCOW2;
	else
		return perr(p, EINVAL,
			    "'disk' wants a format (raw or qcow2) then a path, not '%s'",
			    val);
	path = val + flen;
	path += strspn(path, " \t");
	if (*path != '/')
		return perr(p, EINVAL, "disk path must be absolute, not '%s'", path);
	if (strlen(path) >= 4096)
		return perr(p, ENAMETOOLONG, "disk path too long");
	for (size_t i = 0; i < p->cfg->nr_guests; i++) {
		const struct gm_guest_conf *o = &p->cfg->guests[i];

		for (size_t d = 0; d < o->nr_disks; d++)
			if (!strcmp(o->disks[d].path, path))
				return perr(p, EEXIST,
					    "disk %s is already listed for guest '%s'",
					    path, o->name);
	}
	if (g->nr_disks >= GM_MAX_DISKS)
		return perr(p, E2BIG, "too many disks for one guest (the limit is %d)",
			    GM_MAX_DISKS);
	g->disks[g->nr_disks].path = strdup(path);
	if (!g->disks[g->nr_disks].path)
		return -ENOMEM;
	g->disks[g->nr_disks++].format = fmt;
	return 0;
}

static int set_label(struct parser *p, const char *val)
{
	size_t klen = strcspn(val, " \t");
	const char *ctx = val + klen;
	char kind[32];

	ctx += strspn(ctx, " \t");
	if (!*ctx || klen >= sizeof(kind))
		return perr(p, EINVAL,
			    "'label' wants a file kind and an SELinux context, not '%s'",
			    val);
	memcpy(kind, val, klen);
	kind[klen] = '\0';
	if (!context_valid(ctx))
		return perr(p, EINVAL,
			    "'%s' is not an SELinux context (user:role:type:level)", ctx);
	for (int k = 0; k < GM_KIND_NR; k++)
		if (!strcmp(kind, kind_names[k]))
			return set_string(&p->cfg->labels[k], ctx);
	return perr(
		p, EINVAL,
		"unknown file kind '%s' (default, dir, kallsyms, system-map, vmlinux, "
		"vmlinuz, modules, module, config, version, build-id, info)",
		kind);
}

static int global(struct parser *p, const char *key)
{
	if (p->guest)
		return perr(
			p, EINVAL,
			"'%s' is a global setting: put it before the first 'guest' block",
			key);
	return 0;
}

/*
 * "qemu-user USER": the account QEMU runs guests as. Only the name is kept
 * here; lib/guest/vmmtrust.c looks it up, so parsing needs no NSS.
 */
static int set_qemu_user(struct parser *p, const char *val)
{
	int ret = global(p, "qemu-user");

	if (ret)
		return ret;
	if (p->cfg->qemu_user)
		return perr(p, EEXIST, "second 'qemu-user'");
	if (!*val || strlen(val) > 32 ||
	    strspn(val, "abcdefghijklmnopqrstuvwxyz"
			"ABCDEFGHIJKLMNOPQRSTUVWXYZ"
			"0123456789_.-") != strlen(val) ||
	    *val == '-')
		return perr(p, EINVAL, "invalid user name '%s'", val);
	return set_string(&p->cfg->qemu_user, val);
}

/*
 * "allow-backing DIR": qcow2 backing and data files may lie in DIR (below it,
 * at any depth). The rest of the line is the path, as for 'disk'.
 */
static int add_allow_backing(struct parser *p, const char *val)
{
	struct gm_config *cfg = p->cfg;
	char **grown, *dir;
	int ret = global(p, "allow-backing");

	if (ret)
		return ret;
	if (*val != '/')
		return perr(p, EINVAL,
			    "'allow-backing' wants an absolute folder, not '%s'", val);
	if (strlen(val) >= 4096)
		return perr(p, ENAMETOOLONG, "allow-backing path too long");
	if (cfg->nr_allow_backing >= GM_MAX_ALLOW_BACKING)
		return perr(p, E2BIG,
			    "too many 'allow-backing' folders (the limit is %d)",
			    GM_MAX_ALLOW_BACKING);
	grown = realloc(cfg->allow_backing,
			(cfg->nr_allow_backing + 1) * sizeof(*cfg->allow_backing));
	if (!grown)
		return -ENOMEM;
	cfg->allow_backing = grown;
	dir = strdup(val);
	if (!dir)
		return -ENOMEM;
	cfg->allow_backing[cfg->nr_allow_backing++] = dir;
	return 0;
}

static int directive(struct parser *p, const char *key, const char *val)
{
	struct gm_config *cfg = p->cfg;
	int ret;

	if (!strcmp(key, "guest"))
		return *val ? add_guest(p, val) : perr(p, EINVAL, "'guest' wants a name");
	if (!strcmp(key, "disk"))
		return add_disk(p, val);
	if (!strcmp(key, "qemu-user"))
		return set_qemu_user(p, val);
	if (!strcmp(key, "allow-backing"))
		return add_allow_backing(p, val);
	if (!strcmp(key, "kernel")) {
		if (!p->guest)
			return perr(p, EINVAL, "'kernel' outside a 'guest' block");
		if (p->guest->kernel)
			return perr(p, EEXIST, "second 'kernel' for guest '%s'",
				    p->guest->name);
		if (!gm_version_valid(val))
			return perr(p, EINVAL, "invalid kernel version '%s'", val);
		return set_string(&p->guest->kernel, val);
	}
	if (strcmp(key, "cache") && strcmp(key, "mountpoint") &&
	    strcmp(key, "appliance") && strcmp(key, "overlay") &&
	    strcmp(key, "kvm-debugfs") && strcmp(key, "inspect") &&
	    strcmp(key, "max-file-size") && strcmp(key, "max-total-size") &&
	    strcmp(key, "max-derived-size") && strcmp(key, "max-files") &&
	    strcmp(key, "max-kernels") && strcmp(key, "appliance-cpus") &&
	    strcmp(key, "label"))
		return perr(p, EINVAL, "unknown directive '%s'", key);
	if (!*val)
		return perr(p, EINVAL, "'%s' wants a value", key);
	if ((ret = global(p, key)))
		return ret;
	if (!strcmp(key, "cache") || !strcmp(key, "mountpoint") ||
	    !strcmp(key, "kvm-debugfs")) {
		if (*val != '/')
			return perr(p, EINVAL, "path must be absolute, not '%s'", val);
		return set_string(!strcmp(key, "cache")	       ? &cfg->cache_dir
				  : !strcmp(key, "mountpoint") ? &cfg->mountpoint
							       : &cfg->kvm_debugfs,
				  val);
	}
	if (!strcmp(key, "appliance")) {
		if (strcmp(val, "shared") && strcmp(val, "per-guest"))
			return perr(p, EINVAL,
				    "'appliance' is 'per-guest' or 'shared', not '%s'",
				    val);
		cfg->shared_appliance = !strcmp(val, "shared");
		return 0;
	}
	if (!strcmp(key, "overlay")) {
		if (strcmp(val, "private") && strcmp(val, "libguestfs"))
			return perr(p, EINVAL,
				    "'overlay' is 'private' or 'libguestfs', not '%s'",
				    val);
		cfg->libguestfs_overlay = !strcmp(val, "libguestfs");
		return 0;
	}
	if (!strcmp(key, "inspect")) {
		if (strcmp(val, "startup") && strcmp(val, "on-access"))
			return perr(p, EINVAL,
				    "'inspect' is 'startup' or 'on-access', not '%s'",
				    val);
		cfg->lazy = !strcmp(val, "on-access");
		return 0;
	}
	if (!strcmp(key, "max-file-size") || !strcmp(key, "max-total-size") ||
	    !strcmp(key, "max-derived-size")) {
		uint64_t v;

		if (gm_parse_size(val, &v) || v < 4096)
			return perr(p, EINVAL,
				    "bad size '%s' (a number of bytes, at least 4096, "
				    "with an optional K, M, G or T suffix)",
				    val);
		*(!strcmp(key, "max-file-size")	   ? &cfg->max_file_size
		  : !strcmp(key, "max-total-size") ? &cfg->max_total_size
						   : &cfg->max_derived_size) = v;
		return 0;
	}
	if (!strcmp(key, "max-files"))
		return parse_count(p, key, val, 1000000, &cfg->max_files);
	if (!strcmp(key, "max-kernels"))
		return parse_count(p, key, val, 256, &cfg->max_kernels);
	if (!strcmp(key, "appliance-cpus"))
		return parse_count(p, key, val, GM_MAX_APPLIANCE_CPUS,
				   &cfg->appliance_cpus);
	if (!strcmp(key, "label"))
		return set_label(p, val);
	return perr(p, EINVAL, "unknown directive '%s'", key);
}

static int parse_line(struct parser *p, char *line)
{
	char *key, *val, *end;

	key = line + strspn(line, " \t");
	if (!*key || *key == '#')
		return 0;
	end = key + strlen(key);
	while (end > key && (end[-1] == ' ' || end[-1] == '\t'))
		*--end = '\0';
	val = key + strcspn(key, " \t");
	if (*val) {
		*val++ = '\0';
		val += strspn(val, " \t");
	}
	for (const char *c = val; *c; c++)
		if ((unsigned char)*c < ' ' && *c != '\t')
			return perr(p, EINVAL, "control character in line");
	return directive(p, key, val);
}

int gm_config_parse(const char *text, size_t len, const char *what, struct gm_config *cfg,
		    struct kp_err *err)
{
	struct parser p = {.what = what, .cfg = cfg, .err = err};
	const char *pos = text, *end = text + len;
	char *line;
	int ret = 0;

	if (memchr(text, '\0', len))
		return kp_errorf(err, EINVAL, "%s: contains a NUL byte (not a text file)",
				 what);
	line = malloc(GM_MAX_LINE + 1);
	if (!line)
		return kp_errorf(err, ENOMEM, "%s: out of memory", what);
	while (pos < end && !ret) {
		const char *nl = memchr(pos, '\n', (size_t)(end - pos));
		size_t n = (size_t)((nl ? nl : end) - pos);

		p.line++;
		if (n && pos[n - 1] == '\r')
			n--;
		if (n > GM_MAX_LINE) {
			ret = perr(&p, E2BIG, "line longer than %d bytes", GM_MAX_LINE);
			break;
		}
		memcpy(line, pos, n);
		line[n] = '\0';
		ret = parse_line(&p, line);
		if (ret == -ENOMEM)
			ret = kp_errorf(err, ENOMEM, "%s: out of memory", what);
		pos = nl ? nl + 1 : end;
	}
	free(line);
	for (size_t i = 0; !ret && i < cfg->nr_guests; i++) {
		if (!cfg->guests[i].nr_disks) {
			p.line = cfg->guests[i].line;
			ret = perr(&p, EINVAL, "guest '%s' has no 'disk'",
				   cfg->guests[i].name);
		}
	}
	return ret;
}

int gm_config_load(const char *path, struct gm_config *cfg, struct kp_err *err)
{
	char *text;
	size_t len;
	int ret;

	ret = gm_config_init(cfg);
	if (ret)
		return kp_errorf(err, ENOMEM, "%s: out of memory", path);
	/*
	 * The daemon, as root, opens every disk the file names: no one else may
	 * be able to edit or replace it. Once the whole path is trusted, only
	 * root (or the caller) can change it between the check and the read.
	 */
	ret = kp_path_trusted(path, geteuid(), NULL, err);
	if (ret)
		return ret;
	ret = kp_read_file(path, 1 << 20, &text, &len, err);
	if (ret)
		return ret;
	ret = gm_config_parse(text, len, path, cfg, err);
	free(text);
	return ret;
}
