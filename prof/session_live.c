// SPDX-License-Identifier: GPL-2.0
/*
 * Feeding a session live: ring records (and the records synthesized for
 * what ran before sampling began) are taken as record takes them, their
 * guest context off and their guest named, and kept in a round buffer
 * that each flush puts through the same ordered-events queue and model
 * update a report's file goes through.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "evsetup.h"
#include "guest_names.h"
#include "session_priv.h"

int session_open_live(struct session *s, const struct evlist *el, bool guest_ctx,
		      const struct guest_namer *namer, const char *sort,
		      const struct symbol_opts *sopts, struct kp_err *err)
{
	struct pd_evsel *evs;
	struct pd_file *f;
	int ret;

	memset(s, 0, sizeof(*s));
	if (evsetup_file_evsels(el, &evs)) {
		free(evs);
		return kp_errorf(err, ENOMEM, "out of memory");
	}
	ret = pd_open_events(evs, el->nr_evsels, "live events", &f, err);
	free(evs);
	if (ret)
		return ret;
	ret = session_init(s, f, sort, sopts, err);
	s->live_ctx = guest_ctx;
	s->namer = namer;
	/* What record would write in the file, synthesized into the session. */
	s->synth = (struct synth){.sample_type = f->evsels[0].attr.sample_type,
				  .sample_id_all = f->evsels[0].attr.sample_id_all,
				  .emit = session_live_record,
				  .ctx = s};
	return ret;
}

static int round_append(struct session *s, const struct perf_event_header *ev)
{
	if (s->round_len + ev->size > s->round_alloc) {
		size_t alloc = s->round_alloc ? s->round_alloc * 2 : 1 << 20;
		uint8_t *p;

		while (alloc < s->round_len + ev->size)
			alloc *= 2;
		p = realloc(s->round, alloc);
		if (!p)
			return -ENOMEM;
		s->round = p;
		s->round_alloc = alloc;
	}
	memcpy(s->round + s->round_len, ev, ev->size);
	s->round_len += ev->size;
	return 0;
}

/*
 * As record_state.c takes a sample: its context off and kept, its guest
 * named, and the guest's kernel map (from the context or KVM's debugfs)
 * put ahead of it when it is new or moved.
 */
static int take_sample(struct session *s, const struct perf_event_header *ev)
{
	uint8_t buf[65536];
	struct guest_ctx ctx = {0};
	uint32_t pid = evsetup_sample_pid(ev, s->synth.sample_type);
	uint64_t time = evsetup_sample_time(ev, s->synth.sample_type);
	bool guest = pd_misc_is_guest(ev->misc);
	int ret = 0;

	if (s->live_ctx)
		ev = guestctx_strip(ev, pid, &ctx, buf);
	guestkmaps_saw_time(&s->kmaps, time);
	if (guest && s->namer)
		ret = guest_namer_note(s->namer, &s->kvmfeat, (int)pid, ctx.lstar);
	if (!ret && guest)
		ret = guestkmaps_note(&s->kmaps, &s->synth, (pid_t)pid, ctx.lstar, time);
	if (!ret && s->live_ctx && guestctx_table_add(&s->ctx, guest ? &ctx : NULL))
		ret = -ENOMEM;
	return ret ? ret : round_append(s, ev);
}

int session_live_record(void *session, const struct perf_event_header *ev)
{
	struct session *s = session;

	if (ev->type == PERF_RECORD_SAMPLE)
		return take_sample(s, ev);
	return round_append(s, ev);
}

int session_live_flush(struct session *s, struct kp_err *err)
{
	size_t pos = 0;
	int ret = 0;

	while (!ret && pos + sizeof(struct perf_event_header) <= s->round_len) {
		const struct perf_event_header *ev = (const void *)(s->round + pos);

		if (ev->size < sizeof(*ev) || pos + ev->size > s->round_len)
			break; /* the kernel's ring never holds such a record */
		pos += ev->size;
		ret = ordered_events_queue(&s->oe, ev, err);
	}
	if (!ret)
		ret = ordered_events_flush(&s->oe, err);
	/* The round's contexts were looked up by ordinal: they can go too. */
	guestkmaps_round(&s->kmaps);
	s->round_len = 0;
	s->ctx.nr_samples = 0;
	s->ctx_base = s->oe.nr_samples;
	return ret;
}

int session_decay(struct session *s, unsigned num, unsigned den)
{
	int ret = 0;

	for (size_t i = 0; i < s->file->nr_evsels; i++)
		if (hists_decay(&s->hists[i], num, den))
			ret = -ENOMEM;
	s->cache_gen++; /* cached rows may be gone */
	return ret;
}

int session_set_sort(struct session *s, const char *sort, struct kp_err *err)
{
	struct hists h;

	if (hists_init(&h, sort, err))
		return -err->code;
	hists_release(&h);
	for (size_t i = 0; i < s->file->nr_evsels; i++) {
		hists_release(&s->hists[i]);
		hists_init(&s->hists[i], sort, err);
	}
	s->cache_gen++; /* cached rows belonged to the old histograms */
	return 0;
}
