// SPDX-License-Identifier: GPL-2.0
#include "ordered_events.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* A record's sort key, kept apart from the rest so that sorting moves 16 bytes. */
struct ordered_key {
	uint64_t time;
	uint64_t seq; /* file order: ties keep it; also indexes recs */
};

/* What a queued record needs once sorted. */
struct ordered_rec {
	const struct perf_event_header *ev;
	uint64_t ordinal;    /* samples: position among the file's samples */
	struct pd_sample ps; /* samples: decoded once; others: their id trailer */
};

static bool file_has_times(const struct pd_file *f)
{
	const struct perf_event_attr *a = &f->evsels[0].attr;

	return (a->sample_type & PERF_SAMPLE_TIME) && a->sample_id_all;
}

void ordered_events_init(struct ordered_events *oe, const struct pd_file *f,
			 ordered_deliver_fn deliver, void *ctx)
{
	memset(oe, 0, sizeof(*oe));
	oe->file = f;
	oe->deliver = deliver;
	oe->ctx = ctx;
	oe->sort = file_has_times(f);
}

void ordered_events_release(struct ordered_events *oe)
{
	free(oe->evs);
	free(oe->keys);
	free(oe->merge_tmp);
	free(oe->recs);
	memset(oe, 0, sizeof(*oe));
}

/* Hand over one record in file order, decoding it first if it is a sample. */
static int deliver_now(struct ordered_events *oe, const struct perf_event_header *ev,
		       struct kp_err *err)
{
	struct pd_sample ps;
	struct ordered_event e = {ev, NULL, 0};
	int ret;

	if (ev->type == PERF_RECORD_SAMPLE) {
		ret = pd_parse_sample(oe->file, ev, &ps, err);
		if (ret)
			return ret;
		e.sample = &ps;
		e.ordinal = oe->nr_samples++;
	}
	return oe->deliver(oe->ctx, &e, err);
}

static int key_cmp(const struct ordered_key *a, const struct ordered_key *b)
{
	if (a->time != b->time)
		return a->time < b->time ? -1 : 1;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/*
 * A round is each CPU's ring drained in turn: a few runs already in time
 * order. Merging those natural runs is linear in practice.
 */
static void merge_runs(struct ordered_key *q, struct ordered_key *tmp, size_t n)
{
	struct ordered_key *src = q, *dst = tmp;

	for (;;) {
		size_t runs = 0, i = 0, o = 0;

		while (i < n) {
			size_t a = i, b, end;

			while (i + 1 < n && key_cmp(&src[i], &src[i + 1]) <= 0)
				i++;
			b = ++i;
			while (i + 1 < n && key_cmp(&src[i], &src[i + 1]) <= 0)
				i++;
			end = b < n ? ++i : n;
			/* Merge [a, b) and [b, end); the left run wins ties: stable. */
			for (size_t x = a, y = b; x < b || y < end;)
				dst[o++] = y >= end || (x < b &&
							key_cmp(&src[x], &src[y]) <= 0)
						   ? src[x++]
						   : src[y++];
			runs++;
		}
		src = dst;
		dst = src == tmp ? q : tmp;
		if (runs <= 1)
			break;
	}
	if (src != q)
		memcpy(q, src, n * sizeof(*src));
}

static int grow_sort_arrays(struct ordered_events *oe, struct kp_err *err)
{
	struct ordered_key *k, *t = NULL;
	struct ordered_rec *r = NULL;

	if (oe->sort_alloc >= oe->nr)
		return 0;
	k = realloc(oe->keys, oe->nr * sizeof(*k));
	if (k) {
		oe->keys = k;
		t = realloc(oe->merge_tmp, oe->nr * sizeof(*t));
	}
	if (t) {
		oe->merge_tmp = t;
		r = realloc(oe->recs, oe->nr * sizeof(*r));
	}
	if (!r)
		return kp_errorf(err, ENOMEM, "out of memory");
	oe->recs = r;
	oe->sort_alloc = oe->nr;
	return 0;
}

/* Decode the round's records and put them in time order. */
static int sort_round(struct ordered_events *oe, struct kp_err *err)
{
	int ret = grow_sort_arrays(oe, err);
	bool sorted = true;

	for (size_t i = 0; !ret && i < oe->nr; i++) {
		struct ordered_rec *r = &oe->recs[i];

		r->ev = oe->evs[i];
		if (r->ev->type == PERF_RECORD_SAMPLE) {
			ret = pd_parse_sample(oe->file, r->ev, &r->ps, err);
			r->ordinal = oe->nr_samples++;
		} else {
			ret = pd_parse_id_trailer(oe->file, r->ev, &r->ps, err);
		}
		oe->keys[i] = (struct ordered_key){r->ps.time, i};
		sorted = sorted && (!i || oe->keys[i - 1].time <= oe->keys[i].time);
	}
	if (!ret && !sorted)
		merge_runs(oe->keys, oe->merge_tmp, oe->nr);
	return ret;
}

static int deliver_sorted(struct ordered_events *oe, struct kp_err *err)
{
	int ret = sort_round(oe, err);

	for (size_t i = 0; i < oe->nr && !ret; i++) {
		const struct ordered_rec *r = &oe->recs[oe->keys[i].seq];
		bool sample = r->ev->type == PERF_RECORD_SAMPLE;
		struct ordered_event e = {r->ev, sample ? &r->ps : NULL, r->ordinal};

		ret = oe->deliver(oe->ctx, &e, err);
	}
	return ret;
}

/*
 * Samples commute with each other; only their order against COMM, MMAP and
 * FORK records matters. A round without those is delivered as it is.
 */
int ordered_events_flush(struct ordered_events *oe, struct kp_err *err)
{
	int ret = 0;

	if (!oe->has_meta) {
		for (size_t i = 0; i < oe->nr && !ret; i++)
			ret = deliver_now(oe, oe->evs[i], err);
	} else {
		ret = deliver_sorted(oe, err);
	}
	oe->nr = 0;
	oe->has_meta = false;
	return ret;
}

void ordered_events_rebase(struct ordered_events *oe, intptr_t delta)
{
	for (size_t i = 0; i < oe->nr; i++)
		oe->evs[i] = (const void *)((uintptr_t)oe->evs[i] + (uintptr_t)delta);
}

int ordered_events_queue(struct ordered_events *oe, const struct perf_event_header *ev,
			 struct kp_err *err)
{
	if (!oe->sort)
		return deliver_now(oe, ev, err);
	if (oe->nr == oe->alloc) {
		size_t alloc = oe->alloc ? oe->alloc * 2 : 4096;
		const struct perf_event_header **p = realloc(oe->evs, alloc * sizeof(*p));

		if (!p)
			return kp_errorf(err, ENOMEM, "out of memory");
		oe->evs = p;
		oe->alloc = alloc;
	}
	oe->evs[oe->nr++] = ev;
	oe->has_meta |= ev->type != PERF_RECORD_SAMPLE;
	return 0;
}
