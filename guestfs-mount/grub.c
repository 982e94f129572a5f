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
/* A new, zeroed entry at the end of @m, or NULL (*err: -E2BIG, -ENOMEM). */
static struct entry *new_entry(struct menu *m, int *err)
{
	struct entry *e;

	*err = -E2BIG;
	if (m->nr >= GM_GRUB_MAX_ENTRIES)
		return NULL;
	if (m->nr == m->alloc) {
		/* Grown as entries come: most configurations have a handful. */
		size_t n = m->alloc ? 2 * m->alloc : 16;

		*err = -ENOMEM;
		e = realloc(m->e, n * sizeof(*e));
		if (!e)
			return NULL;
		m->e = e;
		m->alloc = n;
	}
	e = &m->e[m->nr];
	memset(e, 0, sizeof(*e));
	return e;
}

static int add_entry(struct menu *m, char *p, int parent, bool submenu)
{
	char w[FIELD_MAX];
	struct entry *e;
	int err;

	e = new_entry(m, &err);
	if (!e)
		return err;
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

/*
 * The end of the statement starting at @p: the first "{", "}" or ";" outside
 * quotes and "${...}", as GRUB's lexer reads them, or the end of the line.
 * One-line menu entries ("menuentry 'x' { linux /vmlinuz-V }") need it.
 */
static char *stmt_end(char *p)
{
	char q = 0;

	for (; *p; p++) {
		if (q) {
			q = *p == q ? 0 : q;
		} else if (*p == '\'' || *p == '"') {
			q = *p;
		} else if (*p == '$' && p[1] == '{') {
			char *close = strchr(p, '}');

			if (!close)
				return p + strlen(p);
			p = close;
		} else if (*p == '{' || *p == '}' || *p == ';') {
			break;
		}
	}
	return p;
}

struct parser {
	struct menu *m;
	const struct gm_grub_text *t;
	int stack[8], depth, cur;
};

/*
 * "blscfg" at the top level: the BLS entries, in blscfg's order, become
 * menu entries where the command stands.
 */
static int add_bls(struct parser *ps)
{
	const struct gm_grub_text *t = ps->t;
	struct gm_bls_entry *be;
	int n;

	if (!t->nr_bls)
		return 0;
	if (t->nr_bls > GM_BLS_MAX_FILES)
		return -E2BIG;
	be = calloc(t->nr_bls, sizeof(*be));
	if (!be)
		return -ENOMEM;
	n = gm_bls_entries(t->bls, t->nr_bls, be);
	for (int i = 0; i < n; i++) {
		int err;
		struct entry *e = new_entry(ps->m, &err);

		if (!e) {
			n = err;
			break;
		}
		ps->m->nr++;
		e->parent = -1;
		snprintf(e->title, sizeof(e->title), "%s", be[i].title);
		snprintf(e->id, sizeof(e->id), "%s", be[i].id);
		snprintf(e->ver, sizeof(e->ver), "%s", be[i].kver);
	}
	free(be);
	return n < 0 ? n : 0;
}

static int open_entry(struct parser *ps, char *p, bool submenu)
{
	int parent = ps->depth ? ps->stack[ps->depth - 1] : -1;
	int idx;

	if (ps->depth == (int)(sizeof(ps->stack) / sizeof(ps->stack[0])))
		return -E2BIG;
	idx = add_entry(ps->m, p, parent, submenu);
	if (idx < 0)
		return idx;
	ps->stack[ps->depth++] = idx;
	ps->cur = idx;
	return 0;
}

/* One statement, @sep the character that ended it ('\0' at the end of a line). */
static int statement(struct parser *ps, char *p, char sep)
{
	char kw[32];

	if (!word(&p, kw, sizeof(kw)))
		kw[0] = '\0';
	if (sep == '{' && (!strcmp(kw, "menuentry") || !strcmp(kw, "submenu")))
		return open_entry(ps, p, kw[0] == 's');
	if (!strcmp(kw, "blscfg") && !ps->depth)
		return add_bls(ps);
	if (!strcmp(kw, "linux") && ps->cur >= 0)
		linux_line(&ps->m->e[ps->cur], p);
	else if (!strcmp(kw, "set") && !ps->depth &&
		 !strncmp(skip_space(p), "default=", 8)) {
		p = skip_space(p) + 8;
		word(&p, ps->m->deflt, sizeof(ps->m->deflt));
	}
	if (sep == '}' && ps->depth) {
		ps->depth--;
		ps->cur = ps->depth ? ps->stack[ps->depth - 1] : -1;
	}
	return 0;
}

static int parse_cfg(const struct gm_grub_text *t, struct menu *m)
{
	struct parser ps = {.m = m, .t = t, .cur = -1};
	const char *cfg = t->cfg;
	size_t len = t->cfg_len;
	size_t pos = 0;
	char line[4096];

	while (next_line(cfg, len, &pos, line, sizeof(line))) {
		char *p = line;

		for (;;) {
			char *end = stmt_end(p), sep = *end;
			int ret;

			*end = '\0';
			ret = statement(&ps, p, sep);
			if (ret)
				return ret;
			if (!sep)
				break;
			p = end + 1;
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

int gm_grub_default(const struct gm_grub_text *t, char *ver, size_t size)
{
	struct menu m = {0};
	char spec[FIELD_MAX];
	int ret;

	if (t->cfg_len > GM_GRUB_MAX_CFG || t->env_len > GM_GRUB_MAX_CFG)
		return -E2BIG;
	ret = parse_cfg(t, &m);
	if (!ret) {
		snprintf(spec, sizeof(spec), "%s", m.deflt);
		if (!strcmp(spec, "${saved_entry}") &&
		    !env_value(t->env, t->env_len, "saved_entry", spec, sizeof(spec)))
			spec[0] = '\0';
		ret = spec[0] == '$' ? -ENOENT : resolve(&m, spec, ver, size);
	}
	free(m.e);
	return ret;
}
