/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A kernel symbol table: symbols kept at link-time addresses, sorted. Every
 * symbol source (kallsyms text, System.map, ELF vmlinux or module,
 * compressed kernel image) fills one. Once finished a table does not
 * change: where the code runs (the KASLR slide, a module's load address)
 * is the caller's and is given to each lookup, so that one table can serve
 * guests that run the same kernel, or load the same module, at different
 * addresses.
 */
#ifndef KVMPROF_SYMTAB_H
#define KVMPROF_SYMTAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "base/err.h"

#define KP_BUILD_ID_MAX 20
#define KP_SLIDE_ALIGN	(2ULL << 20) /* x86-64 KASLR moves the kernel in 2 MiB steps */

/*
 * 32 bytes: a guest kernel's table is 160k of these, every byte of it
 * fresh memory the kernel zeroes on first touch, or a symbol cache entry's
 * pages to map. So the size is 32 bits, capped (ksym_size_cap()): no
 * function is 4 GiB long; only distances are, such as from the per-CPU
 * symbols at 0 to the kernel's text.
 */
struct ksym {
	uint64_t addr;	    /* link-time address */
	const char *name;   /* owned by the table */
	const char *module; /* NULL for the core kernel */
	uint32_t size;	    /* from the source when known, else distance to the next
			       symbol; at most UINT32_MAX */
	char type;	    /* nm-style type letter: t T d D r R b B a A w W ... */
};

#if UINTPTR_MAX == UINT64_MAX
_Static_assert(sizeof(struct ksym) == 32, "struct ksym stays 32 bytes");
#endif

static inline uint32_t ksym_size_cap(uint64_t size)
{
	return size < UINT32_MAX ? (uint32_t)size : UINT32_MAX;
}

struct arena;

struct symtab {
	struct ksym *syms; /* sorted by address; aliases keep their source order */
	size_t nr;
	uint64_t *addrs; /* distinct addresses, packed for fast binary search */
	uint32_t *best;	 /* for each, the alias lookups report (perf's choice) */
	size_t nr_addrs;
	/*
	 * Where to start looking: buckets[b] is the index of the first address
	 * at or above addrs[0] + (b << bucket_shift). A lookup searches one
	 * bucket, a cache line or two, instead of the whole array.
	 */
	uint32_t *buckets;
	size_t nr_buckets;
	unsigned int bucket_shift;
	size_t alloc;
	struct arena *strings;
	char *name_room, *name_room_end; /* room for names (symtab_reserve()) */
	void *owned;	 /* a buffer names point into (see ksymblob.c), or NULL */
	void *owned_map; /* a file mapping they point into (symcache.c), or NULL */
	size_t owned_map_len;
	/*
	 * syms, or the index (addrs, best, buckets), lie in owned_map, not in
	 * memory of the table's own: read as they are, copied before a change.
	 */
	bool syms_in_map;
	bool index_in_map;
	/*
	 * The symbols' indexes ordered by name, then index, for symtab_find()
	 * to search instead of reading every name; NULL: none (a cache entry
	 * has it, in owned_map).
	 */
	const uint32_t *by_name;
	/*
	 * A table used where a cache entry lies (symcache_entry.h), not read
	 * whole before its first use: each lookup and search checks the
	 * indexes it follows and that the names it returns lie in the entry's
	 * name area [names_lo, names_hi), which ends in a NUL. A damaged entry
	 * then costs wrong answers, never a read outside it; symtab_check()
	 * reads it all, for whatever walks every symbol.
	 */
	bool unverified;
	uintptr_t names_lo, names_hi;
	/*
	 * Where an unverified table counts what its damage made a lookup,
	 * search or symtab_check() refuse, or NULL: kept by the symbol cache,
	 * which drops such an entry (symcache_drop_damaged()).
	 */
	unsigned long *refused;
	bool sorted;
	/*
	 * syms[0, in_order) were added in address order (never more than
	 * that; less is only slower): symtab_finish() sorts the rest alone.
	 */
	size_t in_order;
	bool bounded; /* sizes come from the source: lookups past a symbol's end fail */

	uint64_t text_start; /* link-time _text (or _stext), 0 if unknown */
	uint64_t text_end;   /* link-time _etext, 0 if unknown */
	/*
	 * Set by symtab_set_text_range(): a source that found those symbols as
	 * it read them gives them before symtab_finish(), which then does not
	 * search 100k names for _etext. Cleared by symtab_finish().
	 */
	bool text_range_set;

	char source[128]; /* what the table came from, for reports */
	uint8_t build_id[KP_BUILD_ID_MAX];
	size_t build_id_len;
};

/* The names that bound a kernel's text: [_text (else _stext), _etext). */
enum symtab_text_bound { SYMTAB_TEXT, SYMTAB_STEXT, SYMTAB_ETEXT, SYMTAB_TEXT_BOUNDS };
extern const char *const symtab_text_bound_name[SYMTAB_TEXT_BOUNDS];
/* The longest of those names. */
#define SYMTAB_TEXT_BOUND_MAX 6

/* text_start and text_end from where each bound is (NULL: absent), by that rule. */
void symtab_set_text_range(struct symtab *st, const uint64_t *at[SYMTAB_TEXT_BOUNDS]);

struct symtab *symtab_new(void);
void symtab_free(struct symtab *st);

/*
 * Room for @nr more symbols and @name_bytes of their names (each name's
 * length + 1), so that adding them allocates nothing. 0 or -ENOMEM
 * (or, as for any change to a table from a damaged cache entry, -EINVAL).
 */
int symtab_reserve(struct symtab *st, size_t nr, size_t name_bytes);

/* Copies name and module. Returns 0, -ENOMEM or -EINVAL (see symtab_reserve). */
int symtab_add(struct symtab *st, uint64_t addr, char type, const char *name,
	       const char *module);
int symtab_add_len(struct symtab *st, uint64_t addr, char type, const char *name,
		   size_t name_len, const char *module);

/*
 * A copy of @name in the room symtab_reserve() set aside for names, one
 * after the other without the arena's alignment; NULL when it does not fit.
 */
static inline const char *symtab_name_in_room(struct symtab *st, const char *name,
					      size_t len)
{
	char *room = st->name_room;

	if (len >= (size_t)(st->name_room_end - room))
		return NULL;
	memcpy(room, name, len);
	room[len] = '\0';
	st->name_room = room + len + 1;
	return room;
}

/* Before the symbol at syms[nr] is counted: does it keep the table in order? */
static inline void symtab_note_order(struct symtab *st, uint64_t addr)
{
	st->in_order +=
		st->in_order == st->nr && (!st->nr || st->syms[st->nr - 1].addr <= addr);
}

/*
 * symtab_add_len() of a core-kernel symbol (no module), inline for the
 * sources that add hundreds of thousands: no call per symbol, as long as
 * the symbol and its name fit in what symtab_reserve() set aside.
 */
static inline int symtab_add_core(struct symtab *st, uint64_t addr, char type,
				  const char *name, size_t name_len)
{
	const char *copy;
	struct ksym *sym;

	if (__builtin_expect(st->nr == st->alloc, 0) ||
	    __builtin_expect(!(copy = symtab_name_in_room(st, name, name_len)), 0))
		return symtab_add_len(st, addr, type, name, name_len, NULL);
	st->by_name = NULL;
	st->sorted = false;
	sym = &st->syms[st->nr];
	symtab_note_order(st, addr);
	st->nr++;
	*sym = (struct ksym){.addr = addr, .name = copy, .type = type};
	return 0;
}

/*
 * Sort by address (stable: equal addresses keep insertion order), compute
 * sizes and the text range. Must be called before any lookup.
 */
int symtab_finish(struct symtab *st);

void symtab_set_source(struct symtab *st, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Is this type letter a text (code) symbol? */
static inline bool ksym_is_text(char type)
{
	return type == 't' || type == 'T' || type == 'W' || type == 'w';
}

/*
 * Symbol containing runtime address @addr of code placed at @slide (runtime
 * - link-time address; 0 for a table of runtime addresses): the last
 * symbol at or below @addr - @slide. NULL when that is below the first
 * symbol, or past the symbol's size in tables whose sizes come from the
 * source. *offset receives the distance from the symbol's start. Of several
 * symbols at one address, the one perf report would show is returned (see
 * best_alias).
 */
const struct ksym *symtab_lookup(const struct symtab *st, uint64_t addr, int64_t slide,
				 uint64_t *offset);

/* Like symtab_lookup, but NULL unless the address is inside kernel text. */
const struct ksym *symtab_lookup_text(const struct symtab *st, uint64_t addr,
				      int64_t slide, uint64_t *offset);

/*
 * 0, or -EINVAL when the table does not hold together: addresses and
 * indexes in order and in range, names in the name area. Only an
 * unverified table (a cache entry's) can fail; anything that walks every
 * symbol checks first.
 */
int symtab_check(const struct symtab *st);

/* First symbol with this name in the core kernel (module == NULL), or NULL. */
const struct ksym *symtab_find(const struct symtab *st, const char *name);

/*
 * For flat copies of a table (ksymblob.h, symcache_entry.h), which store a
 * module's name once for each run of its symbols: does symbol @i start
 * such a run? And the bytes all names take so, each NUL-terminated.
 */
bool symtab_module_starts(const struct symtab *st, size_t i);
size_t symtab_names_size(const struct symtab *st);

/* The symbols' indexes ordered by name, then index (see by_name), into @order[nr]. */
void symtab_order_by_name(const struct symtab *st, uint32_t *order);

/* First symbol with this name, module or not, or NULL. */
const struct ksym *symtab_find_any(const struct symtab *st, const char *name);

/* Is link-time address @addr within [_text, _etext)? False when unknown. */
bool symtab_in_text(const struct symtab *st, uint64_t addr);

/*
 * Derive the KASLR slide from one runtime anchor: a symbol name and the
 * address it was seen at at runtime. Fails with -ENOENT when the symbol is
 * absent and -EINVAL when the slide is not a multiple of KP_SLIDE_ALIGN.
 */
int symtab_slide_from_anchor(const struct symtab *st, const char *name, uint64_t runtime,
			     int64_t *slide, struct kp_err *err);

#endif
