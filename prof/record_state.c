// SPDX-License-Identifier: GPL-2.0
#include "record_state.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "guestid.h"

void record_state_init(struct record_state *rs, bool host, bool guest)
{
	memset(rs, 0, sizeof(*rs));
	/* Neither flag means both, as with perf record. */
	rs->want_host = host || !guest;
	rs->want_guest = guest || !host;
}

static int emit(void *ctx, const struct perf_event_header *ev)
{
	struct record_state *rs = ctx;

	return pd_writer_append(rs->writer, ev, ev->size, &rs->err);
}

void record_state_set_synth(struct record_state *rs, const struct perf_event_attr *attr)
{
	rs->synth.sample_type = attr->sample_type;
	rs->synth.sample_id_all = attr->sample_id_all;
	rs->synth.emit = emit;
	rs->synth.ctx = rs;
}

static bool is_guest_mode(uint16_t misc)
{
	uint16_t mode = misc & PERF_RECORD_MISC_CPUMODE_MASK;

	return mode == PERF_RECORD_MISC_GUEST_KERNEL || mode == PERF_RECORD_MISC_GUEST_USER;
}

/* The pid of a sample recorded with IDENTIFIER|IP|TID first. */
static int sample_pid(const struct perf_event_header *ev)
{
	const uint32_t *w = (const void *)(ev + 1);

	return ev->size >= sizeof(*ev) + 24 ? (int)w[4] : -1;
}

/*
 * Take the kernel's guest context off the end of a sample: what is written
 * has the sample_type perf knows, and the context goes to rs->ctx.
 */
static const struct perf_event_header *strip_ctx(struct record_state *rs,
						 const struct perf_event_header *ev,
						 struct perf_sample_guest_ctx *ctx, uint8_t *buf)
{
	struct perf_event_header *h = (struct perf_event_header *)buf;

	memset(ctx, 0, sizeof(*ctx));
	if (ev->size < sizeof(*ev) + sizeof(*ctx))
		return ev;
	memcpy(buf, ev, ev->size);
	memcpy(ctx, buf + ev->size - sizeof(*ctx), sizeof(*ctx));
	h->size = (uint16_t)(ev->size - sizeof(*ctx));
	return h;
}

static int note_guest(struct record_state *rs, int pid, const struct perf_sample_guest_ctx *ctx)
{
	struct kvmfeat_guest *g;
	char name[GUEST_NAME_MAX];

	if (pid <= 0)
		return 0;
	g = kvmfeat_find(&rs->guests, pid);
	if (!g) {
		g = kvmfeat_get(&rs->guests, pid);
		if (!g)
			return -ENOMEM;
		/* Name it now: the QEMU process may be gone when recording ends. */
		if (!guest_name_of_pid(pid, name, sizeof(name)))
			snprintf(g->name, sizeof(g->name), "%s", name);
	}
	if (ctx && ctx->lstar)
		g->lstar = ctx->lstar;
	return 0;
}

static int on_sample(struct record_state *rs, const struct perf_event_header *ev)
{
	struct perf_sample_guest_ctx ctx;
	uint8_t buf[65536];
	bool guest = is_guest_mode(ev->misc);
	int ret;

	if (rs->guest_ctx)
		ev = strip_ctx(rs, ev, &ctx, buf);

	/* Software events ignore exclude_host/exclude_guest: filter here too. */
	if (guest ? !rs->want_guest : !rs->want_host) {
		rs->dropped++;
		return 0;
	}
	rs->samples++;
	if (guest) {
		rs->guest_samples++;
		ret = note_guest(rs, rs->guest_ctx && ctx.pid ? (int)ctx.pid : sample_pid(ev),
				 rs->guest_ctx ? &ctx : NULL);
		if (ret)
			return ret;
	}
	if (rs->guest_ctx && guestctx_table_add(&rs->ctx, guest ? &ctx : NULL))
		return -ENOMEM;
	return emit(rs, ev);
}

int record_state_on_record(void *ctx, const struct perf_event_header *ev)
{
	struct record_state *rs = ctx;

	if (ev->type == PERF_RECORD_SAMPLE)
		return on_sample(rs, ev);
	if (ev->type == PERF_RECORD_LOST) {
		const uint64_t *w = (const void *)(ev + 1);

		rs->lost_records++;
		if (ev->size >= sizeof(*ev) + 16)
			rs->lost += w[1];
	}
	return emit(rs, ev);
}

/* Tells perf's ordered-events queue that everything before it may be sorted. */
int record_state_finish_round(struct record_state *rs)
{
	struct perf_event_header h = { .type = PD_RECORD_FINISHED_ROUND, .size = sizeof(h) };

	return pd_writer_append(rs->writer, &h, sizeof(h), &rs->err);
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

void record_state_print_summary(const struct record_state *rs, const char *path, FILE *out)
{
	fprintf(out, "[ kvmprof record: wrote %s: %" PRIu64 " samples (%" PRIu64 " guest)",
		path, rs->samples, rs->guest_samples);
	if (rs->dropped)
		fprintf(out, ", %" PRIu64 " filtered out", rs->dropped);
	fprintf(out, ", %" PRIu64 " lost in %" PRIu64 " LOST records ]\n", rs->lost,
		rs->lost_records);
	for (size_t i = 0; i < rs->guests.nr; i++)
		fprintf(out, "[ guest: pid %d name %s%s ]\n", rs->guests.guests[i].pid,
			rs->guests.guests[i].name,
			rs->guests.guests[i].lstar ? " (guest context: yes)" : "");
	if (rs->guest_ctx)
		fprintf(out, "[ guest context: %zu distinct (vm, vcpu, cr3) ]\n", rs->ctx.nr_ctxs);
	else if (rs->guest_samples)
		fprintf(out, "[ guest context: not supported by this kernel; guest slides come from "
			     "kernel map records (--guestkallsyms) or report's --guest-slide ]\n");
}

void record_state_release(struct record_state *rs)
{
	if (rs->writer)
		pd_writer_abort(rs->writer);
	kvmfeat_release(&rs->guests);
	guestctx_table_release(&rs->ctx);
}
