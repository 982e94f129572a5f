// SPDX-License-Identifier: GPL-2.0
#include "meta.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"
#include "fields.h"

static const char *const symsrc_names[] = {
	[GM_SYMS_NONE] = "none",
	[GM_SYMS_DEBUG_VMLINUX] = "debug-vmlinux",
	[GM_SYMS_SYSTEM_MAP] = "System.map",
	[GM_SYMS_DEBUG_SYSTEM_MAP] = "debug-System.map",
	[GM_SYMS_VMLINUZ] = "vmlinuz",
};

const char *gm_symsrc_name(enum gm_symsrc src)
{
	return src <= GM_SYMS_VMLINUZ ? symsrc_names[src] : "none";
}

static enum gm_symsrc symsrc_parse(const char *s)
{
	for (int i = 0; i <= GM_SYMS_VMLINUZ; i++)
		if (!strcmp(s, symsrc_names[i]))
			return (enum gm_symsrc)i;
	return GM_SYMS_NONE;
}

void gm_meta_release(struct gm_meta *m)
{
	free(m->kernels);
	memset(m, 0, sizeof(*m));
}

struct gm_kernel *gm_meta_add_kernel(struct gm_meta *m, const char *ver)
{
	struct gm_kernel *k = realloc(m->kernels, (m->nr_kernels + 1) * sizeof(*k));

	if (!k)
		return NULL;
	m->kernels = k;
	k = &m->kernels[m->nr_kernels++];
	memset(k, 0, sizeof(*k));
	snprintf(k->ver, sizeof(k->ver), "%s", ver);
	return k;
}

void gm_meta_note(struct gm_meta *m, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	if (m->nr_notes >= GM_MAX_NOTES)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	gm_sanitize(m->notes[m->nr_notes++], sizeof(m->notes[0]), msg);
}

static int kernel_newer_first(const void *a, const void *b)
{
	return strverscmp(((const struct gm_kernel *)b)->ver,
			  ((const struct gm_kernel *)a)->ver);
}

void gm_meta_sort_kernels(struct gm_meta *m)
{
	if (m->nr_kernels > 1)
		qsort(m->kernels, m->nr_kernels, sizeof(*m->kernels), kernel_newer_first);
}

const struct gm_kernel *gm_meta_kernel(const struct gm_meta *m, const char *ver)
{
	for (size_t i = 0; ver && i < m->nr_kernels; i++)
		if (!strcmp(m->kernels[i].ver, ver))
			return &m->kernels[i];
	return NULL;
}

/* --- the fields ------------------------------------------------------------------ */

#define FIELD(sc, rec, key, t, j, ty, m, fl)                                        \
	{                                                                           \
		.cache = key, .text = t, .json = j, .type = FT_##ty, .scope = sc,   \
		.flags = fl, .off = offsetof(rec, m), .size = sizeof(((rec *)0)->m) \
	}
#define M(...) FIELD(FS_META, struct gm_meta, __VA_ARGS__)
#define K(...) FIELD(FS_KERNEL, struct gm_kernel, __VA_ARGS__)
/* What info shows of a kernel that is no member of it. */
#define K_INFO(t, j, ty)                                                  \
	{                                                                 \
		.text = t, .json = j, .type = FT_##ty, .scope = FS_KERNEL \
	}
/* What info shows among the meta's fields that the caller knows. */
#define CTX(t, j, m, fl) FIELD(FS_META, struct gm_info_ctx, NULL, t, j, CTXSTR, m, fl)

/*
 * Every field of the meta and of its kernels, each named once, in the order
 * info and info.json show them: adding one is one line here. A field older
 * caches lack loads as 0 or "": when that would be wrong, bump the format in
 * gm_meta_save() so that they are inspected again. A kernel's cache keys
 * differ from the meta's: its lines follow its "kernel" line and the meta's
 * may come after them.
 */
const struct gm_field gm_fields[] = {
	/* info has it as the guest's error, through gm_info_ctx. */
	M("error", NULL, NULL, STR, error, FF_OPTIONAL),
	/* Which conclusion the error is (inspect.h), for hints made from it. */
	M("error-code", NULL, NULL, INT, error_code, FF_OPTIONAL),
	M("os", "os: %s\n", "os", STR, os, FF_OS),
	M("distro", "distro: %s\n", "distro", STR, distro, FF_OS),
	M("product", "product: %s\n", "product", STR, product, FF_OS),
	M("osversion", "version: %s\n", "version", STR, osversion, FF_OS),
	M("hostname", "hostname: %s\n", "hostname", STR, hostname, FF_OS),
	M("arch", "arch: %s\n", "arch", STR, arch, FF_OS),
	M("root", "root: %s\n", "root", STR, root, FF_OS),
	M("mount", "mount: %s\n", "mounts", MOUNTS, mounts, FF_OS),
	/* info has it as the reason for the default kernel. */
	M("boot-default", NULL, NULL, STR, boot_default, FF_OPTIONAL),
	M(NULL, "kernels: %s\n", "kernels", KERNELS, kernels, FF_OS),
	K("kernel", "kernel %s: ", "version", VERSION, ver, 0),
	K_INFO(NULL, "default", DEFAULT),
	K("k-vmlinuz", NULL, "image", STR, vmlinuz, 0),
	K("k-files", "vmlinuz", "files", FILE, has_vmlinuz, 0),
	K("k-files", "config", "files", FILE, has_config, 0),
	K("k-files", "System.map", "files", FILE, has_sysmap, FF_REAL_SYSMAP),
	K("k-files", "debug-vmlinux", "files", FILE, has_debug_vmlinux, 0),
	K("k-files", "debug-System.map", "files", FILE, has_debug_sysmap, 0),
	K("k-files", " System.map(placeholder)", "system_map_placeholder", BOOL,
	  sysmap_placeholder, 0),
	/* info has a note for it. */
	K("k-files", NULL, NULL, BOOL, debug_mismatch, 0),
	K("k-symbols", NULL, "symbols.source", SYMSRC, symsrc, 0),
	K("k-symbols", NULL, "symbols.count", U64, nr_syms, 0),
	K("k-error", NULL, "symbols.error", STR, error, FF_OPTIONAL),
	K("k-build-id", NULL, "build_id", STR, build_id, FF_OPTIONAL),
	K("k-modules", "; modules %s", "modules", UINT, nr_modules, 0),
	K("k-modules", " (%s unreadable)", "modules_unreadable", UINT, modules_bad,
	  FF_OPTIONAL),
	K_INFO("; symbols %s\n", NULL, SYMBOLS),
	M("files", "copied: %s files", "copied.files", U64, files, 0),
	M("bytes", ", %s bytes\n", "copied.bytes", U64, bytes, 0),
	M("inspected-at", "inspected: %s", "inspected_at", TIME, inspected_at, 0),
	M("times", " (appliance launch %s s", "seconds.launch", SECS, launch_s, 0),
	M("times", ", inspection %s s", "seconds.inspection", SECS, inspect_s, 0),
	M("times", ", copy %s s", "seconds.copy", SECS, extract_s, 0),
	M("times", ", symbols %s s)\n", "seconds.symbols", SECS, derive_s, 0),
	CTX("cache: %s\n", "cache", key, FF_OPTIONAL),
	M("note", "note: %s\n", "notes", NOTES, notes, 0),
};

const size_t gm_nr_fields = sizeof(gm_fields) / sizeof(gm_fields[0]);

/* The field after the last one that shares @f's line. */
static const struct gm_field *line_end(const struct gm_field *f)
{
	const struct gm_field *e = f + 1;

	while (e < GM_FIELDS_END && f->cache && e->cache && e->scope == f->scope &&
	       !strcmp(e->cache, f->cache))
		e++;
	return e;
}

bool gm_field_empty(const struct gm_field *f, const void *p)
{
	switch (f->type) {
	case FT_STR:
	case FT_VERSION:
		return !*(const char *)p;
	case FT_BOOL:
	case FT_FILE:
		return !*(const bool *)p;
	case FT_CTXSTR:
		return !*(const char *const *)p;
	case FT_INT:
		return !*(const int *)p;
	case FT_UINT:
		return !*(const unsigned *)p;
	case FT_U64:
		return !*(const uint64_t *)p;
	case FT_SECS:
		return *(const double *)p == 0;
	case FT_TIME:
		return !*(const time_t *)p;
	case FT_SYMSRC:
		return *(const enum gm_symsrc *)p == GM_SYMS_NONE;
	default:
		return false; /* the arrays */
	}
}

const char *gm_field_scalar(char *buf, size_t size, const struct gm_field *f,
			    const void *p)
{
	switch (f->type) {
	case FT_BOOL:
	case FT_FILE:
		snprintf(buf, size, "%d", *(const bool *)p);
		break;
	case FT_INT:
		snprintf(buf, size, "%d", *(const int *)p);
		break;
	case FT_UINT:
		snprintf(buf, size, "%u", *(const unsigned *)p);
		break;
	case FT_U64:
		snprintf(buf, size, "%" PRIu64, *(const uint64_t *)p);
		break;
	case FT_SECS:
		snprintf(buf, size, "%.2f", *(const double *)p);
		break;
	case FT_TIME:
		snprintf(buf, size, "%lld", (long long)*(const time_t *)p);
		break;
	case FT_SYMSRC:
		return gm_symsrc_name(*(const enum gm_symsrc *)p);
	default:
		return p; /* FT_STR, FT_VERSION */
	}
	return buf;
}

/* --- the cache file --------------------------------------------------------------- */

/*
 * The file is "key value" lines; "kernel VER" starts a kernel and the
 * lines after it up to the next such line describe that kernel. Values
 * never hold a newline (every string in the meta is sanitized).
 */
static void save_record(FILE *out, const void *rec, enum gm_field_scope scope);

static void save_array(FILE *out, const struct gm_field *f, const struct gm_meta *m)
{
	for (size_t i = 0; f->type == FT_MOUNTS && i < m->nr_mounts; i++)
		fprintf(out, "%s %s %s\n", f->cache, m->mounts[i][0], m->mounts[i][1]);
	for (size_t i = 0; f->type == FT_NOTES && i < m->nr_notes; i++)
		fprintf(out, "%s %s\n", f->cache, m->notes[i]);
	for (size_t i = 0; f->type == FT_KERNELS && i < m->nr_kernels; i++)
		save_record(out, &m->kernels[i], FS_KERNEL);
}

static void save_record(FILE *out, const void *rec, enum gm_field_scope scope)
{
	char buf[32];

	for (const struct gm_field *f = gm_fields, *end; f < GM_FIELDS_END; f = end) {
		end = line_end(f);
		if (f->scope != scope)
			continue;
		if (gm_field_is_array(f)) {
			save_array(out, f, rec);
			continue;
		}
		if (!f->cache || ((f->flags & FF_OPTIONAL) && end == f + 1 &&
				  gm_field_empty(f, gm_field_at(f, rec))))
			continue;
		fprintf(out, "%s", f->cache);
		for (const struct gm_field *e = f; e < end; e++)
			fprintf(out, " %s",
				gm_field_scalar(buf, sizeof(buf), e,
						gm_field_at(e, rec)));
		fprintf(out, "\n");
	}
}

int gm_meta_save(const struct gm_meta *m, const char *path)
{
	char tmp[4096];
	FILE *f = gm_create_tmp(path, tmp, sizeof(tmp));

	if (!f)
		return errno ? -errno : -EIO;
	fprintf(f, "format 2\n");
	save_record(f, m, FS_META);
	fprintf(f, "end\n");
	return gm_commit_tmp(f, tmp, path);
}

/* The next word of *@s, or all that is left of it for the last field of a line. */
static char *next_word(char **s, bool rest)
{
	char *w = *s, *sp = rest ? NULL : strchr(w, ' ');

	if (sp) {
		*sp = '\0';
		*s = sp + 1;
	} else {
		*s = w + strlen(w);
	}
	return w;
}

static int load_scalar(const struct gm_field *f, void *p, const char *w)
{
	unsigned long u;
	long l;
	char *end;

	errno = 0;
	switch (f->type) {
	case FT_STR:
		gm_sanitize(p, f->size, w);
		return 0;
	case FT_SYMSRC:
		*(enum gm_symsrc *)p = symsrc_parse(w);
		return 0;
	case FT_BOOL:
	case FT_FILE:
		*(bool *)p = strtol(w, &end, 10) != 0;
		break;
	case FT_INT:
		l = strtol(w, &end, 10);
		if (l < INT_MIN || l > INT_MAX)
			return -EINVAL;
		*(int *)p = (int)l;
		break;
	case FT_UINT:
		u = strtoul(w, &end, 10);
		if (u > UINT_MAX)
			return -EINVAL;
		*(unsigned *)p = u;
		break;
	case FT_U64:
		*(uint64_t *)p = strtoull(w, &end, 10);
		break;
	case FT_SECS:
		*(double *)p = strtod(w, &end);
		break;
	case FT_TIME:
		*(time_t *)p = (time_t)strtoll(w, &end, 10);
		break;
	default:
		return -EINVAL;
	}
	return end == w || *end || errno ? -EINVAL : 0;
}

/* The values of the fields from @f to the end of its line, into @rec. */
static int load_fields(const struct gm_field *f, void *rec, char *val)
{
	const struct gm_field *end = line_end(f);
	int ret = 0;

	for (; !ret && f < end; f++)
		ret = load_scalar(f, (char *)rec + f->off, next_word(&val, f + 1 == end));
	return ret;
}

static int load_array(const struct gm_field *f, struct gm_meta *m, char *val)
{
	char *dev;

	if (f->type == FT_NOTES && m->nr_notes < GM_MAX_NOTES)
		gm_sanitize(m->notes[m->nr_notes++], sizeof(m->notes[0]), val);
	if (f->type != FT_MOUNTS || m->nr_mounts == GM_MAX_MOUNTS)
		return 0;
	/* Mount points may hold spaces, device names do not. */
	dev = strrchr(val, ' ');
	if (!dev)
		return -EINVAL;
	*dev++ = '\0';
	gm_sanitize(m->mounts[m->nr_mounts][0], sizeof(m->mounts[0][0]), val);
	gm_sanitize(m->mounts[m->nr_mounts++][1], sizeof(m->mounts[0][1]), dev);
	return 0;
}

static const struct gm_field *find_key(const char *key, enum gm_field_scope scope)
{
	for (const struct gm_field *f = gm_fields; f < GM_FIELDS_END; f++)
		if (f->scope == scope && f->cache && !strcmp(f->cache, key))
			return f;
	return NULL;
}

/* One "key value" line; *@k is the kernel the last "kernel" line started. */
static int load_line(struct gm_meta *m, struct gm_kernel **k, const char *key, char *val)
{
	const struct gm_field *f = find_key(key, FS_META);

	if (f)
		return gm_field_is_array(f) ? load_array(f, m, val)
					    : load_fields(f, m, val);
	f = find_key(key, FS_KERNEL);
	if (!f)
		return 0; /* written by a later version: not needed here */
	if (f->type == FT_VERSION) {
		if (!gm_version_valid(val))
			return -EINVAL;
		*k = gm_meta_add_kernel(m, val);
		return *k ? 0 : -ENOMEM;
	}
	return *k ? load_fields(f, *k, val) : -EINVAL;
}

static int load_text(struct gm_meta *m, char *text)
{
	struct gm_kernel *k = NULL;
	char *line, *save = NULL;
	bool ended = false;
	int ret = 0;

	for (line = strtok_r(text, "\n", &save); line && !ret;
	     line = strtok_r(NULL, "\n", &save)) {
		char *val = strchr(line, ' ');

		if (val)
			*val++ = '\0';
		else
			val = line + strlen(line);
		if (!strcmp(line, "end"))
			ended = true;
		else if (!strcmp(line, "format"))
			/* 1 had no boot-default: such caches are inspected again. */
			ret = strcmp(val, "2") ? -EINVAL : 0;
		else
			ret = load_line(m, &k, line, val);
	}
	/* A truncated file (no "end") is not trusted. */
	return ret ? ret : ended ? 0 : -EINVAL;
}

int gm_meta_load(struct gm_meta *m, const char *path)
{
	char *text;
	size_t len;
	int ret;

	memset(m, 0, sizeof(*m));
	ret = kp_read_file(path, 16 << 20, &text, &len, NULL);
	if (ret)
		return ret;
	ret = load_text(m, text);
	free(text);
	if (ret)
		gm_meta_release(m);
	else
		gm_meta_sort_kernels(m);
	return ret;
}
