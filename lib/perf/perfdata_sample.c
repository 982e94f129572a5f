// SPDX-License-Identifier: GPL-2.0
/*
 * Decoding PERF_RECORD_SAMPLE bodies and sample_id_all trailers, field by
 * field in the order the kernel's perf_output_sample() writes them.
 */
#include <errno.h>
#include <string.h>

#include "perfdata_internal.h"

struct cursor {
	const uint8_t *p;
	const uint8_t *end;
	bool bad;
};

static uint64_t take_u64(struct cursor *c)
{
	uint64_t v = 0;

	if (c->end - c->p < 8) {
		c->bad = true;
		return 0;
	}
	memcpy(&v, c->p, 8);
	c->p += 8;
	return v;
}

static void take_u32_pair(struct cursor *c, uint32_t *a, uint32_t *b)
{
	uint64_t v = take_u64(c);

	*a = (uint32_t)v;
	*b = (uint32_t)(v >> 32);
}

static void skip_bytes(struct cursor *c, uint64_t n)
{
	if ((uint64_t)(c->end - c->p) < n) {
		c->bad = true;
		return;
	}
	c->p += n;
}

static void skip_read(struct cursor *c, uint64_t fmt)
{
	uint64_t per = 1 + !!(fmt & PERF_FORMAT_ID) + !!(fmt & PERF_FORMAT_LOST);
	uint64_t nr = 1;

	if (fmt & PERF_FORMAT_GROUP)
		nr = take_u64(c);
	else
		skip_bytes(c, 8); /* value */
	skip_bytes(c, 8 * (!!(fmt & PERF_FORMAT_TOTAL_TIME_ENABLED) +
			   !!(fmt & PERF_FORMAT_TOTAL_TIME_RUNNING)));
	if (fmt & PERF_FORMAT_GROUP) {
		if (nr > 4096)
			c->bad = true;
		else
			skip_bytes(c, nr * per * 8);
	} else {
		skip_bytes(c, 8 * (per - 1));
	}
}

static void skip_regs(struct cursor *c, uint64_t mask)
{
	if (take_u64(c)) /* abi: 0 means no registers follow */
		skip_bytes(c, 8 * (uint64_t)__builtin_popcountll(mask));
}

static void skip_branch_stack(struct cursor *c, const struct perf_event_attr *attr)
{
	uint64_t nr = take_u64(c);

	if (attr->branch_sample_type & PERF_SAMPLE_BRANCH_HW_INDEX)
		skip_bytes(c, 8);
	if (nr > 65536)
		c->bad = true;
	else
		skip_bytes(c, nr * 24);
}

/* PERF_SAMPLE_RAW: u32 size, then the record; the two padded to 8 bytes. */
static void take_raw(struct cursor *c, struct pd_sample *s)
{
	uint32_t size;

	if (c->end - c->p < 4) {
		c->bad = true;
		return;
	}
	memcpy(&size, c->p, 4);
	s->raw = c->p + 4;
	s->raw_size = size;
	skip_bytes(c, (4 + (uint64_t)size + 7) & ~7ULL);
}

/*
 * PERF_SAMPLE_CALLCHAIN: u64 nr, then nr addresses and PERF_CONTEXT_*
 * markers. The count comes from the file: it must fit in what is left of
 * the record, or the sample is bad and the chain is not handed out.
 */
static void take_callchain(struct cursor *c, struct pd_sample *s)
{
	uint64_t nr = take_u64(c);

	if (c->bad || nr > (uint64_t)(c->end - c->p) / 8) {
		c->bad = true;
		return;
	}
	s->nr_callchain = nr;
	s->callchain = (const uint64_t *)c->p;
	c->p += nr * 8;
}

bool pd_callchain_marker(uint64_t entry, uint16_t *cpumode)
{
	if (entry < PERF_CONTEXT_MAX)
		return false;
	switch (entry) {
	case PERF_CONTEXT_KERNEL:
		*cpumode = PERF_RECORD_MISC_KERNEL;
		break;
	case PERF_CONTEXT_USER:
		*cpumode = PERF_RECORD_MISC_USER;
		break;
	case PERF_CONTEXT_HV:
		*cpumode = PERF_RECORD_MISC_HYPERVISOR;
		break;
	case PERF_CONTEXT_GUEST: /* a guest's frames follow, its kernel's first */
	case PERF_CONTEXT_GUEST_KERNEL:
		*cpumode = PERF_RECORD_MISC_GUEST_KERNEL;
		break;
	case PERF_CONTEXT_GUEST_USER:
		*cpumode = PERF_RECORD_MISC_GUEST_USER;
		break;
	default:
		*cpumode = PERF_RECORD_MISC_CPUMODE_UNKNOWN;
	}
	return true;
}

/* The fields after the callchain: the raw record kept, the rest only skipped. */
static void skip_tail(struct cursor *c, const struct perf_event_attr *attr,
		      struct pd_sample *s)
{
	uint64_t t = attr->sample_type;

	if (t & PERF_SAMPLE_RAW)
		take_raw(c, s);
	if (t & PERF_SAMPLE_BRANCH_STACK)
		skip_branch_stack(c, attr);
	if (t & PERF_SAMPLE_REGS_USER)
		skip_regs(c, attr->sample_regs_user);
	if (t & PERF_SAMPLE_STACK_USER) {
		uint64_t size = take_u64(c);

		skip_bytes(c, size);
		if (size)
			skip_bytes(c, 8); /* dyn_size */
	}
	skip_bytes(c,
		   8 * (!!(t & (PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT)) +
			!!(t & PERF_SAMPLE_DATA_SRC) + !!(t & PERF_SAMPLE_TRANSACTION)));
	if (t & PERF_SAMPLE_REGS_INTR)
		skip_regs(c, attr->sample_regs_intr);
	skip_bytes(c, 8 * (!!(t & PERF_SAMPLE_PHYS_ADDR) + !!(t & PERF_SAMPLE_CGROUP) +
			   !!(t & PERF_SAMPLE_DATA_PAGE_SIZE) +
			   !!(t & PERF_SAMPLE_CODE_PAGE_SIZE)));
	if (t & PERF_SAMPLE_AUX)
		skip_bytes(c, take_u64(c));
}

/*
 * TID, TIME, [ADDR], ID, STREAM_ID, CPU: the fields samples and sample_id_all
 * trailers share, in the kernel's order (trailers have no ADDR).
 */
static void take_id_fields(struct cursor *c, uint64_t t, bool with_addr,
			   struct pd_sample *s)
{
	uint32_t res;

	if (t & PERF_SAMPLE_TID)
		take_u32_pair(c, &s->pid, &s->tid);
	if (t & PERF_SAMPLE_TIME)
		s->time = take_u64(c);
	if (with_addr && (t & PERF_SAMPLE_ADDR))
		s->addr = take_u64(c);
	if (t & PERF_SAMPLE_ID)
		s->id = take_u64(c);
	if (t & PERF_SAMPLE_STREAM_ID)
		take_u64(c);
	if (t & PERF_SAMPLE_CPU)
		take_u32_pair(c, &s->cpu, &res);
}

static int bad_record(const struct pd_file *f, const struct perf_event_header *ev,
		      const char *what, struct kp_err *err)
{
	uint64_t off;

	if (!pd_record_offset(f, ev,
			      &off)) /* a live session's record: it has no offset */
		return kp_errorf(err, EINVAL, "%s: %s", f->path, what);
	return kp_errorf(err, EINVAL, "%s: offset %#llx: %s", f->path,
			 (unsigned long long)off, what);
}

static uint64_t word(const uint64_t *w, size_t *i)
{
	return w[(*i)++];
}

/* Straight-line decoding when every field has a fixed place (no bounds per field). */
static void parse_fixed(const uint64_t *w, uint64_t t, struct pd_sample *s)
{
	size_t i = 0;

	if (t & PERF_SAMPLE_IDENTIFIER)
		s->id = word(w, &i);
	if (t & PERF_SAMPLE_IP)
		s->ip = word(w, &i);
	if (t & PERF_SAMPLE_TID) {
		s->pid = (uint32_t)w[i];
		s->tid = (uint32_t)(w[i++] >> 32);
	}
	if (t & PERF_SAMPLE_TIME)
		s->time = word(w, &i);
	if (t & PERF_SAMPLE_ADDR)
		s->addr = word(w, &i);
	if (t & PERF_SAMPLE_ID)
		s->id = word(w, &i);
	if (t & PERF_SAMPLE_STREAM_ID)
		i++;
	if (t & PERF_SAMPLE_CPU)
		s->cpu = (uint32_t)w[i++];
	if (t & PERF_SAMPLE_PERIOD)
		s->period = w[i];
}

int pd_parse_sample(const struct pd_file *f, const struct perf_event_header *ev,
		    struct pd_sample *s, struct kp_err *err)
{
	const uint64_t *w = (const uint64_t *)(ev + 1);
	size_t nr_words = (ev->size - sizeof(*ev)) / 8;
	uint64_t t;

	/* Fast path: a single event whose samples hold only fixed-size fields. */
	if (f->fixed_words) {
		t = f->evsels[0].attr.sample_type;
		if (nr_words >= f->fixed_words) {
			memset(s, 0, sizeof(*s));
			s->evsel = &f->evsels[0];
			s->misc = ev->misc;
			s->period = s->evsel->attr.sample_period;
			parse_fixed(w, t, s);
			return 0;
		}
	}
	return pd_parse_sample_slow(f, ev, s, err);
}

int pd_parse_sample_slow(const struct pd_file *f, const struct perf_event_header *ev,
			 struct pd_sample *s, struct kp_err *err)
{
	struct cursor c = {(const uint8_t *)(ev + 1), (const uint8_t *)ev + ev->size,
			   false};
	const struct perf_event_attr *attr;
	uint64_t t;

	memset(s, 0, sizeof(*s));
	s->evsel =
		pd_evsel_for(f, (const uint64_t *)c.p, (size_t)(c.end - c.p) / 8, true);
	if (!s->evsel)
		return bad_record(f, ev, "sample with an id not present in the header",
				  err);
	attr = &s->evsel->attr;
	t = attr->sample_type;
	s->misc = ev->misc;
	if (t & PERF_SAMPLE_IDENTIFIER)
		s->id = take_u64(&c);
	if (t & PERF_SAMPLE_IP)
		s->ip = take_u64(&c);
	take_id_fields(&c, t, true, s);
	s->period = t & PERF_SAMPLE_PERIOD ? take_u64(&c) : attr->sample_period;
	if (t & PERF_SAMPLE_READ)
		skip_read(&c, attr->read_format);
	if (t & PERF_SAMPLE_CALLCHAIN)
		take_callchain(&c, s);
	skip_tail(&c, attr, s);
	if (c.bad)
		return bad_record(f, ev, "sample shorter than its sample_type says", err);
	return 0;
}

int pd_parse_id_trailer(const struct pd_file *f, const struct perf_event_header *ev,
			struct pd_sample *s, struct kp_err *err)
{
	const struct perf_event_attr *attr = &f->evsels[0].attr;
	uint64_t t = attr->sample_type;
	size_t nr = !!(t & PERF_SAMPLE_TID) + !!(t & PERF_SAMPLE_TIME) +
		    !!(t & PERF_SAMPLE_ID) + !!(t & PERF_SAMPLE_STREAM_ID) +
		    !!(t & PERF_SAMPLE_CPU) + !!(t & PERF_SAMPLE_IDENTIFIER);
	size_t words = (ev->size - sizeof(*ev)) / 8;
	struct cursor c;

	memset(s, 0, sizeof(*s));
	if (!attr->sample_id_all || !nr)
		return 0;
	if (nr > words)
		return bad_record(f, ev, "record too short for its sample_id trailer",
				  err);
	c.p = (const uint8_t *)ev + sizeof(*ev) + (words - nr) * 8;
	c.end = c.p + nr * 8;
	c.bad = false;
	s->evsel = pd_evsel_for(f, (const uint64_t *)((const uint8_t *)ev + sizeof(*ev)),
				words, false);
	take_id_fields(&c, t, false, s);
	if (t & PERF_SAMPLE_IDENTIFIER)
		s->id = take_u64(&c);
	return 0;
}
