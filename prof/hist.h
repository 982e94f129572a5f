/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Histogram of resolved samples, bucketed by the selected sort keys, as
 * perf report's hists: one entry per distinct key, with the period summed
 * overall and per CPU mode.
 */
#ifndef KVMPROF_HIST_H
#define KVMPROF_HIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/base.h"
#include "base/hashindex.h"
#include "base/pool.h"
#include "machine/machine.h"

enum sort_key {
	SORT_COMM,
	SORT_PID,
	SORT_DSO,
	SORT_SYM,
	SORT_GUEST,
	SORT_VCPU,
	SORT_CPU,
	SORT_CPUMODE,
	SORT_CR3, /* guest address space, from the guest context */
	SORT__MAX,
};

/* Where a sample ran, in the terms of perf's [k] [.] [g] [u] levels. */
enum cpumode_level {
	LEVEL_KERNEL,	    /* [k] host kernel */
	LEVEL_USER,	    /* [.] host user */
	LEVEL_GUEST_KERNEL, /* [g] */
	LEVEL_GUEST_USER,   /* [u] */
	LEVEL_HYPERVISOR,   /* [H] */
	LEVEL__MAX,
};

char level_char(enum cpumode_level level);
const char *level_name(enum cpumode_level level);

/* A resolved sample: what the sort keys can see. */
struct hist_key {
	const char *comm;
	int pid;
	const struct dso *dso;	     /* NULL: [unknown] */
	const struct ksym *sym;	     /* NULL: unresolved, shown as the address */
	uint64_t addr;		     /* the ip, kept only when unresolved */
	const struct machine *guest; /* NULL for host samples */
	int vcpu;		     /* -1 unknown */
	uint64_t cr3;		     /* guest CR3, 0 unknown */
	int cpu;
	int level;
};

struct cc_node;

struct hist_entry {
	struct hist_key key;
	uint64_t period; /* "Self": the samples whose own address is this row's */
	uint64_t samples;
	uint64_t level_period[LEVEL__MAX];
	/* --children: the samples with this row anywhere in their call chain. */
	uint64_t children_period;
	uint64_t children_stamp; /* the last sample counted there: once a sample */
	uint32_t chain_depth;	 /* 1 + fewest callers above it in a chain, 0 unknown */
	struct cc_node *chain;	 /* -g: the call chains through this row, or NULL */
};

struct hists {
	enum sort_key keys[SORT__MAX];
	size_t nr_keys;
	struct hashindex index;	     /* entries by the hash of their masked key */
	struct pool pool;	     /* where the entries live */
	struct hist_entry **entries; /* for sorting and output */
	size_t nr_entries;
	size_t alloc;
	uint64_t total_period;
	uint64_t total_samples;
	uint64_t level_period[LEVEL__MAX];
	/* Which sample inputs the keys see: others may differ within one row. */
	bool uses_comm;
	bool uses_pid;
	bool uses_cpu;
	bool uses_level;
	bool uses_vcpu;
	bool uses_cr3;
	/* Which fields a row's key keeps (mask_key), from the sort keys. */
	bool keeps_dso;
	bool keeps_sym;
	bool keeps_guest;
};

/* Parse "comm,dso,sym": unknown keys fail with a message naming them. */
int hists_init(struct hists *h, const char *sort_spec, struct kp_err *err);
void hists_release(struct hists *h);
/* Add a sample; returns its row (NULL on allocation failure). */
struct hist_entry *hists_add(struct hists *h, const struct hist_key *key,
			     uint64_t period);
/* Add @samples samples of @key whose periods sum to @period. */
struct hist_entry *hists_add_samples(struct hists *h, const struct hist_key *key,
				     uint64_t period, uint64_t samples);
/* Add a sample to a row hists_add() returned for an equal key. */
void hists_add_to(struct hists *h, struct hist_entry *e, int level, uint64_t period);
/* Where a sample's chain passes a row, for --children. */
struct hist_pass {
	uint64_t stamp; /* the sample: a number no earlier sample had */
	uint64_t period;
	uint32_t depth; /* callers above the row in this chain */
};

/*
 * Count @p's period in the Children column of @e once for its sample: a
 * recursive chain passes a row twice. True when it counted, false when the
 * sample was already there.
 */
bool hists_add_children_to(struct hist_entry *e, const struct hist_pass *p);
/* The same for the row of @key, made when new (with no Self period). */
struct hist_entry *hists_add_children(struct hists *h, const struct hist_key *key,
				      const struct hist_pass *p, bool *counted);

/*
 * Scale every row's periods and counts by @num/@den, dropping the rows
 * that reach zero (and so invalidating pointers to them). -ENOMEM when the
 * index could not be rebuilt: rows may then repeat.
 */
int hists_decay(struct hists *h, unsigned num, unsigned den);
/* Sort entries by period, heaviest first (ties broken by key for stable output). */
void hists_sort(struct hists *h);
/*
 * Sort by Children, heaviest first; of rows with equal Children a caller
 * comes before its callees (fewer callers above it), as perf report
 * --children shows a single chain top-down; then as hists_sort().
 */
void hists_sort_children(struct hists *h);
bool hists_has_key(const struct hists *h, enum sort_key key);
const char *sort_key_name(enum sort_key key);

#endif
