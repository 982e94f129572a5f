/* SPDX-License-Identifier: GPL-2.0 */
/*
 * An index of items by a 64-bit hash of their key, for tables whose keys
 * are too big to store in the index (histogram rows, exported stacks).
 * Each slot holds the hash beside the item, so a probe reads one slot and
 * touches an item only when the hashes are equal; items whose keys share
 * a hash simply take further slots. Open addressing, linear probing, at
 * most half full.
 */
#ifndef KVMPROF_HASHINDEX_H
#define KVMPROF_HASHINDEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct hashindex_slot {
	uint64_t hash;
	void *item; /* NULL: empty */
};

struct hashindex {
	struct hashindex_slot *slots;
	size_t mask; /* slots - 1; slots is a power of two */
	size_t nr;
};

void hashindex_init(struct hashindex *x);
void hashindex_release(struct hashindex *x);

/*
 * The item whose hash is @hash and for which @same(item, @key) holds, or
 * NULL. Inline, so that @same is inlined where it is a known function.
 */
static inline void *hashindex_find(const struct hashindex *x, uint64_t hash,
				   bool (*same)(const void *item, const void *key),
				   const void *key)
{
	if (!x->slots)
		return NULL;
	for (size_t i = hash & x->mask; x->slots[i].item; i = (i + 1) & x->mask)
		if (x->slots[i].hash == hash && same(x->slots[i].item, key))
			return x->slots[i].item;
	return NULL;
}

/* Index @item (not NULL) under @hash; the caller has checked it is new. 0 or -ENOMEM. */
int hashindex_add(struct hashindex *x, uint64_t hash, void *item);

#endif
