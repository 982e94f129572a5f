/* SPDX-License-Identifier: GPL-2.0 */
/* The FUSE operations: a thin, read-only layer over store.h and access.h. */
#ifndef GM_FS_H
#define GM_FS_H

#define FUSE_USE_VERSION 312
#include <fuse.h>

extern const struct fuse_operations gm_fs_ops;

#endif
