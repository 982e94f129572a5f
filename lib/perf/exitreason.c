// SPDX-License-Identifier: GPL-2.0
#include "exitreason.h"

/* The exception vectors SVM_EXIT_REASONS names (GP_VECTOR, ...). */
#include <asm/kvm.h>
#include <asm/svm.h>
#include <asm/vmx.h>
#include <stdio.h>
#include <string.h>

struct exit_reason {
	long long code; /* SVM_EXIT_ERR is -1: the u32 0xffffffff */
	const char *name;
};

static const struct exit_reason vmx_reasons[] = {VMX_EXIT_REASONS};
static const struct exit_reason svm_reasons[] = {SVM_EXIT_REASONS};

#define NR(a) (sizeof(a) / sizeof((a)[0]))

static const char *lookup(const struct exit_reason *t, size_t n, uint32_t code)
{
	for (size_t i = 0; i < n; i++)
		if ((uint32_t)t[i].code == code)
			return t[i].name;
	return NULL;
}

const char *exit_reason_name(int isa, uint32_t code)
{
	if (isa == KVM_ISA_VMX)
		return lookup(vmx_reasons, NR(vmx_reasons),
			      code & VMX_BASIC_EXIT_REASON_MASK);
	if (isa == KVM_ISA_SVM)
		return lookup(svm_reasons, NR(svm_reasons), code);
	return NULL;
}

void exit_reason_format(int isa, uint32_t code, char *buf, size_t size)
{
	const char *name = exit_reason_name(isa, code);
	uint32_t flags = isa == KVM_ISA_VMX ? code & ~VMX_BASIC_EXIT_REASON_MASK : 0;

	if (!name)
		snprintf(buf, size, "UNKNOWN(0x%x)", code);
	else if (flags)
		snprintf(buf, size, "%s|0x%x", name, flags);
	else
		snprintf(buf, size, "%s", name);
}

int exit_isa_of_cpuid(const char *cpuid)
{
	if (!cpuid)
		return KVM_ISA_UNKNOWN;
	if (strstr(cpuid, "Intel"))
		return KVM_ISA_VMX;
	if (strstr(cpuid, "AMD") || strstr(cpuid, "Hygon"))
		return KVM_ISA_SVM;
	return KVM_ISA_UNKNOWN;
}

const char *exit_isa_name(int isa)
{
	return isa == KVM_ISA_VMX ? "VMX" : isa == KVM_ISA_SVM ? "SVM" : "unknown";
}
