// SPDX-License-Identifier: GPL-2.0
#include "sample_classes.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/hashindex.h"
#include "base/hashmap.h"
#include "base/hugepages.h"

/* 384 KiB: a report of a few seconds never grows it. */
#define FIRST_SLOTS 16384
#define FIRST_CTXS  64

void sample_classes_init(struct sample_classes *t)
{
	memset(t, 0, sizeof(*t));
}

void sample_classes_release(struct sample_classes *t)
{
	free(t->slots);
	free(t->ctxs);
	hashindex_release(&t->ctx_index);
	sample_classes_init(t);
}

static uint64_t mix(uint64_t h, uint64_t v)
{
	return (h ^ v) * 0xff51afd7ed558ccdULL + (h >> 29);
}

static uint64_t ctx_hash(const struct sample_ctx *c)
{
	uint64_t h = 0x9e3779b97f4a7c15ULL;

	h = mix(h, (uintptr_t)c->owner);
	h = mix(h, (uintptr_t)c->comm);
	h = mix(h, (uint64_t)(uint32_t)c->pid << 32 | (uint32_t)c->cpu);
	h = mix(h, (uint64_t)c->evsel << 8 | c->level);
	return hash_u64(h);
}

static bool same_ctx(const struct sample_ctx *a, const struct sample_ctx *b)
{
	return a->owner == b->owner && a->comm == b->comm && a->pid == b->pid &&
	       a->cpu == b->cpu && a->evsel == b->evsel && a->level == b->level;
}

static uint64_t class_hash(uint64_t at, uint32_t ctx)
{
	return hash_u64(at * 0x9e3779b97f4a7c15ULL ^ ctx);
}

/* Room for one more context in the array. */
static int reserve_ctx(struct sample_classes *t)
{
	size_t alloc = t->alloc_ctxs ? t->alloc_ctxs * 2 : FIRST_CTXS;
	struct sample_ctx *ctxs;

	if (t->nr_ctxs < t->alloc_ctxs)
		return 0;
	if (alloc > UINT32_MAX)
		return -ENOMEM;
	ctxs = realloc(t->ctxs, alloc * sizeof(*ctxs));
	if (!ctxs)
		return -ENOMEM;
	t->ctxs = ctxs;
	t->alloc_ctxs = alloc;
	return 0;
}

/*
 * The index holds each context's number + 1 as its item (the array moves
 * as it grows): the probe carries the table to compare against.
 */
struct ctx_probe {
	const struct sample_classes *t;
	const struct sample_ctx *c;
};

static bool ctx_is(const void *item, const void *key)
{
	const struct ctx_probe *p = key;

	return same_ctx(&p->t->ctxs[(uintptr_t)item - 1], p->c);
}

/* @c's number among the contexts, added when new; -ENOMEM. */
static int64_t look_up_ctx(struct sample_classes *t, const struct sample_ctx *c)
{
	struct ctx_probe probe = {t, c};
	uint64_t hash = ctx_hash(c);
	void *item = hashindex_find(&t->ctx_index, hash, ctx_is, &probe);

	if (item)
		return (int64_t)((uintptr_t)item - 1);
	if (reserve_ctx(t) ||
	    hashindex_add(&t->ctx_index, hash, (void *)(uintptr_t)(t->nr_ctxs + 1)))
		return -ENOMEM;
	t->ctxs[t->nr_ctxs] = *c;
	return (int64_t)t->nr_ctxs++;
}

/* look_up_ctx() for the same context as a recent sample's, without hashing it. */
static int64_t ctx_number(struct sample_classes *t, const struct sample_ctx *c)
{
	unsigned int m = ((uintptr_t)c->owner >> 4 ^ (uintptr_t)c->comm >> 3 ^ c->level) &
			 (SAMPLE_CTX_MEMO - 1);
	int64_t nr;

	if (t->memo_nr[m] && same_ctx(&t->memo[m], c))
		return t->memo_nr[m] - 1;
	nr = look_up_ctx(t, c);
	if (nr >= 0 && nr < UINT32_MAX) {
		t->memo[m] = *c;
		t->memo_nr[m] = (uint32_t)nr + 1;
	}
	return nr;
}

static void place(struct sample_class *slots, size_t mask, const struct sample_class *c)
{
	size_t i = class_hash(c->at, c->ctx) & mask;

	while (slots[i].samples)
		i = (i + 1) & mask;
	slots[i] = *c;
}

static int grow(struct sample_classes *t)
{
	size_t cap = t->slots ? (t->mask + 1) * 2 : FIRST_SLOTS;
	/* Probed at random: huge pages spare a TLB miss per sample. */
	struct sample_class *slots = kp_alloc_huge(cap * sizeof(*slots));

	if (!slots)
		return -ENOMEM;
	memset(slots, 0, cap * sizeof(*slots));
	for (size_t i = 0; t->slots && i <= t->mask; i++)
		if (t->slots[i].samples)
			place(slots, cap - 1, &t->slots[i]);
	free(t->slots);
	t->slots = slots;
	t->mask = cap - 1;
	return 0;
}

/* Count @c (one sample), whose hash is @hash, in its slot. */
static int count(struct sample_classes *t, const struct sample_class *c, uint64_t hash)
{
	size_t i;

	for (i = hash & t->mask; t->slots[i].samples; i = (i + 1) & t->mask) {
		struct sample_class *slot = &t->slots[i];

		if (slot->at == c->at && slot->ctx == c->ctx &&
		    slot->samples < UINT32_MAX) {
			slot->period += c->period;
			slot->samples++;
			return 0;
		}
	}
	/* At most half full, so that probes stay short. */
	if ((t->nr + 1) * 2 > t->mask + 1) {
		if (grow(t))
			return -ENOMEM;
		return count(t, c, hash);
	}
	t->slots[i] = *c;
	t->nr++;
	return 0;
}

static int count_oldest(struct sample_classes *t)
{
	unsigned int oldest =
		(t->head + SAMPLE_CLASSES_AHEAD - t->queued) % SAMPLE_CLASSES_AHEAD;

	t->queued--;
	return count(t, &t->queue[oldest], t->queue_hash[oldest]);
}

int sample_classes_add(struct sample_classes *t, const struct sample_ctx *ctx,
		       uint64_t at, uint64_t period)
{
	int64_t nr = ctx_number(t, ctx);
	uint64_t hash;
	int ret = 0;

	if (nr < 0 || (!t->slots && grow(t)))
		return -ENOMEM;
	hash = class_hash(at, (uint32_t)nr);
	if (t->queued == SAMPLE_CLASSES_AHEAD)
		ret = count_oldest(t);
	t->queue[t->head] = (struct sample_class){
		.at = at, .period = period, .ctx = (uint32_t)nr, .samples = 1};
	t->queue_hash[t->head] = hash;
	__builtin_prefetch(&t->slots[hash & t->mask], 1);
	t->head = (t->head + 1) % SAMPLE_CLASSES_AHEAD;
	t->queued++;
	return ret;
}

bool sample_classes_pending(const struct sample_classes *t)
{
	return t->nr || t->queued;
}

/* Empty the table; a big one goes, so that folding often stays cheap. */
static void reset(struct sample_classes *t)
{
	t->queued = 0;
	if (!t->nr)
		return;
	t->nr = 0;
	if (t->mask + 1 > FIRST_SLOTS) {
		free(t->slots);
		t->slots = NULL;
		t->mask = 0;
	} else {
		memset(t->slots, 0, (t->mask + 1) * sizeof(*t->slots));
	}
}

int sample_classes_fold(struct sample_classes *t, sample_class_fn fn, void *arg)
{
	int ret = 0;

	while (!ret && t->queued)
		ret = count_oldest(t);
	for (size_t i = 0; !ret && t->nr && i <= t->mask; i++)
		if (t->slots[i].samples)
			ret = fn(arg, &t->ctxs[t->slots[i].ctx], &t->slots[i]);
	reset(t);
	return ret;
}
