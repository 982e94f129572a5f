// SPDX-License-Identifier: GPL-2.0
#include "record_state.h"

#include "evsetup.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "ksym/ksym.h"
#include "machine/vdso.h"
#include "base/base.h"
#include "guest/guest.h"

/* Tells perf's ordered-events queue that everything before it may be sorted. */
static const struct perf_event_header round_marker = {
	.type = PD_RECORD_FINISHED_ROUND,
	.size = sizeof(round_marker),
};

void record_state_init(struct record_state *rs, bool host, bool guest)
{
	memset(rs, 0, sizeof(*rs));
	/* Neither flag means both, as with perf record. */
	rs->want_host = host || !guest;
	rs->want_guest = guest || !host;
	rs->kvm_watch = -1;
}

/* Remember each file a user mapping names (MMAP and MMAP2 records), and [vdso]. */
static void note_mapped_file(struct record_state *rs, const struct perf_event_header *ev)
{
	size_t off = ev->type == PERF_RECORD_MMAP ? 40 : 72;
	const char *name = (const char *)ev + off;
	size_t len;
	uint64_t key;
	char *copy;

	if ((ev->misc & PERF_RECORD_MISC_CPUMODE_MASK) != PERF_RECORD_MISC_USER ||
	    ev->size <= off)
		return;
	len = strnlen(name, ev->size - off);
	if (!len || len == ev->size - off ||
	    (name[0] != '/' && strncmp(name, "[vdso]", len + 1)))
		return;
	key = hash_bytes(name, len);
	if (hashmap_get(&rs->mapped, key))
		return;
	copy = strndup(name, len);
	if (copy && hashmap_put(&rs->mapped, key, copy))
		free(copy);
}

static int emit(void *ctx, const struct perf_event_header *ev)
{
	struct record_state *rs = ctx;

	if (ev->type == PERF_RECORD_MMAP || ev->type == PERF_RECORD_MMAP2)
		note_mapped_file(rs, ev);
	return pd_writer_append(rs->writer, ev, ev->size, &rs->err);
}

/*
 * A record as it lies in a ring, unchanged: by reference, so that a ring's
 * records go to the file in one piece from the ring (record_state_ring_done()),
 * not copied one by one into a buffer first.
 */
static int emit_from_ring(struct record_state *rs, const struct perf_event_header *ev)
{
	if (ev->type == PERF_RECORD_MMAP || ev->type == PERF_RECORD_MMAP2)
		note_mapped_file(rs, ev);
	return pd_writer_append_ref(rs->writer, ev, ev->size, &rs->err);
}

int record_state_ring_done(void *ctx)
{
	struct record_state *rs = ctx;

	return pd_writer_end_refs(rs->writer, &rs->err);
}

void record_state_set_synth(struct record_state *rs, const struct perf_event_attr *attr)
{
	rs->synth.sample_type = attr->sample_type;
	rs->synth.sample_id_all = attr->sample_id_all;
	rs->synth.emit = emit;
	rs->synth.ctx = rs;
}

static int on_sample(struct record_state *rs, const struct perf_event_header *ev)
{
	struct guest_ctx ctx;
	uint8_t buf[65536];
	bool guest = pd_misc_is_guest(ev->misc);
	uint64_t type = rs->synth.sample_type;
	int ret;

	if (rs->guest_ctx)
		ev = guestctx_strip(ev, evsetup_sample_pid(ev, type), &ctx, buf);

	/* Software events ignore exclude_host/exclude_guest: filter here too. */
	if (guest ? !rs->want_guest : !rs->want_host) {
		rs->dropped++;
		return 0;
	}
	rs->samples++;
	guestkmaps_saw_time(&rs->kmaps, evsetup_sample_time(ev, type));
	if (guest || rs->vmm_samples) {
		int pid = (int)evsetup_sample_pid(ev, type);

		rs->guest_samples += guest;
		ret = guest_namer_note(&rs->namer, &rs->guests, pid,
				       rs->guest_ctx ? ctx.lstar : 0);
		/* The guest's kernel map goes ahead of its first sample. */
		if (!ret)
			ret = guestkmaps_note(&rs->kmaps, &rs->synth, pid,
					      rs->guest_ctx ? ctx.lstar : 0,
					      evsetup_sample_time(ev, type));
		if (ret)
			return ret;
	}
	if (rs->guest_ctx && guestctx_table_add(&rs->ctx, guest ? &ctx : NULL))
		return -ENOMEM;
	/* Without its guest context, the sample is a copy on this stack. */
	return rs->guest_ctx ? emit(rs, ev) : emit_from_ring(rs, ev);
}

/* The time in a kernel record's sample_id_all trailer, 0 when it has none. */
static uint64_t trailer_time(const struct record_state *rs,
			     const struct perf_event_header *ev)
{
	uint64_t t = rs->synth.sample_type, time;
	size_t after = 8 * (1 + !!(t & PERF_SAMPLE_ID) + !!(t & PERF_SAMPLE_STREAM_ID) +
			    !!(t & PERF_SAMPLE_CPU) + !!(t & PERF_SAMPLE_IDENTIFIER));

	if (!rs->synth.sample_id_all || !(t & PERF_SAMPLE_TIME) ||
	    ev->size < sizeof(*ev) + after)
		return 0;
	memcpy(&time, (const uint8_t *)ev + ev->size - after, sizeof(time));
	return time;
}

static void count_lost(struct record_state *rs, const struct perf_event_header *ev)
{
	const uint64_t *w = (const void *)(ev + 1);

	rs->lost_records++;
	if (ev->size >= sizeof(*ev) + 16)
		rs->lost += w[1];
}

int record_state_on_record(void *ctx, const struct perf_event_header *ev)
{
	struct record_state *rs = ctx;

	if (ev->type == PERF_RECORD_SAMPLE)
		return on_sample(rs, ev);
	/* perf flushes up to these times too: a late guest map must not precede them. */
	guestkmaps_saw_time(&rs->kmaps, trailer_time(rs, ev));
	if (ev->type == PERF_RECORD_LOST)
		count_lost(rs, ev);
	return emit_from_ring(rs, ev);
}

static void close_watch(struct record_state *rs)
{
	if (rs->kvm_watch >= 0)
		close(rs->kvm_watch);
	rs->kvm_watch = -1;
}

void record_state_begin_unread(struct record_state *rs)
{
	/* Its first store faults: before the workload runs, not at a wake-up. */
	memset(rs->pieces, 0, sizeof(rs->pieces));
	rs->unread = true;
	rs->unread_from = pd_writer_data_size(rs->writer);
	rs->unread_to = rs->unread_from;
}

void record_state_end_unread(struct record_state *rs)
{
	if (!rs->unread)
		return;
	rs->unread = false;
	rs->unread_to = pd_writer_data_size(rs->writer);
	close_watch(rs);
}

static int write_pieces(struct record_state *rs)
{
	int ret = pd_writer_write_pieces(rs->writer, rs->pieces, rs->nr_pieces, &rs->err);

	rs->nr_pieces = 0;
	return ret;
}

int record_state_on_ring_bytes(void *ctx, const void *a, size_t alen, const void *b,
			       size_t blen)
{
	struct record_state *rs = ctx;

	/* Two more pieces, and room left for the round's marker. */
	if (rs->nr_pieces + 3 > PD_WRITER_PIECES && write_pieces(rs))
		return -rs->err.code;
	rs->pieces[rs->nr_pieces++] = (struct iovec){(void *)a, alen};
	if (blen)
		rs->pieces[rs->nr_pieces++] = (struct iovec){(void *)b, blen};
	return 0;
}

/*
 * One write for the whole pass: the recorder wakes when a ring is half
 * full, and each system call then costs it tens of microseconds here.
 */
int record_state_end_pass(void *ctx)
{
	struct record_state *rs = ctx;

	rs->pieces[rs->nr_pieces++] =
		(struct iovec){(void *)&round_marker, sizeof(round_marker)};
	if (write_pieces(rs))
		return -rs->err.code;
	guestkmaps_round(&rs->kmaps);
	return 0;
}

/*
 * A record written unread, as the file holds it. A guest sample can only
 * be there when KVM came up between the check and the ring's pass: it is
 * counted, its guest unnamed.
 */
static int count_unread(void *ctx, const struct perf_event_header *ev)
{
	struct record_state *rs = ctx;

	if (ev->type == PERF_RECORD_SAMPLE) {
		rs->samples++;
		rs->guest_samples += pd_misc_is_guest(ev->misc);
	} else if (ev->type == PERF_RECORD_LOST) {
		count_lost(rs, ev);
	} else if (ev->type == PERF_RECORD_MMAP || ev->type == PERF_RECORD_MMAP2) {
		note_mapped_file(rs, ev);
	}
	return 0;
}

int record_state_read_back(struct record_state *rs, struct kp_err *err)
{
	record_state_end_unread(rs);
	return pd_writer_read_back(rs->writer, rs->unread_from, rs->unread_to,
				   count_unread, rs, err);
}

int record_state_finish_round(struct record_state *rs)
{
	guestkmaps_round(&rs->kmaps);
	/* Each round reaches the file: a killed recording loses only the last. */
	if (pd_writer_append(rs->writer, &round_marker, sizeof(round_marker), &rs->err))
		return -rs->err.code;
	return pd_writer_flush(rs->writer, &rs->err);
}

int record_state_write_guests(struct record_state *rs, struct kp_err *err)
{
	char *buf = NULL;
	size_t len = 0;
	int ret;

	if (kvmfeat_encode(&rs->guests, &buf, &len))
		return kp_errorf(err, ENOMEM, "out of memory");
	ret = pd_writer_set_kvmprof(rs->writer, buf, len);
	free(buf);
	return ret ? kp_errorf(err, ENOMEM, "out of memory") : 0;
}

static bool file_build_id(const char *path, struct pd_build_id *b)
{
	struct kp_mapping map;
	const void *vdso;
	size_t len;

	/* The recorder's own vDSO is the one the kernel maps everywhere. */
	if (!strcmp(path, "[vdso]")) {
		b->size = vdso_image(&vdso, &len)
				  ? 0
				  : (uint8_t)buildid_from_elf(vdso, len, b->id,
							      sizeof(b->id));
		return b->size != 0;
	}
	if (kp_map_file(path, 1ULL << 31, &map, NULL))
		return false;
	b->size = (uint8_t)buildid_from_elf(map.data, map.len, b->id, sizeof(b->id));
	kp_unmap_file(&map);
	return b->size != 0;
}

static void kernel_build_id(struct pd_build_id *b)
{
	struct kp_mapping map;

	b->size = 0;
	if (kp_map_file("/sys/kernel/notes", 1 << 20, &map, NULL))
		return;
	b->size = (uint8_t)buildid_from_notes(map.data, map.len, b->id, sizeof(b->id));
	kp_unmap_file(&map);
}

int record_state_write_build_ids(struct record_state *rs, struct kp_err *err)
{
	struct pd_build_id *ids = calloc(rs->mapped.nr + 1, sizeof(*ids));
	size_t n = 0;
	int ret;

	if (!ids)
		return kp_errorf(err, ENOMEM, "out of memory");
	kernel_build_id(&ids[n]);
	if (ids[n].size) {
		ids[n].pid = -1;
		ids[n].misc = PERF_RECORD_MISC_KERNEL;
		ids[n++].filename = "[kernel.kallsyms]";
	}
	for (size_t i = 0; i < rs->mapped.cap; i++) {
		if (!rs->mapped.keys[i] || !file_build_id(rs->mapped.vals[i], &ids[n]))
			continue;
		ids[n].pid = -1;
		ids[n].misc = PERF_RECORD_MISC_USER;
		ids[n++].filename = rs->mapped.vals[i];
	}
	ret = n ? pd_writer_set_build_ids(rs->writer, ids, n) : 0;
	free(ids);
	return ret ? kp_errorf(err, ENOMEM, "out of memory") : 0;
}

int record_state_write_contexts(struct record_state *rs, struct kp_err *err)
{
	void *blob;
	size_t len;
	int ret;

	if (!rs->guest_ctx)
		return 0;
	if (guestctx_table_encode(&rs->ctx, &blob, &len))
		return kp_errorf(err, ENOMEM, "out of memory");
	ret = pd_writer_set_feature(rs->writer, PD_FEAT_KVMPROF_CTX, blob, len);
	free(blob);
	return ret ? kp_errorf(err, ENOMEM, "out of memory") : 0;
}

void record_state_print_summary(const struct record_state *rs, const char *path,
				FILE *out)
{
	fprintf(out,
		"[ kvmprof record: wrote %s: %" PRIu64 " samples (%" PRIu64 " guest)",
		path, rs->samples, rs->guest_samples);
	if (rs->dropped)
		fprintf(out, ", %" PRIu64 " filtered out", rs->dropped);
	fprintf(out, ", %" PRIu64 " lost in %" PRIu64 " LOST records ]\n", rs->lost,
		rs->lost_records);
	for (size_t i = 0; i < rs->guests.nr; i++) {
		const struct kvmfeat_guest *g = &rs->guests.guests[i];
		const struct guestkmap_entry *k = guestkmaps_find(&rs->kmaps, g->pid);

		fprintf(out, "[ guest: pid %d name %s%s", g->pid, g->name,
			g->lstar ? " (guest context: yes)" : "");
		if (k && k->nr_maps > 1)
			fprintf(out, ", %u kernel maps (rebooted): %s last at %#" PRIx64,
				k->nr_maps, KASLR_LSTAR_SYMBOL, k->lstar);
		else if (k && k->written)
			fprintf(out, ", kernel map: %s at %#" PRIx64, KASLR_LSTAR_SYMBOL,
				k->lstar);
		else
			fprintf(out, ", kernel map: none (LSTAR unknown)");
		fprintf(out, " ]\n");
	}
	if (rs->guest_ctx)
		fprintf(out, "[ guest context: %zu distinct (vm, vcpu, cr3) ]\n",
			rs->ctx.nr_ctxs);
	else if (rs->guest_samples)
		fprintf(out,
			"[ guest context: %s; guest slides come from kernel map "
			"records (KVM debugfs, --guestkallsyms) or report's "
			"--guest-slide ]\n",
			rs->ctx_why[0] ? rs->ctx_why : "not requested");
}

void record_state_release(struct record_state *rs)
{
	if (rs->writer)
		pd_writer_abort(rs->writer);
	kvmfeat_release(&rs->guests);
	guestctx_table_release(&rs->ctx);
	guestkmaps_release(&rs->kmaps);
	for (size_t i = 0; i < rs->mapped.cap; i++)
		if (rs->mapped.keys[i])
			free(rs->mapped.vals[i]);
	hashmap_release(&rs->mapped);
	guest_namer_release(&rs->namer);
	close_watch(rs);
}
