/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KVMPROF_DEMANGLE_H
#define KVMPROF_DEMANGLE_H

#include <stddef.h>

/*
 * C++ symbol name as perf report shows it by default (no parameter list):
 * "pkgCache::FindGrp" for "_ZN8pkgCache7FindGrpEN3APT10StringViewE". Returns
 * a malloc'ed string, or NULL when @name is not a mangled C++ name.
 */
char *demangle(const char *name);

#endif
