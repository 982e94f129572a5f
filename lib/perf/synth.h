/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Synthesized records: what the kernel does not report for things that
 * existed before recording started (processes, their mappings, the kernel
 * map, guest kernel maps), in the same form perf writes them.
 */
#ifndef KVMPROF_SYNTH_H
#define KVMPROF_SYNTH_H

#include <stdint.h>
#include <sys/types.h>

#include "base/err.h"
#include "evlist.h"

struct synth {
	uint64_t sample_type; /* of the first event: shapes the sample_id_all trailer */
	bool sample_id_all;
	/*
	 * Time in the trailer: 0 for what existed before sampling began; a
	 * record made mid-recording needs one that perf's ordered queue
	 * accepts (see guestkmap.h).
	 */
	uint64_t time;
	record_fn emit;
	void *ctx;
};

/* PERF_RECORD_COMM; pid == tid marks the process's main thread. */
int synth_comm(const struct synth *s, pid_t pid, pid_t tid, const char *comm);

/* PERF_RECORD_MMAP with @misc (PERF_RECORD_MISC_USER, _KERNEL, _GUEST_KERNEL). */
int synth_mmap(const struct synth *s, uint16_t misc, pid_t pid, pid_t tid, uint64_t start,
	       uint64_t len, uint64_t pgoff, const char *filename);

/* COMM for every thread and MMAP for every executable mapping of @pid (-1: all). */
int synth_processes(const struct synth *s, pid_t pid);

/*
 * The host kernel map, as perf writes it: "[kernel.kallsyms]_text" from
 * _text to the end of the address space, pgoff = runtime address of _text.
 * Needs a readable /proc/kallsyms; fails with -EPERM when addresses are hidden.
 */
int synth_kernel_mmap(const struct synth *s, struct kp_err *err);

/* The lowest address an x86-64 kernel image runs at (__START_KERNEL_map). */
#define X86_64_KERNEL_IMAGE_START 0xffffffff80000000ULL

/*
 * A guest kernel map, as perf kvm writes it: "[guest.kernel.kallsyms.PID]SYM"
 * ("[guest.kernel.kallsyms]SYM" for pid 0, the default guest) with pgoff =
 * the runtime address of reference symbol SYM in guest @pid.
 */
int synth_guest_kernel_mmap(const struct synth *s, pid_t pid, const char *ref_sym,
			    uint64_t ref_runtime);

/*
 * The same map for perf's default guest (pid 0), on behalf of guest
 * @guest_pid (the pid in its sample_id_all trailer). perf without
 * --guestmount has no machine per guest: it hands every guest's map to the
 * default guest, takes the reference symbol from the name after
 * "[guest.kernel.kallsyms]" (for a per-pid name, "PID]SYM", which fails)
 * and loads the default guest's symbols at its first kernel map. Written
 * just before the per-pid map, this copy is the one perf loads with.
 */
int synth_default_guest_copy(const struct synth *s, pid_t guest_pid, const char *ref_sym,
			     uint64_t ref_runtime);

#endif
