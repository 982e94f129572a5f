/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Recording the kvm tracepoints into a perf.data file that perf kvm stat
 * report and kvmprof stat exits report both read: the events perf kvm stat
 * record opens, their tracefs format files as the tracing-data feature,
 * perf's CPUID string (which tells perf VMX from SVM), and kvmprof's guest
 * table naming each VMM seen by the matcher kvmprof record uses.
 */
#ifndef KVMPROF_EXITS_RECORD_H
#define KVMPROF_EXITS_RECORD_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "base/base.h"

struct exits_record_opts {
	pid_t pid;	  /* 0: every process */
	char **command;	  /* NULL: none */
	bool system_wide; /* -a: every process, also with a command */
	const char *guests_conf;
	size_t mmap_pages;
	uint64_t seconds; /* 0: until a signal or the command's end */
	bool quiet;
	const char *tracefs; /* NULL: /sys/kernel/tracing, else .../debug/tracing */
};

int exits_record(const struct exits_record_opts *o, const char *path, int argc,
		 char **argv, struct kp_err *err);

#endif
