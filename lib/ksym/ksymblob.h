/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A symbol table as one compact, compressed blob, for embedding in
 * perf.data: a recording then carries the symbols of the kernel it ran on,
 * so a report needs neither /proc/kallsyms (slow to generate: ~50 ms for
 * 120k symbols) nor the same machine. It is an LZ4 frame (fast level since
 * the high-compression one took 200 ms of each recording's start), which
 * every report decodes in ~1.6 ms for 120k symbols against ~3.5 ms for
 * zstd; files from earlier versions hold a zstd frame, still read.
 *
 * Uncompressed layout, little-endian:
 *   char magic[8] "KPKSYM1\0", u64 nr, u64 names_len, i64 unused (0),
 *   u64 addrs[nr], u32 name_off[nr], u32 module_off[nr] (~0: core kernel),
 *   u8 types[nr], char names[names_len] (NUL-terminated strings)
 */
#ifndef KVMPROF_KSYMBLOB_H
#define KVMPROF_KSYMBLOB_H

#include <stddef.h>

#include "base/err.h"
#include "ksym/symtab.h"

int ksymblob_encode(const struct symtab *st, void **out, size_t *out_len);
int ksymblob_decode(const void *blob, size_t len, const char *what, struct symtab **out,
		    struct kp_err *err);

#endif
