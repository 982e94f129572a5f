/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A report session: one perf.data file streamed through the machines model
 * into one histogram per event. Shared by report, diff and export.
 */
#ifndef KVMPROF_SESSION_H
#define KVMPROF_SESSION_H

#include <stdbool.h>
#include <stdint.h>

#include "perf/perf.h"
#include "hist.h"
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
 * resolutions saves a binary search (and for user space a map search) per
 * sample. Entries are tagged with a generation bumped by every map change.
 */
#define RESOLVE_CACHE_SIZE 16384

struct resolve_entry {
	uint64_t ip;
	const void *owner; /* machine, or (for user space) the thread's pid + 1 */
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
};

/* Takes every sample in place of the histograms (kvmprof stat exits). */
typedef int (*session_sample_fn)(void *ctx, const struct pd_sample *ps,
				 struct kp_err *err);

struct session {
	struct pd_file *file;
	session_sample_fn sample_fn; /* NULL: samples go to the histograms */
	void *sample_ctx;
	const struct symbol_opts *sopts;
	struct machines machines;
	struct hists *hists; /* one per evsel */
	struct kvmfeat kvmfeat;
	struct guestctx_table ctx; /* from the file, when recorded with guest context */
	bool want_host;
	bool want_guest;
	uint64_t lost;
	uint64_t lost_records;
	uint64_t samples;
	uint64_t filtered;
	struct resolve_entry *cache;
	struct thread *last_thread; /* samples come in runs from one thread */
	uint64_t cache_gen;
	char host_kernel_source[256];
	bool host_kernel_tried;
};

int session_open(struct session *s, const char *path, const char *sort,
		 const struct symbol_opts *sopts, struct kp_err *err);
int session_process(struct session *s, struct kp_err *err);
void session_close(struct session *s);

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
