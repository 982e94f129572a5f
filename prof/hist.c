// SPDX-License-Identifier: GPL-2.0
#include "hist.h"

#include "callchain.h"
#include "base/hugepages.h"
#include "base/minmax.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static const char *const key_names[SORT__MAX] = {
	[SORT_COMM] = "comm", [SORT_PID] = "pid",	  [SORT_DSO] = "dso",
	[SORT_SYM] = "sym",   [SORT_GUEST] = "guest",	  [SORT_VCPU] = "vcpu",
	[SORT_CPU] = "cpu",   [SORT_CPUMODE] = "cpumode", [SORT_CR3] = "cr3",
};

const char *sort_key_name(enum sort_key key)
{
	return key_names[key];
}

char level_char(enum cpumode_level level)
{
	static const char chars[LEVEL__MAX] = {'k', '.', 'g', 'u', 'H'};

	return chars[level];
}

const char *level_name(enum cpumode_level level)
{
	static const char *const names[LEVEL__MAX] = {"kernel", "user", "guest-kernel",
						      "guest-user", "hypervisor"};

	return names[level];
}

static int parse_key(const char *name, enum sort_key *key)
{
	for (int k = 0; k < SORT__MAX; k++)
		if (!strcmp(name, key_names[k])) {
			*key = (enum sort_key)k;
			return 0;
		}
	return -EINVAL;
}

int hists_init(struct hists *h, const char *sort_spec, struct kp_err *err)
{
	char *spec = strdup(sort_spec), *save = NULL, *tok;

	memset(h, 0, sizeof(*h));
	hashindex_init(&h->index);
	pool_init(&h->pool, sizeof(struct hist_entry));
	if (!spec)
		return kp_errorf(err, ENOMEM, "out of memory");
	for (tok = strtok_r(spec, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		enum sort_key key;

		if (parse_key(tok, &key)) {
			kp_errorf(err, EINVAL,
				  "unknown sort key '%s' (keys: comm, pid, dso, sym, "
				  "guest, "
				  "vcpu, cr3, cpu, cpumode)",
				  tok);
			free(spec);
			return -EINVAL;
		}
		if (!hists_has_key(h, key))
			h->keys[h->nr_keys++] = key;
	}
	free(spec);
	if (!h->nr_keys)
		return kp_errorf(err, EINVAL, "empty sort key list");
	/* As mask_key() below: pid shows the comm too, sym shows the level. */
	h->uses_comm = hists_has_key(h, SORT_COMM) || hists_has_key(h, SORT_PID);
	h->uses_pid = hists_has_key(h, SORT_PID);
	h->uses_cpu = hists_has_key(h, SORT_CPU);
	h->uses_level = hists_has_key(h, SORT_SYM) || hists_has_key(h, SORT_CPUMODE);
	h->uses_vcpu = hists_has_key(h, SORT_VCPU);
	h->uses_cr3 = hists_has_key(h, SORT_CR3);
	h->keeps_dso = hists_has_key(h, SORT_DSO);
	h->keeps_sym = hists_has_key(h, SORT_SYM);
	h->keeps_guest = hists_has_key(h, SORT_GUEST);
	return 0;
}

bool hists_has_key(const struct hists *h, enum sort_key key)
{
	for (size_t i = 0; i < h->nr_keys; i++)
		if (h->keys[i] == key)
			return true;
	return false;
}

static void free_entry(struct hists *h, struct hist_entry *e)
{
	if (e->chain)
		callchain_free(e->chain, true);
	pool_free(&h->pool, e);
}

void hists_release(struct hists *h)
{
	hashindex_release(&h->index);
	for (size_t i = 0; i < h->nr_entries; i++)
		if (h->entries[i]->chain)
			callchain_free(h->entries[i]->chain, true);
	pool_release(&h->pool);
	free(h->entries);
	memset(h, 0, sizeof(*h));
}

/*
 * Keep only the fields the sort keys look at, so equal rows share an entry:
 * pid shows the comm too; perf's sym column shows the level and, when
 * unresolved, the address; cpumode is the level.
 */
static void mask_key(const struct hists *h, const struct hist_key *in,
		     struct hist_key *out)
{
	out->comm = h->uses_comm ? in->comm : NULL;
	out->pid = h->uses_pid ? in->pid : -1;
	out->dso = h->keeps_dso ? in->dso : NULL;
	out->sym = h->keeps_sym ? in->sym : NULL;
	out->addr = h->keeps_sym && !in->sym ? in->addr : 0;
	out->guest = h->keeps_guest ? in->guest : NULL;
	out->vcpu = h->uses_vcpu ? in->vcpu : -1;
	out->cr3 = h->uses_cr3 ? in->cr3 : 0;
	out->cpu = h->uses_cpu ? in->cpu : -1;
	out->level = h->uses_level ? in->level : -1;
}

static bool same_key(const struct hist_key *a, const struct hist_key *b)
{
	return a->comm == b->comm && a->pid == b->pid && a->dso == b->dso &&
	       a->cr3 == b->cr3 && a->sym == b->sym && a->addr == b->addr &&
	       a->guest == b->guest && a->vcpu == b->vcpu && a->cpu == b->cpu &&
	       a->level == b->level;
}

/* Word-wise mixing: this runs once per sample, a byte loop would dominate. */
static uint64_t key_hash(const struct hist_key *k)
{
	uint64_t v[] = {(uintptr_t)k->comm,
			(uint64_t)k->pid,
			(uintptr_t)k->dso,
			(uintptr_t)k->sym,
			k->addr,
			(uintptr_t)k->guest,
			(uint64_t)k->vcpu << 32 | (uint32_t)k->cpu,
			(uint64_t)k->level,
			k->cr3};
	uint64_t h = 0x9e3779b97f4a7c15ULL;

	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		h = (h ^ v[i]) * 0xff51afd7ed558ccdULL + (h >> 29);
	return hash_u64(h);
}

static struct hist_entry *new_entry(struct hists *h, const struct hist_key *k)
{
	struct hist_entry *e = pool_zalloc(&h->pool);

	if (!e)
		return NULL;
	if (h->nr_entries == h->alloc) {
		size_t alloc = h->alloc ? h->alloc * 2 : 256;
		struct hist_entry **p = realloc(h->entries, alloc * sizeof(*p));

		if (!p) {
			pool_free(&h->pool, e);
			return NULL;
		}
		h->entries = p;
		h->alloc = alloc;
	}
	e->key = *k;
	h->entries[h->nr_entries++] = e;
	return e;
}

static bool entry_has_key(const void *entry, const void *key)
{
	return same_key(&((const struct hist_entry *)entry)->key, key);
}

static struct hist_entry *find_or_add(struct hists *h, const struct hist_key *k)
{
	uint64_t hash = key_hash(k);
	struct hist_entry *e = hashindex_find(&h->index, hash, entry_has_key, k);

	if (e)
		return e;
	e = new_entry(h, k);
	if (!e)
		return NULL;
	/* Without an index slot the entry stays listed and is freed with the rest. */
	return hashindex_add(&h->index, hash, e) ? NULL : e;
}

static void add_samples_to(struct hists *h, struct hist_entry *e, int level,
			   uint64_t period, uint64_t samples)
{
	e->period += period;
	e->samples += samples;
	e->level_period[level] += period;
	h->total_period += period;
	h->total_samples += samples;
	h->level_period[level] += period;
}

void hists_add_to(struct hists *h, struct hist_entry *e, int level, uint64_t period)
{
	add_samples_to(h, e, level, period, 1);
}

struct hist_entry *hists_add_samples(struct hists *h, const struct hist_key *key,
				     uint64_t period, uint64_t samples)
{
	struct hist_key k;
	struct hist_entry *e;

	mask_key(h, key, &k);
	e = find_or_add(h, &k);
	if (e)
		add_samples_to(h, e, key->level, period, samples);
	return e;
}

struct hist_entry *hists_add(struct hists *h, const struct hist_key *key, uint64_t period)
{
	return hists_add_samples(h, key, period, 1);
}

bool hists_add_children_to(struct hist_entry *e, const struct hist_pass *p)
{
	if (!e->chain_depth || p->depth + 1 < e->chain_depth)
		e->chain_depth = p->depth + 1;
	if (e->children_stamp == p->stamp)
		return false;
	e->children_stamp = p->stamp;
	e->children_period += p->period;
	return true;
}

struct hist_entry *hists_add_children(struct hists *h, const struct hist_key *key,
				      const struct hist_pass *p, bool *counted)
{
	struct hist_key k;
	struct hist_entry *e;

	mask_key(h, key, &k);
	e = find_or_add(h, &k);
	if (e)
		*counted = hists_add_children_to(e, p);
	return e;
}

static uint64_t scale(uint64_t v, unsigned num, unsigned den)
{
	return v / den * num + v % den * num / den;
}

/* Scale @e and add what is left to @h's totals; false when nothing is. */
static bool decay_entry(struct hists *h, struct hist_entry *e, unsigned num, unsigned den)
{
	e->period = scale(e->period, num, den);
	e->samples = scale(e->samples, num, den);
	for (int l = 0; l < LEVEL__MAX; l++) {
		e->level_period[l] = scale(e->level_period[l], num, den);
		h->level_period[l] += e->level_period[l];
	}
	h->total_period += e->period;
	h->total_samples += e->samples;
	return e->period != 0;
}

int hists_decay(struct hists *h, unsigned num, unsigned den)
{
	size_t kept = 0;
	int ret = 0;

	hashindex_release(&h->index);
	h->total_period = h->total_samples = 0;
	memset(h->level_period, 0, sizeof(h->level_period));
	for (size_t i = 0; i < h->nr_entries; i++) {
		struct hist_entry *e = h->entries[i];
		uint64_t hash = key_hash(&e->key);

		if (!decay_entry(h, e, num, den)) {
			free_entry(h, e);
			continue;
		}
		if (hashindex_add(&h->index, hash, e))
			ret = -ENOMEM;
		h->entries[kept++] = e;
	}
	h->nr_entries = kept;
	return ret;
}

/*
 * Names are interned or shared (comm, dso, symbol), and rows of a few samples
 * tie on the period by the thousand: equal pointers settle most compares.
 */
static int cmp_str(const char *a, const char *b)
{
	if (a == b)
		return 0;
	return strcmp(a ? a : "", b ? b : "");
}

/* The last tie-breaks, in which rows of equal names may still differ. */
static int key_rest_cmp(const struct hist_key *a, const struct hist_key *b)
{
	if (a->pid != b->pid)
		return a->pid < b->pid ? -1 : 1;
	if (a->cpu != b->cpu)
		return a->cpu < b->cpu ? -1 : 1;
	if (a->cr3 != b->cr3)
		return a->cr3 < b->cr3 ? -1 : 1;
	if (a->vcpu != b->vcpu)
		return a->vcpu < b->vcpu ? -1 : 1;
	return a->level - b->level;
}

static const char *sym_name(const struct hist_entry *e)
{
	return e->key.sym ? e->key.sym->name : NULL;
}

static const char *dso_name(const struct hist_entry *e)
{
	return e->key.dso ? e->key.dso->name : NULL;
}

static int entry_cmp(const void *pa, const void *pb)
{
	const struct hist_entry *a = *(const struct hist_entry *const *)pa;
	const struct hist_entry *b = *(const struct hist_entry *const *)pb;
	int c;

	if (a->period != b->period)
		return a->period > b->period ? -1 : 1;
	c = cmp_str(sym_name(a), sym_name(b));
	if (c)
		return c;
	c = cmp_str(a->key.comm, b->key.comm);
	if (c)
		return c;
	c = cmp_str(dso_name(a), dso_name(b));
	if (c)
		return c;
	if (a->key.addr != b->key.addr)
		return a->key.addr < b->key.addr ? -1 : 1;
	return key_rest_cmp(&a->key, &b->key);
}

/*
 * What entry_cmp() compares first, copied out of the row: sorting the row
 * pointers read both rows of every comparison from wherever they were
 * allocated, two cache misses each. Ties on the period, common among rows
 * of one or two samples, are mostly settled by these fields too.
 */
struct sort_rec {
	uint64_t period;
	const char *sym;
	const char *comm;
	const char *dso;
	uint64_t addr;
	struct hist_entry *e;
};

static int rec_cmp(const void *pa, const void *pb)
{
	const struct sort_rec *a = pa, *b = pb;
	int c;

	if (a->period != b->period)
		return a->period > b->period ? -1 : 1;
	c = cmp_str(a->sym, b->sym);
	if (c)
		return c;
	c = cmp_str(a->comm, b->comm);
	if (c)
		return c;
	c = cmp_str(a->dso, b->dso);
	if (c)
		return c;
	if (a->addr != b->addr)
		return a->addr < b->addr ? -1 : 1;
	return key_rest_cmp(&a->e->key, &b->e->key);
}

/* Runs this long are sorted in place before merging. */
#define SORT_RUN 8

static void insertion_sort(struct sort_rec *a, size_t n)
{
	for (size_t i = 1; i < n; i++) {
		struct sort_rec r = a[i];
		size_t j = i;

		for (; j && rec_cmp(&r, &a[j - 1]) < 0; j--)
			a[j] = a[j - 1];
		a[j] = r;
	}
}

/* Merge the sorted runs [lo, mid) and [mid, hi) of @src into @dst. */
static void merge(const struct sort_rec *src, struct sort_rec *dst, size_t lo, size_t mid,
		  size_t hi)
{
	size_t i = lo, j = mid, k = lo;

	while (i < mid && j < hi)
		dst[k++] = rec_cmp(&src[j], &src[i]) < 0 ? src[j++] : src[i++];
	while (i < mid)
		dst[k++] = src[i++];
	while (j < hi)
		dst[k++] = src[j++];
}

/*
 * A merge sort of the copies, passing over them in order: qsort() sorts
 * elements this big through pointers to them, a random read for each
 * comparison. @tmp holds @n more. (The order is total: no two rows have
 * equal keys, so the result is the one any sort gives.)
 */
static void sort_recs(struct sort_rec *a, struct sort_rec *tmp, size_t n)
{
	struct sort_rec *src = a, *dst = tmp, *t;

	for (size_t i = 0; i < n; i += SORT_RUN)
		insertion_sort(a + i, kp_min_size(SORT_RUN, n - i));
	for (size_t w = SORT_RUN; w < n; w *= 2) {
		for (size_t lo = 0; lo < n; lo += 2 * w)
			merge(src, dst, lo, kp_min_size(lo + w, n),
			      kp_min_size(lo + 2 * w, n));
		t = src;
		src = dst;
		dst = t;
	}
	if (src != a)
		memcpy(a, src, n * sizeof(*a));
}

/* How many rows ahead the copying loop asks for a row. */
#define SORT_PREFETCH 8

void hists_sort(struct hists *h)
{
	size_t n = h->nr_entries;
	struct sort_rec *recs;

	if (!n)
		return;
	recs = kp_alloc_huge(2 * n * sizeof(*recs));
	if (!recs) {
		qsort(h->entries, n, sizeof(*h->entries), entry_cmp);
		return;
	}
	for (size_t i = 0; i < n; i++) {
		struct hist_entry *e = h->entries[i];

		if (i + SORT_PREFETCH < n)
			__builtin_prefetch(h->entries[i + SORT_PREFETCH]);
		recs[i] = (struct sort_rec){.period = e->period,
					    .sym = sym_name(e),
					    .comm = e->key.comm,
					    .dso = dso_name(e),
					    .addr = e->key.addr,
					    .e = e};
	}
	sort_recs(recs, recs + n, n);
	for (size_t i = 0; i < n; i++)
		h->entries[i] = recs[i].e;
	free(recs);
}

static int children_cmp(const void *pa, const void *pb)
{
	const struct hist_entry *a = *(const struct hist_entry *const *)pa;
	const struct hist_entry *b = *(const struct hist_entry *const *)pb;

	if (a->children_period != b->children_period)
		return a->children_period > b->children_period ? -1 : 1;
	if (a->chain_depth != b->chain_depth)
		return a->chain_depth < b->chain_depth ? -1 : 1;
	return entry_cmp(pa, pb);
}

void hists_sort_children(struct hists *h)
{
	if (h->nr_entries)
		qsort(h->entries, h->nr_entries, sizeof(*h->entries), children_cmp);
}
