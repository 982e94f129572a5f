/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The access policy as the mount applies it (lib/accesspolicy decides; this
 * file turns decisions into what FUSE answers). Two layers:
 *
 *   - permission bits: every node is root-owned and gets the owner, group and
 *     mode the policy can express (0400, 0440 with one group, 0444), which
 *     the kernel enforces because the mount uses default_permissions;
 *   - an open-time check of the caller's uid and groups, which is the only
 *     check for grants bits cannot express (several groups, user: grants,
 *     deny exceptions): such files are presented 0444 and refused here.
 *
 * Guests the policy does not expose are hidden from everyone, root included.
 * SIGHUP makes the next request reload the policy file (gm_access_refresh(),
 * called by the FUSE layer before it takes any lock); a bad file is logged
 * and the previous policy stays.
 */
#ifndef GM_ACCESS_H
#define GM_ACCESS_H

#include <stdbool.h>
#include <sys/stat.h>

#include "base/base.h"
#include "store.h"

/*
 * Load the policy at @path. @required: a missing file is an error (a path
 * given on the command line); otherwise a missing file means the built-in
 * default, every guest to root only.
 */
int gm_access_load(const char *path, bool required, struct kp_err *err);
/* Reload on the next request (async-signal-safe). */
void gm_access_request_reload(void);
/*
 * Reload the policy if SIGHUP asked for it: its user and group lookups run
 * with no lock held, so call it holding none (not the store's either).
 */
void gm_access_refresh(void);
void gm_access_release(void);

bool gm_access_exposes(const char *guest);

struct access_policy;

/*
 * The decisions themselves, on policy @p (NULL: none loaded, root only), for
 * the two functions below and for tests, which have no FUSE request.
 */
void gm_access_mode(const struct access_policy *p, const struct gm_entry *e,
		    struct stat *st);
int gm_access_decide(const struct access_policy *p, const struct gm_entry *e, uid_t uid,
		     const gid_t *gids, size_t n);

/* Owner, group and mode of @e as the kernel should see them. */
void gm_access_fill(const struct gm_entry *e, struct stat *st);

/* May the caller of the current FUSE request open @e? 0 or -EACCES. */
int gm_access_may_open(const struct gm_entry *e);

#endif
