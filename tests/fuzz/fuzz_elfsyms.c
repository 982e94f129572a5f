// SPDX-License-Identifier: GPL-2.0
/* libFuzzer target: ELF symbol readers (vmlinux, module, user-space). */
#include <stddef.h>
#include <stdint.h>

#include "ksym/ksym.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kmod_layout layout = {0};
	struct elf_segments segs = {0};
	struct symtab *st;

	st = symtab_new();
	elfsyms_load_vmlinux(data, size, "fuzz", st, NULL);
	symtab_free(st);
	st = symtab_new();
	elfsyms_load_module(data, size, "fuzz", st, &layout, NULL);
	kmod_layout_release(&layout);
	symtab_free(st);
	st = symtab_new();
	if (!elfsyms_load_user(data, size, "fuzz", st, &segs, NULL))
		elf_segments_offset_to_vaddr(&segs, 0x1000);
	elf_segments_release(&segs);
	symtab_free(st);
	return 0;
}
