// SPDX-License-Identifier: GPL-2.0
/* Exit reason names for VMX and SVM, flags, unknown codes, and the ISA of a CPUID. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "perf/exitreason.h"

static void vmx_names(void **state)
{
	assert_string_equal(exit_reason_name(KVM_ISA_VMX, 0), "EXCEPTION_NMI");
	assert_string_equal(exit_reason_name(KVM_ISA_VMX, 10), "CPUID");
	assert_string_equal(exit_reason_name(KVM_ISA_VMX, 30), "IO_INSTRUCTION");
	assert_string_equal(exit_reason_name(KVM_ISA_VMX, 48), "EPT_VIOLATION");
	/* The flags above bit 15 do not change the basic reason. */
	assert_string_equal(exit_reason_name(KVM_ISA_VMX, 0x80000021), "INVALID_STATE");
}

static void svm_names(void **state)
{
	assert_string_equal(exit_reason_name(KVM_ISA_SVM, 0x72), "cpuid");
	assert_string_equal(exit_reason_name(KVM_ISA_SVM, 0x78), "hlt");
	assert_string_equal(exit_reason_name(KVM_ISA_SVM, 0x7b), "io");
	assert_string_equal(exit_reason_name(KVM_ISA_SVM, 0x7c), "msr");
	assert_string_equal(exit_reason_name(KVM_ISA_SVM, 0x400), "npf");
	assert_string_equal(exit_reason_name(KVM_ISA_SVM, 0xffffffff),
			    "invalid_guest_state");
}

static void unknown_codes(void **state)
{
	char buf[EXIT_REASON_NAME_MAX];

	assert_null(exit_reason_name(KVM_ISA_VMX, 0x7fff));
	assert_null(exit_reason_name(KVM_ISA_SVM, 0x12345));
	assert_null(exit_reason_name(KVM_ISA_UNKNOWN, 10));
	exit_reason_format(KVM_ISA_SVM, 0x12345, buf, sizeof(buf));
	assert_string_equal(buf, "UNKNOWN(0x12345)");
	exit_reason_format(KVM_ISA_UNKNOWN, 12, buf, sizeof(buf));
	assert_string_equal(buf, "UNKNOWN(0xc)");
	exit_reason_format(KVM_ISA_VMX, 0x80000021, buf, sizeof(buf));
	assert_string_equal(buf, "INVALID_STATE|0x80000000");
	exit_reason_format(KVM_ISA_VMX, 12, buf, sizeof(buf));
	assert_string_equal(buf, "HLT");
}

static void isa_of_cpuid(void **state)
{
	assert_int_equal(exit_isa_of_cpuid("GenuineIntel,6,85,4"), KVM_ISA_VMX);
	assert_int_equal(exit_isa_of_cpuid("AuthenticAMD,26,2,1"), KVM_ISA_SVM);
	assert_int_equal(exit_isa_of_cpuid("HygonGenuine,24,0,1"), KVM_ISA_SVM);
	assert_int_equal(exit_isa_of_cpuid("CentaurHauls,6,15,1"), KVM_ISA_UNKNOWN);
	assert_int_equal(exit_isa_of_cpuid(NULL), KVM_ISA_UNKNOWN);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(vmx_names),
		cmocka_unit_test(svm_names),
		cmocka_unit_test(unknown_codes),
		cmocka_unit_test(isa_of_cpuid),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
