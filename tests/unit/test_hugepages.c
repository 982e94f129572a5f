// SPDX-License-Identifier: GPL-2.0
/*
 * The heap on huge pages (kp_heap_on_huge_pages()): after it, small
 * allocations that fill several MiB cost a fault per 2 MiB, not one per
 * 4 KiB, and the heap is advised huge where malloc() has not written.
 */
#include <setjmp.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <cmocka.h>

#include "base/hugepages.h"

#if defined(__SANITIZE_ADDRESS__)
#define MALLOC_IS_GLIBC false /* ASan's allocator does not use the heap */
#else
#define MALLOC_IS_GLIBC true
#endif

/* Can this kernel give anonymous memory huge pages when asked? */
static bool thp_on_request(void)
{
	FILE *f = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");
	char line[128] = "";
	bool ok;

	if (!f)
		return false;
	ok = fgets(line, sizeof(line), f) && !strstr(line, "[never]");
	fclose(f);
	return ok;
}

/* The largest [heap] mapping flagged huge ("hg"), in bytes; 0 when none. */
static size_t advised_heap(void)
{
	FILE *f = fopen("/proc/self/smaps", "r");
	char line[512];
	unsigned long lo = 0, hi = 0;
	bool heap = false;
	size_t best = 0;

	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2 && strchr(line, ' '))
			heap = strstr(line, "[heap]") != NULL;
		else if (heap && !strncmp(line, "VmFlags:", 8) && strstr(line, " hg") &&
			 hi - lo > best)
			best = hi - lo;
	}
	fclose(f);
	return best;
}

static long minor_faults(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_minflt;
}

enum { SMALL = 1000, COUNT = 6000 }; /* about 6 MiB of small allocations */

/* Set up first thing in main(), as kvmprof's main() does. */
static void test_small_allocations_on_huge_pages(void **state)
{
	static char *blocks[COUNT];
	long before;

	(void)state;
	if (!MALLOC_IS_GLIBC || !thp_on_request())
		skip();
	assert_true(advised_heap() >= KP_HEAP_HUGE);
	before = minor_faults();
	for (size_t i = 0; i < COUNT; i++) {
		blocks[i] = malloc(SMALL);
		assert_non_null(blocks[i]);
		memset(blocks[i], (int)i, SMALL);
	}
	/* 1500 faults on 4 KiB pages; a handful of 2 MiB ones, and slack. */
	assert_true(minor_faults() - before < 100);
	for (size_t i = 0; i < COUNT; i++)
		free(blocks[i]);
}

/* A symbol table's reserved array, written from its start, after that. */
static void test_large_buffer_after_them(void **state)
{
	size_t len = 24UL << 20, used = 8UL << 20;
	char *p;
	long before;

	(void)state;
	if (!MALLOC_IS_GLIBC || !thp_on_request())
		skip();
	p = kp_alloc_huge(len);
	assert_non_null(p);
	before = minor_faults();
	memset(p, 1, used);
	assert_true(minor_faults() - before < 50);
	free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_small_allocations_on_huge_pages),
		cmocka_unit_test(test_large_buffer_after_them),
	};

	kp_reuse_large_frees();
	kp_heap_on_huge_pages();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
