/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Machines: the host and each guest, as perf models them. A machine has
 * threads (tid -> comm), processes with their memory maps, and a kernel
 * symbol table placed at runtime by a slide. Records from a perf.data file
 * update machines; samples are resolved against them.
 */
#ifndef KVMPROF_MACHINE_H
#define KVMPROF_MACHINE_H

#include <stdbool.h>
#include <stdint.h>

#include "base/arena.h"
#include "dso.h"
#include "guest/guestid.h"
#include "base/hashmap.h"
#include "kmodules.h"

struct map {
	uint64_t start;
	uint64_t end;
	uint64_t pgoff;
	struct dso *dso;
};

/* How many recently used processes and threads are remembered (a power of two). */
#define MACHINE_RECENT 64

struct mapgroup {
	struct map *maps; /* sorted by start, non-overlapping */
	size_t nr;
	size_t alloc;
	size_t last;   /* where the latest lookup found its address */
	size_t before; /* and the one before it, in another map */
};

struct thread {
	int pid;
	int tid;
	const char *comm; /* interned */
};

struct machine {
	bool guest;
	int pid;		   /* QEMU process for guests, -1 for the host */
	char name[GUEST_NAME_MAX]; /* guest name, "-" when unknown */
	char dso_name[64];	   /* [kernel.kallsyms] or [guest.kernel.kallsyms.PID] */
	struct dso *kernel;
	/* Where the kernel runs: slide = runtime - link-time address. */
	bool slide_known;
	int64_t slide;
	char slide_source[96];
	/*
	 * Guests: the LSTAR of the latest sample's guest context, and the one
	 * the kernel was placed with: a guest that reboots gets a new slide.
	 */
	uint64_t lstar;
	uint64_t placed_lstar;
	bool runtime_table; /* its table holds runtime addresses */
	/* The kernel map record's reference symbol and its runtime address. */
	char ref_sym[64];
	uint64_t ref_runtime;
	struct kmodules modules; /* guests: loaded modules, when a list is known */
	char modules_source[600];
	struct hashmap threads; /* tid -> struct thread */
	struct hashmap procs;	/* pid -> struct mapgroup */
	/*
	 * Recent lookups' processes, by pid: samples from each CPU come in runs
	 * of one process, and the CPUs' samples interleave. Groups live as long
	 * as the machine.
	 */
	struct {
		int pid;
		struct mapgroup *group;
	} recent_groups[MACHINE_RECENT];
	uint64_t samples;
};

struct machines {
	struct machine host;
	struct machine **guests;
	size_t nr_guests;
	struct hashmap guest_by_pid;
	struct dso_cache dsos;
	struct arena *strings;
	struct hashmap comms; /* interned comm strings */
};

int machines_init(struct machines *ms);
void machines_release(struct machines *ms);
struct machine *machines_guest(struct machines *ms, int pid);
struct machine *machines_find_guest(const struct machines *ms, int pid);

const char *machines_intern(struct machines *ms, const char *s);
struct thread *machine_thread(struct machines *ms, struct machine *m, int pid, int tid);
int machine_set_comm(struct machines *ms, struct machine *m, int pid, int tid,
		     const char *comm);
int machine_fork(struct machines *ms, struct machine *m, int ppid, int pid, int tid);
int machine_add_map(struct machines *ms, struct machine *m, int pid, uint64_t start,
		    uint64_t len, uint64_t pgoff, const char *filename);
const struct map *machine_find_map(struct machine *m, int pid, uint64_t addr);

/*
 * Where a machine's kernel runs (placement.c). Place the kernel table: the
 * slide from the reference symbol the kernel map record named (its pgoff
 * is that symbol's runtime address), unless a slide is already known from
 * a better source. Called when a table is loaded, and when a kernel map
 * record arrives after that.
 */
void machine_place_kernel(struct machine *m);

/* What is known of where a guest's kernel runs, besides kernel map records. */
struct guest_slide_hints {
	bool forced; /* --guest-slide */
	int64_t forced_slide;
	uint64_t lstar; /* the guest context's LSTAR, 0 when unknown */
	bool recorded;	/* the file records a slide */
	int64_t recorded_slide;
	const char *recorded_source; /* how it was found; NULL or "": unknown */
	const struct machine *def;   /* perf kvm's default guest (pid 0), or NULL */
	bool runtime_table;	     /* the table is the running guest's /proc/kallsyms */
};

/*
 * Place guest @m's newly loaded kernel table: set m->slide, ->slide_known
 * and ->slide_source from the first source that gives a slide, the most
 * trusted first:
 *   1. the user's --guest-slide;
 *   2. the guest context's LSTAR (kaslr_slide_from_lstar());
 *   3. a slide recorded in the file;
 *   4. a kernel map record of @m, or else of perf kvm's default guest, which
 *      stands for every guest when perf kvm ran without --guestmount;
 *   5. 0 when the table holds runtime addresses.
 * Otherwise the slide stays unknown, and only an unrelocated kernel resolves.
 */
void machine_place_guest_kernel(struct machine *m, const struct guest_slide_hints *h);

#endif
