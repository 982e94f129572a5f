/* SPDX-License-Identifier: GPL-2.0 */
/* Open-addressing hash map from a non-zero 64-bit key to a pointer. */
#ifndef KVMPROF_HASHMAP_H
#define KVMPROF_HASHMAP_H

#include <stddef.h>
#include <stdint.h>

struct hashmap {
	uint64_t *keys; /* 0 marks an empty slot */
	void **vals;
	size_t cap; /* a power of two */
	size_t nr;
};

void hashmap_init(struct hashmap *m);
void hashmap_release(struct hashmap *m);
void *hashmap_get(const struct hashmap *m, uint64_t key);
/* Insert or replace; @key must not be 0. Returns 0 or -ENOMEM. */
int hashmap_put(struct hashmap *m, uint64_t key, void *val);

/* Iterate: for (size_t i = 0; i < m->cap; i++) if (m->keys[i]) ... m->vals[i] */

/* 64-bit hash of bytes (FNV-1a folded with a final mix); never returns 0. */
uint64_t hash_bytes(const void *p, size_t len);

/*
 * splitmix64's finaliser: cheap and spreads consecutive pids and
 * addresses; never 0. Inline: reports hash a key or two per sample.
 */
static inline uint64_t hash_u64(uint64_t v)
{
	v ^= v >> 30;
	v *= 0xbf58476d1ce4e5b9ULL;
	v ^= v >> 27;
	v *= 0x94d049bb133111ebULL;
	v ^= v >> 31;
	return v ? v : 1;
}

#endif
