// SPDX-License-Identifier: GPL-2.0
#include "top_layout.h"

#include <string.h>

#define PCT_WIDTH 8 /* " 12.34%" and a space: perf's Overhead column */
#define GAP	  2
#define MIN_COL	  3

struct screen {
	int width;  /* 0: unlimited */
	int height; /* 0: unlimited */
	int lines;
	FILE *out;
};

static bool full(const struct screen *sc)
{
	return sc->height && sc->lines >= sc->height;
}

/* One line, cut to the screen's width. */
static void put_line(struct screen *sc, const char *text)
{
	int len = (int)strlen(text);

	if (full(sc))
		return;
	if (sc->width && len > sc->width)
		len = sc->width;
	fprintf(sc->out, "%.*s\n", len, text);
	sc->lines++;
}

/* Each column's natural width: its header or its widest cell. */
static void natural_widths(const struct top_frame *f, size_t nr_rows, int *w)
{
	for (size_t k = 0; k < f->nr_keys; k++) {
		w[k] = (int)strlen(f->headers[k]);
		for (size_t r = 0; r < nr_rows; r++) {
			int len = (int)strlen(f->rows[r].cells[k]);

			if (len > w[k])
				w[k] = len;
		}
	}
}

/*
 * Fit the columns into @avail: the last (the symbol, usually) keeps at
 * least half when it needs it; the others shrink evenly, to MIN_COL at
 * least; whatever is still too wide is cut at the screen's edge.
 */
static void fit_widths(size_t n, int avail, int *w)
{
	int total = 0, last_min, cap;

	for (size_t k = 0; k < n; k++)
		total += w[k] + (k ? GAP : 0);
	if (total <= avail || n < 2)
		return;
	last_min = w[n - 1] < avail / 2 ? w[n - 1] : avail / 2;
	cap = (avail - last_min) / (int)(n - 1) - GAP;
	if (cap < MIN_COL)
		cap = MIN_COL;
	for (size_t k = 0; k + 1 < n; k++)
		if (w[k] > cap)
			w[k] = cap;
}

/* "  Overhead  Guest  Symbol" or a row, each cell cut or padded to its width. */
static void table_line(struct screen *sc, const char *first, const char *const *cells,
		       size_t n, const int *w)
{
	char line[PCT_WIDTH + SORT__MAX * (TOP_CELL_MAX + GAP) + 1];
	int pos = snprintf(line, sizeof(line), "%*s", PCT_WIDTH, first);

	for (size_t k = 0; k < n; k++) {
		bool last = k + 1 == n;

		pos += snprintf(line + pos, sizeof(line) - (size_t)pos, "%*s%-*.*s", GAP,
				"", last ? 0 : w[k], w[k], cells[k]);
	}
	put_line(sc, line);
}

static void table(struct screen *sc, const struct top_frame *f)
{
	int w[SORT__MAX];
	size_t shown = f->nr_rows;
	const char *cells[SORT__MAX];
	char pct[16];

	if (sc->height) {
		int room = sc->height - sc->lines - 1; /* below the column header */

		if (room < 0)
			room = 0;
		if ((size_t)room < shown)
			shown = (size_t)room;
	}
	natural_widths(f, shown, w);
	if (sc->width)
		fit_widths(f->nr_keys, sc->width - PCT_WIDTH, w);
	table_line(sc, "Overhead", f->headers, f->nr_keys, w);
	for (size_t r = 0; r < shown; r++) {
		for (size_t k = 0; k < f->nr_keys; k++)
			cells[k] = f->rows[r].cells[k];
		snprintf(pct, sizeof(pct), "%7.2f%%", f->rows[r].pct);
		table_line(sc, pct, cells, f->nr_keys, w);
	}
}

int top_layout(const struct top_frame *f, int width, int height, FILE *out)
{
	struct screen sc = {width > 0 ? width : 0, height > 0 ? height : 0, 0, out};

	put_line(&sc, f->headline);
	for (size_t i = 0; i < f->nr_notes; i++)
		put_line(&sc, f->notes[i]);
	if (f->status[0])
		put_line(&sc, f->status);
	put_line(&sc, "");
	if (!full(&sc))
		table(&sc, f);
	return sc.lines;
}
