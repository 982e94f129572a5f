/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Running guests: which QEMU process runs which configured guest. A QEMU
 * process is matched by the disk images it holds open (/proc/PID/fd,
 * compared by device and inode with the configured disks), else by its
 * "-name" option. The daemon's own appliance (a child QEMU) is never a guest.
 */
#ifndef GM_RUNNING_H
#define GM_RUNNING_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "config.h"

struct gm_ident {
	const char *name;
	dev_t dev[GM_MAX_DISKS];
	ino_t ino[GM_MAX_DISKS];
	size_t nr;
};

/* Is @pid a QEMU process running one of @guests? Its index, or -1. */
int gm_running_guest(pid_t pid, const struct gm_ident *guests, size_t n);

/* Every running guest's QEMU pid (at most @max), with the guest's index in @idx. */
size_t gm_running_scan(pid_t *pids, int *idx, size_t max, const struct gm_ident *guests,
		       size_t n);

/* "1234" -> 1234; anything but a plain positive decimal number -> -1. */
pid_t gm_parse_pid(const char *s);

#endif
