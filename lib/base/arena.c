// SPDX-License-Identifier: GPL-2.0
#include "arena.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "hugepages.h"

#define ARENA_CHUNK (256 * 1024)

struct arena_chunk {
	struct arena_chunk *next;
	size_t used;
	size_t cap;
	char data[];
};

struct arena {
	struct arena_chunk *head;
};

struct arena *arena_new(void)
{
	return calloc(1, sizeof(struct arena));
}

void arena_free(struct arena *a)
{
	struct arena_chunk *c, *next;

	if (!a)
		return;
	for (c = a->head; c; c = next) {
		next = c->next;
		free(c);
	}
	free(a);
}

static struct arena_chunk *add_chunk(struct arena *a, size_t cap)
{
	struct arena_chunk *c = kp_alloc_huge(sizeof(*c) + cap);

	if (!c)
		return NULL;
	c->used = 0;
	c->cap = cap;
	c->next = a->head;
	a->head = c;
	return c;
}

/* Inlined into arena_strndup(): one call per name, not two. */
static inline __attribute__((always_inline)) void *bump(struct arena *a, size_t size)
{
	struct arena_chunk *c = a->head;
	size_t need = (size + 7) & ~(size_t)7;
	void *p;

	if (__builtin_expect(!c || c->cap - c->used < need, 0)) {
		c = add_chunk(a, need > ARENA_CHUNK ? need : ARENA_CHUNK);
		if (!c)
			return NULL;
	}
	p = c->data + c->used;
	c->used += need;
	return p;
}

void *arena_alloc(struct arena *a, size_t size)
{
	return bump(a, size);
}

char *arena_strndup(struct arena *a, const char *s, size_t len)
{
	char *p = bump(a, len + 1);

	if (!p)
		return NULL;
	memcpy(p, s, len);
	p[len] = '\0';
	return p;
}
