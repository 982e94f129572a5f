/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What /proc says about a QEMU process that runs a guest: its vCPU threads
 * (QEMU names them "CPU <n>/KVM", "CPU <n>/TCG" under emulation, when asked
 * to with -name ...,debug-threads=on; else those blocked in KVM_RUN) and the
 * disk images its command line names, with whether it holds each open.
 * All of it is read from /proc/<pid>/, bounded, and never trusted beyond
 * display: any process can name its threads and arguments as it likes.
 */
#ifndef KVMPROF_GUEST_VMPROC_H
#define KVMPROF_GUEST_VMPROC_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "base/err.h"

#define VMPROC_MAX_VCPUS 512
#define VMPROC_MAX_DISKS 16
#define VMPROC_PATH_MAX	 512

struct vmproc_vcpu {
	int index; /* the n of "CPU n/...", -1 when QEMU did not name it */
	pid_t tid;
};

struct vmproc_disk {
	char path[VMPROC_PATH_MAX]; /* as the command line gives it */
	bool open;		    /* the process holds this file open */
};

struct vmproc {
	pid_t pid;
	struct vmproc_vcpu vcpus[VMPROC_MAX_VCPUS]; /* sorted by index */
	size_t nr_vcpus;
	bool vcpus_cut;			 /* more vCPU threads than VMPROC_MAX_VCPUS */
	pid_t blocked[VMPROC_MAX_VCPUS]; /* threads seen in ioctl(KVM_RUN) */
	size_t nr_blocked;
	struct vmproc_disk disks[VMPROC_MAX_DISKS];
	size_t nr_disks;
};

/* Fill @vm for process @pid; -ENOENT when it is gone. */
int vmproc_read(pid_t pid, struct vmproc *vm, struct kp_err *err);

/*
 * The disk files a QEMU command line names (@cmdline: @len bytes of
 * NUL-separated arguments): file= and filename= of -drive and -blockdev,
 * and -hda..-hdd. Fills at most VMPROC_MAX_DISKS of @vm->disks (open false).
 */
void vmproc_disks_from_argv(const char *cmdline, size_t len, struct vmproc *vm);

/*
 * Is this QEMU a libguestfs appliance (guestfs-mount's own, or anyone's),
 * not a guest? It has a virtio-serial port named org.libguestfs.channel.N.
 */
bool vmproc_is_appliance(pid_t pid);
bool vmproc_argv_is_appliance(const char *cmdline, size_t len);

/*
 * The running QEMU processes (guest_is_qemu()) but libguestfs appliances,
 * sorted by pid, at most @max: their count, or -errno when /proc cannot be
 * read. @appliances counts those left out.
 */
int vmproc_list_qemus(pid_t *pids, size_t max, size_t *appliances);

/* "CPU 3/KVM\n" -> 3; a thread name that is not a vCPU's -> -1. */
int vmproc_vcpu_index(const char *comm);

#endif
