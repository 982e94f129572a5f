/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A live session seen as kvmprof top shows it: the headline of the last
 * interval (samples per second, host and guest kernel and user shares),
 * each guest's share and vCPUs, and the heaviest rows of the histogram
 * among the samples shown (host, guests, or both).
 */
#ifndef KVMPROF_TOP_FRAME_H
#define KVMPROF_TOP_FRAME_H

#include <stdbool.h>
#include <stdint.h>

#include "session.h"
#include "top_layout.h"

/* What the last frame counted, so that the next shows only its interval. */
struct top_counts {
	uint64_t samples;
	uint64_t level[LEVEL__MAX];
	uint64_t *guest; /* per machines.guests[i] */
	size_t nr_guests;
	double time; /* seconds, CLOCK_MONOTONIC */
};

struct top_view {
	bool show_host;
	bool show_guest;
	const char *event; /* the shown event's name */
	unsigned long freq;
	const char *keys_help; /* the status line; NULL: none */
};

/*
 * Fill @f from @s: the interval since @c (then @c is moved to now, @now in
 * seconds) and the rows of its first event under @v's filters. @f->rows
 * must have room for TOP_ROWS_MAX rows. 0 or -ENOMEM.
 */
int top_frame_fill(struct top_frame *f, struct session *s, const struct top_view *v,
		   struct top_counts *c, double now);

/* Only the status line and the rows, for a redraw between intervals. */
int top_frame_table(struct top_frame *f, struct session *s, const struct top_view *v);

void top_counts_release(struct top_counts *c);

#endif
