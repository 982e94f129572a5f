/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Large buffers filled once and read many times (decompressed symbol
 * tables, their indexes) cost a page fault per 4 KiB when first written:
 * a few thousand faults, a third of a small report's time. Asking for
 * transparent huge pages before the first write makes that a handful.
 */
#ifndef KVMPROF_HUGEPAGES_H
#define KVMPROF_HUGEPAGES_H

#include <malloc.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#define KP_HUGE_PAGE (2UL << 20)

/*
 * Advise the whole 2 MiB pages inside [p, p + len) to be huge. Only a hint:
 * memory already touched keeps its pages, and kernels without THP ignore it.
 */
static inline void kp_advise_huge(void *p, size_t len)
{
	uintptr_t start = ((uintptr_t)p + KP_HUGE_PAGE - 1) & ~(KP_HUGE_PAGE - 1);
	uintptr_t end = ((uintptr_t)p + len) & ~(KP_HUGE_PAGE - 1);

	if (len >= KP_HUGE_PAGE && end > start)
		madvise((void *)start, end - start, MADV_HUGEPAGE);
}

/*
 * malloc() for such a buffer, aligned so that all of it can be huge pages
 * (a 5 MiB buffer at an arbitrary address holds one or two). On these
 * machines a 4 KiB fault costs about 10 us and a huge page's, clearing
 * included, 120 us: twelve small faults. So the last part of a buffer of
 * a huge page or more is rounded up to a whole one from 128 KiB on (32
 * faults; a 160k-symbol table's 2.3 MiB address index took 90), and a
 * smaller buffer from half a huge page on: a report holds many tables of a
 * few hundred KiB, and 2 MiB for each would double its resident memory.
 * free() it.
 */
static inline void *kp_alloc_huge(size_t len)
{
	size_t size = len;
	void *p = NULL;

	if (len % KP_HUGE_PAGE >=
	    (len < KP_HUGE_PAGE ? KP_HUGE_PAGE / 2 : KP_HUGE_PAGE / 16))
		size = (len + KP_HUGE_PAGE - 1) & ~(KP_HUGE_PAGE - 1);
	if (size < KP_HUGE_PAGE)
		return malloc(len ? len : 1);
	if (posix_memalign(&p, KP_HUGE_PAGE, size))
		return NULL;
	kp_advise_huge(p, size);
	return p;
}

/*
 * Serve large allocations up to 32 MiB from the heap rather than from
 * mappings of their own, so that memory a process frees (a table's old
 * copy after it grew) is what its next large buffers reuse. On these
 * virtual machines the first touch of fresh memory costs about 1 ms per
 * MiB and of memory the process freed itself a twentieth of that; glibc
 * would otherwise return each freed mapping and fault the next one in
 * afresh. Call once, before allocating.
 */
static inline void kp_reuse_large_frees(void)
{
	mallopt(M_MMAP_THRESHOLD, 32 << 20);
}

#define KP_HEAP_HUGE (16UL << 20)

/*
 * The small allocations too: a report's hash tables, rows, maps and
 * buffers touch a few hundred 4 KiB pages of heap, a fault each, 10 us
 * apiece here (a third of a short report). So the heap grows by
 * KP_HEAP_HUGE at once, advised huge before anything is written there: a
 * fault per 2 MiB.
 *
 * A huge page can only back a 2 MiB extent none of whose 4 KiB pages were
 * touched, and malloc() (glibc's) writes a chunk header where new memory
 * starts and where the chunk it returns ends, which is where the heap's
 * free top then starts. So the break is moved to one page below a huge
 * page boundary (the gap is never touched), and a first chunk is taken
 * from there that ends 16 bytes short of the next boundary: both headers
 * land outside the extents after it, where all later allocations come
 * from. That chunk is kept (2 MiB of address space, two pages of memory).
 * malloc()'s own first allocation (its per-thread cache) is made before,
 * in a heap of one page: made inside the new memory, it would shift the
 * headers into it; in a heap of the usual 132 KiB, the small allocations
 * would first fill that, a fault per page.
 *
 * The heap is only trimmed past twice KP_HEAP_HUGE: memory given back
 * would come back without the advice. Growth past it, and a heap malloc()
 * had begun before (a library's constructor), keep 4 KiB pages; with
 * another malloc(), fewer extents or none are huge and nothing else
 * changes. Call once, after kp_reuse_large_frees(), before allocating
 * much.
 */
static inline void kp_heap_on_huge_pages(void)
{
	/* glibc's chunk of a request of n bytes: n + 8, rounded up to 16. */
	static const size_t first_request = KP_HUGE_PAGE + 4096 - 16 - 8;
	static void *first;
	void *volatile warm; /* not optimised away with its free() */
	uintptr_t brk0, huge;

	if (first)
		return;
	/* malloc()'s own first allocation made now, in a heap of one page. */
	mallopt(M_TOP_PAD, 0);
	warm = malloc(1);
	free(warm);
	brk0 = (uintptr_t)sbrk(0);
	if (brk0 == (uintptr_t)-1)
		return;
	huge = ((brk0 + 4096 + KP_HUGE_PAGE - 1) & ~(KP_HUGE_PAGE - 1)) + KP_HUGE_PAGE;
	if (sbrk((intptr_t)(huge - KP_HUGE_PAGE - 4096 - brk0)) == (void *)-1)
		return;
	mallopt(M_TOP_PAD, KP_HEAP_HUGE);
	mallopt(M_TRIM_THRESHOLD, 2 * KP_HEAP_HUGE);
	first = malloc(first_request);
	mallopt(M_TOP_PAD, 128 * 1024); /* glibc's default again */
	if (first && (uintptr_t)sbrk(0) >= huge + KP_HEAP_HUGE)
		madvise((void *)huge, KP_HEAP_HUGE, MADV_HUGEPAGE);
}

#endif
