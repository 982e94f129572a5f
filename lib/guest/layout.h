/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The guest tree: the contract between guestfs-mount, which serves it, and
 * kvmprof, which reads it. Both sides name its paths only through this file.
 *
 *   MOUNT/<name>/                 one folder per configured guest
 *       kallsyms System.map vmlinux vmlinuz modules config version build-id
 *       info info.json            the guest's default kernel and its state
 *       kernels/<version>/        the same files for every installed kernel
 *       lib/modules/<version>/    module trees
 *   MOUNT/by-pid/<qemu-pid>/      what perf kvm --guestmount reads:
 *       proc/kallsyms proc/modules proc/version sys/kernel/notes
 *       lib/modules/<version>/
 *
 * perf's own layout puts <qemu-pid>/ directly under the mount; kvmprof's
 * readers accept that too.
 */
#ifndef KVMPROF_GUEST_LAYOUT_H
#define KVMPROF_GUEST_LAYOUT_H

/* guestfs-mount's guest list, which also names guests for the profiler. */
#define GUESTS_CONF_DEFAULT "/etc/kvmprof/guests.conf"
/* Where guestfs-mount serves the tree and where kvmprof looks for it. */
#define GUEST_MOUNT_DEFAULT "/var/lib/guests"

/* The folder of the by-pid view at the top of the mount: no guest may use it. */
#define GUEST_TREE_BY_PID "by-pid"

/* Files of a guest's folder (and of kernels/<version>/). */
#define GUEST_F_KALLSYMS    "kallsyms"
#define GUEST_F_SYSTEM_MAP  "System.map"
#define GUEST_F_VMLINUX	    "vmlinux"
#define GUEST_F_VMLINUZ	    "vmlinuz"
#define GUEST_F_MODULES	    "modules"
#define GUEST_F_CONFIG	    "config"
#define GUEST_F_VERSION	    "version"
#define GUEST_F_BUILD_ID    "build-id"
#define GUEST_F_NOTES	    "notes"
#define GUEST_F_INFO	    "info"
#define GUEST_F_INFO_JSON   "info.json"
#define GUEST_D_KERNELS	    "kernels"
#define GUEST_D_LIB_MODULES "lib/modules"

/* Files of a by-pid/<pid>/ folder, as perf kvm --guestmount reads them. */
#define GUEST_PID_KALLSYMS "proc/kallsyms"
#define GUEST_PID_MODULES  "proc/modules"
#define GUEST_PID_VERSION  "proc/version"
#define GUEST_PID_NOTES	   "sys/kernel/notes"

#endif
