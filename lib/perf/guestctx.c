// SPDX-License-Identifier: GPL-2.0
#include "guestctx.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "ksym/decompress.h"

#define CTX_MAGIC "KPCTX1\0\0"
#define CTX_MAX	  (1U << 20)

static bool is_zero(const struct guest_ctx *c)
{
	return !c->pid && !c->vcpu_id && !c->cr3 && !c->lstar;
}

static uint32_t find_or_add_ctx(struct guestctx_table *t, const struct guest_ctx *c)
{
	struct guest_ctx *grown;

	/* A recording sees a handful of (VM, vCPU, address space) triples: scan. */
	for (size_t i = t->nr_ctxs; i > 0; i--)
		if (!memcmp(&t->ctxs[i - 1], c, sizeof(*c)))
			return (uint32_t)i;
	if (t->nr_ctxs >= CTX_MAX)
		return 0;
	grown = realloc(t->ctxs, (t->nr_ctxs + 1) * sizeof(*grown));
	if (!grown)
		return UINT32_MAX;
	t->ctxs = grown;
	t->ctxs[t->nr_ctxs++] = *c;
	return (uint32_t)t->nr_ctxs;
}

const struct perf_event_header *guestctx_strip(const struct perf_event_header *ev,
					       uint32_t pid, struct guest_ctx *ctx,
					       uint8_t *buf)
{
	struct perf_event_header *h = (struct perf_event_header *)buf;
	struct perf_sample_guest_ctx k;

	memset(ctx, 0, sizeof(*ctx));
	if (ev->size < sizeof(*ev) + sizeof(k))
		return ev;
	memcpy(buf, ev, ev->size);
	memcpy(&k, buf + ev->size - sizeof(k), sizeof(k));
	h->size = (uint16_t)(ev->size - sizeof(k));
	*ctx = guest_ctx_from_sample(&k, pid);
	return h;
}

int guestctx_table_add(struct guestctx_table *t, const struct guest_ctx *c)
{
	uint32_t idx = c && !is_zero(c) ? find_or_add_ctx(t, c) : 0;

	if (idx == UINT32_MAX)
		return -ENOMEM;
	if (t->nr_samples == t->alloc_samples) {
		size_t alloc = t->alloc_samples ? t->alloc_samples * 2 : 4096;
		uint32_t *p = realloc(t->per_sample, alloc * sizeof(*p));

		if (!p)
			return -ENOMEM;
		t->per_sample = p;
		t->alloc_samples = alloc;
	}
	t->per_sample[t->nr_samples++] = idx;
	return 0;
}

/* Raw: magic, u64 nr_ctxs, u64 nr_samples, ctxs[], per_sample[]. */
int guestctx_table_encode(const struct guestctx_table *t, void **out, size_t *len)
{
	size_t raw_len = 24 + t->nr_ctxs * sizeof(*t->ctxs) + t->nr_samples * 4;
	uint64_t counts[2] = {t->nr_ctxs, t->nr_samples};
	uint8_t *raw = malloc(raw_len);
	size_t bound = ZSTD_compressBound(raw_len), n;
	void *z = malloc(bound);

	if (!raw || !z) {
		free(raw);
		free(z);
		return -ENOMEM;
	}
	memcpy(raw, CTX_MAGIC, 8);
	memcpy(raw + 8, counts, 16);
	memcpy(raw + 24, t->ctxs, t->nr_ctxs * sizeof(*t->ctxs));
	memcpy(raw + 24 + t->nr_ctxs * sizeof(*t->ctxs), t->per_sample,
	       t->nr_samples * 4);
	n = ZSTD_compress(z, bound, raw, raw_len, 3);
	free(raw);
	if (ZSTD_isError(n)) {
		free(z);
		return -EIO;
	}
	*out = z;
	*len = n;
	return 0;
}

static int fill(struct guestctx_table *t, const uint8_t *raw, size_t len,
		const char *what, struct kp_err *err)
{
	uint64_t counts[2];

	if (len < 24 || memcmp(raw, CTX_MAGIC, 8))
		return kp_errorf(err, EINVAL, "%s: guest context table: bad header",
				 what);
	memcpy(counts, raw + 8, 16);
	if (counts[0] > CTX_MAX || counts[1] > (1ULL << 32) ||
	    24 + counts[0] * sizeof(*t->ctxs) + counts[1] * 4 != len)
		return kp_errorf(err, EINVAL, "%s: guest context table: bad sizes", what);
	t->nr_ctxs = counts[0];
	t->nr_samples = t->alloc_samples = counts[1];
	t->ctxs = malloc(t->nr_ctxs * sizeof(*t->ctxs) + 1);
	t->per_sample = malloc(t->nr_samples * 4 + 1);
	if (!t->ctxs || !t->per_sample)
		return kp_errorf(err, ENOMEM, "%s: out of memory", what);
	memcpy(t->ctxs, raw + 24, t->nr_ctxs * sizeof(*t->ctxs));
	memcpy(t->per_sample, raw + 24 + t->nr_ctxs * sizeof(*t->ctxs),
	       t->nr_samples * 4);
	for (size_t i = 0; i < t->nr_samples; i++)
		if (t->per_sample[i] > t->nr_ctxs)
			return kp_errorf(err, EINVAL,
					 "%s: guest context table: bad index", what);
	return 0;
}

/*
 * The largest raw table a data section of @data_size bytes can need: a
 * sample record is at least a perf_event_header, and every distinct context
 * is some sample's, so nr_ctxs <= nr_samples <= @data_size / 8.
 */
size_t guestctx_raw_max(uint64_t data_size)
{
	uint64_t n = data_size / sizeof(struct perf_event_header);
	uint64_t per = sizeof(struct guest_ctx) + sizeof(uint32_t);

	return n > (SIZE_MAX - 24) / per ? SIZE_MAX : (size_t)(24 + n * per);
}

int guestctx_table_decode(const void *buf, size_t len, uint64_t data_size,
			  const char *what, struct guestctx_table *t, struct kp_err *err)
{
	void *raw;
	size_t raw_len;
	int ret;

	memset(t, 0, sizeof(*t));
	/* A frame that says it is bigger is refused before anything is allocated. */
	ret = kp_decompress(KP_COMP_ZSTD, buf, len, guestctx_raw_max(data_size), &raw,
			    &raw_len, err);
	if (ret) {
		kp_err_prefix(err, "%s: guest context table", what);
		return ret;
	}
	ret = fill(t, raw, raw_len, what, err);
	free(raw);
	if (ret)
		guestctx_table_release(t);
	return ret;
}

const struct guest_ctx *guestctx_of(const struct guestctx_table *t, size_t ordinal)
{
	uint32_t idx;

	if (ordinal >= t->nr_samples)
		return NULL;
	idx = t->per_sample[ordinal];
	return idx ? &t->ctxs[idx - 1] : NULL;
}

void guestctx_table_release(struct guestctx_table *t)
{
	free(t->ctxs);
	free(t->per_sample);
	memset(t, 0, sizeof(*t));
}
