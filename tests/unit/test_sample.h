/* SPDX-License-Identifier: GPL-2.0 */
/* The sample layout the perf.data unit tests write and read back. */
#ifndef KVMPROF_TEST_SAMPLE_H
#define KVMPROF_TEST_SAMPLE_H

#include <linux/perf_event.h>
#include <stdint.h>

#define SAMPLE_TYPE                                                                     \
	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | \
	 PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD)

/* A PERF_RECORD_SAMPLE of SAMPLE_TYPE, fields in the kernel's order. */
struct test_sample {
	struct perf_event_header h;
	uint64_t id, ip;
	uint32_t pid, tid;
	uint64_t time;
	uint32_t cpu, res;
	uint64_t period;
};

/* A tracepoint sample: SAMPLE_TYPE and PERF_SAMPLE_RAW, 4 + 60 bytes padded to 8. */
#define RAW_SAMPLE_TYPE (SAMPLE_TYPE | PERF_SAMPLE_RAW)

struct test_raw_sample {
	struct perf_event_header h;
	uint64_t id, ip;
	uint32_t pid, tid;
	uint64_t time;
	uint32_t cpu, res;
	uint64_t period;
	uint32_t raw_size;
	uint8_t raw[60];
};

#endif
