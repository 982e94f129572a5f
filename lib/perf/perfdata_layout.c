// SPDX-License-Identifier: GPL-2.0
/*
 * A perf.data file's sections must not overlap. perf and kvmprof write
 * header, ids, attrs, data, feature table and feature payloads one after
 * the other; a file whose sections share bytes was crafted, and sharing is
 * how a small file made the reader copy the same bytes once per event
 * (every attr naming one ids section). With the sections disjoint, what
 * the reader builds from them is bounded by the file's size.
 */
#include "perfdata_internal.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

struct span {
	uint64_t off, len;
	int kind; /* SPAN_* */
	int idx;  /* the event or feature number */
};

enum { SPAN_HEADER, SPAN_ATTRS, SPAN_IDS, SPAN_DATA, SPAN_FEAT_TABLE, SPAN_FEATURE };

struct spans {
	struct span *v;
	size_t nr;
};

static void add(struct spans *s, uint64_t off, uint64_t len, int kind, int idx)
{
	/* Empty sections hold no bytes; their offsets are often left 0. */
	if (len)
		s->v[s->nr++] = (struct span){off, len, kind, idx};
}

static const char *feature_name(int feat)
{
	static const char *const names[] = {
		[PD_FEAT_BUILD_ID] = "build_id",
		[PD_FEAT_HOSTNAME] = "hostname",
		[PD_FEAT_OSRELEASE] = "osrelease",
		[PD_FEAT_VERSION] = "version",
		[PD_FEAT_ARCH] = "arch",
		[PD_FEAT_NRCPUS] = "nrcpus",
		[PD_FEAT_CPUDESC] = "cpudesc",
		[PD_FEAT_CPUID] = "cpuid",
		[PD_FEAT_TOTAL_MEM] = "total_mem",
		[PD_FEAT_CMDLINE] = "cmdline",
		[PD_FEAT_EVENT_DESC] = "event_desc",
	};

	if (feat == PD_FEAT_KVMPROF)
		return "kvmprof";
	if (feat == PD_FEAT_KVMPROF_KSYMS)
		return "kvmprof host symbols";
	if (feat == PD_FEAT_KVMPROF_CTX)
		return "kvmprof guest context";
	if (feat >= 0 && (size_t)feat < sizeof(names) / sizeof(names[0]) && names[feat])
		return names[feat];
	return NULL;
}

static void describe(const struct span *s, const struct pd_file *f, char *buf,
		     size_t size)
{
	const char *name;
	int n;

	switch (s->kind) {
	case SPAN_HEADER:
		n = snprintf(buf, size, "the header");
		break;
	case SPAN_ATTRS:
		n = snprintf(buf, size, "the attr section");
		break;
	case SPAN_IDS:
		n = snprintf(buf, size, "the ids of event %d (%s)", s->idx,
			     f->evsels[s->idx].name);
		break;
	case SPAN_DATA:
		n = snprintf(buf, size, "the data section");
		break;
	case SPAN_FEAT_TABLE:
		n = snprintf(buf, size, "the feature table");
		break;
	default:
		name = feature_name(s->idx);
		n = name ? snprintf(buf, size, "feature %d (%s)", s->idx, name)
			 : snprintf(buf, size, "feature %d", s->idx);
	}
	if (n >= 0 && (size_t)n < size)
		snprintf(buf + n, size - (size_t)n, " at %#" PRIx64 "+%#" PRIx64, s->off,
			 s->len);
}

static int span_cmp(const void *a, const void *b)
{
	const struct span *x = a, *y = b;

	/* Ties in file order of kind, then number: the same error every time. */
	if (x->off != y->off)
		return x->off < y->off ? -1 : 1;
	if (x->kind != y->kind)
		return x->kind - y->kind;
	return x->idx - y->idx;
}

static int overlap(const struct pd_file *f, const struct span *a, const struct span *b,
		   struct kp_err *err)
{
	char x[160], y[160];

	describe(a, f, x, sizeof(x));
	describe(b, f, y, sizeof(y));
	return kp_errorf(err, EINVAL, "%s: sections overlap: %s and %s", f->path, x, y);
}

/* The first two spans, in file order, that share a byte. */
static int find_overlap(const struct pd_file *f, struct spans *s, struct kp_err *err)
{
	size_t last = 0;

	qsort(s->v, s->nr, sizeof(*s->v), span_cmp);
	for (size_t i = 1; i < s->nr; i++) {
		/* Spans lie inside the file: off + len cannot wrap. */
		if (s->v[i].off < s->v[last].off + s->v[last].len)
			return overlap(f, &s->v[last], &s->v[i], err);
		if (s->v[i].off + s->v[i].len > s->v[last].off + s->v[last].len)
			last = i;
	}
	return 0;
}

int pd_check_layout(const struct pd_file *f, const struct pd_section *feats,
		    const int *feat_bits, size_t nr_feats, struct kp_err *err)
{
	const struct pd_file_header *h = &f->header;
	struct spans s = {calloc(4 + f->nr_evsels + nr_feats, sizeof(*s.v)), 0};
	size_t nr_table = 0;
	int ret;

	for (int i = 0; i < PD_FEAT_BITS; i++)
		nr_table += pd_has_feature(f, i);

	if (!s.v)
		return kp_errorf(err, ENOMEM, "%s: out of memory", f->path);
	add(&s, 0, sizeof(*h), SPAN_HEADER, 0);
	add(&s, h->attrs.offset, h->attrs.size, SPAN_ATTRS, 0);
	for (size_t i = 0; i < f->nr_evsels; i++)
		add(&s, f->evsels[i].ids_offset, f->evsels[i].nr_ids * 8, SPAN_IDS,
		    (int)i);
	add(&s, h->data.offset, h->data.size, SPAN_DATA, 0);
	add(&s, h->data.offset + h->data.size, nr_table * sizeof(struct pd_section),
	    SPAN_FEAT_TABLE, 0);
	for (size_t i = 0; i < nr_feats; i++)
		add(&s, feats[i].offset, feats[i].size, SPAN_FEATURE, feat_bits[i]);
	ret = find_overlap(f, &s, err);
	free(s.v);
	return ret;
}
