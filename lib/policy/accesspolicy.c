// SPDX-License-Identifier: GPL-2.0
/*
 * access.conf: parser, decisions and the permission bits that let the kernel
 * enforce them on the FUSE mount. Deny beats allow whatever the line order,
 * so a line added at the end can only ever take rights away.
 */
#include "accesspolicy.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/pathtrust.h"
#include "guest/guestid.h"

enum ap_subject_type {
	AP_SUBJ_ANY, /* "*": every host user */
	AP_SUBJ_USER,
	AP_SUBJ_GROUP,
};

struct ap_rule {
	bool deny;
	enum ap_subject_type type;
	unsigned id;		    /* uid or gid */
	unsigned kinds;		    /* bit (1 << kind) */
	char guest[GUEST_NAME_MAX]; /* "" for every guest */
	unsigned line;
};

struct access_policy {
	bool expose_all;
	size_t nr_expose, cap_expose;
	char (*expose)[GUEST_NAME_MAX];
	size_t nr_rules, cap_rules;
	struct ap_rule *rules;
};

static const char *const kind_names[ARTIFACT_KIND_NR] = {
	[ARTIFACT_KALLSYMS] = "kallsyms",
	[ARTIFACT_SYSTEM_MAP] = "system-map",
	[ARTIFACT_VMLINUX] = "vmlinux",
	[ARTIFACT_MODULES] = "modules",
	[ARTIFACT_MODULE_FILES] = "module-files",
	[ARTIFACT_CONFIG] = "config",
	[ARTIFACT_VERSION] = "version",
	[ARTIFACT_BUILD_ID] = "build-id",
	[ARTIFACT_INFO] = "info",
	[ARTIFACT_BY_PID] = "by-pid",
};

#define ALL_KINDS ((1U << ARTIFACT_KIND_NR) - 1)

const char *artifact_kind_name(enum artifact_kind kind)
{
	return (unsigned)kind < ARTIFACT_KIND_NR ? kind_names[kind] : "?";
}

int artifact_kind_parse(const char *name, enum artifact_kind *kind)
{
	for (unsigned k = 0; k < ARTIFACT_KIND_NR; k++) {
		if (!strcmp(name, kind_names[k])) {
			*kind = (enum artifact_kind)k;
			return 0;
		}
	}
	return -EINVAL;
}

/* --- parser ------------------------------------------------------------------------ */

struct parser {
	const char *what;
	unsigned line;
	struct access_policy *p;
	struct kp_err *err;
};

static int perr(struct parser *ps, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int perr(struct parser *ps, int code, const char *fmt, ...)
{
	char msg[384];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return kp_errorf(ps->err, code, "%s:%u: %s", ps->what, ps->line, msg);
}

/* User and group names: printable ASCII, no separators of this format. */
static bool name_valid(const char *name)
{
	size_t len = strnlen(name, AP_NAME_MAX);

	if (!len || len >= AP_NAME_MAX)
		return false;
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)name[i];

		if (c <= ' ' || c >= 0x7f || c == ',' || c == ':' || c == '=')
			return false;
	}
	return true;
}

/*
 * getpwnam_r/getgrnam_r with a buffer that grows on ERANGE, up to 1 MiB
 * (groups with many members need large buffers).
 */
static int lookup_id(struct parser *ps, bool group, const char *name, unsigned *id)
{
	size_t size = 16384;
	int ret;

	for (;;) {
		char *buf = malloc(size);
		struct passwd pw, *pwp = NULL;
		struct group gr, *grp = NULL;

		if (!buf)
			return perr(ps, ENOMEM, "out of memory");
		if (group) {
			ret = getgrnam_r(name, &gr, buf, size, &grp);
			if (!ret && grp)
				*id = (unsigned)grp->gr_gid;
		} else {
			ret = getpwnam_r(name, &pw, buf, size, &pwp);
			if (!ret && pwp)
				*id = (unsigned)pwp->pw_uid;
		}
		free(buf);
		if (ret == ERANGE && size < (1U << 20)) {
			size *= 2;
			continue;
		}
		if (ret)
			return perr(ps, ret, "cannot look up %s '%s': %s",
				    group ? "group" : "user", name, strerror(ret));
		if (group ? !grp : !pwp)
			return perr(ps, ENOENT, "unknown %s '%s'",
				    group ? "group" : "user", name);
		return 0;
	}
}

static int add_expose(struct parser *ps, char **tok, size_t ntok)
{
	struct access_policy *p = ps->p;

	if (ntok < 2)
		return perr(ps, EINVAL, "'expose' needs '*' or guest names");
	for (size_t i = 1; i < ntok; i++) {
		if (!strcmp(tok[i], "*")) {
			if (ntok != 2 || p->nr_expose)
				return perr(ps, EINVAL,
					    "'expose *' already exposes every guest: "
					    "do not mix it with guest names");
			p->expose_all = true;
			continue;
		}
		if (p->expose_all)
			return perr(ps, EINVAL,
				    "'expose *' already exposes every guest: "
				    "do not mix it with guest names");
		if (!guest_name_valid(tok[i]))
			return perr(ps, EINVAL, "invalid guest name '%s'", tok[i]);
		if (access_policy_exposes(p, tok[i]))
			return perr(ps, EINVAL, "guest '%s' is exposed twice", tok[i]);
		if (p->nr_expose >= AP_MAX_EXPOSE)
			return perr(ps, E2BIG, "more than %d exposed guests",
				    AP_MAX_EXPOSE);
		if (p->nr_expose == p->cap_expose) {
			size_t cap = p->cap_expose ? 2 * p->cap_expose : 8;
			void *n = realloc(p->expose, cap * sizeof(*p->expose));

			if (!n)
				return perr(ps, ENOMEM, "out of memory");
			p->expose = n;
			p->cap_expose = cap;
		}
		snprintf(p->expose[p->nr_expose++], GUEST_NAME_MAX, "%s", tok[i]);
	}
	return 0;
}

static int parse_subject(struct parser *ps, const char *s, struct ap_rule *r)
{
	const char *name;
	bool group;
	int ret;

	if (!strcmp(s, "*")) {
		r->type = AP_SUBJ_ANY;
		return 0;
	}
	if (!strncmp(s, "user:", 5)) {
		group = false;
		name = s + 5;
	} else if (!strncmp(s, "group:", 6)) {
		group = true;
		name = s + 6;
	} else {
		return perr(ps, EINVAL,
			    "'%s' is not a subject (user:NAME, group:NAME or *)", s);
	}
	if (!name_valid(name))
		return perr(ps, EINVAL, "invalid %s name '%s'", group ? "group" : "user",
			    name);
	ret = lookup_id(ps, group, name, &r->id);
	if (ret)
		return ret;
	if (!group && r->id == 0)
		return perr(ps, EINVAL,
			    "rules cannot name root (uid 0), which may always read "
			    "exposed guests");
	r->type = group ? AP_SUBJ_GROUP : AP_SUBJ_USER;
	return 0;
}

/* "kallsyms,modules" or "all". */
static int parse_kinds(struct parser *ps, char *s, unsigned *kinds)
{
	char *save = NULL, *k;

	*kinds = 0;
	if (!strcmp(s, "all")) {
		*kinds = ALL_KINDS;
		return 0;
	}
	if (!*s || s[0] == ',' || s[strlen(s) - 1] == ',' || strstr(s, ",,"))
		return perr(ps, EINVAL, "empty kind in '%s'", s);
	for (k = strtok_r(s, ",", &save); k; k = strtok_r(NULL, ",", &save)) {
		enum artifact_kind kind;

		if (artifact_kind_parse(k, &kind))
			return perr(ps, EINVAL,
				    "unknown kind '%s' (kinds: kallsyms, system-map, "
				    "vmlinux, modules, module-files, config, version, "
				    "build-id, "
				    "info, by-pid, or all)",
				    k);
		*kinds |= 1U << kind;
	}
	return 0;
}

static int add_rule(struct parser *ps, bool deny, char **tok, size_t ntok)
{
	struct access_policy *p = ps->p;
	struct ap_rule r = {.deny = deny, .line = ps->line};
	bool have_guest = false;
	int ret;

	if (ntok < 3)
		return perr(ps, EINVAL,
			    "'%s' needs a subject and kinds: %s user:NAME|group:NAME|*"
			    " KIND[,KIND...] [guest=NAME|*]",
			    tok[0], tok[0]);
	ret = parse_subject(ps, tok[1], &r);
	if (!ret)
		ret = parse_kinds(ps, tok[2], &r.kinds);
	if (ret)
		return ret;
	for (size_t i = 3; i < ntok; i++) {
		char *eq = strchr(tok[i], '=');

		if (!eq)
			return perr(ps, EINVAL, "unexpected '%s' (options are key=value)",
				    tok[i]);
		*eq = '\0';
		if (strcmp(tok[i], "guest"))
			return perr(ps, EINVAL,
				    "unknown option '%s' (the only option is guest=)",
				    tok[i]);
		if (have_guest)
			return perr(ps, EINVAL, "guest= given twice");
		have_guest = true;
		if (!strcmp(eq + 1, "*"))
			continue;
		if (!guest_name_valid(eq + 1))
			return perr(ps, EINVAL, "invalid guest name '%s'", eq + 1);
		snprintf(r.guest, sizeof(r.guest), "%s", eq + 1);
	}
	if (p->nr_rules >= AP_MAX_RULES)
		return perr(ps, E2BIG, "more than %d rules", AP_MAX_RULES);
	if (p->nr_rules == p->cap_rules) {
		size_t cap = p->cap_rules ? 2 * p->cap_rules : 16;
		void *n = realloc(p->rules, cap * sizeof(*p->rules));

		if (!n)
			return perr(ps, ENOMEM, "out of memory");
		p->rules = n;
		p->cap_rules = cap;
	}
	p->rules[p->nr_rules++] = r;
	return 0;
}

static int parse_line(struct parser *ps, char *line)
{
	char *tok[AP_MAX_TOKENS], *save = NULL, *t;
	size_t ntok = 0;

	for (t = strtok_r(line, " \t", &save); t; t = strtok_r(NULL, " \t", &save)) {
		if (ntok >= AP_MAX_TOKENS)
			return perr(ps, E2BIG, "more than %d words", AP_MAX_TOKENS);
		tok[ntok++] = t;
	}
	if (!ntok || tok[0][0] == '#')
		return 0;
	if (!strcmp(tok[0], "expose"))
		return add_expose(ps, tok, ntok);
	if (!strcmp(tok[0], "allow"))
		return add_rule(ps, false, tok, ntok);
	if (!strcmp(tok[0], "deny"))
		return add_rule(ps, true, tok, ntok);
	return perr(ps, EINVAL, "unknown directive '%s' (expected expose, allow or deny)",
		    tok[0]);
}

/* Whole-file checks, once every line is read. */
static int check_policy(struct parser *ps)
{
	struct access_policy *p = ps->p;

	if (!p->expose_all && !p->nr_expose)
		return kp_errorf(ps->err, EINVAL,
				 "%s: no 'expose' line: no guest would be "
				 "served (write 'expose *' or name the guests)",
				 ps->what);
	for (size_t i = 0; i < p->nr_rules; i++) {
		const struct ap_rule *r = &p->rules[i];

		ps->line = r->line;
		if (r->guest[0] && !access_policy_exposes(p, r->guest))
			return perr(ps, EINVAL, "guest '%s' is not exposed", r->guest);
	}
	return 0;
}

int access_policy_parse(const char *text, size_t len, const char *what,
			struct access_policy **out, struct kp_err *err)
{
	struct parser ps = {.what = what ? what : "access policy", .err = err};
	const char *pos = text, *end = text + len;
	int ret = 0;

	*out = NULL;
	if (len > AP_MAX_FILE)
		return kp_errorf(err, EFBIG, "%s: larger than %u bytes", ps.what,
				 AP_MAX_FILE);
	ps.p = calloc(1, sizeof(*ps.p));
	if (!ps.p)
		return kp_errorf(err, ENOMEM, "out of memory");
	while (pos < end && !ret) {
		const char *nl = memchr(pos, '\n', (size_t)(end - pos));
		size_t n = nl ? (size_t)(nl - pos) : (size_t)(end - pos);
		char line[AP_MAX_LINE + 1];

		ps.line++;
		if (n && pos[n - 1] == '\r')
			n--;
		if (n > AP_MAX_LINE)
			ret = perr(&ps, E2BIG, "line longer than %d bytes", AP_MAX_LINE);
		else if (memchr(pos, '\0', n))
			ret = perr(&ps, EINVAL, "NUL byte");
		if (ret)
			break;
		memcpy(line, pos, n);
		line[n] = '\0';
		ret = parse_line(&ps, line);
		pos = nl ? nl + 1 : end;
	}
	if (!ret)
		ret = check_policy(&ps);
	if (ret) {
		access_policy_free(ps.p);
		return ret;
	}
	*out = ps.p;
	return 0;
}

/*
 * Nobody but root (or the caller) may change the policy, nor any folder
 * leading to it, and the file opened (@st) is the one checked.
 */
static int trusted(const char *path, const struct stat *st, struct kp_err *err)
{
	struct stat checked;
	int ret = kp_path_trusted(path, geteuid(), &checked, err);

	if (ret)
		return ret;
	if (checked.st_dev != st->st_dev || checked.st_ino != st->st_ino)
		return kp_errorf(err, EAGAIN, "%s: replaced while it was being checked",
				 path);
	return 0;
}

int access_policy_load(const char *path, struct access_policy **out, struct kp_err *err)
{
	struct stat st;
	char *buf;
	size_t len = 0;
	int fd, ret;

	*out = NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return kp_errorf(err, errno, "%s: %s", path, strerror(errno));
	if (fstat(fd, &st)) {
		ret = kp_errorf(err, errno, "%s: %s", path, strerror(errno));
		goto out_close;
	}
	if (!S_ISREG(st.st_mode)) {
		ret = kp_errorf(err, EINVAL, "%s: not a regular file", path);
		goto out_close;
	}
	ret = trusted(path, &st, err);
	if (ret)
		goto out_close;
	if (st.st_size > (off_t)AP_MAX_FILE) {
		ret = kp_errorf(err, EFBIG, "%s: larger than %u bytes", path,
				AP_MAX_FILE);
		goto out_close;
	}
	buf = malloc(AP_MAX_FILE + 1);
	if (!buf) {
		ret = kp_errorf(err, ENOMEM, "out of memory");
		goto out_close;
	}
	/* Read to EOF, bounded: the size fstat saw may have changed since. */
	for (;;) {
		ssize_t n = read(fd, buf + len, AP_MAX_FILE + 1 - len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			ret = kp_errorf(err, errno, "%s: %s", path, strerror(errno));
			goto out_free;
		}
		if (!n)
			break;
		len += (size_t)n;
		if (len > AP_MAX_FILE) {
			ret = kp_errorf(err, EFBIG, "%s: larger than %u bytes", path,
					AP_MAX_FILE);
			goto out_free;
		}
	}
	ret = access_policy_parse(buf, len, path, out, err);
out_free:
	free(buf);
out_close:
	close(fd);
	return ret;
}

int access_policy_default(struct access_policy **out, struct kp_err *err)
{
	static const char text[] = "expose *\n";

	return access_policy_parse(text, sizeof(text) - 1, "built-in default", out, err);
}

void access_policy_free(struct access_policy *p)
{
	if (!p)
		return;
	free(p->expose);
	free(p->rules);
	free(p);
}

/* --- decisions --------------------------------------------------------------------- */

bool access_policy_exposes(const struct access_policy *p, const char *guest)
{
	if (!p || !guest || !guest_name_valid(guest))
		return false;
	if (p->expose_all)
		return true;
	for (size_t i = 0; i < p->nr_expose; i++)
		if (!strcmp(p->expose[i], guest))
			return true;
	return false;
}

/* @guest NULL stands for "a guest no rule names": only guest=* rules apply. */
static bool rule_covers(const struct ap_rule *r, const char *guest,
			enum artifact_kind kind)
{
	if (!(r->kinds & (1U << kind)))
		return false;
	return !r->guest[0] || (guest && !strcmp(r->guest, guest));
}

static bool subject_matches(const struct ap_rule *r, uid_t uid, const gid_t *gids,
			    size_t ngids)
{
	switch (r->type) {
	case AP_SUBJ_ANY:
		return true;
	case AP_SUBJ_USER:
		return (unsigned)uid == r->id;
	case AP_SUBJ_GROUP:
		for (size_t i = 0; i < ngids; i++)
			if ((unsigned)gids[i] == r->id)
				return true;
		return false;
	}
	return false;
}

bool access_policy_allows(const struct access_policy *p, uid_t uid, const gid_t *gids,
			  size_t ngids, const char *guest, enum artifact_kind kind)
{
	bool allowed = false;

	if ((unsigned)kind >= ARTIFACT_KIND_NR || !access_policy_exposes(p, guest))
		return false;
	if (uid == 0)
		return true;
	if (!gids)
		ngids = 0;
	for (size_t i = 0; i < p->nr_rules; i++) {
		const struct ap_rule *r = &p->rules[i];

		if (!rule_covers(r, guest, kind) || !subject_matches(r, uid, gids, ngids))
			continue;
		if (r->deny)
			return false;
		allowed = true;
	}
	return allowed;
}

bool access_policy_allows_by_pid(const struct access_policy *p, uid_t uid,
				 const gid_t *gids, size_t ngids, const char *guest,
				 enum artifact_kind kind)
{
	return access_policy_allows(p, uid, gids, ngids, guest, ARTIFACT_BY_PID) &&
	       access_policy_allows(p, uid, gids, ngids, guest, kind);
}

/* --- permission bits --------------------------------------------------------------- */

/*
 * Who may read something, as far as permission bits can tell: nobody but root,
 * one group, everyone, or something the bits cannot express.
 */
enum who {
	WHO_ROOT,
	WHO_GROUP,
	WHO_ALL,
	WHO_MIXED,
};

struct readers {
	enum who who;
	unsigned gid;
};

static bool same_subject(const struct ap_rule *a, const struct ap_rule *b)
{
	return a->type == b->type && (a->type == AP_SUBJ_ANY || a->id == b->id);
}

static struct readers kind_readers(const struct access_policy *p, const char *guest,
				   enum artifact_kind kind)
{
	struct readers rd = {WHO_ROOT, 0};
	bool any_deny = false, groups = false, mixed = false, all = false;

	for (size_t i = 0; i < p->nr_rules; i++) {
		const struct ap_rule *r = &p->rules[i];

		if (!r->deny || !rule_covers(r, guest, kind))
			continue;
		if (r->type == AP_SUBJ_ANY)
			return rd;
		any_deny = true;
	}
	for (size_t i = 0; i < p->nr_rules; i++) {
		const struct ap_rule *r = &p->rules[i];
		bool cancelled = false;

		if (r->deny || !rule_covers(r, guest, kind))
			continue;
		/* An allow that a deny of the very same subject cancels grants nothing.
		 */
		for (size_t j = 0; j < p->nr_rules && !cancelled; j++)
			cancelled = p->rules[j].deny &&
				    rule_covers(&p->rules[j], guest, kind) &&
				    same_subject(&p->rules[j], r);
		if (cancelled)
			continue;
		if (r->type == AP_SUBJ_ANY) {
			all = true;
		} else if (r->type == AP_SUBJ_USER) {
			mixed = true;
		} else if (!groups) {
			groups = true;
			rd.gid = r->id;
		} else if (rd.gid != r->id) {
			mixed = true;
		}
	}
	if (!all && !groups && !mixed)
		return rd;
	/* Any other deny may cut into the readers: bits cannot say so. */
	if (any_deny || (mixed && !all))
		rd.who = WHO_MIXED;
	else
		rd.who = all ? WHO_ALL : WHO_GROUP;
	return rd;
}

static struct readers readers_and(struct readers a, struct readers b)
{
	struct readers none = {WHO_ROOT, 0}, mixed = {WHO_MIXED, 0};

	if (a.who == WHO_ROOT || b.who == WHO_ROOT)
		return none;
	if (a.who == WHO_ALL)
		return b;
	if (b.who == WHO_ALL)
		return a;
	if (a.who == WHO_GROUP && b.who == WHO_GROUP && a.gid == b.gid)
		return a;
	return mixed;
}

static struct readers readers_or(struct readers a, struct readers b)
{
	struct readers mixed = {WHO_MIXED, 0};

	if (a.who == WHO_ROOT)
		return b;
	if (b.who == WHO_ROOT)
		return a;
	if (a.who == WHO_ALL)
		return a;
	if (b.who == WHO_ALL)
		return b;
	if (a.who == WHO_GROUP && b.who == WHO_GROUP && a.gid == b.gid)
		return a;
	return mixed;
}

static struct readers file_readers(const struct access_policy *p, const char *guest,
				   enum artifact_kind kind, bool by_pid)
{
	struct readers rd = kind_readers(p, guest, kind);

	return by_pid ? readers_and(rd, kind_readers(p, guest, ARTIFACT_BY_PID)) : rd;
}

static struct readers guest_readers(const struct access_policy *p, const char *guest,
				    bool by_pid)
{
	struct readers rd = {WHO_ROOT, 0};

	for (unsigned k = 0; k < ARTIFACT_KIND_NR; k++)
		if (k != ARTIFACT_BY_PID)
			rd = readers_or(rd, file_readers(p, guest, (enum artifact_kind)k,
							 by_pid));
	return rd;
}

int access_policy_file_perm(const struct access_policy *p, const char *guest,
			    enum artifact_kind kind, bool by_pid,
			    struct artifact_perm *perm)
{
	struct readers rd;

	if (!p || !perm || (unsigned)kind >= ARTIFACT_KIND_NR)
		return -EINVAL;
	if (!access_policy_exposes(p, guest))
		return -ENOENT;
	rd = file_readers(p, guest, kind, by_pid);
	perm->uid = 0;
	perm->gid = rd.who == WHO_GROUP ? (gid_t)rd.gid : 0;
	perm->exact = rd.who != WHO_MIXED;
	perm->mode = rd.who == WHO_ALL ? 0444 : rd.who == WHO_GROUP ? 0440 : 0400;
	return 0;
}

int access_policy_dir_perm(const struct access_policy *p, const char *guest, bool by_pid,
			   struct artifact_perm *perm)
{
	struct readers rd = {WHO_ROOT, 0};

	if (!p || !perm)
		return -EINVAL;
	if (guest) {
		if (!access_policy_exposes(p, guest))
			return -ENOENT;
		rd = guest_readers(p, guest, by_pid);
	} else if (p->expose_all) {
		/* Guests that rules name, and any other guest (guest=* rules only). */
		rd = guest_readers(p, NULL, by_pid);
		for (size_t i = 0; i < p->nr_rules; i++)
			if (p->rules[i].guest[0])
				rd = readers_or(
					rd, guest_readers(p, p->rules[i].guest, by_pid));
	} else {
		for (size_t i = 0; i < p->nr_expose; i++)
			rd = readers_or(rd, guest_readers(p, p->expose[i], by_pid));
	}
	perm->uid = 0;
	perm->gid = rd.who == WHO_GROUP ? (gid_t)rd.gid : 0;
	perm->exact = rd.who != WHO_MIXED;
	perm->mode = rd.who == WHO_ALL	   ? 0555
		     : rd.who == WHO_GROUP ? 0550
		     : rd.who == WHO_MIXED ? 0511
					   : 0500;
	return 0;
}

mode_t access_policy_dir_bits(mode_t file_mode)
{
	return file_mode | ((file_mode & 0444) >> 2);
}
