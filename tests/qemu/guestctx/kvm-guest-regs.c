// SPDX-License-Identifier: GPL-2.0
/*
 * Prints what lib/kvmdebugfs reads for a running guest, so that tests in L1
 * compare the library's reading of the real debugfs files with the guest's
 * own view:  kvm-guest-regs PID  ->  "vcpu N lstar 0x..."
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "guest/guest.h"

int main(int argc, char **argv)
{
	struct kvm_guest_regs regs;
	struct kp_err err = {0};

	if (argc != 2) {
		fprintf(stderr, "usage: kvm-guest-regs PID\n");
		return 2;
	}
	if (kvm_debugfs_guest_regs(NULL, atoi(argv[1]), &regs, &err)) {
		fprintf(stderr, "kvm-guest-regs: %s\n", err.msg);
		return 1;
	}
	printf("vcpu %u lstar %#" PRIx64 "\n", regs.vcpu, regs.lstar);
	return 0;
}
