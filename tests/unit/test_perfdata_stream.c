// SPDX-License-Identifier: GPL-2.0
/*
 * The data section read through a buffer: every record comes back whole
 * and in order, records held across refills (as ordered events hold a
 * round) keep their bytes wherever the buffer moves them, offsets in
 * messages are the file's, and a file cut short after opening is an error
 * naming where it ends.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "perf/perf.h"
#include "guest_recording.h"

static char dir[] = "/tmp/kvmprof-stream.XXXXXX";
static char path[256];

/* Records of many sizes, rounds of many lengths, one round bigger than 64 KiB. */
enum { NR_RECORDS = 6000 };

static bool round_ends_after(int i)
{
	return i % 97 == 96 || (i > 200 && i < 1500 ? false : i % 13 == 12);
}

static void write_file(void)
{
	struct guest_recording r;
	struct kp_err err = {0};

	recording_begin(&r, path);
	for (int i = 0; i < NR_RECORDS; i++) {
		/* A record of 8..512 bytes whose every byte says where it is. */
		uint8_t rec[512];
		size_t len = 8 + (size_t)(i * 37 % 63) * 8;
		struct perf_event_header h = {PERF_RECORD_SAMPLE + 60, 0, (uint16_t)len};

		for (size_t b = 0; b < len; b++)
			rec[b] = (uint8_t)(i + b);
		memcpy(rec, &h, sizeof(h));
		assert_int_equal(pd_writer_append(r.w, rec, len, &err), 0);
		if (round_ends_after(i)) {
			struct perf_event_header round = {PD_RECORD_FINISHED_ROUND, 0,
							  sizeof(round)};

			assert_int_equal(
				pd_writer_append(r.w, &round, sizeof(round), &err), 0);
		}
	}
	assert_int_equal(pd_writer_finish(r.w, &err), 0);
	guestctx_table_release(&r.ctx);
}

static int setup(void **state)
{
	(void)state;
	if (!mkdtemp(dir))
		return -1;
	snprintf(path, sizeof(path), "%s/perf.data", dir);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	unlink(path);
	rmdir(dir);
	return 0;
}

/* A held record: where it is now, and where it is in the file. */
struct held {
	const struct perf_event_header *ev;
	uint64_t off;
};

/* Each held record still has the bytes the file has at its offset. */
static void check_held(const struct pd_file *f, const struct held *h, size_t nr)
{
	for (size_t i = 0; i < nr; i++)
		if (memcmp(h[i].ev, f->map + h[i].off, h[i].ev->size))
			fail_msg("record at %#llx changed while held",
				 (unsigned long long)h[i].off);
}

/* Read the file through a stream of @buf_size, holding each round to its end. */
static void read_holding_rounds(size_t buf_size)
{
	struct held *held = calloc(NR_RECORDS + 1, sizeof(*held));
	const struct perf_event_header *ev;
	struct kp_err err = {0};
	struct pd_stream st;
	struct pd_file *f;
	uint64_t pos = 0, moves = 0;
	size_t nr = 0, seen = 0;
	intptr_t moved;
	int ret;

	assert_non_null(held);
	assert_int_equal(pd_open(path, &f, &err), 0);
	assert_int_equal(pd_stream_open(&st, f, buf_size, &err), 0);
	while ((ret = pd_stream_next(&st, &ev, &moved, &err)) == 1) {
		const struct perf_event_header *want;
		uint64_t off;

		/* The same records as through the mapping, in the same order. */
		assert_int_equal(pd_next(f, &pos, &want, &err), 1);
		assert_int_equal(ev->size, want->size);
		assert_memory_equal(ev, want, ev->size);
		assert_true(pd_record_offset(f, ev, &off));
		assert_int_equal(off, (uint64_t)((const uint8_t *)want - f->map));
		for (size_t i = 0; moved && i < nr; i++)
			held[i].ev =
				(const void *)((uintptr_t)held[i].ev + (uintptr_t)moved);
		moves += moved != 0;
		if (ev->type == PD_RECORD_FINISHED_ROUND) {
			check_held(f, held, nr);
			nr = 0;
			pd_stream_release(&st);
			continue;
		}
		held[nr++] = (struct held){ev, off};
		seen++;
	}
	assert_int_equal(ret, 0);
	check_held(f, held, nr);
	assert_int_equal(seen, NR_RECORDS);
	assert_int_equal(pd_next(f, &pos, &ev, &err), 0);
	/* A small buffer must have moved held records (else this tests nothing). */
	if (buf_size && buf_size < 64 * 1024)
		assert_true(moves > 0);
	pd_stream_close(&st);
	pd_close(f);
	free(held);
}

static void test_every_record_whole(void **state)
{
	(void)state;
	write_file();
	read_holding_rounds(0);
	read_holding_rounds(4096);
	read_holding_rounds(520);
	read_holding_rounds(8);
}

/* A file cut inside its data section after it was opened. */
static void test_file_cut_after_open(void **state)
{
	const struct perf_event_header *ev;
	struct kp_err err = {0};
	struct pd_stream st;
	struct pd_file *f;
	intptr_t moved;
	int ret;

	(void)state;
	write_file();
	assert_int_equal(pd_open(path, &f, &err), 0);
	assert_int_equal(truncate(path, (off_t)(f->header.data.offset + 100000)), 0);
	assert_int_equal(pd_stream_open(&st, f, 4096, &err), 0);
	while ((ret = pd_stream_next(&st, &ev, &moved, &err)) == 1)
		pd_stream_release(&st);
	assert_int_equal(ret, -EIO);
	assert_non_null(strstr(err.msg, path));
	assert_non_null(strstr(err.msg, "inside its data section"));
	pd_stream_close(&st);
	pd_close(f);
}

/* A record whose size overruns the section: the file's offset of it. */
static void test_bad_size_names_offset(void **state)
{
	const struct perf_event_header *ev;
	struct kp_err err = {0};
	struct pd_stream st;
	struct pd_file *f;
	uint64_t bad = 0, pos = 0;
	char want[64];
	intptr_t moved;
	int ret;
	FILE *fp;

	(void)state;
	write_file();
	assert_int_equal(pd_open(path, &f, &err), 0);
	/* The last record claims 0xfff8 bytes: more than are left. */
	while (pd_next(f, &pos, &ev, &err) == 1)
		bad = (uint64_t)((const uint8_t *)ev - f->map);
	pd_close(f);
	fp = fopen(path, "r+");
	assert_non_null(fp);
	assert_int_equal(fseek(fp, (long)bad + 6, SEEK_SET), 0);
	assert_int_equal(fputc(0xf8, fp), 0xf8);
	assert_int_equal(fputc(0xff, fp), 0xff);
	fclose(fp);
	assert_int_equal(pd_open(path, &f, &err), 0);
	assert_int_equal(pd_stream_open(&st, f, 4096, &err), 0);
	while ((ret = pd_stream_next(&st, &ev, &moved, &err)) == 1)
		pd_stream_release(&st);
	assert_int_equal(ret, -EINVAL);
	snprintf(want, sizeof(want), "offset %#llx", (unsigned long long)bad);
	assert_non_null(strstr(err.msg, want));
	pd_stream_close(&st);
	pd_close(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_record_whole),
		cmocka_unit_test(test_file_cut_after_open),
		cmocka_unit_test(test_bad_size_names_offset),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
