/* SPDX-License-Identifier: GPL-2.0 */
/*
 * base: what every other part of lib/ builds on. Errors as a negative errno
 * plus a message for the user (err.h), bounded file reads and mappings
 * (fileio.h), an arena and a hash map, huge-page backed tables, the
 * sanitizing of untrusted strings before they reach a terminal or a log,
 * whether a path root relies on can be changed by others (pathtrust.h), and
 * the release (version.h).
 */
#ifndef KVMPROF_BASE_H
#define KVMPROF_BASE_H

#include "arena.h"
#include "err.h"
#include "fileio.h"
#include "hashmap.h"
#include "hugepages.h"
#include "minmax.h"
#include "pathtrust.h"
#include "sanitize.h"
#include "version.h"

#endif
