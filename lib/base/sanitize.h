/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KVMPROF_SANITIZE_H
#define KVMPROF_SANITIZE_H

#include <stddef.h>

/*
 * Copy @in to @out (at most @size bytes with the NUL), replacing control
 * bytes and DEL with '?': symbol, module, command and guest names come from
 * guests and processes, and must not drive the user's terminal.
 */
void sanitize(const char *in, char *out, size_t size);

#endif
