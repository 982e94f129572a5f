/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A session: records streamed through the machines model into one
 * histogram per event. Report reads them from one perf.data file (diff and
 * export will too); top feeds them live from the rings (session_live.c).
 * Either way each record goes through the same ordered-events queue and
 * the same model update.
 */
#ifndef KVMPROF_SESSION_H
#define KVMPROF_SESSION_H

#include <stdbool.h>
#include <stdint.h>

#include "perf/perf.h"
#include "hist.h"
#include "sample_classes.h"
#include "guest/guest.h"
#include "machine/machine.h"

/* Where kernel symbols come from; NULL fields mean "look in the usual places". */
struct symbol_opts {
	const char *kallsyms;	/* host */
	const char *vmlinux;	/* host */
	const char *guestmount; /* /var/lib/guests layout or perf's by-pid layout */
	const char *guestkallsyms;
	const char *guestvmlinux;
	const char *guestmodules;
	bool has_guest_slide;
	int64_t guest_slide;
};

/*
 * Samples repeat the same few thousand addresses: a 2-way set-associative cache of
 * resolutions saves a binary search per sample. User-space entries are keyed
 * by object and offset, shared by every process that maps the object; kernel
 * entries by machine and address, tagged with a generation bumped whenever a
 * kernel's placement may change.
 */
#define RESOLVE_CACHE_SIZE 16384
/* Where it starts: a short report's few addresses never need the full size. */
#define RESOLVE_CACHE_FIRST 1024

struct resolve_entry {
	uint64_t ip;	   /* the address, or (user space) the offset in the object */
	const void *owner; /* the machine, or (user space) the struct dso */
	uint64_t gen;
	const struct ksym *sym;
	const struct dso *dso;
	uint64_t addr;
	/* The histogram row the last sample with these inputs landed in. */
	struct hist_entry *row;
	const struct hists *row_hists;
	const char *row_comm;
	int row_pid;
	int row_cpu;
	int row_level;
	int row_vcpu;
	uint64_t row_cr3;
};

struct guest_namer;

/* What report asks of the samples' call chains (-g, --children). */
struct session_chains {
	bool children;	   /* a Children column: each row's share with its callees */
	bool graph;	   /* a call-chain tree under each row */
	bool caller_order; /* trees from the outermost caller down, else from the row up
			    */
};

/* Takes every sample in place of the histograms (kvmprof stat exits). */
typedef int (*session_sample_fn)(void *ctx, const struct pd_sample *ps,
				 struct kp_err *err);
/*
 * Takes every sample the filters keep, resolved as the histograms would
 * have it, in place of the histograms (kvmprof export): @frames[0] is its
 * key (comm, guest, vCPU, CR3, level and its own frame), then come its
 * callers from its call chain, @nr in all. The keys' pointers live as long
 * as the session; @frames until the next sample.
 */
typedef int (*session_frame_fn)(void *ctx, const struct pd_sample *ps,
				const struct hist_key *frames, size_t nr,
				struct kp_err *err);

struct session {
	struct pd_file *file;	     /* live: the events, with no data */
	session_sample_fn sample_fn; /* NULL: samples go to the histograms */
	void *sample_ctx;
	session_frame_fn frame_fn; /* NULL: resolved samples go to the histograms */
	void *frame_ctx;
	const struct symbol_opts *sopts;
	struct machines machines;
	struct hists *hists; /* one per evsel */
	struct kvmfeat kvmfeat;
	struct guestctx_table ctx; /* from the file, when recorded with guest context */
	uint64_t ctx_base;	   /* ordinal of ctx's first sample (live drops rounds) */
	struct ordered_events oe;
	bool want_host;
	bool want_guest;
	const char *only_guest; /* guest samples of this guest name only; NULL: all */
	uint64_t lost;
	uint64_t lost_records;
	uint64_t samples;
	uint64_t level_samples[LEVEL__MAX];
	uint64_t filtered;
	struct resolve_entry *cache;
	size_t cache_slots;   /* entries of the cache, a power of two */
	size_t cache_inserts; /* misses cached since it was made */
	/*
	 * Reading a file into the histograms alone (no call chains, no frame
	 * taker): host samples are counted by class and resolved when folded.
	 */
	bool by_class;
	struct sample_classes classes;
	/* Recent samples' threads, by tid: each CPU's come in runs of one. */
	struct thread *recent_threads[MACHINE_RECENT];
	const char *vcpu_comm; /* the last vCPU thread name parsed, interned */
	int vcpu_of_comm;      /* and its vCPU index, -1 none */
	uint64_t cache_gen;
	char host_kernel_source[256];
	bool host_kernel_tried;
	/* Live only: records read since the last flush, and how to take them. */
	uint8_t *round;
	size_t round_len;
	size_t round_alloc;
	bool live_ctx;			 /* samples end with the kernel's guest context */
	const struct guest_namer *namer; /* names each guest at its first sample */
	struct synth synth;		 /* records made here go in as ring records */
	struct guestkmaps kmaps; /* each guest's kernel map, as record writes it */
	/* Call chains: set before session_process(); frames is scratch. */
	struct session_chains chains;
	struct hist_key *frames;
	uint64_t chain_stamp;
};

int session_open(struct session *s, const char *path, const char *sort,
		 const struct symbol_opts *sopts, struct kp_err *err);
int session_process(struct session *s, struct kp_err *err);
void session_close(struct session *s);

/*
 * A live session over the events of @el (opened as evsetup.h sets them up;
 * @guest_ctx: with per-sample guest context). Guests are named by @namer
 * as their first samples are read.
 */
struct evlist;
int session_open_live(struct session *s, const struct evlist *el, bool guest_ctx,
		      const struct guest_namer *namer, const char *sort,
		      const struct symbol_opts *sopts, struct kp_err *err);
/* Take one ring (or synthesized) record: a record_fn for evlist_drain(). */
int session_live_record(void *session, const struct perf_event_header *ev);
/* Put the records taken since the last flush, in time order, into the model. */
int session_live_flush(struct session *s, struct kp_err *err);

/* Sort by @sort from now on: the histograms start empty. 0 or -EINVAL. */
int session_set_sort(struct session *s, const char *sort, struct kp_err *err);

/*
 * Age every histogram row by @num/@den (perf top's 7/8 each refresh; 0/1
 * empties them) and drop the rows that reach zero. 0 or -ENOMEM.
 */
int session_decay(struct session *s, unsigned num, unsigned den);

/*
 * The guest kernel function at @ip of the guest VMM process @pid runs,
 * found as report finds it: the guest's symbols loaded and placed at the
 * first lookup (guestsyms.h, machine_place_guest_kernel()), modules
 * included. NULL when unknown.
 */
const struct ksym *session_guest_kernel_sym(struct session *s, int pid, uint64_t ip);
/* The guest's machine (named from the file's guest table), NULL without memory. */
struct machine *session_guest(struct session *s, int pid);
/* A thread's command name from the file's COMM records, ":TID" when unknown. */
const char *session_comm(struct session *s, int pid, int tid);

/* How a guest's kernel symbols were found, for report headers. */
const char *session_guest_symbol_source(const struct machine *m);

#endif
