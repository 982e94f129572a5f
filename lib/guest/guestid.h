/* SPDX-License-Identifier: GPL-2.0 */
/* Guest names: what makes one valid, and QEMU's -name option. */
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

#endif
