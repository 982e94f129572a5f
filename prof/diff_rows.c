// SPDX-License-Identifier: GPL-2.0
#include "diff_rows.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "output.h"

#define CELL_MAX 512

void diff_table_init(struct diff_table *t, const struct hists *h)
{
	memset(t, 0, sizeof(*t));
	memcpy(t->keys, h->keys, sizeof(t->keys));
	t->nr_keys = h->nr_keys;
	hashindex_init(&t->index);
}

static void free_row(struct diff_row *r, size_t nr_keys)
{
	for (size_t i = 0; r->cells && i < nr_keys; i++)
		free(r->cells[i]);
	free(r->cells);
	free(r->key);
	free(r);
}

void diff_table_release(struct diff_table *t)
{
	for (size_t i = 0; i < t->nr; i++)
		free_row(t->rows[i], t->nr_keys);
	free(t->rows);
	hashindex_release(&t->index);
	memset(t, 0, sizeof(*t));
}

/* A guest by its name: its pid changes with every boot. */
static void guest_cell(const struct hist_entry *e, char *buf, size_t size)
{
	const struct machine *m = e->key.guest;
	char raw[GUEST_NAME_MAX + 32];

	if (!m)
		snprintf(raw, sizeof(raw), "host");
	else if (strcmp(m->name, "-"))
		snprintf(raw, sizeof(raw), "%s", m->name);
	else
		snprintf(raw, sizeof(raw), "guest %d", m->pid); /* unnamed: no match */
	sanitize(raw, buf, size);
}

#define GUEST_KERNEL_DSO "[guest.kernel.kallsyms"

static void cell(const struct hist_entry *e, enum sort_key key, char *buf, size_t size)
{
	if (key == SORT_GUEST) {
		guest_cell(e, buf, size);
		return;
	}
	output_cell(e, key, buf, size);
	/* "[guest.kernel.kallsyms.PID]": the same kernel under another pid. */
	if (key == SORT_DSO && !strncmp(buf, GUEST_KERNEL_DSO, strlen(GUEST_KERNEL_DSO)))
		snprintf(buf, size, "%s]", GUEST_KERNEL_DSO);
}

/* @e's cells and their joined key in @r; false without memory. */
static bool fill_row(const struct diff_table *t, const struct hist_entry *e,
		     struct diff_row *r)
{
	char buf[CELL_MAX];
	size_t len = 1;

	r->cells = calloc(t->nr_keys, sizeof(*r->cells));
	if (!r->cells)
		return false;
	for (size_t i = 0; i < t->nr_keys; i++) {
		cell(e, t->keys[i], buf, sizeof(buf));
		r->cells[i] = strdup(buf);
		if (!r->cells[i])
			return false;
		len += strlen(buf) + 1;
	}
	r->key = malloc(len);
	if (!r->key)
		return false;
	r->key[0] = '\0';
	for (size_t i = 0; i < t->nr_keys; i++) {
		strcat(r->key, r->cells[i]);
		strcat(r->key, "\x1f"); /* no cell holds it: sanitize() replaced it */
	}
	return true;
}

static bool append(struct diff_table *t, struct diff_row *r)
{
	if (t->nr == t->alloc) {
		size_t alloc = t->alloc ? t->alloc * 2 : 256;
		struct diff_row **a = realloc(t->rows, alloc * sizeof(*a));

		if (!a)
			return false;
		t->rows = a;
		t->alloc = alloc;
	}
	t->rows[t->nr++] = r;
	return true;
}

static bool row_has_key(const void *row, const void *key)
{
	return !strcmp(((const struct diff_row *)row)->key, key);
}

/* The row with @r's key, or @r itself added as a new one; NULL without memory. */
static struct diff_row *find_or_add(struct diff_table *t, struct diff_row *r)
{
	uint64_t hash = hash_bytes(r->key, strlen(r->key));
	struct diff_row *x = hashindex_find(&t->index, hash, row_has_key, r->key);

	if (x)
		return x;
	if (!append(t, r))
		return NULL;
	if (hashindex_add(&t->index, hash, r)) {
		t->nr--;
		return NULL;
	}
	return r;
}

static int add_entry(struct diff_table *t, int side, const struct hist_entry *e)
{
	struct diff_row *r = calloc(1, sizeof(*r)), *row;

	if (!r || !fill_row(t, e, r)) {
		if (r)
			free_row(r, t->nr_keys);
		return -ENOMEM;
	}
	row = find_or_add(t, r);
	if (!row) {
		free_row(r, t->nr_keys);
		return -ENOMEM;
	}
	if (row != r)
		free_row(r, t->nr_keys);
	row->period[side] += e->period;
	if (e->key.guest)
		t->has_guests = true;
	return 0;
}

int diff_table_add(struct diff_table *t, int side, const struct hists *h)
{
	for (size_t i = 0; i < h->nr_entries; i++)
		if (add_entry(t, side, h->entries[i]))
			return -ENOMEM;
	t->total[side] += h->total_period;
	return 0;
}

double diff_percent(const struct diff_table *t, const struct diff_row *r, int side)
{
	return t->total[side] ? 100.0 * (double)r->period[side] / (double)t->total[side]
			      : 0.0;
}

double diff_delta(const struct diff_table *t, const struct diff_row *r)
{
	return diff_percent(t, r, DIFF_NEW) - diff_percent(t, r, DIFF_OLD);
}

static double magnitude(double v)
{
	return v < 0 ? -v : v;
}

/* qsort has no context argument: the table being sorted. */
static const struct diff_table *sorting;

static int by_change(const void *pa, const void *pb)
{
	const struct diff_row *a = *(const struct diff_row *const *)pa;
	const struct diff_row *b = *(const struct diff_row *const *)pb;
	double da = magnitude(diff_delta(sorting, a));
	double db = magnitude(diff_delta(sorting, b));

	if (da != db)
		return da > db ? -1 : 1;
	if (a->period[DIFF_OLD] != b->period[DIFF_OLD])
		return a->period[DIFF_OLD] > b->period[DIFF_OLD] ? -1 : 1;
	return strcmp(a->key, b->key);
}

void diff_table_sort(struct diff_table *t)
{
	sorting = t;
	if (t->nr)
		qsort(t->rows, t->nr, sizeof(*t->rows), by_change);
	sorting = NULL;
}
