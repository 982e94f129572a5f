/* SPDX-License-Identifier: GPL-2.0 */
/* Guest identity: QEMU process <-> guest name. */
#ifndef KVMPROF_GUESTID_H
#define KVMPROF_GUESTID_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#define GUEST_NAME_MAX 64

/*
 * Guest names become path components under /var/lib/guests: no '/', not
 * "." or "..", no control characters or spaces, at most GUEST_NAME_MAX - 1 bytes.
 */
bool guest_name_valid(const char *name);

/*
 * The name given to QEMU with "-name guest=NAME[,...]" or "-name NAME" in a
 * NUL-separated command line. Returns 0, or -ENOENT when there is none and
 * -EINVAL when it is not a valid guest name.
 */
int guest_name_from_argv(const char *cmdline, size_t len, char *name, size_t size);

/* Same, from /proc/PID/cmdline. */
int guest_name_of_pid(pid_t pid, char *name, size_t size);

/*
 * The guest whose disk image process @pid holds open: the `guest NAME`
 * block of @conf (guestfs-mount's format; other directives are skipped) with
 * a `disk FORMAT PATH` that is, by device and inode, one of the files in
 * /proc/PID/fd.
 * Returns 0, -ENOENT when none matches, or the error reading @conf.
 */
int guest_name_from_disks(pid_t pid, const char *conf, char *name, size_t size);

#endif
