// SPDX-License-Identifier: GPL-2.0
#include "hashmap.h"

#include <errno.h>
#include <stdlib.h>

uint64_t hash_bytes(const void *p, size_t len)
{
	const unsigned char *b = p;
	uint64_t h = 0xcbf29ce484222325ULL;

	for (size_t i = 0; i < len; i++)
		h = (h ^ b[i]) * 0x100000001b3ULL;
	return hash_u64(h);
}

void hashmap_init(struct hashmap *m)
{
	m->keys = NULL;
	m->vals = NULL;
	m->cap = 0;
	m->nr = 0;
}

void hashmap_release(struct hashmap *m)
{
	free(m->keys);
	free(m->vals);
	hashmap_init(m);
}

static size_t slot_of(const struct hashmap *m, uint64_t key)
{
	size_t mask = m->cap - 1, i = (size_t)hash_u64(key) & mask;

	while (m->keys[i] && m->keys[i] != key)
		i = (i + 1) & mask;
	return i;
}

void *hashmap_get(const struct hashmap *m, uint64_t key)
{
	size_t i;

	if (!m->cap)
		return NULL;
	i = slot_of(m, key);
	return m->keys[i] ? m->vals[i] : NULL;
}

static int grow(struct hashmap *m)
{
	struct hashmap n;

	n.cap = m->cap ? m->cap * 2 : 64;
	n.nr = 0;
	n.keys = calloc(n.cap, sizeof(*n.keys));
	n.vals = calloc(n.cap, sizeof(*n.vals));
	if (!n.keys || !n.vals) {
		free(n.keys);
		free(n.vals);
		return -ENOMEM;
	}
	for (size_t i = 0; i < m->cap; i++) {
		size_t j;

		if (!m->keys[i])
			continue;
		j = slot_of(&n, m->keys[i]);
		n.keys[j] = m->keys[i];
		n.vals[j] = m->vals[i];
		n.nr++;
	}
	free(m->keys);
	free(m->vals);
	*m = n;
	return 0;
}

int hashmap_put(struct hashmap *m, uint64_t key, void *val)
{
	size_t i;

	if ((m->nr + 1) * 4 > m->cap * 3 && grow(m))
		return -ENOMEM;
	i = slot_of(m, key);
	if (!m->keys[i]) {
		m->keys[i] = key;
		m->nr++;
	}
	m->vals[i] = val;
	return 0;
}
