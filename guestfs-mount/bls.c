// SPDX-License-Identifier: GPL-2.0
/* Boot Loader Specification entries, read and ordered as GRUB's blscfg does. */
#include "bls.h"

#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "key value..." lines: @key's value, leading blanks skipped, into @out. */
static void bls_value(const char *text, size_t len, const char *key, char *out,
		      size_t size)
{
	size_t klen = strlen(key), pos = 0;

	out[0] = '\0';
	while (pos < len) {
		const char *line = text + pos, *nl = memchr(line, '\n', len - pos);
		size_t llen = nl ? (size_t)(nl - line) : len - pos, v = klen, n;

		pos += llen + 1;
		if (llen <= klen || strncmp(line, key, klen) ||
		    (line[klen] != ' ' && line[klen] != '\t'))
			continue;
		while (v < llen && (line[v] == ' ' || line[v] == '\t'))
			v++;
		n = llen - v < size - 1 ? llen - v : size - 1;
		memcpy(out, line + v, n);
		out[n] = '\0';
		/* The first occurrence wins, as in blscfg. */
		return;
	}
}

static int parse(const struct gm_bls_file *f, struct gm_bls_entry *e)
{
	size_t nlen = strlen(f->name);
	char linux_path[GM_BLS_FIELD], *v, *sp;

	if (!f->text || f->len > GM_BLS_MAX_FILE || nlen <= 5 ||
	    nlen - 5 >= GM_BLS_FIELD || strcmp(f->name + nlen - 5, ".conf"))
		return -E2BIG;
	memset(e, 0, sizeof(*e));
	memcpy(e->id, f->name, nlen - 5);
	bls_value(f->text, f->len, "title", e->title, sizeof(e->title));
	bls_value(f->text, f->len, "version", e->version, sizeof(e->version));
	bls_value(f->text, f->len, "linux", linux_path, sizeof(linux_path));
	/* blscfg titles an entry without a title by its file name. */
	if (!e->title[0])
		snprintf(e->title, sizeof(e->title), "%s", e->id);
	sp = strpbrk(linux_path, " \t");
	if (sp)
		*sp = '\0';
	v = strstr(linux_path, "vmlinuz-");
	if (v)
		snprintf(e->kver, sizeof(e->kver), "%s", v + strlen("vmlinuz-"));
	return 0;
}

/* One segment of a version: a run of digits or of letters. */
static size_t segment(const char *s, bool digits)
{
	size_t n = 0;

	while (s[n] &&
	       (digits ? isdigit((unsigned char)s[n]) : isalpha((unsigned char)s[n])))
		n++;
	return n;
}

static bool sep(char c)
{
	return c && !isalnum((unsigned char)c) && c != '~';
}

int gm_bls_vercmp(const char *a, const char *b)
{
	while (*a || *b) {
		bool num;
		size_t la, lb;
		int r;

		while (sep(*a))
			a++;
		while (sep(*b))
			b++;
		/* "~" sorts before anything, even the end: 1.0~rc1 < 1.0. */
		if (*a == '~' || *b == '~') {
			if (*a != '~')
				return 1;
			if (*b != '~')
				return -1;
			a++, b++;
			continue;
		}
		if (!*a || !*b)
			break;
		num = isdigit((unsigned char)*a);
		la = segment(a, num);
		lb = segment(b, num);
		/* A number is newer than letters. */
		if (!lb)
			return num ? 1 : -1;
		if (num) {
			while (la > 1 && *a == '0')
				a++, la--;
			while (lb > 1 && *b == '0')
				b++, lb--;
			if (la != lb)
				return la < lb ? -1 : 1;
		}
		r = strncmp(a, b, la < lb ? la : lb);
		if (r)
			return r < 0 ? -1 : 1;
		if (la != lb)
			return la < lb ? -1 : 1;
		a += la, b += lb;
	}
	if (!*a && !*b)
		return 0;
	return *a ? 1 : -1;
}

/* Newest version first; an entry without one last; then by id, newest first. */
static int order(const void *pa, const void *pb)
{
	const struct gm_bls_entry *a = pa, *b = pb;
	int r;

	if (!a->version[0] != !b->version[0])
		return a->version[0] ? -1 : 1;
	r = gm_bls_vercmp(b->version, a->version);
	return r ? r : gm_bls_vercmp(b->id, a->id);
}

int gm_bls_entries(const struct gm_bls_file *files, size_t n, struct gm_bls_entry *out)
{
	if (n > GM_BLS_MAX_FILES)
		return -E2BIG;
	for (size_t i = 0; i < n; i++) {
		int ret = parse(&files[i], &out[i]);

		if (ret)
			return ret;
	}
	qsort(out, n, sizeof(*out), order);
	return (int)n;
}
