// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: every kernel symbol parser behind symsrc's front door
 * (kallsyms text, System.map, ELF vmlinux and modules, compressed modules,
 * bzImage and embedded kallsyms tables), chosen by the input's content.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "ksym/ksym.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kp_err err = {0};
	struct kmod_layout layout = {0};
	struct symtab *st;

	if (symsrc_load_buffer(data, size, "fuzz", SYMSRC_MAX_DEFAULT, &st, &layout,
			       &err) == 0) {
		symtab_lookup(st, 0xffffffff81000000ULL, 0, NULL);
		symtab_free(st);
	}
	kmod_layout_release(&layout);
	return 0;
}
