/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One counting event of kvmprof stat, open on several targets whose
 * readings add up: every CPU (-a), every thread of a process (-p, a
 * guest's vCPU threads), or a command and its children (inherit).
 */
#ifndef KVMPROF_STAT_COUNTER_H
#define KVMPROF_STAT_COUNTER_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "base/base.h"
#include "stat_count.h"
#include "stat_events.h"

/* Where one perf_event_open() counts: a task (pid, cpu -1) or a CPU (-1, cpu). */
struct stat_target {
	pid_t pid;
	int cpu;
};

enum stat_open_flags {
	/* A command forked and held: count it from its exec, and its children. */
	STAT_OPEN_ON_EXEC = 1 << 0,
	/* Threads of a running process: count their future children too. */
	STAT_OPEN_INHERIT = 1 << 1,
	/* A thread that exits before it is opened is not an error. */
	STAT_OPEN_SKIP_GONE = 1 << 2,
};

struct stat_counter {
	const struct stat_event *event;
	enum stat_split split;
	int *fds;
	size_t nr_fds;
	bool unsupported;	  /* ENOENT, EOPNOTSUPP: no such event here */
	struct stat_reading last; /* at the previous -I interval */
};

/*
 * Open @ev's @split on each of @targets, disabled. An event this machine
 * lacks marks the counter unsupported and is no error; other errors name
 * the event, the target and the reason.
 */
int stat_counter_open(struct stat_counter *c, const struct stat_event *ev,
		      enum stat_split split, const struct stat_target *targets, size_t nr,
		      unsigned flags, struct kp_err *err);

/* The sum over its targets. */
int stat_counter_read(const struct stat_counter *c, struct stat_reading *sum);

/* Read it: the total, or with @since_last what was counted since the last take. */
int stat_counter_take(struct stat_counter *c, bool since_last, struct stat_reading *out);

void stat_counter_enable(const struct stat_counter *c);
void stat_counter_disable(const struct stat_counter *c);
void stat_counter_close(struct stat_counter *c);

#endif
