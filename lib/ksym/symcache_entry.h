/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A symbol cache entry's layout (symcache.h says what the cache is for).
 *
 * An entry is a finished table, laid out as the process that maps it will
 * use it: the struct ksym array, the address index (symtab.h: addrs, best,
 * buckets), the order by name (by_name) and the names, behind a header. The index holds
 * numbers only and is used where it lies. The symbols hold pointers to their names: the
 * entry is written for one address, chosen from the file's identity in a
 * part of the address space that nothing else uses, and mapped there when
 * that is free. Then nothing is copied, and no memory of the process's own
 * is touched: on these machines a fresh megabyte costs about a millisecond
 * to fault in, a mapped page of the page cache next to nothing. Elsewhere
 * the symbols are copied and their pointers moved.
 *
 * Either way every pointer, offset and index is checked before use: the
 * entry is a file, and a file can be damaged. A copy is checked whole; an
 * entry used in place is checked where lookups read it (symtab.h:
 * unverified): reading all of a guest kernel's 13 MB entry took a fifth
 * of a cached guest report's CPU time.
 */
#ifndef KVMPROF_SYMCACHE_ENTRY_H
#define KVMPROF_SYMCACHE_ENTRY_H

#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include "base/err.h"
#include "symtab.h"

#define SYMCACHE_ENTRY_MAGIC "KPSYMC4"

/* Everything a stat() says that a change to the file would change. */
struct image_id {
	uint64_t dev;
	uint64_t ino;
	uint64_t size;
	int64_t mtime_sec;
	int64_t mtime_nsec;
	int64_t ctime_sec;
	int64_t ctime_nsec;
};

/* The header, then the arrays it places, in the machine's own byte order. */
struct entry_header {
	char magic[8];
	struct image_id id;
	uint64_t kernel_len; /* the decompressed kernel's size; 0 for text */
	uint64_t len;	     /* the whole entry's */
	char source[128];
	uint8_t build_id[KP_BUILD_ID_MAX];
	uint32_t build_id_len;
	uint64_t base; /* the address it was laid out for */
	/* Offsets from the entry's start. */
	uint64_t nr, syms_off;
	uint64_t nr_addrs, addrs_off, best_off;
	uint64_t nr_buckets, buckets_off;
	uint64_t by_name_off; /* u32[nr]: symtab.h's by_name */
	uint64_t names_off, names_len;
	uint64_t text_start, text_end;
	uint32_t bucket_shift;
	uint32_t bounded;
};

struct image_id image_id_of(const struct stat *sb);
uint64_t image_id_hash(const struct image_id *id);

/* The address an entry for @id is laid out for: page-aligned, never 0. */
uint64_t symcache_entry_base(const struct image_id *id);

/*
 * Lay finished table @st out as an entry whose header starts as @proto
 * (magic, identity, kernel size, source, build-id). *out is malloc()ed.
 * 0, -EINVAL for a table that symtab_finish() has not indexed, -EFBIG, or
 * -ENOMEM.
 */
int symcache_entry_encode(const struct symtab *st, const struct entry_header *proto,
			  void **out, size_t *len);

/*
 * The table of the entry mapped at @map (@len bytes), which stays mapped
 * for the table's life (the caller hands it over as owned_map). @why says
 * what is wrong with a bad entry (-EINVAL) and names it by @path.
 */
int symcache_entry_table(const void *map, size_t len, const char *path,
			 struct symtab **out, struct kp_err *why);

#endif
