/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ksym: kernel symbols. Every file a kernel ships in (/proc/kallsyms text,
 * System.map, ELF vmlinux and modules, compressed kernel images whose
 * kallsyms tables are decoded directly) becomes the same immutable symbol
 * table (symtab.h), through one entry point (symsrc.h). Decompression and
 * build-ids live here too, since every source needs them, and the KASLR
 * slide a kernel's LSTAR implies (kaslr.h); so does a table's compact
 * serialized form (ksymblob.h), which perf.data embeds and the symbol
 * cache stores (symcache.h).
 */
#ifndef KVMPROF_KSYM_H
#define KVMPROF_KSYM_H

#include "symtab.h"
#include "kaslr.h"
#include "symsrc.h"
#include "elfsyms.h"
#include "kallsyms.h"
#include "kimage.h"
#include "decompress.h"
#include "buildid.h"
#include "demangle.h"
#include "ksymblob.h"
#include "symcache.h"

#endif
