/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What kvmprof top shows, and how it fits a screen: a frame (headline,
 * one line per guest, a status line, the table) laid out as lines of
 * text for a screen of any size. Pure: no terminal, no session, so that
 * every size can be tested.
 */
#ifndef KVMPROF_TOP_LAYOUT_H
#define KVMPROF_TOP_LAYOUT_H

#include <stddef.h>
#include <stdio.h>

#include "hist.h"

#define TOP_CELL_MAX  160
#define TOP_LINE_MAX  256
#define TOP_NOTES_MAX 32
#define TOP_ROWS_MAX  512

struct top_row {
	double pct;
	char cells[SORT__MAX][TOP_CELL_MAX]; /* sanitized, one per sort key */
};

struct top_frame {
	char headline[TOP_LINE_MAX];
	char notes[TOP_NOTES_MAX][TOP_LINE_MAX]; /* one line per guest */
	size_t nr_notes;
	char status[TOP_LINE_MAX]; /* keys and filters; "" for none */
	const char *headers[SORT__MAX];
	size_t nr_keys;
	struct top_row *rows; /* heaviest first */
	size_t nr_rows;
};

/*
 * Write @f as lines for a @width x @height screen: at most @height lines
 * ('\n' after each), none longer than @width, columns cut to fit rather
 * than wrapped. 0 for either means no limit (--stdio). Returns the lines
 * written.
 */
int top_layout(const struct top_frame *f, int width, int height, FILE *out);

#endif
