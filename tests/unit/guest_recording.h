/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A synthetic recording with named guests, as kvmprof record writes one:
 * cpu-clock samples, the guest table (each guest's name and a recorded
 * slide of 0, so the link-time table of guest_fixture.h names its
 * functions) and a guest context (vCPU, CR3) per guest sample.
 */
#ifndef KVMPROF_TEST_GUEST_RECORDING_H
#define KVMPROF_TEST_GUEST_RECORDING_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "perf/perf.h"
#include "test_sample.h"

struct guest_recording {
	struct pd_writer *w;
	struct kvmfeat guests;
	struct guestctx_table ctx;
	uint64_t time;
};

static inline void recording_begin(struct guest_recording *r, const char *path)
{
	struct perf_event_attr attr = {0};
	uint64_t id = 7;
	struct kp_err err = {0};

	memset(r, 0, sizeof(*r));
	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = PERF_COUNT_SW_CPU_CLOCK;
	attr.sample_type = SAMPLE_TYPE;
	attr.sample_id_all = 1;
	assert_int_equal(pd_writer_create(path, &r->w, &err), 0);
	assert_int_equal(pd_writer_add_evsel(r->w, &attr, "cpu-clock", &id, 1), 0);
	assert_int_equal(pd_writer_begin_data(r->w, &err), 0);
}

/* QEMU process @pid runs guest @name ("-": unnamed). */
static inline void recording_guest(struct guest_recording *r, int pid, const char *name)
{
	struct kvmfeat_guest *g = kvmfeat_get(&r->guests, pid);

	assert_non_null(g);
	snprintf(g->name, sizeof(g->name), "%s", name);
	g->has_slide = true;
	g->slide = 0;
	snprintf(g->slide_source, sizeof(g->slide_source), "test");
}

/*
 * A sample of thread @tid of process @pid at @ip in mode @misc, with period
 * @period; @vcpu < 0: no guest context.
 */
static inline void recording_thread_sample(struct guest_recording *r, uint32_t pid,
					   uint32_t tid, uint16_t misc, uint64_t ip,
					   int vcpu, uint64_t cr3, uint64_t period)
{
	struct kp_err err = {0};
	struct test_sample s = {
		.h = {PERF_RECORD_SAMPLE, misc, sizeof(s)},
		.id = 7,
		.ip = ip,
		.pid = pid,
		.tid = tid,
		.time = ++r->time,
		.period = period,
	};
	struct guest_ctx c = {pid, (uint32_t)vcpu, cr3, 0};

	assert_int_equal(guestctx_table_add(&r->ctx, vcpu < 0 ? NULL : &c), 0);
	assert_int_equal(pd_writer_append(r->w, &s, sizeof(s), &err), 0);
}

/* The same from the process's thread pid + 1. */
static inline void recording_sample(struct guest_recording *r, uint32_t pid,
				    uint16_t misc, uint64_t ip, int vcpu, uint64_t cr3,
				    uint64_t period)
{
	recording_thread_sample(r, pid, pid + 1, misc, ip, vcpu, cr3, period);
}

static inline int recording_append(void *ctx, const struct perf_event_header *ev)
{
	struct guest_recording *r = ctx;
	struct kp_err err = {0};

	return pd_writer_append(r->w, ev, ev->size, &err);
}

/* Thread @tid of process @pid is named @name from here on (a COMM record). */
static inline void recording_comm(struct guest_recording *r, int pid, int tid,
				  const char *name)
{
	struct synth s = {SAMPLE_TYPE, true, ++r->time, recording_append, r};

	assert_int_equal(synth_comm(&s, pid, tid, name), 0);
}

static inline void recording_finish(struct guest_recording *r)
{
	struct kp_err err = {0};
	void *blob;
	char *table;
	size_t len;

	assert_int_equal(guestctx_table_encode(&r->ctx, &blob, &len), 0);
	assert_int_equal(pd_writer_set_feature(r->w, PD_FEAT_KVMPROF_CTX, blob, len), 0);
	free(blob);
	assert_int_equal(kvmfeat_encode(&r->guests, &table, &len), 0);
	assert_int_equal(pd_writer_set_kvmprof(r->w, table, len), 0);
	free(table);
	assert_int_equal(pd_writer_finish(r->w, &err), 0);
	kvmfeat_release(&r->guests);
	guestctx_table_release(&r->ctx);
}

#endif
