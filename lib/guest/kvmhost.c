// SPDX-License-Identifier: GPL-2.0
#include "kvmhost.h"

#include <stdlib.h>
#include <unistd.h>

bool kvm_is_loaded(void)
{
	const char *path = getenv("KVMPROF_KVM_DEVICE");

	if (path)
		return access(path, F_OK) == 0;
	return access(KVM_DEVICE_SYSFS, F_OK) == 0 || access("/dev/kvm", F_OK) == 0;
}
