// SPDX-License-Identifier: GPL-2.0
/* GRUB's default boot entry, from grub.cfg and grubenv text. */
#include "grub.h"

#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FIELD_MAX 256

struct entry {
	char title[FIELD_MAX];
	char id[FIELD_MAX];
	char ver[FIELD_MAX]; /* of its linux line */
	int parent;	     /* index of its submenu, -1 at the top */
	bool submenu;
};

struct menu {
	struct entry *e;
	size_t nr, alloc;
	char deflt[FIELD_MAX]; /* the last "set default=" value */
};

/* Next line of @s (len @n) from *pos into @line, without the newline. */
static bool next_line(const char *s, size_t n, size_t *pos, char *line, size_t size)
{
	size_t start = *pos, end, len;

	if (start >= n)
		return false;
	end = start;
	while (end < n && s[end] != '\n')
		end++;
	*pos = end + 1;
	len = end - start < size - 1 ? end - start : size - 1;
	memcpy(line, s + start, len);
	line[len] = '\0';
	return true;
}

static char *skip_space(char *p)
{
	while (*p == ' ' || *p == '\t')
		p++;
	return p;
}

/* One shell word at *p (quotes '..' and ".." removed) into @out. */
static bool word(char **p, char *out, size_t size)
{
	char *s = skip_space(*p);
	size_t n = 0;

	if (!*s)
		return false;
	while (*s && *s != ' ' && *s != '\t') {
		char q = *s;

		if (q == '\'' || q == '"') {
			for (s++; *s && *s != q; s++)
				if (n < size - 1)
					out[n++] = *s;
			if (*s)
				s++;
			continue;
		}
		if (n < size - 1)
			out[n++] = *s;
		s++;
	}
	out[n] = '\0';
	*p = s;
	return true;
}

/* menuentry 'TITLE' ... $menuentry_id_option 'ID' { */
static int add_entry(struct menu *m, char *p, int parent, bool submenu)
{
	struct entry *e;
	char w[FIELD_MAX];

	if (m->nr >= GM_GRUB_MAX_ENTRIES)
		return -E2BIG;
	if (m->nr == m->alloc) {
		/* Grown as entries come: most configurations have a handful. */
		size_t n = m->alloc ? 2 * m->alloc : 16;

		e = realloc(m->e, n * sizeof(*e));
		if (!e)
			return -ENOMEM;
		m->e = e;
		m->alloc = n;
	}
	e = &m->e[m->nr];
	memset(e, 0, sizeof(*e));
	e->parent = parent;
	e->submenu = submenu;
	word(&p, e->title, sizeof(e->title));
	while (word(&p, w, sizeof(w)))
		if (!strcmp(w, "$menuentry_id_option") || !strcmp(w, "--id"))
			word(&p, e->id, sizeof(e->id));
	return (int)m->nr++;
}

/* "linux /boot/vmlinuz-VER args" -> VER */
static void linux_line(struct entry *e, char *p)
{
	char path[FIELD_MAX], *v;

	if (!word(&p, path, sizeof(path)))
		return;
	v = strstr(path, "vmlinuz-");
	if (v)
		snprintf(e->ver, sizeof(e->ver), "%s", v + strlen("vmlinuz-"));
}

static int parse_cfg(const char *cfg, size_t len, struct menu *m)
{
	int stack[8], depth = 0, cur = -1;
	size_t pos = 0;
	char line[4096];

	while (next_line(cfg, len, &pos, line, sizeof(line))) {
		char *p = skip_space(line), kw[32];

		if (!word(&p, kw, sizeof(kw)))
			continue;
		if (!strcmp(kw, "menuentry") || !strcmp(kw, "submenu")) {
			int parent = depth ? stack[depth - 1] : -1;
			int idx = add_entry(m, p, parent, kw[0] == 's');

			if (idx < 0)
				return idx;
			if (depth == (int)(sizeof(stack) / sizeof(stack[0])))
				return -E2BIG;
			stack[depth++] = idx;
			cur = idx;
		} else if (!strcmp(kw, "}") && depth) {
			depth--;
			cur = depth ? stack[depth - 1] : -1;
		} else if (!strcmp(kw, "linux") && cur >= 0) {
			linux_line(&m->e[cur], p);
		} else if (!strcmp(kw, "set") && !depth &&
			   !strncmp(skip_space(p), "default=", 8)) {
			p = skip_space(p) + 8;
			word(&p, m->deflt, sizeof(m->deflt));
		}
	}
	return 0;
}

/* KEY=VALUE from grubenv. */
static bool env_value(const char *env, size_t len, const char *key, char *out,
		      size_t size)
{
	size_t pos = 0, klen = strlen(key);
	char line[1024];

	while (env && next_line(env, len, &pos, line, sizeof(line)))
		if (!strncmp(line, key, klen) && line[klen] == '=') {
			size_t n = strnlen(line + klen + 1, size - 1);

			memcpy(out, line + klen + 1, n);
			out[n] = '\0';
			return true;
		}
	return false;
}

static bool is_index(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!isdigit((unsigned char)*s))
			return false;
	return true;
}

/* The child of @parent named by @sel: an index, a title or an id. */
static int pick(const struct menu *m, int parent, const char *sel)
{
	long want = is_index(sel) ? strtol(sel, NULL, 10) : -1, n = 0;

	for (size_t i = 0; i < m->nr; i++) {
		const struct entry *e = &m->e[i];

		if (e->parent != parent)
			continue;
		if (want >= 0 ? n++ == want
			      : !strcmp(e->title, sel) || !strcmp(e->id, sel))
			return (int)i;
	}
	return -1;
}

static int resolve(const struct menu *m, const char *spec, char *ver, size_t size)
{
	char buf[FIELD_MAX], *sel, *save = NULL;
	int cur = -1;

	snprintf(buf, sizeof(buf), "%s", spec[0] ? spec : "0");
	for (sel = strtok_r(buf, ">", &save); sel; sel = strtok_r(NULL, ">", &save)) {
		cur = pick(m, cur, sel);
		if (cur < 0)
			return -ENOENT;
	}
	/* A submenu as the default boots its first entry. */
	while (cur >= 0 && m->e[cur].submenu)
		cur = pick(m, cur, "0");
	if (cur < 0 || !m->e[cur].ver[0])
		return -ENOENT;
	snprintf(ver, size, "%s", m->e[cur].ver);
	return 0;
}

int gm_grub_default(const char *cfg, size_t cfg_len, const char *env, size_t env_len,
		    char *ver, size_t size)
{
	struct menu m = {0};
	char spec[FIELD_MAX];
	int ret;

	if (cfg_len > GM_GRUB_MAX_CFG || env_len > GM_GRUB_MAX_CFG)
		return -E2BIG;
	ret = parse_cfg(cfg, cfg_len, &m);
	if (!ret) {
		snprintf(spec, sizeof(spec), "%s", m.deflt);
		if (!strcmp(spec, "${saved_entry}") &&
		    !env_value(env, env_len, "saved_entry", spec, sizeof(spec)))
			spec[0] = '\0';
		ret = spec[0] == '$' ? -ENOENT : resolve(&m, spec, ver, size);
	}
	free(m.e);
	return ret;
}
