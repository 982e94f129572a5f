/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The command a kvmprof command profiles (kvmprof record|stat -- CMD):
 * forked first, so that its events can be opened on its pid, and held
 * until they are; then exec'd, and an exec that fails is the caller's
 * error, not a child that silently exits 127.
 */
#ifndef KVMPROF_WORKLOAD_H
#define KVMPROF_WORKLOAD_H

#include <sys/types.h>

#include "base/base.h"

struct workload {
	pid_t pid;  /* -1 when there is none */
	int go_fd;  /* a byte written here lets it exec */
	int err_fd; /* the exec's errno arrives here when it fails */
	const char *name;
};

/* Fork the child that will run @argv, waiting. */
int workload_prepare(char **argv, struct workload *w, struct kp_err *err);

/* Let it exec. -errno, with a message naming the command, when it could not. */
int workload_start(struct workload *w, struct kp_err *err);

/* A workload never started exits; one started is left alone. */
void workload_release(struct workload *w);

#endif
