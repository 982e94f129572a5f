// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: what kvmprof guests takes from a QEMU process's command
 * line and thread names (lib/guest/vmproc.c). Any local user writes these.
 * Input: NUL-separated arguments, as /proc/PID/cmdline holds them.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "guest/guest.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct vmproc vm;
	/* An exact copy plus a NUL, so that reading past the end is an ASan report. */
	char *s = malloc(size + 1);

	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	memset(&vm, 0, sizeof(vm));
	vmproc_disks_from_argv(s, size, &vm);
	if (vm.nr_disks > VMPROC_MAX_DISKS)
		__builtin_trap();
	for (size_t i = 0; i < vm.nr_disks; i++)
		if (!vm.disks[i].path[0] ||
		    !memchr(vm.disks[i].path, '\0', VMPROC_PATH_MAX))
			__builtin_trap(); /* every disk is a terminated, non-empty path */
	vmproc_argv_is_appliance(s, size);
	if (vmproc_vcpu_index(s) < -1)
		__builtin_trap();
	free(s);
	return 0;
}
