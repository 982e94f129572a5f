// SPDX-License-Identifier: GPL-2.0
#include "pool.h"

#include <stdlib.h>
#include <string.h>

#include "hugepages.h"

#define POOL_FIRST_CHUNK (64 * 1024)

struct pool_chunk {
	struct pool_chunk *next;
	/* objects follow, 8-byte aligned */
};

void pool_init(struct pool *p, size_t obj_size)
{
	memset(p, 0, sizeof(*p));
	p->obj_size =
		(obj_size < sizeof(void *) ? sizeof(void *) : obj_size + 7) & ~(size_t)7;
	p->next_chunk = POOL_FIRST_CHUNK;
}

void pool_release(struct pool *p)
{
	struct pool_chunk *c, *next;

	for (c = p->chunks; c; c = next) {
		next = c->next;
		free(c);
	}
	pool_init(p, p->obj_size);
}

/* Chunks double up to a huge page, then stay there. */
static int add_chunk(struct pool *p)
{
	size_t size = p->next_chunk;
	struct pool_chunk *c;

	if (size < sizeof(*c) + p->obj_size)
		size = sizeof(*c) + p->obj_size;
	c = kp_alloc_huge(size);
	if (!c)
		return -1;
	c->next = p->chunks;
	p->chunks = c;
	p->cur = (char *)(c + 1);
	p->end = (char *)c + size;
	/* 512 KiB, then a whole huge page: a 1 MiB chunk would take one anyway. */
	if (p->next_chunk < KP_HUGE_PAGE)
		p->next_chunk = p->next_chunk * 2 >= KP_HUGE_PAGE / 2 ? KP_HUGE_PAGE
								      : p->next_chunk * 2;
	return 0;
}

void *pool_zalloc(struct pool *p)
{
	void *obj = p->free_list;

	if (obj) {
		memcpy(&p->free_list, obj, sizeof(void *));
	} else {
		if ((size_t)(p->end - p->cur) < p->obj_size && add_chunk(p))
			return NULL;
		obj = p->cur;
		p->cur += p->obj_size;
	}
	memset(obj, 0, p->obj_size);
	return obj;
}

void pool_free(struct pool *p, void *obj)
{
	if (!obj)
		return;
	memcpy(obj, &p->free_list, sizeof(void *));
	p->free_list = obj;
}
