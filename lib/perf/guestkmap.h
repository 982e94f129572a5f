/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The guest kernel map of each guest a recording sees, written as perf kvm
 * writes it ("[guest.kernel.kallsyms.PID]entry_SYSCALL_64", pgoff = that
 * symbol's runtime address), so that perf and kvmprof reports find the
 * guest's KASLR slide in the file itself.
 *
 * The runtime address is the guest's LSTAR: from the sample's guest context
 * when the kernel has the kvmprof series, else from KVM's debugfs
 * (kvmdebugfs.h, read at most once a round), which also serves samples
 * recorded without the context. A guest is only known once its first
 * sample arrives, so the map is written then, just before that sample,
 * after a copy for perf's default guest (see synth_default_guest_copy()).
 * A guest that reboots runs its kernel at a new slide: when its LSTAR
 * changes, a new map (and copy) is written, so that readers place the
 * kernel anew from that point on.
 *
 * Their timestamps: readers sort each round (the records between two
 * FINISHED_ROUND markers) by time, and perf flushes rounds one behind.
 *
 * - The first map: every sample of a round is later than anything read
 *   two rounds before (that ring was drained since), so the latest sample
 *   time as of the next-to-last marker puts the map ahead of every sample
 *   of its round without reaching back into what perf already flushed.
 * - A later map takes the time of the first sample seen with the new
 *   LSTAR. A reboot is one moment for all vCPUs: every sample of the old
 *   kernel is older, every sample of the new one is as old or newer (the
 *   map, written first, sorts ahead of equal times). perf accepts that
 *   sample's time, so it accepts the map's. Samples of the old kernel that
 *   are drained later (another CPU's ring) are older than the map: they
 *   write nothing. From debugfs, the change is only seen at the first
 *   sample of the round after it: samples of the new kernel up to one
 *   round earlier keep the old map.
 */
#ifndef KVMPROF_GUESTKMAP_H
#define KVMPROF_GUESTKMAP_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "synth.h"

struct guestkmap_entry {
	pid_t pid;
	bool written;
	uint64_t lstar;	      /* what the latest map says, once written */
	uint64_t map_time;    /* the sample time the latest map was written for */
	unsigned nr_maps;     /* more than one: the guest rebooted */
	uint64_t tried_round; /* debugfs is read at most once per round */
};

struct guestkmaps {
	const char *debugfs_dir; /* NULL: KVM_DEBUGFS_DIR */
	struct guestkmap_entry *guests;
	size_t nr;
	size_t alloc;
	uint64_t round;		/* FINISHED_ROUND markers written so far */
	uint64_t max_time;	/* latest sample time seen */
	uint64_t max_time_prev; /* max_time as of the last marker */
	uint64_t safe_time;	/* max_time as of the marker before that */
};

/* A sample's time: every sample passes here, guest or not. */
static inline void guestkmaps_saw_time(struct guestkmaps *t, uint64_t time)
{
	if (time > t->max_time)
		t->max_time = time;
}

/* A FINISHED_ROUND marker was written. */
void guestkmaps_round(struct guestkmaps *t);

/*
 * A guest sample of @pid at @time, with its context's LSTAR (0: none).
 * Writes the map through @s the first time an LSTAR is known for @pid, and
 * again when a later sample's LSTAR differs. Returns 0 (also when no LSTAR
 * is known yet: a later sample tries again) or a negative errno from
 * writing.
 */
int guestkmaps_note(struct guestkmaps *t, const struct synth *s, pid_t pid,
		    uint64_t ctx_lstar, uint64_t time);

/* The map written for @pid, or NULL. */
const struct guestkmap_entry *guestkmaps_find(const struct guestkmaps *t, pid_t pid);

void guestkmaps_release(struct guestkmaps *t);

#endif
