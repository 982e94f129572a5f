// SPDX-License-Identifier: GPL-2.0
/*
 * Folded stacks, as Brendan Gregg's stackcollapse scripts write them and
 * flamegraph.pl, speedscope and inferno read them: one line per distinct
 * stack, root first, then its count.
 */
#include "export.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

struct folded_line {
	char *text;
	uint64_t value;
};

/* @st's frames joined by ';'; NULL without memory. */
static char *fold(const struct export_stack *st)
{
	struct folded_frame *frames = malloc(EXPORT_STACK_MAX * sizeof(*frames));
	size_t n, len = 0;
	char *text = NULL;

	if (!frames)
		return NULL;
	n = export_folded_frames(st, frames, EXPORT_STACK_MAX);
	for (size_t i = 0; i < n; i++)
		len += strlen(frames[i].name) + 1;
	text = malloc(len + 1);
	if (text) {
		text[0] = '\0';
		for (size_t i = 0, at = 0; i < n; i++)
			at += (size_t)sprintf(text + at, "%s%s", i ? ";" : "",
					      frames[i].name);
	}
	free(frames);
	return text;
}

static int by_text(const void *a, const void *b)
{
	return strcmp(((const struct folded_line *)a)->text,
		      ((const struct folded_line *)b)->text);
}

static void free_lines(struct folded_line *lines, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(lines[i].text);
	free(lines);
}

/*
 * Stacks that differ only in what folded lines do not show (vCPU, CR3,
 * pid) print as one line: sorted, equal neighbours are summed.
 */
static void print_merged(struct folded_line *lines, size_t n, FILE *out)
{
	for (size_t i = 0; i < n;) {
		uint64_t value = 0;
		size_t j = i;

		for (; j < n && !strcmp(lines[j].text, lines[i].text); j++)
			value += lines[j].value;
		if (value)
			fprintf(out, "%s %" PRIu64 "\n", lines[i].text, value);
		i = j;
	}
}

int export_write_folded(const struct export_profile *p, bool period, FILE *out)
{
	struct folded_line *lines = calloc(p->nr ? p->nr : 1, sizeof(*lines));

	if (!lines)
		return -ENOMEM;
	for (size_t i = 0; i < p->nr; i++) {
		lines[i].text = fold(p->stacks[i]);
		lines[i].value = period ? p->stacks[i]->period : p->stacks[i]->count;
		if (!lines[i].text) {
			free_lines(lines, i);
			return -ENOMEM;
		}
	}
	qsort(lines, p->nr, sizeof(*lines), by_text);
	print_merged(lines, p->nr, out);
	free_lines(lines, p->nr);
	return ferror(out) ? -EIO : 0;
}
