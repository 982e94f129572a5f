// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: a symbol cache entry (symcache_entry.h), as a damaged
 * or forged file would present it. The first byte chooses the path: the
 * entry copied elsewhere than the address it names (its symbols copied,
 * their pointers moved), or taken as mapped at that address (its symbols
 * used where they lie); then lookups by address and by name, and a walk
 * of every symbol.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ksym/ksym.h"
#include "ksym/symcache_entry.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/*
 * Used in place, a table is checked only where it is read: the names to
 * search for are those lookups return. Whatever walks every symbol
 * (kallsyms_write) must find the damage first.
 */
static void use(const struct symtab *st)
{
	static const char *const names[] = {"_text", "entry_SYSCALL_64", "_etext", ""};
	static FILE *null;
	const struct ksym *s;

	for (size_t i = 0; i < st->nr; i += 1 + st->nr / 8) {
		s = symtab_lookup(st, st->syms[i].addr, 0, NULL);
		if (s)
			symtab_find(st, s->name);
		symtab_lookup(st, st->syms[i].addr - 1, 0, NULL);
	}
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		symtab_find(st, names[i]);
	symtab_find_any(st, "no_such_symbol");
	symtab_lookup(st, 0xffffffff81000000ULL, 0, NULL);
	if (!null)
		null = fopen("/dev/null", "w");
	if (null && kallsyms_write(st, 0, null) != (symtab_check(st) ? -EINVAL : 0))
		abort();
}

/*
 * What mapping the entry at the address it names would give: that address
 * is the buffer's, and the symbols' pointers (mutated or not) move with it.
 */
static void map_at_base(uint8_t *entry, size_t size)
{
	struct entry_header h;
	uintptr_t delta;

	memcpy(&h, entry, sizeof(h));
	delta = (uintptr_t)entry - (uintptr_t)h.base;
	if (h.syms_off % 8 == 0 && h.nr <= size / sizeof(struct ksym) &&
	    h.syms_off <= size - h.nr * sizeof(struct ksym)) {
		struct ksym *syms = (struct ksym *)(entry + h.syms_off);

		for (size_t i = 0; i < h.nr; i++) {
			syms[i].name = (const char *)((uintptr_t)syms[i].name + delta);
			if (syms[i].module)
				syms[i].module =
					(const char *)((uintptr_t)syms[i].module + delta);
		}
	}
	h.base = (uint64_t)(uintptr_t)entry;
	memcpy(entry, &h, sizeof(h));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct symtab *st = NULL;
	uint8_t *entry;
	bool in_place;

	if (size < 1)
		return 0;
	in_place = data[0] & 1;
	data++;
	size--;
	/* Page-aligned, as a mapping is; and owned, as the table borrows it. */
	entry = aligned_alloc(4096, (size + 4095) / 4096 * 4096 + 4096);
	if (!entry)
		return 0;
	memcpy(entry, data, size);
	if (in_place && size >= sizeof(struct entry_header))
		map_at_base(entry, size);
	if (!symcache_entry_table(entry, size, "fuzz", &st, NULL)) {
		/* At the address it names, an entry's symbols are used where they lie. */
		if (in_place && !st->syms_in_map)
			abort();
		use(st);
		symtab_free(st);
	}
	free(entry);
	return 0;
}
