/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kvmprof stat -a, per guest: the QEMUs running when counting starts, named
 * as record names them (guest/namer.h), each with counters on its vCPU
 * threads (pid = tid, cpu = -1, exclude_host=1), summed per guest name.
 * A QEMU started later is not counted: its threads did not exist to open.
 */
#ifndef KVMPROF_STAT_GUESTS_H
#define KVMPROF_STAT_GUESTS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "guest/guest.h"
#include "stat_counter.h"

#define STAT_GUEST_PIDS 8 /* QEMU pids shown per guest name */

/* One QEMU and its vCPU threads' counters, one per event. */
struct stat_vm {
	pid_t pid;
	char name[GUEST_NAME_MAX]; /* "-" when nothing names it */
	size_t nr_vcpus;
	struct stat_counter *counters;
};

struct stat_vms {
	struct stat_vm *vm;
	size_t nr;
	size_t nr_events;
};

/* What one QEMU counted: the input of the per-name sum. */
struct stat_vm_counts {
	const char *name;
	pid_t pid;
	size_t nr_vcpus;
	const struct stat_reading *readings; /* one per event */
	const bool *supported;		     /* one per event */
};

/* The QEMUs of one guest name, added up. */
struct stat_guest {
	char name[GUEST_NAME_MAX];
	pid_t pids[STAT_GUEST_PIDS]; /* the first QEMUs, by pid */
	size_t nr_qemus;
	size_t nr_vcpus;
	struct stat_reading *sums; /* one per event */
	bool *supported;	   /* some QEMU counted the event */
};

/*
 * Find the running QEMUs, name them with @names, and open @evs on their
 * vCPU threads, disabled. A QEMU or thread gone meanwhile is left out.
 */
int stat_vms_open(struct stat_vms *vms, const struct guest_namer *names,
		  const struct stat_event *evs, size_t nr_events, struct kp_err *err);
void stat_vms_enable(const struct stat_vms *vms);
void stat_vms_disable(const struct stat_vms *vms);
void stat_vms_close(struct stat_vms *vms);

/*
 * Read every QEMU's counters (@since_last: since the last read) and add
 * them up per guest name, sorted by name. Free with stat_guests_free().
 */
int stat_vms_sum(struct stat_vms *vms, bool since_last, struct stat_guest **out,
		 size_t *nr_out);

/* The per-name sum of @n QEMUs' counts of @nr_events events. */
int stat_guests_sum(const struct stat_vm_counts *vms, size_t n, size_t nr_events,
		    struct stat_guest **out, size_t *nr_out);
void stat_guests_free(struct stat_guest *g, size_t n);

#endif
