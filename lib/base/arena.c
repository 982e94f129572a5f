// SPDX-License-Identifier: GPL-2.0
#include "arena.h"

#include <stdlib.h>
#include <string.h>

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

void *arena_alloc(struct arena *a, size_t size)
{
	struct arena_chunk *c = a->head;
	size_t need = (size + 7) & ~(size_t)7;
	void *p;

	if (!c || c->cap - c->used < need) {
		size_t cap = need > ARENA_CHUNK ? need : ARENA_CHUNK;

		c = malloc(sizeof(*c) + cap);
		if (!c)
			return NULL;
		c->used = 0;
		c->cap = cap;
		c->next = a->head;
		a->head = c;
	}
	p = c->data + c->used;
	c->used += need;
	return p;
}

char *arena_strndup(struct arena *a, const char *s, size_t len)
{
	char *p = arena_alloc(a, len + 1);

	if (!p)
		return NULL;
	memcpy(p, s, len);
	p[len] = '\0';
	return p;
}
