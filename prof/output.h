/* SPDX-License-Identifier: GPL-2.0 */
/* perf-style --stdio output of a session's histograms. */
#ifndef KVMPROF_OUTPUT_H
#define KVMPROF_OUTPUT_H

#include <stdbool.h>
#include <stdio.h>

#include "base/base.h"
#include "session.h"

struct output_opts {
	bool show_samples;    /* -n */
	bool cpu_utilization; /* --showcpuutilization */
	double percent_limit; /* --percent-limit */
	bool header;	      /* the '#' header lines */
	bool children;	      /* --children: Children and Self columns */
	bool graph;	      /* -g: each row's call-chain tree */
	double chain_percent; /* -g's threshold: hide branches under it */
};

/*
 * "PATH: recording was not finished (no header): read N records up to byte
 * B", after @prefix, when the session's file is one a killed recording left.
 */
void output_unfinished(const struct session *s, const char *prefix, FILE *out);

/* One cell of a sort-key column, as perf prints it, sanitized; returns its length. */
size_t output_cell(const struct hist_entry *e, enum sort_key key, char *buf, size_t size);
/* The column header of a sort key ("Symbol", "Guest", ...). */
const char *output_header(enum sort_key key);

/*
 * @v as printf's "%7.2f" prints it (the same digits, rounded the same way),
 * at a fraction of printf's cost: reports print one or more per row. Returns
 * the length written to @buf.
 */
size_t output_percent(double v, char *buf, size_t size);

void output_report(const struct session *s, const struct output_opts *o, FILE *out);

#endif
