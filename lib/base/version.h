/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The release of kvmprof and guestfs-mount. Its one source is the top-level
 * VERSION file, which the Makefile passes to version.c alone.
 */
#ifndef KVMPROF_VERSION_H
#define KVMPROF_VERSION_H

/* The release, e.g. "0.1". */
extern const char kp_version[];
/*
 * "kvmprof RELEASE": what kvmprof --version prints and what kvmprof record
 * writes as the perf.data VERSION feature.
 */
extern const char kp_version_line[];

#endif
