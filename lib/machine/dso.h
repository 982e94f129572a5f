/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A DSO: one object code lives in (an executable, a shared library, a
 * kernel), with its symbol table loaded on first use. DSOs are shared by
 * every process that maps them, through a cache keyed by path.
 */
#ifndef KVMPROF_DSO_H
#define KVMPROF_DSO_H

#include <stdbool.h>
#include <stdint.h>

#include "ksym/elfsyms.h"
#include "base/hashmap.h"
#include "ksym/symtab.h"

enum dso_kind {
	DSO_USER,   /* ELF file on the host */
	DSO_KERNEL, /* a kernel symbol table (host or guest) */
};

struct dso {
	char *name; /* path, or [kernel.kallsyms] / [guest.kernel.kallsyms.PID] */
	const char *short_name; /* basename, for the report column */
	enum dso_kind kind;
	struct symtab *symtab; /* NULL until loaded, or when loading failed */
	struct elf_segments segs;
	bool tried;
	bool build_id_mismatch;
	uint8_t want_build_id[KP_BUILD_ID_MAX];
	size_t want_build_id_len;
	char *error; /* why symbols are missing, for the report header */
};

struct dso_cache {
	struct hashmap by_name;
};

void dso_cache_init(struct dso_cache *c);
void dso_cache_release(struct dso_cache *c);
struct dso *dso_cache_get(struct dso_cache *c, const char *name, enum dso_kind kind);

/* Symbol tables given by the caller (kernels) instead of loaded from a path. */
void dso_set_symtab(struct dso *d, struct symtab *st);

/*
 * Symbol for a user-space sample: @file_off is the address's offset in the
 * file (ip - map start + map pgoff). Loads the ELF on first use.
 */
const struct ksym *dso_lookup_user(struct dso *d, uint64_t file_off, uint64_t *offset);

#endif
