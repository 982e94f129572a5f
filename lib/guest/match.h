/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Which configured guest a VMM process runs: the one matcher that
 * guestfs-mount (for by-pid/) and kvmprof record (to name guests) share.
 *
 * Precedence: a disk image the process holds open, compared by device and
 * inode with the disks guests.conf lists, wins over QEMU's "-name" option.
 * The disk is the stronger identity: any local user can start a QEMU with
 * "-name web1", but only one that may open web1's disk can hold it open, and
 * the name in guests.conf is the one whose symbols are served. So "-name"
 * counts only for a process that runs as a trusted account (vmmtrust.h).
 */
#ifndef KVMPROF_GUEST_MATCH_H
#define KVMPROF_GUEST_MATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "guestconf.h"
#include "vmmtrust.h"

/* A configured guest's disks as the host sees them. */
struct guest_ident {
	const char *name;
	dev_t dev[GM_MAX_DISKS];
	ino_t ino[GM_MAX_DISKS];
	size_t nr;
};

/*
 * The identities of @cfg's guests (one per guest, in order), by stat() of
 * each disk; a disk that cannot be stat'ed is left out. Free with free().
 */
int guest_idents_of(const struct gm_config *cfg, struct guest_ident **out);

/*
 * Which of @guests process @pid runs: its index, or -ENOENT. One of the
 * guest's disks held open, else its -name when @trust trusts the account
 * it runs as. Any process that executes guest code may be asked;
 * guest_is_qemu() tells QEMU apart for callers that scan every process.
 */
int guest_match_pid(pid_t pid, const struct guest_ident *guests, size_t n,
		    const struct guest_trust *trust);

/* The parts of guest_match_pid(), for callers that bound their work. */
/* The guest one of whose disks @pid holds open, or -ENOENT (reads /proc/PID/fd). */
int guest_match_disk(pid_t pid, const struct guest_ident *guests, size_t n);
/* The guest @pid's -name names, whoever runs it, or -ENOENT (reads its cmdline). */
int guest_match_name(pid_t pid, const struct guest_ident *guests, size_t n);

/*
 * The name of the guest VMM process @pid runs: a configured guest's, as
 * guest_match_pid() finds it, else QEMU's -name for a guest guests.conf does
 * not list. 0; -EPERM when an untrusted process's -name is a configured
 * guest's; -ENOENT when it has neither.
 */
int guest_name_of_vmm(pid_t pid, const struct guest_ident *guests, size_t n,
		      const struct guest_trust *trust, char *name, size_t size);

/*
 * Does argv[0] of @pid say QEMU (qemu-system-*, qemu-kvm, kvm)? Reads at
 * most 4 KiB of its command line.
 */
bool guest_is_qemu(pid_t pid);

/* "1234" -> 1234; anything but a plain positive decimal number -> -1. */
pid_t guest_parse_pid(const char *s);

#endif
