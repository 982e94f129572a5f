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

/*
 * A watch for KVM coming up, so that a recorder need not look for it at
 * each wake-up: an inotify descriptor (non-blocking) that turns readable
 * when an entry is created in, or moved into, the device's folder (/dev,
 * where devtmpfs adds kvm as KVM registers it; or KVMPROF_KVM_DEVICE's).
 * Open it before the first kvm_is_loaded(), so that nothing falls between.
 * Returns the descriptor or -errno. A container whose /dev is its own sees
 * no device come: KVM_DEVICE_SYSFS alone cannot be watched.
 */
int kvm_watch_open(void);

/* After the watch turned readable: its events taken, and whether KVM is up. */
bool kvm_watch_check(int fd);

#endif
