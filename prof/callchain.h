/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The call chains under one histogram row, as perf report's callchain
 * tree: each sample's path of resolved frames, merged where paths share a
 * beginning, with the period of the paths that end at each node. Printed
 * as perf's --stdio "graph" mode draws it: a straight run of frames on
 * one branch, branches with their share of the whole event.
 */
#ifndef KVMPROF_CALLCHAIN_H
#define KVMPROF_CALLCHAIN_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "hist.h"

/* The most frames of one sample kvmprof follows (perf's default is 127). */
#define CALLCHAIN_MAX_FRAMES 512

struct cc_node {
	struct hist_key frame; /* only sym, dso, addr and level tell frames apart */
	uint64_t self;	       /* period of the paths that end here */
	uint64_t total;	       /* self and every descendant's */
	struct cc_node *child; /* first child, heaviest first once sorted */
	struct cc_node *next;  /* next sibling */
};

/* Add one path, @path[0] first, of period @period under @root. 0 or -ENOMEM. */
int callchain_append(struct cc_node *root, const struct hist_key *const *path, size_t nr,
		     uint64_t period);

/* Free @root's descendants (and @root itself when @free_root). */
void callchain_free(struct cc_node *root, bool free_root);

/* A frame's name as the report shows it, sanitized, into @buf. */
typedef void (*callchain_name_fn)(const struct hist_key *frame, char *buf, size_t size);

struct callchain_print {
	FILE *out;
	uint64_t total;	     /* percentages are of this: the event's period */
	uint64_t min_period; /* branches under this are not shown */
	callchain_name_fn name;
};

/*
 * Print the tree under @root as perf report --stdio -g graph does: a
 * single branch as "---" and its frames, several as "|--PCT%--" ones.
 * Prints nothing (not even the blank line after it) when no branch is
 * heavy enough.
 */
void callchain_print(const struct cc_node *root, const struct callchain_print *p);

#endif
