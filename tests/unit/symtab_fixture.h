/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A small kernel symbol table for tests of what stores and restores tables:
 * core kernel symbols with an alias, [_text, _etext), and two in module kvm;
 * and the check that a restored table is the same.
 */
#ifndef KVMPROF_SYMTAB_FIXTURE_H
#define KVMPROF_SYMTAB_FIXTURE_H

#include "ksym/ksym.h"

static inline struct symtab *sample_kernel_table(void)
{
	struct symtab *st = symtab_new();

	assert_non_null(st);
	assert_int_equal(symtab_add(st, 0xffffffff81000000ULL, 'T', "_text", NULL), 0);
	assert_int_equal(symtab_add(st, 0xffffffff81000000ULL, 't', "startup_64", NULL),
			 0);
	assert_int_equal(
		symtab_add(st, 0xffffffff81001000ULL, 'T', "do_syscall_64", NULL), 0);
	assert_int_equal(symtab_add(st, 0xffffffff82000000ULL, 'T', "_etext", NULL), 0);
	assert_int_equal(symtab_add(st, 0xffffffffc0000000ULL, 't', "kvm_init", "kvm"),
			 0);
	assert_int_equal(symtab_add(st, 0xffffffffc0001000ULL, 't', "kvm_exit", "kvm"),
			 0);
	assert_int_equal(symtab_finish(st), 0);
	return st;
}

/* The same symbols, in the same order, with the same sizes and modules. */
static inline void assert_same_symbols(const struct symtab *a, const struct symtab *b)
{
	assert_int_equal(a->nr, b->nr);
	for (size_t i = 0; i < a->nr; i++) {
		assert_true(a->syms[i].addr == b->syms[i].addr);
		assert_true(a->syms[i].size == b->syms[i].size);
		assert_int_equal(a->syms[i].type, b->syms[i].type);
		assert_string_equal(a->syms[i].name, b->syms[i].name);
		if (a->syms[i].module)
			assert_string_equal(a->syms[i].module, b->syms[i].module);
		else
			assert_null(b->syms[i].module);
	}
	/* And the index: each address, and the byte before it, look up alike. */
	assert_int_equal(a->nr_addrs, b->nr_addrs);
	for (size_t i = 0; i < a->nr; i++) {
		for (uint64_t at = a->syms[i].addr - 1; at <= a->syms[i].addr; at++) {
			const struct ksym *x = symtab_lookup(a, at, 0, NULL);
			const struct ksym *y = symtab_lookup(b, at, 0, NULL);

			assert_true(!x == !y);
			if (x)
				assert_int_equal(x - a->syms, y - b->syms);
		}
	}
}

#endif
