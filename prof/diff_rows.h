/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kvmprof diff's rows: two sessions' histograms joined by what their sort
 * key cells say, not by pointers or pids, so that a guest is matched by
 * its name across recordings of different boots (other QEMU pids, other
 * kernel slides) and a guest kernel by "[guest.kernel.kallsyms]" whatever
 * pid its object was named after.
 */
#ifndef KVMPROF_DIFF_ROWS_H
#define KVMPROF_DIFF_ROWS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hist.h"

enum { DIFF_OLD, DIFF_NEW };

struct diff_row {
	char **cells; /* one per key, sanitized, as diff prints them */
	char *key;    /* the cells joined: what rows are matched by */
	uint64_t period[2];
};

struct diff_table {
	enum sort_key keys[SORT__MAX];
	size_t nr_keys;
	struct diff_row **rows;
	size_t nr;
	size_t alloc;
	struct hashindex index; /* rows by the hash of their key */
	uint64_t total[2];
	bool has_guests; /* some row is a guest's */
};

/* Rows by the keys of @h (both sessions sort alike). */
void diff_table_init(struct diff_table *t, const struct hists *h);
/* Add every row of @h as side DIFF_OLD or DIFF_NEW. 0 or -ENOMEM. */
int diff_table_add(struct diff_table *t, int side, const struct hists *h);
/* A row's share of its side's total, in percent (0 when absent). */
double diff_percent(const struct diff_table *t, const struct diff_row *r, int side);
/* New share minus old share, in percentage points. */
double diff_delta(const struct diff_table *t, const struct diff_row *r);
/*
 * Largest change first: by |delta|, then by baseline, heaviest first,
 * then by the cells, so that equal changes print in a stable order.
 */
void diff_table_sort(struct diff_table *t);
void diff_table_release(struct diff_table *t);

#endif
