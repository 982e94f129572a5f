// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: bzImage setup header and payload, and the embedded
 * kallsyms table decoder run directly on the input as a kernel ELF.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "ksym/ksym.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct symtab *st = symtab_new();
	void *elf;
	size_t len;

	if (!kimage_extract(data, size, KP_DECOMPRESS_MAX, &elf, &len, NULL))
		free(elf);
	kallsyms_tables_decode(data, size, st, NULL);
	symtab_free(st);
	return 0;
}
