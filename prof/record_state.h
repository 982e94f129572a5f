/* SPDX-License-Identifier: GPL-2.0 */
/* What kvmprof record accumulates while draining the rings. */
#ifndef KVMPROF_RECORD_STATE_H
#define KVMPROF_RECORD_STATE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "guest/guest.h"
#include "guest_names.h"
#include "perf/perf.h"
#include "base/base.h"

struct record_state {
	struct pd_writer *writer;
	struct synth synth;
	bool want_host;
	bool want_guest;
	/* Samples are taken in the VMM (kvm tracepoints): each one's pid is a guest. */
	bool vmm_samples;
	uint64_t samples;
	uint64_t guest_samples;
	uint64_t dropped; /* filtered out by --host / --guest */
	uint64_t lost;	  /* PERF_RECORD_LOST: samples the kernel could not deliver */
	uint64_t lost_records;
	struct kvmfeat guests;	  /* QEMU processes seen running guest code */
	struct guest_namer namer; /* names them as they are seen */
	bool guest_ctx;		  /* samples end with a struct perf_sample_guest_ctx */
	char ctx_why[160];	  /* without guest_ctx: why not (guestctx_explain) */
	struct guestctx_table ctx;
	struct guestkmaps kmaps; /* each guest's kernel map, written on first sight */
	struct hashmap mapped;	 /* files of user mappings, for the BUILD_ID feature */
	/*
	 * The rings go to the file as they lie, unread, while KVM is not
	 * loaded: no sample can then be a guest's, and nothing needs naming
	 * while its process lives. Bytes unread_from to unread_to of the data
	 * section are read back after the recording, as perf record reads
	 * its file back for build-ids.
	 */
	bool unread;
	uint64_t unread_from;
	uint64_t unread_to;
	int kvm_watch; /* unread: KVM coming up makes it readable (kvm_watch_open()) */
	/* A pass over unread rings: its pieces, written with its round's marker. */
	struct iovec pieces[PD_WRITER_PIECES];
	int nr_pieces;
	int error;
	struct kp_err err;
};

void record_state_init(struct record_state *rs, bool host, bool guest);
void record_state_set_synth(struct record_state *rs, const struct perf_event_attr *attr);
int record_state_on_record(void *ctx, const struct perf_event_header *ev);
/* After each ring: what record_state_on_record() took from it goes out (ring_done_fn). */
int record_state_ring_done(void *ctx);
int record_state_finish_round(struct record_state *rs);
/*
 * From here on the rings go to the file unread (record_state_on_ring_bytes()),
 * until rs->kvm_watch says that KVM came up.
 */
void record_state_begin_unread(struct record_state *rs);
/* From here on each record is read as it comes (record_state_on_record()). */
void record_state_end_unread(struct record_state *rs);
int record_state_on_ring_bytes(void *ctx, const void *a, size_t alen, const void *b,
			       size_t blen);
/* After a pass over unread rings: its bytes and its round's marker go out. */
int record_state_end_pass(void *ctx);
/* Count what was written unread: samples, lost samples, mapped files. */
int record_state_read_back(struct record_state *rs, struct kp_err *err);
/* Name each guest seen and store the table in the kvmprof feature. */
int record_state_write_guests(struct record_state *rs, struct kp_err *err);
/* With guest_ctx: the per-sample contexts, as the PD_FEAT_KVMPROF_CTX feature. */
int record_state_write_contexts(struct record_state *rs, struct kp_err *err);
/* Build-ids of the host kernel and every mapped file, as perf record writes them. */
int record_state_write_build_ids(struct record_state *rs, struct kp_err *err);
void record_state_print_summary(const struct record_state *rs, const char *path,
				FILE *out);
void record_state_release(struct record_state *rs);

#endif
