/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Samples counted by what decides their histogram row, before anything is
 * resolved: the kernel address or the offset in an object, the thread
 * name, pid, CPU and mode as the sort keys see them. A recording names far
 * fewer of these classes than it holds samples (a compile: 190k classes in
 * 2.3M samples), so each class is resolved and looked up in the histogram
 * once, when folded, instead of once per sample.
 *
 * A sample costs one probe of a table of small slots, and that probe is
 * started early: the slot is prefetched when the sample is taken and
 * updated a few samples later, so the misses of successive samples overlap
 * rather than queue. What classes share (object, thread name, ...) is kept
 * once, as a context the slot refers to by number.
 */
#ifndef KVMPROF_SAMPLE_CLASSES_H
#define KVMPROF_SAMPLE_CLASSES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/hashindex.h"

/* Where a class's address is, and who ran it, as the sort keys see it. */
struct sample_ctx {
	void *owner;	  /* a machine, a struct dso, or NULL: no map */
	const char *comm; /* interned; NULL when the keys do not show it */
	int32_t pid;	  /* -1 when the keys do not show it */
	int32_t cpu;	  /* likewise */
	uint16_t evsel;	  /* the event's index in the file */
	uint8_t level;	  /* LEVEL_KERNEL, LEVEL_USER or LEVEL_HYPERVISOR */
};

struct sample_class {
	uint64_t at; /* the kernel address, or the offset in the object */
	uint64_t period;
	uint32_t ctx; /* index in the table's contexts */
	/*
	 * 0: the slot is empty. A full class takes no more samples: the next
	 * one opens a second slot with the same key; both fold into one row.
	 */
	uint32_t samples;
};

/* How many contexts looked up lately are kept at hand (a power of two). */
#define SAMPLE_CTX_MEMO 16

/* How far behind its prefetch a sample is counted. */
#define SAMPLE_CLASSES_AHEAD 16

struct sample_classes {
	struct sample_class *slots;
	size_t mask; /* slots - 1, a power of two */
	size_t nr;   /* slots in use */
	/* The contexts, and an index of them by hash (items: number + 1). */
	struct sample_ctx *ctxs;
	size_t nr_ctxs;
	size_t alloc_ctxs;
	struct hashindex ctx_index;
	/*
	 * Contexts looked up lately, by a cheap mix of object and thread
	 * name: samples come in runs of one thread, a CPU's run after another's.
	 */
	struct sample_ctx memo[SAMPLE_CTX_MEMO];
	uint32_t memo_nr[SAMPLE_CTX_MEMO]; /* number + 1, 0 empty */
	/* Taken, slot prefetched, not counted yet: a ring, head the next free. */
	struct sample_class queue[SAMPLE_CLASSES_AHEAD];
	uint64_t queue_hash[SAMPLE_CLASSES_AHEAD];
	unsigned int head;
	unsigned int queued;
};

void sample_classes_init(struct sample_classes *t);
void sample_classes_release(struct sample_classes *t);

/*
 * Count a sample at @at in context @ctx with @period. 0, or -ENOMEM when
 * the table could not grow (a sample is then not counted).
 */
int sample_classes_add(struct sample_classes *t, const struct sample_ctx *ctx,
		       uint64_t at, uint64_t period);

/* Anything taken and not folded yet? */
bool sample_classes_pending(const struct sample_classes *t);

typedef int (*sample_class_fn)(void *arg, const struct sample_ctx *ctx,
			       const struct sample_class *c);

/*
 * Hand every class counted since the last fold to @fn, then empty the
 * table. Stops at @fn's first error and returns it; the classes not handed
 * over yet are then dropped.
 */
int sample_classes_fold(struct sample_classes *t, sample_class_fn fn, void *arg);

#endif
