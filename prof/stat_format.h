/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One line of kvmprof stat's output, as perf stat prints it: a count with
 * thousands separators (a clock's nanoseconds as msec), the event, whose
 * part it is (host, guest, ...), a metric after '#', and the share of time
 * it was counted when the PMU multiplexed it. With a separator (-x), the
 * same fields for machines: no grouping, no padding.
 */
#ifndef KVMPROF_STAT_FORMAT_H
#define KVMPROF_STAT_FORMAT_H

#include <stdbool.h>
#include <stddef.h>

#include "stat_count.h"

struct stat_row {
	const char *event; /* "task-clock" */
	const char *split; /* "host", "guest", "host+guest", "vcpu-threads" */
	const char *guest; /* a guest's name; NULL: the whole target */
	bool supported;	   /* else perf's "<not supported>" */
	bool clock;	   /* the value is nanoseconds, shown as msec */
	struct stat_reading reading;
	const char *metric; /* "CPUs utilized", or NULL */
	double metric_value;
};

struct stat_style {
	const char *sep;   /* -x: the field separator; NULL: columns for people */
	bool interval;	   /* -I: each line starts with a timestamp */
	double timestamp;  /* seconds since counting started */
	bool guest_column; /* name the guest on the line, not in a block header */
};

/*
 * "1234567.891" with 2 decimals -> "1,234,567.89". Returns what
 * snprintf() would: the length it needed.
 */
int stat_group_digits(char *buf, size_t size, double v, int decimals);

/* One line for @row, without the newline, into @buf of @size (truncated). */
void stat_format_row(char *buf, size_t size, const struct stat_row *row,
		     const struct stat_style *style);

#endif
