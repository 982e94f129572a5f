// SPDX-License-Identifier: GPL-2.0
/*
 * A sample's call chain in the session: its addresses resolved with the
 * code that resolves samples, each in the address space its PERF_CONTEXT_*
 * marker says, then counted as perf report --children counts them and
 * added to the rows' call-chain trees.
 */
#include <errno.h>
#include <stdlib.h>

#include "callchain.h"
#include "session_priv.h"

/* One frame, @ip in mode @cpumode, of sample @ps whose own key is @self. */
static void resolve_frame(struct session *s, const struct pd_sample *ps, uint16_t cpumode,
			  uint64_t ip, const struct hist_key *self, struct hist_key *k)
{
	struct machine *m = &s->machines.host;

	*k = *self; /* who ran it (comm, pid, cpu, guest context) is the sample's */
	k->sym = NULL;
	k->dso = NULL;
	k->addr = ip;
	k->level = session_level_of(cpumode);
	switch (cpumode) {
	case PERF_RECORD_MISC_KERNEL:
	case PERF_RECORD_MISC_USER:
		/* Host frames, also under a guest sample: KVM's own stack. */
		k->guest = NULL;
		break;
	case PERF_RECORD_MISC_GUEST_KERNEL:
		m = session_guest(s, (int)ps->pid);
		k->guest = m;
		break;
	default:
		return; /* guest user space, hypervisor, unknown: the address only */
	}
	if (m)
		session_resolve(s, m, ps->pid, ip, k);
}

/*
 * The sample's frames, its own first, then its callers'. The kernel
 * starts a chain with the sample's address, which is already frame 0.
 */
static size_t resolve_frames(struct session *s, const struct pd_sample *ps,
			     const struct hist_key *self, struct hist_key *out)
{
	uint16_t mode = ps->misc & PERF_RECORD_MISC_CPUMODE_MASK;
	bool first = true;
	size_t n = 0;

	out[n++] = *self;
	for (uint64_t i = 0; i < ps->nr_callchain && n < CALLCHAIN_MAX_FRAMES; i++) {
		uint64_t ip = ps->callchain[i];

		if (pd_callchain_marker(ip, &mode))
			continue;
		if (first) {
			first = false;
			if (ip == ps->ip)
				continue;
		}
		resolve_frame(s, ps, mode, ip, self, &out[n++]);
	}
	return n;
}

/*
 * The path that row @i's tree gets, as perf builds it: in caller order
 * the sample's whole chain for its own row (outermost caller down to it)
 * and, for a caller's row, that caller down to the sample; in callee
 * order the row up to the outermost caller.
 */
static size_t row_path(const struct session *s, const struct hist_key *frames, size_t nr,
		       size_t i, const struct hist_key **path)
{
	size_t n = 0;

	if (!s->chains.caller_order) {
		for (size_t j = i; j < nr; j++)
			path[n++] = &frames[j];
		return n;
	}
	for (size_t j = i ? i + 1 : nr; j-- > 0;)
		path[n++] = &frames[j];
	return n;
}

static int add_path(struct session *s, struct hist_entry *e,
		    const struct hist_key *frames, size_t nr, size_t i, uint64_t period)
{
	const struct hist_key *path[CALLCHAIN_MAX_FRAMES];

	if (!e->chain) {
		e->chain = calloc(1, sizeof(*e->chain));
		if (!e->chain)
			return -ENOMEM;
	}
	return callchain_append(e->chain, path, row_path(s, frames, nr, i, path), period);
}

/* Each caller's row counts the sample once, however often it recurs. */
static int add_callers(struct session *s, struct hists *h, const struct pd_sample *ps,
		       size_t nr, uint64_t stamp)
{
	for (size_t i = 1; i < nr; i++) {
		struct hist_pass pass = {stamp, ps->period, (uint32_t)(nr - 1 - i)};
		bool counted = false;
		struct hist_entry *e =
			hists_add_children(h, &s->frames[i], &pass, &counted);

		if (!e)
			return -ENOMEM;
		if (counted && s->chains.graph &&
		    add_path(s, e, s->frames, nr, i, ps->period))
			return -ENOMEM;
	}
	return 0;
}

int session_sample_frames(struct session *s, const struct pd_sample *ps,
			  const struct hist_key *self, const struct hist_key **frames)
{
	if (!s->frames) {
		s->frames = calloc(CALLCHAIN_MAX_FRAMES, sizeof(*s->frames));
		if (!s->frames)
			return -ENOMEM;
	}
	*frames = s->frames;
	return (int)resolve_frames(s, ps, self, s->frames);
}

int session_add_chain(struct session *s, struct hists *h, const struct pd_sample *ps,
		      const struct hist_key *self, struct hist_entry *row)
{
	uint64_t stamp = ++s->chain_stamp;
	const struct hist_key *frames;
	int ret = session_sample_frames(s, ps, self, &frames);
	size_t nr;

	if (ret < 0)
		return ret;
	nr = (size_t)ret;
	if (s->chains.graph && add_path(s, row, s->frames, nr, 0, ps->period))
		return -ENOMEM;
	if (!s->chains.children)
		return 0;
	hists_add_children_to(row,
			      &(struct hist_pass){stamp, ps->period, (uint32_t)(nr - 1)});
	return add_callers(s, h, ps, nr, stamp);
}
