/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Whether this host can run KVM guests at all right now. The kernel samples
 * guest mode only through the callbacks KVM registers, which it does as it
 * sets up a CPU vendor's virtualization (kvm_intel, kvm_amd); only then does
 * it register /dev/kvm. Without that device no sample can be a guest's, and
 * a recording has no guest to name while it runs. KVM's own module folder
 * says less: KVM can be built in, or loaded, on a CPU that offers it no
 * virtualization, as in a VM without nested virtualization.
 */
#ifndef KVMPROF_GUEST_KVMHOST_H
#define KVMPROF_GUEST_KVMHOST_H

#include <stdbool.h>

/* The kvm misc device, in sysfs: seen even where /dev is a container's. */
#define KVM_DEVICE_SYSFS "/sys/class/misc/kvm"

/*
 * True when KVM can run guests: KVM_DEVICE_SYSFS or /dev/kvm exists. The
 * environment variable KVMPROF_KVM_DEVICE names a path to test instead of
 * both (tests take either side with it on any machine). A check is one
 * access() or two.
 */
bool kvm_is_loaded(void);

#endif
