/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A running guest's LSTAR from the per-vCPU debugfs file that the kvmprof
 * kernel series adds (kernel/patches/0004): for a VM created by process PID,
 * KVM makes <debugfs>/kvm/<PID>-<VM fd>/vcpu<N>/, and the series puts
 * guest_lstar there (mode 0400, "0x%llx\n"). The first series also had a
 * guest_cr3, which is not read: it was stale by design.
 *
 * LSTAR is the guest kernel's runtime entry_SYSCALL_64: minus the link-time
 * address of that symbol it is the guest's KASLR slide (ksym/kaslr.h), known
 * without sampling and with no agent in the guest. Kernels without the
 * series have no such files: -ENOENT, and callers fall back to other slide
 * sources.
 */
#ifndef KVMPROF_KVMDEBUGFS_H
#define KVMPROF_KVMDEBUGFS_H

#include <stdint.h>
#include <sys/types.h>

#include "base/err.h"

#define KVM_DEBUGFS_DIR "/sys/kernel/debug/kvm"

struct kvm_guest_regs {
	unsigned int vcpu; /* the vCPU the values were read from */
	uint64_t lstar;
};

/*
 * The registers of the lowest-numbered vCPU of a VM of @pid whose LSTAR is
 * set (a vCPU that has not run its guest's kernel yet reads 0). @dir is the
 * KVM debugfs folder, NULL for KVM_DEBUGFS_DIR. Returns 0; -ENOENT when @pid
 * has no VM there or the kernel lacks the files; -EAGAIN when every vCPU
 * still reads 0; other negative errnos (-EACCES: not root) with a message.
 */
int kvm_debugfs_guest_regs(const char *dir, pid_t pid, struct kvm_guest_regs *regs,
			   struct kp_err *err);

#endif
