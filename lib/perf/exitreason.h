/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Names of VM exit reasons, VMX (Intel) and SVM (AMD), from the kernel's
 * uapi lists (asm/vmx.h VMX_EXIT_REASONS, asm/svm.h SVM_EXIT_REASONS):
 * the names the kvm_exit tracepoint prints and perf kvm stat shows.
 */
#ifndef KVMPROF_EXITREASON_H
#define KVMPROF_EXITREASON_H

#include <stddef.h>
#include <stdint.h>

/* kvm_exit's isa field (arch/x86/kvm/trace.h). */
enum kvm_isa {
	KVM_ISA_UNKNOWN = 0,
	KVM_ISA_VMX = 1,
	KVM_ISA_SVM = 2,
};

/* VMX keeps flags (failed VM entry, ...) above the basic reason. */
#define VMX_BASIC_EXIT_REASON_MASK 0xffffu

#define EXIT_REASON_NAME_MAX 48

/* The name of @code on @isa, or NULL when the list has none. */
const char *exit_reason_name(int isa, uint32_t code);

/*
 * The name, with VMX's flag bits when set ("EPT_VIOLATION|0x80000000"),
 * or "UNKNOWN(0x...)": always a string to print.
 */
void exit_reason_format(int isa, uint32_t code, char *buf, size_t size);

/*
 * The ISA of perf's CPUID feature string ("GenuineIntel,6,85,4",
 * "AuthenticAMD,25,1,1"): what files without kvm_exit's isa field have.
 */
int exit_isa_of_cpuid(const char *cpuid);

const char *exit_isa_name(int isa);

#endif
