// SPDX-License-Identifier: GPL-2.0
#include "hashindex.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "hugepages.h"

void hashindex_init(struct hashindex *x)
{
	x->slots = NULL;
	x->mask = 0;
	x->nr = 0;
}

void hashindex_release(struct hashindex *x)
{
	free(x->slots);
	hashindex_init(x);
}

static void place(struct hashindex_slot *slots, size_t mask, uint64_t hash, void *item)
{
	size_t i = hash & mask;

	while (slots[i].item)
		i = (i + 1) & mask;
	slots[i].hash = hash;
	slots[i].item = item;
}

static int grow(struct hashindex *x)
{
	size_t cap = x->slots ? (x->mask + 1) * 2 : 64;
	/* Probed at random: on huge pages once big (a TLB miss per probe otherwise). */
	struct hashindex_slot *slots = kp_alloc_huge(cap * sizeof(*slots));

	if (!slots)
		return -ENOMEM;
	memset(slots, 0, cap * sizeof(*slots));
	for (size_t i = 0; x->slots && i <= x->mask; i++)
		if (x->slots[i].item)
			place(slots, cap - 1, x->slots[i].hash, x->slots[i].item);
	free(x->slots);
	x->slots = slots;
	x->mask = cap - 1;
	return 0;
}

int hashindex_add(struct hashindex *x, uint64_t hash, void *item)
{
	if ((!x->slots || (x->nr + 1) * 2 > x->mask + 1) && grow(x))
		return -ENOMEM;
	place(x->slots, x->mask, hash, item);
	x->nr++;
	return 0;
}
