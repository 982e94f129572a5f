// SPDX-License-Identifier: GPL-2.0
/* libFuzzer target: /proc/kallsyms and System.map text. */
#include <stddef.h>
#include <stdint.h>

#include "ksym/ksym.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct symtab *st = symtab_new();

	if (st && !kallsyms_parse((const char *)data, size, "fuzz", st, NULL))
		symtab_lookup(st, 0xffffffff81000000ULL, 0, NULL);
	symtab_free(st);
	return 0;
}
