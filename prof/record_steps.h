/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The steps every recording command takes, whatever it records (the
 * command it profiles is workload.h's): open the output, drain the rings
 * until told to stop, describe the machine. kvmprof record and kvmprof
 * stat exits share them.
 */
#ifndef KVMPROF_RECORD_STEPS_H
#define KVMPROF_RECORD_STEPS_H

#include <signal.h>
#include <stdint.h>
#include <sys/types.h>

#include "record_state.h"

/* Set by SIGINT and SIGTERM once record_catch_signals() ran. */
extern volatile sig_atomic_t record_stop_requested;
void record_catch_signals(void);

/* Create the writer at @path with @el's events and start the data. */
int record_open_output(struct record_state *rs, const char *path, struct evlist *el,
		       struct kp_err *err);

/*
 * Drain @el into @rs until a signal, @child exiting (its status in
 * *child_status), or CLOCK_MONOTONIC passing @deadline_ns (0: none).
 */
int record_loop(struct record_state *rs, struct evlist *el, pid_t child,
		int *child_status, uint64_t deadline_ns);

/* Host name, kernel, version, CPUs and command line, as perf record writes them. */
void record_set_features(struct pd_writer *w, int argc, char **argv, size_t nr_cpus);

/* CLOCK_MONOTONIC in nanoseconds, for deadlines. */
uint64_t record_now_ns(void);

#endif
