// SPDX-License-Identifier: GPL-2.0
/* One guest kernel map per guest seen while recording. */
#include "guestkmap.h"

#include <errno.h>
#include <stdlib.h>

#include "guest/kvmdebugfs.h"
#include "ksym/kaslr.h"

void guestkmaps_round(struct guestkmaps *t)
{
	t->round++;
	t->safe_time = t->max_time_prev;
	t->max_time_prev = t->max_time;
}

const struct guestkmap_entry *guestkmaps_find(const struct guestkmaps *t, pid_t pid)
{
	for (size_t i = 0; i < t->nr; i++)
		if (t->guests[i].pid == pid)
			return &t->guests[i];
	return NULL;
}

static struct guestkmap_entry *get_entry(struct guestkmaps *t, pid_t pid)
{
	struct guestkmap_entry *e = (struct guestkmap_entry *)guestkmaps_find(t, pid);

	if (e)
		return e;
	if (t->nr == t->alloc) {
		size_t alloc = t->alloc ? t->alloc * 2 : 8;

		e = realloc(t->guests, alloc * sizeof(*e));
		if (!e)
			return NULL;
		t->guests = e;
		t->alloc = alloc;
	}
	e = &t->guests[t->nr++];
	/* Round 0 is never "tried": the first sample reads debugfs at once. */
	*e = (struct guestkmap_entry){.pid = pid, .tried_round = ~0ULL};
	return e;
}

/* The guest's LSTAR from debugfs, read at most once per round. */
static uint64_t debugfs_lstar(struct guestkmaps *t, struct guestkmap_entry *e)
{
	struct kvm_guest_regs regs;

	if (e->tried_round == t->round)
		return 0;
	e->tried_round = t->round;
	/* No files (a kernel without the series), not root, not booted yet: later. */
	if (kvm_debugfs_guest_regs(t->debugfs_dir, e->pid, &regs, NULL))
		return 0;
	return regs.lstar;
}

/* Is @lstar, seen at @time, news: the first one, or a reboot's? */
static bool needs_map(const struct guestkmap_entry *e, uint64_t lstar, uint64_t time)
{
	if (!lstar)
		return false;
	return !e->written || (lstar != e->lstar && time > e->map_time);
}

int guestkmaps_note(struct guestkmaps *t, const struct synth *s, pid_t pid,
		    uint64_t ctx_lstar, uint64_t time)
{
	struct guestkmap_entry *e;
	struct synth at = *s;
	uint64_t lstar;
	int ret;

	if (pid <= 0)
		return 0;
	e = get_entry(t, pid);
	if (!e)
		return -ENOMEM;
	lstar = ctx_lstar ? ctx_lstar : debugfs_lstar(t, e);
	if (!needs_map(e, lstar, time))
		return 0;
	at.time = e->written ? time : t->safe_time;
	/* The copy first: perf loads the default guest's symbols at its first map. */
	ret = synth_default_guest_copy(&at, pid, KASLR_LSTAR_SYMBOL, lstar);
	if (!ret)
		ret = synth_guest_kernel_mmap(&at, pid, KASLR_LSTAR_SYMBOL, lstar);
	if (ret)
		return ret;
	e->written = true;
	e->lstar = lstar;
	e->map_time = time;
	e->nr_maps++;
	return 0;
}

void guestkmaps_release(struct guestkmaps *t)
{
	free(t->guests);
	t->guests = NULL;
	t->nr = t->alloc = 0;
}
