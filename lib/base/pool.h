/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A pool of fixed-size objects: histogram rows, a hundred thousand and more
 * in a big report, each touched again at random. Packed into chunks that
 * grow to whole huge pages, they take a TLB entry per 2 MiB instead of one
 * per 4 KiB; under nested paging a TLB miss costs more than the cache miss.
 * Small tables stay in small chunks. Freed objects are reused.
 */
#ifndef KVMPROF_POOL_H
#define KVMPROF_POOL_H

#include <stddef.h>

struct pool_chunk;

struct pool {
	size_t obj_size; /* rounded up to 8 */
	struct pool_chunk *chunks;
	size_t next_chunk; /* bytes the next chunk holds */
	char *cur;	   /* unused room in the newest chunk */
	char *end;
	void *free_list; /* freed objects, each holding the next */
};

void pool_init(struct pool *p, size_t obj_size);
/* Every object goes at once; @p is ready for use again. */
void pool_release(struct pool *p);
/* A zeroed object, or NULL without memory. */
void *pool_zalloc(struct pool *p);
void pool_free(struct pool *p, void *obj);

#endif
