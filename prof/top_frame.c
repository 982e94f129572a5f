// SPDX-License-Identifier: GPL-2.0
#include "top_frame.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "guest/guest.h"
#include "output.h"

static double pct(uint64_t part, uint64_t total)
{
	return total ? 100.0 * (double)part / (double)total : 0.0;
}

/* perf top's line: "PerfTop: N irqs/sec kernel:x% us:y% guest kernel:z% guest us:w%". */
static void headline(struct top_frame *f, const struct session *s,
		     const struct top_view *v, const struct top_counts *c, double secs)
{
	uint64_t lv[LEVEL__MAX], n = s->samples - c->samples;
	char event[64];

	for (int l = 0; l < LEVEL__MAX; l++)
		lv[l] = s->level_samples[l] - c->level[l];
	sanitize(v->event, event, sizeof(event));
	snprintf(
		f->headline, sizeof(f->headline),
		"KvmTop: %8.0f irqs/sec  kernel:%4.1f%%  us:%4.1f%%  guest kernel:%4.1f%%"
		"  guest us:%4.1f%%  [%s, %lu Hz]",
		secs > 0 ? (double)n / secs : 0.0, pct(lv[LEVEL_KERNEL], n),
		pct(lv[LEVEL_USER], n), pct(lv[LEVEL_GUEST_KERNEL], n),
		pct(lv[LEVEL_GUEST_USER], n), event, v->freq);
}

/* Its vCPU threads, as kvmprof guests counts them; -1 when it is gone. */
static int vcpu_count(int pid)
{
	static struct vmproc vm; /* large; one refresh at a time */
	struct kp_err err = {0};

	if (vmproc_read(pid, &vm, &err))
		return -1;
	return (int)(vm.nr_vcpus ? vm.nr_vcpus : vm.nr_blocked);
}

static void guest_note(struct top_frame *f, const struct machine *m, uint64_t n,
		       uint64_t total)
{
	char name[GUEST_NAME_MAX * 2], vcpus[32];
	int nv = vcpu_count(m->pid);

	if (nv < 0)
		snprintf(vcpus, sizeof(vcpus), "exited");
	else
		snprintf(vcpus, sizeof(vcpus), "%d vCPU%s", nv, nv == 1 ? "" : "s");
	sanitize(m->name, name, sizeof(name));
	snprintf(f->notes[f->nr_notes++], TOP_LINE_MAX,
		 "  guest %-20s pid %-8d %5.1f%% of samples  %s", name, m->pid,
		 pct(n, total), vcpus);
}

/* One line per guest with samples in the interval; counts move to now. */
static int guest_notes(struct top_frame *f, const struct session *s, struct top_counts *c,
		       uint64_t total)
{
	const struct machines *ms = &s->machines;

	if (c->nr_guests < ms->nr_guests) {
		uint64_t *g = realloc(c->guest, ms->nr_guests * sizeof(*g));

		if (!g)
			return -ENOMEM;
		memset(g + c->nr_guests, 0, (ms->nr_guests - c->nr_guests) * sizeof(*g));
		c->guest = g;
		c->nr_guests = ms->nr_guests;
	}
	f->nr_notes = 0;
	for (size_t i = 0; i < ms->nr_guests; i++) {
		uint64_t n = ms->guests[i]->samples - c->guest[i];

		c->guest[i] = ms->guests[i]->samples;
		if (n && f->nr_notes < TOP_NOTES_MAX)
			guest_note(f, ms->guests[i], n, total);
	}
	return 0;
}

static uint64_t shown_period(const struct hist_entry *e, const struct top_view *v)
{
	uint64_t host = e->level_period[LEVEL_KERNEL] + e->level_period[LEVEL_USER] +
			e->level_period[LEVEL_HYPERVISOR];
	uint64_t guest =
		e->level_period[LEVEL_GUEST_KERNEL] + e->level_period[LEVEL_GUEST_USER];

	return (v->show_host ? host : 0) + (v->show_guest ? guest : 0);
}

struct ranked {
	const struct hist_entry *e;
	uint64_t period;
	size_t order; /* in hists_sort()'s order: breaks ties */
};

static int ranked_cmp(const void *pa, const void *pb)
{
	const struct ranked *a = pa, *b = pb;

	if (a->period != b->period)
		return a->period > b->period ? -1 : 1;
	return a->order < b->order ? -1 : a->order > b->order;
}

int top_frame_table(struct top_frame *f, struct session *s, const struct top_view *v)
{
	struct hists *h = &s->hists[0];
	struct ranked *r = calloc(h->nr_entries + 1, sizeof(*r));
	uint64_t total = 0;
	size_t n = 0;

	if (!r)
		return -ENOMEM;
	hists_sort(h);
	for (size_t i = 0; i < h->nr_entries; i++) {
		uint64_t p = shown_period(h->entries[i], v);

		total += p;
		if (p)
			r[n++] = (struct ranked){h->entries[i], p, i};
	}
	qsort(r, n, sizeof(*r), ranked_cmp);
	snprintf(f->status, sizeof(f->status), "%s", v->keys_help ? v->keys_help : "");
	f->nr_keys = h->nr_keys;
	for (size_t k = 0; k < h->nr_keys; k++)
		f->headers[k] = output_header(h->keys[k]);
	f->nr_rows = n < TOP_ROWS_MAX ? n : TOP_ROWS_MAX;
	for (size_t i = 0; i < f->nr_rows; i++) {
		f->rows[i].pct = pct(r[i].period, total);
		for (size_t k = 0; k < h->nr_keys; k++)
			output_cell(r[i].e, h->keys[k], f->rows[i].cells[k],
				    TOP_CELL_MAX);
	}
	free(r);
	return 0;
}

int top_frame_fill(struct top_frame *f, struct session *s, const struct top_view *v,
		   struct top_counts *c, double now)
{
	uint64_t total = s->samples - c->samples;
	int ret;

	headline(f, s, v, c, now - c->time);
	ret = guest_notes(f, s, c, total);
	if (!ret)
		ret = top_frame_table(f, s, v);
	c->samples = s->samples;
	memcpy(c->level, s->level_samples, sizeof(c->level));
	c->time = now;
	return ret;
}

void top_counts_release(struct top_counts *c)
{
	free(c->guest);
	memset(c, 0, sizeof(*c));
}
