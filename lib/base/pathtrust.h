/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Trusted paths. A file root acts on (a configuration, a policy, a cache)
 * is only as safe as the folders that lead to it: whoever may write any of
 * them can rename the file away and put their own in its place, whatever
 * the file's own owner and mode. So the whole path is checked, from / down,
 * as OpenSSH checks authorized_keys. Symlinks met on the way are followed
 * and the folders they lead through are checked too; a symlink's own owner
 * does not matter, only who may replace it, which its folder says.
 */
#ifndef KVMPROF_PATHTRUST_H
#define KVMPROF_PATHTRUST_H

#include <sys/stat.h>
#include <sys/types.h>

#include "err.h"

/*
 * Check that @path and every folder leading to it are owned by root or by
 * @uid (pass 0 to trust root alone) and writable by no group and no other
 * user. A folder on the way that others may write but that is sticky and
 * trusted (/tmp) passes: there only an entry's owner may rename or remove
 * it, and that owner is checked at the next step. @path itself gets no such
 * exception. A relative @path is taken from the current folder, whose own
 * path is checked too.
 *
 * Returns 0 and, when @st is not NULL, what @path names (so that a caller
 * that opened it can tell it opened what was checked). Otherwise a negative
 * errno and a message in @err that starts with @path, names the folder at
 * fault and says how to fix it, e.g.
 * "/etc/kvmprof/guests.conf: group-writable (mode 0664); fix with chmod g-w
 * /etc/kvmprof/guests.conf":
 *   -EPERM              an owner or a mode others could use
 *   -ENOENT, -EACCES, -ENOTDIR, -ELOOP, -ENAMETOOLONG   the path cannot be walked
 */
int kp_path_trusted(const char *path, uid_t uid, struct stat *st, struct kp_err *err);

#endif
