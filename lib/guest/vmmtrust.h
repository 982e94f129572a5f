/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Which VMM processes may claim a guest by its name alone.
 *
 * QEMU's "-name web1" is a string any local user can pass. A process that
 * holds one of web1's disks open is web1 whoever runs it (only someone who
 * may open the disk can), but a name proves nothing: it is believed only
 * from a process that runs as root, as the account that runs the host's
 * QEMUs ("qemu-user" in guests.conf; by default libvirt's "libvirt-qemu"
 * when that account exists), or as the user asking (kvmprof record run by a
 * user labels that user's own processes; the daemon runs as root).
 */
#ifndef KVMPROF_GUEST_VMMTRUST_H
#define KVMPROF_GUEST_VMMTRUST_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "base/err.h"
#include "guestconf.h"

/* libvirt's QEMU account on Debian, trusted when qemu-user is not set. */
#define GUEST_QEMU_USER_DEFAULT "libvirt-qemu"

struct guest_trust {
	uid_t uids[3]; /* root, the caller, the QEMU user */
	size_t nr;
	char qemu_user[33]; /* its name, "" when there is none; for messages */
};

/*
 * The accounts @cfg's guests may run as. A configured qemu-user that does
 * not exist is an error (-EINVAL, @err names it); without one, libvirt's
 * default account is trusted when it exists, and otherwise only root and
 * the caller are.
 */
int guest_trust_of(const struct gm_config *cfg, struct guest_trust *t,
		   struct kp_err *err);

/*
 * Does @pid run as a trusted account? Every one of its real, effective,
 * saved and filesystem uids must be. Read from /proc/PID/status, not from
 * the owner of /proc/PID: a process that makes itself undumpable shows
 * /proc/PID as root's.
 */
bool guest_vmm_trusted(const struct guest_trust *t, pid_t pid, uid_t *uid);

#endif
