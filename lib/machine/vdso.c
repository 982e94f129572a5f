// SPDX-License-Identifier: GPL-2.0
#include "vdso.h"

#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/auxv.h>

/* Its size is its mapping's: the auxiliary vector gives only the start. */
static size_t mapping_size(uintptr_t start)
{
	FILE *f = fopen("/proc/self/maps", "re");
	char line[512];
	size_t len = 0;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		uintmax_t lo, hi;

		if (sscanf(line, "%jx-%jx", &lo, &hi) == 2 && lo == start && hi > lo &&
		    strstr(line, "[vdso]")) {
			len = (size_t)(hi - lo);
			break;
		}
	}
	fclose(f);
	return len;
}

int vdso_image(const void **base, size_t *len)
{
	uintptr_t start = (uintptr_t)getauxval(AT_SYSINFO_EHDR);

	if (!start)
		return -ENOENT;
	*len = mapping_size(start);
	if (!*len)
		return -ENOENT;
	*base = (const void *)start;
	return 0;
}
