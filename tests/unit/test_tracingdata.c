// SPDX-License-Identifier: GPL-2.0
/*
 * The HEADER_TRACING_DATA feature: what kvmprof writes reads back, what
 * perf 6.1 wrote reads, and a section cut short or claiming more than it
 * holds is refused.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "perf/tracingdata.h"
#include "tracepoint_fixture.h"

static const char *const events[] = {"kvm_entry", "kvm_exit", "kvm_mmio", "kvm_pio",
				     "kvm_msr"};
#define NR_EVENTS (sizeof(events) / sizeof(events[0]))

/* A section as kvmprof record writes it, from the 6.18 host's files. */
static void *write_blob(size_t *len)
{
	struct tracingdata_format fmts[NR_EVENTS + 1];
	struct tracingdata_input in = {0};
	char *texts[NR_EVENTS + 3];
	void *blob;

	texts[0] = fixture_text("formats-6.18", "header_page", &in.header_page_len);
	texts[1] = fixture_text("formats-6.18", "header_event", &in.header_event_len);
	in.header_page = texts[0];
	in.header_event = texts[1];
	for (size_t i = 0; i < NR_EVENTS; i++) {
		texts[2 + i] = fixture_text("formats-6.18", events[i], &fmts[i].len);
		assert_non_null(texts[2 + i]);
		fmts[i].system = "kvm";
		fmts[i].text = texts[2 + i];
	}
	/* Another system between two of kvm's: grouped by system all the same. */
	fmts[NR_EVENTS] = fmts[1];
	fmts[1] = (struct tracingdata_format){
		"sched",
		"name: s\nID: 7\n\tfield:int a;\toffset:8;\tsize:4;\tsigned:1;\n", 55};
	in.formats = fmts;
	in.nr_formats = NR_EVENTS + 1;
	assert_int_equal(tracingdata_write(&in, &blob, len), 0);
	for (size_t i = 0; i < NR_EVENTS + 2; i++)
		free(texts[i]);
	return blob;
}

static void round_trip(void **state)
{
	struct tracingdata td;
	struct kp_err err = {0};
	size_t len;
	void *blob = write_blob(&len);
	const struct tp_format *f;

	if (tracingdata_read(blob, len, "test", &td, &err))
		fail_msg("%s", err.msg);
	assert_int_equal(td.nr_events, NR_EVENTS + 1);
	assert_int_equal(td.long_size, sizeof(long));
	f = tracingdata_event(&td, 103);
	assert_non_null(f);
	assert_string_equal(f->name, "kvm_exit");
	assert_string_equal(f->system, "kvm");
	assert_int_equal(tp_format_field(f, "vcpu_id")->offset, 56);
	f = tracingdata_event(&td, 7);
	assert_non_null(f);
	assert_string_equal(f->system, "sched");
	assert_null(tracingdata_event(&td, 5));
	tracingdata_release(&td);
	free(blob);
}

/* perf kvm stat record (perf 6.1) on the 6.18 host: ftrace printk formats and all. */
static void reads_perfs(void **state)
{
	static const struct {
		uint32_t id;
		const char *name;
	} want[] = {{0x73, "kvm_entry"},
		    {0x67, "kvm_exit"},
		    {0x26, "kvm_mmio"},
		    {0x6e, "kvm_pio"},
		    {0x63, "kvm_msr"}};
	struct tracingdata td;
	struct kp_err err = {0};
	size_t len;
	char *blob = NULL;

	assert_int_equal(kp_read_file("tests/unit/fixtures/perf-6.1-kvm-stat.tracing",
				      1 << 20, &blob, &len, NULL),
			 0);
	if (tracingdata_read(blob, len, "perf", &td, &err))
		fail_msg("%s", err.msg);
	assert_int_equal(td.nr_events, 5);
	for (size_t i = 0; i < 5; i++) {
		const struct tp_format *f = tracingdata_event(&td, want[i].id);

		assert_non_null(f);
		assert_string_equal(f->name, want[i].name);
	}
	tracingdata_release(&td);
	free(blob);
}

/* Every prefix of a valid section is refused with a message, none read past. */
static void truncated(void **state)
{
	struct tracingdata td;
	size_t len;
	uint8_t *blob = write_blob(&len);

	for (size_t n = 0; n < len; n++) {
		struct kp_err err = {0};
		/* A copy of exactly n bytes: ASan sees any read past them. */
		uint8_t *cut = malloc(n ? n : 1);

		memcpy(cut, blob, n);
		if (tracingdata_read(cut, n, "cut", &td, &err) == 0) {
			/* Only the optional saved-cmdlines tail may be missing. */
			assert_true(n >= len - 8);
			tracingdata_release(&td);
		} else {
			assert_true(err.msg[0]);
		}
		free(cut);
	}
	free(blob);
}

/* Offset of the first event format's u64 size in a written section. */
static size_t first_format_size_at(const uint8_t *blob, size_t len)
{
	const uint8_t *p = memmem(blob, len, "kvm\0", 4);

	assert_non_null(p);
	return (size_t)(p - blob) + 4 + 4;
}

static void huge_sizes(void **state)
{
	struct tracingdata td;
	struct kp_err err = {0};
	size_t len, at;
	uint8_t *blob = write_blob(&len);
	uint64_t huge = UINT64_MAX - 3;
	uint32_t many = 0x7fffffff;

	at = first_format_size_at(blob, len);
	memcpy(blob + at, &huge, 8);
	assert_true(tracingdata_read(blob, len, "huge", &td, &err) < 0);
	assert_non_null(strstr(err.msg, "past the end"));
	free(blob);

	blob = write_blob(&len);
	at = first_format_size_at(blob, len);
	memcpy(blob + at - 4, &many, 4); /* the system's event count */
	memset(&err, 0, sizeof(err));
	assert_true(tracingdata_read(blob, len, "many", &td, &err) < 0);
	free(blob);
}

static void not_tracing_data(void **state)
{
	struct tracingdata td;
	uint8_t be[32] = "\027\010\104tracing0.6\0\1\10";

	assert_true(tracingdata_read("PERFILE2", 8, "x", &td, NULL) < 0);
	assert_int_equal(tracingdata_read(be, sizeof(be), "x", &td, NULL), -ENOTSUP);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(round_trip),	    cmocka_unit_test(reads_perfs),
		cmocka_unit_test(truncated),	    cmocka_unit_test(huge_sizes),
		cmocka_unit_test(not_tracing_data),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
