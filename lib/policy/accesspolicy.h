/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The access policy (/etc/kvmprof/access.conf): which guests guestfs-mount
 * exposes, and which host users and groups may read which kinds of guest
 * kernel artifact. The format is documented in policy/access.conf and
 * policy/README.md.
 *
 * Semantics, in short: a guest that is not exposed is served to nobody, root
 * included. Root (uid 0) may read everything of an exposed guest. Anyone else
 * may read an artifact when at least one "allow" rule matches it and no
 * "deny" rule does: deny always wins, whatever the order of the lines.
 * User and group names are resolved once, when the policy is loaded.
 */
#ifndef KVMPROF_ACCESSPOLICY_H
#define KVMPROF_ACCESSPOLICY_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "base/err.h"

#define AP_DEFAULT_PATH "/etc/kvmprof/access.conf"

#define AP_MAX_FILE   (1U << 20) /* bytes in a policy file */
#define AP_MAX_LINE   1024	 /* bytes in a line, newline excluded */
#define AP_MAX_RULES  1024	 /* allow and deny lines */
#define AP_MAX_EXPOSE 256	 /* guests named by expose lines */
#define AP_MAX_TOKENS 64	 /* words in a line */
#define AP_NAME_MAX   256	 /* user and group names, NUL included */

/* What a served file is, for access decisions. */
enum artifact_kind {
	ARTIFACT_KALLSYMS,     /* kallsyms, by-pid/N/proc/kallsyms */
	ARTIFACT_SYSTEM_MAP,   /* System.map */
	ARTIFACT_VMLINUX,      /* vmlinux and vmlinuz kernel images */
	ARTIFACT_MODULES,      /* the /proc/modules-style list */
	ARTIFACT_MODULE_FILES, /* the lib/modules tree */
	ARTIFACT_CONFIG,       /* the kernel's config */
	ARTIFACT_VERSION,      /* version, by-pid/N/proc/version */
	ARTIFACT_BUILD_ID,     /* build-id, sys/kernel/notes */
	ARTIFACT_INFO,	       /* info, info.json */
	ARTIFACT_BY_PID,       /* the by-pid/<qemu-pid>/ view as a whole */
	ARTIFACT_KIND_NR,
};

/* "kallsyms", "system-map", ...: the names the policy file uses. */
const char *artifact_kind_name(enum artifact_kind kind);
int artifact_kind_parse(const char *name, enum artifact_kind *kind);

struct access_policy;

/*
 * Parse policy text. @what names the input in messages, which read
 * "what:LINE: problem". Returns 0 and a policy to release with
 * access_policy_free(), or a negative errno and a message in @err.
 */
int access_policy_parse(const char *text, size_t len, const char *what,
			struct access_policy **out, struct kp_err *err);

/*
 * Read and parse a policy file. The file must be a regular file, and it and
 * every folder leading to it must be owned by root (or by the calling user)
 * and writable by their owner only (kp_path_trusted()): a policy someone
 * else could edit or replace is refused with -EPERM.
 */
int access_policy_load(const char *path, struct access_policy **out, struct kp_err *err);

/* The built-in default, for when there is no file: every guest, root only. */
int access_policy_default(struct access_policy **out, struct kp_err *err);

void access_policy_free(struct access_policy *p);

/* Is @guest served at all? A guest that is not exposed is hidden from root too. */
bool access_policy_exposes(const struct access_policy *p, const char *guest);

/*
 * May a process with @uid and the groups @gids (its primary group and all its
 * supplementary groups) read artifacts of @kind of @guest? Files under
 * by-pid/<pid>/ need both ARTIFACT_BY_PID and their own kind: see
 * access_policy_allows_by_pid().
 */
bool access_policy_allows(const struct access_policy *p, uid_t uid, const gid_t *gids,
			  size_t ngids, const char *guest, enum artifact_kind kind);

/* access_policy_allows() for ARTIFACT_BY_PID and for @kind. */
bool access_policy_allows_by_pid(const struct access_policy *p, uid_t uid,
				 const gid_t *gids, size_t ngids, const char *guest,
				 enum artifact_kind kind);

/*
 * The owner, group and permission bits a FUSE server mounted with
 * default_permissions presents, so that the kernel enforces the policy.
 * Owner is always root. Files get 0400 (root only), 0440 with the one allowed
 * group, or 0444 (an "allow *" with no deny). Folders get the same with the
 * search bits, or 0511 (search by anyone, listing by root only) when the
 * files below are granted to several groups or users.
 *
 * @exact is false when permission bits cannot express the policy: several
 * groups, a user, or a group with deny exceptions. The bits are then the
 * fail-closed root-only ones; a server that wants to honour such grants must
 * present wider bits and decide in its open handler with
 * access_policy_allows() (see policy/README.md).
 */
struct artifact_perm {
	mode_t mode; /* permission bits only; add S_IFREG or S_IFDIR */
	uid_t uid;
	gid_t gid;
	bool exact;
};

/*
 * For a file of @kind of @guest; @by_pid for the copies under
 * by-pid/<qemu-pid>/. Returns -ENOENT when @guest is not exposed.
 */
int access_policy_file_perm(const struct access_policy *p, const char *guest,
			    enum artifact_kind kind, bool by_pid,
			    struct artifact_perm *perm);

/*
 * For a folder that holds artifacts of several kinds: @guest's own folder and
 * the folders under it (kernels/<version>/, ...), or, with @guest NULL, the
 * mount's root. With @by_pid: by-pid/<pid>/ and its folders, or, with @guest
 * NULL, by-pid/ itself. Folders holding one kind only (lib/modules/...) take
 * access_policy_file_perm()'s result with a search bit for each read bit:
 * see access_policy_dir_bits().
 */
int access_policy_dir_perm(const struct access_policy *p, const char *guest, bool by_pid,
			   struct artifact_perm *perm);

/* 0400 -> 0500, 0440 -> 0550, 0444 -> 0555. */
mode_t access_policy_dir_bits(mode_t file_mode);

#endif
