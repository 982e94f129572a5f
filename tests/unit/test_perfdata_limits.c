// SPDX-License-Identifier: GPL-2.0
/*
 * What a small crafted perf.data file can make the reader allocate: files
 * whose sections overlap are refused before anything is built from them,
 * and the guest-context table is capped by the data section it describes.
 * Each case runs in a child process whose peak RSS growth is measured.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zstd.h>
#include <cmocka.h>

#include "measured.h"

#include "base/base.h"
#include "perf/perf.h"
#include "session.h"
#include "test_sample.h"
#include "testutil.h"

#define SMALL_FILE (64 * 1024)
#define SHARED_IDS (32 * 1024)
#define BOMB_SIZE  (64ULL << 20)
/* Peak RSS growth a refused file may cause; unfixed, these cases took 66-72 MB. */
#define RSS_MAX_KB (8 * 1024)

static char dir[] = "/tmp/kvmprof-pdlim.XXXXXX";
static char path[64];

static void open_file(struct outcome *o)
{
	struct kp_err err = {0};
	struct pd_file *f;

	o->ret = pd_open(path, &f, &err);
	if (!o->ret)
		pd_close(f);
	snprintf(o->msg, sizeof(o->msg), "%s", err.msg);
}

static void open_session(struct outcome *o)
{
	struct symbol_opts so = {0};
	struct kp_err err = {0};
	struct session s;

	o->ret = session_open(&s, path, "sym", &so, &err);
	session_close(&s);
	snprintf(o->msg, sizeof(o->msg), "%s", err.msg);
}

static struct outcome measured(void (*fn)(struct outcome *))
{
	return measured_run(fn, "opened");
}

static void write_bytes(const void *buf, size_t len)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	assert_int_equal(fwrite(buf, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
}

/* With KVMPROF_SEED_DIR set, keep the crafted file as a fuzzing seed (make-seeds.sh). */
static void keep_seed(const char *name)
{
	const char *seeds = getenv("KVMPROF_SEED_DIR");

	if (seeds)
		assert_int_equal(sh("cp %s '%s/%s'", path, seeds, name), 0);
}

/*
 * A 64 KB file of ~400 attrs that all name the same 32 KB ids section: the
 * unfixed reader copied it and indexed its ids once per attr (66 MB).
 */
static void test_shared_ids_refused(void **state)
{
	const size_t attr_size = PERF_ATTR_SIZE_VER0 + sizeof(struct pd_section);
	struct pd_file_header h = {
		.magic = PD_MAGIC, .size = sizeof(h), .attr_size = attr_size};
	struct pd_section ids = {sizeof(h), SHARED_IDS};
	size_t nr = (SMALL_FILE - sizeof(h) - SHARED_IDS) / attr_size;
	uint8_t *buf = calloc(1, SMALL_FILE);
	struct outcome o;

	(void)state;
	h.attrs = (struct pd_section){sizeof(h) + SHARED_IDS, nr * attr_size};
	h.data = (struct pd_section){SMALL_FILE, 0};
	memcpy(buf, &h, sizeof(h));
	for (uint64_t i = 0; i < SHARED_IDS / 8; i++)
		memcpy(buf + sizeof(h) + i * 8, &i, 8);
	for (size_t i = 0; i < nr; i++) {
		struct perf_event_attr a = {.type = PERF_TYPE_SOFTWARE,
					    .size = PERF_ATTR_SIZE_VER0,
					    .config = PERF_COUNT_SW_CPU_CLOCK,
					    .sample_type =
						    PERF_SAMPLE_IP | PERF_SAMPLE_ID};
		uint8_t *p = buf + h.attrs.offset + i * attr_size;

		memcpy(p, &a, PERF_ATTR_SIZE_VER0);
		memcpy(p + PERF_ATTR_SIZE_VER0, &ids, sizeof(ids));
	}
	write_bytes(buf, SMALL_FILE);
	free(buf);
	keep_seed("shared-ids");
	o = measured(open_file);
	assert_int_equal(o.ret, -EINVAL);
	assert_non_null(strstr(o.msg, path));
	assert_non_null(strstr(o.msg,
			       "sections overlap: the ids of event 0 (cpu-clock) at "
			       "0x68+0x8000 and the ids of event 1 (cpu-clock)"));
	assert_true(o.rss_kb < RSS_MAX_KB);
}

/* A writer on @path with one cpu-clock event and ten samples, data open. */
static struct pd_writer *ten_samples(void)
{
	struct perf_event_attr attr = {.type = PERF_TYPE_SOFTWARE,
				       .config = PERF_COUNT_SW_CPU_CLOCK,
				       .sample_type = SAMPLE_TYPE,
				       .sample_id_all = 1};
	struct kp_err err = {0};
	struct pd_writer *w;
	uint64_t id = 7;

	assert_int_equal(pd_writer_create(path, &w, &err), 0);
	assert_int_equal(pd_writer_add_evsel(w, &attr, "cpu-clock", &id, 1), 0);
	assert_int_equal(pd_writer_begin_data(w, &err), 0);
	for (int i = 0; i < 10; i++) {
		struct test_sample s = {
			.h = {PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, sizeof(s)},
			.id = 7,
			.ip = 0x1000,
			.pid = 1,
			.tid = 1,
			.period = 1};

		assert_int_equal(pd_writer_append(w, &s, sizeof(s), &err), 0);
	}
	return w;
}

/* A valid file with a hostname and a cmdline feature, read back into @buf. */
static char *valid_file(size_t *len, struct pd_file_header *h)
{
	char *argv[] = {"kvmprof", "record"};
	struct kp_err err = {0};
	struct pd_writer *w;
	char *buf;

	w = ten_samples();
	pd_writer_set_string(w, PD_FEAT_HOSTNAME, "testhost");
	assert_int_equal(pd_writer_set_cmdline(w, 2, argv), 0);
	assert_int_equal(pd_writer_finish(w, &err), 0);
	assert_int_equal(kp_read_file(path, KP_FILE_MAX, &buf, len, &err), 0);
	memcpy(h, buf, sizeof(*h));
	return buf;
}

/* The section of feature @feat in @buf's feature table. */
static struct pd_section *feature(char *buf, const struct pd_file_header *h, int feat)
{
	size_t idx = 0;

	for (int i = 0; i < feat; i++)
		idx += (h->features[i / 64] >> (i % 64)) & 1;
	return (struct pd_section *)(buf + h->data.offset + h->data.size) + idx;
}

/* Open @buf with @h as its header; expect the overlap of @a and @b refused. */
static void expect_overlap(char *buf, size_t len, const struct pd_file_header *h,
			   const char *a, const char *b)
{
	static int n;
	char name[32];
	struct outcome o;

	memcpy(buf, h, sizeof(*h));
	write_bytes(buf, len);
	snprintf(name, sizeof(name), "overlap-%d", n++);
	keep_seed(name);
	o = measured(open_file);
	assert_int_equal(o.ret, -EINVAL);
	assert_non_null(strstr(o.msg, path));
	assert_non_null(strstr(o.msg, "sections overlap"));
	if (!strstr(o.msg, a) || !strstr(o.msg, b))
		fail_msg("want %s and %s in: %s", a, b, o.msg);
}

static void test_overlapping_sections_refused(void **state)
{
	struct pd_file_header h, orig;
	struct pd_section *host, *cmd, ids, saved;
	size_t len, ids_at;
	char *buf = valid_file(&len, &orig);

	(void)state;
	/* The data section grown back over attrs and ids, its end (the table) kept. */
	h = orig;
	h.data.size += h.data.offset - h.attrs.offset;
	h.data.offset = h.attrs.offset;
	expect_overlap(buf, len, &h, "the attr section at ", "the data section at ");
	/* A feature's payload inside the data section. */
	h = orig;
	host = feature(buf, &h, PD_FEAT_HOSTNAME);
	saved = *host;
	host->offset = h.data.offset;
	expect_overlap(buf, len, &h, "the data section", "feature 3 (hostname)");
	*host = saved;
	/* Two features sharing one payload. */
	cmd = feature(buf, &h, PD_FEAT_CMDLINE);
	saved = *cmd;
	*cmd = *host;
	expect_overlap(buf, len, &h, "feature 3 (hostname)", "feature 11 (cmdline)");
	*cmd = saved;
	/* An event's ids inside the data section. */
	ids_at = h.attrs.offset + h.attr_size - sizeof(ids);
	memcpy(&saved, buf + ids_at, sizeof(saved));
	ids = (struct pd_section){h.data.offset, 8};
	memcpy(buf + ids_at, &ids, sizeof(ids));
	expect_overlap(buf, len, &h, "the ids of event 0 (cpu-clock)",
		       "the data section");
	memcpy(buf + ids_at, &saved, sizeof(saved));
	/* Unchanged, the file opens. */
	write_bytes(buf, len);
	assert_int_equal(measured(open_file).ret, 0);
	free(buf);
}

/* A zstd frame of @size zero bytes, its size in the frame header or not. */
static void *zstd_zeros(uint64_t size, bool declared, size_t *len)
{
	static const char zeros[1 << 20];
	size_t cap = 1 << 20, ret;
	ZSTD_CCtx *c = ZSTD_createCCtx();
	ZSTD_outBuffer out = {malloc(cap), cap, 0};

	assert_non_null(c);
	assert_non_null(out.dst);
	ZSTD_CCtx_setParameter(c, ZSTD_c_contentSizeFlag, declared);
	if (declared)
		ZSTD_CCtx_setPledgedSrcSize(c, size);
	for (uint64_t off = 0; off < size; off += sizeof(zeros)) {
		ZSTD_inBuffer in = {zeros, sizeof(zeros), 0};
		bool last = off + sizeof(zeros) >= size;

		do {
			ret = ZSTD_compressStream2(c, &out, &in,
						   last ? ZSTD_e_end : ZSTD_e_continue);
			assert_false(ZSTD_isError(ret));
		} while (in.pos < in.size || (last && ret));
	}
	ZSTD_freeCCtx(c);
	*len = out.pos;
	return out.dst;
}

/* A small file whose guest-context feature is @blob. */
static void write_ctx_file(const void *blob, size_t len)
{
	struct kp_err err = {0};
	struct pd_writer *w;

	w = ten_samples();
	if (blob)
		assert_int_equal(pd_writer_set_feature(w, PD_FEAT_KVMPROF_CTX, blob, len),
				 0);
	assert_int_equal(pd_writer_finish(w, &err), 0);
}

static void expect_bomb_refused(bool declared)
{
	size_t len;
	void *bomb = zstd_zeros(BOMB_SIZE, declared, &len);
	struct outcome o;

	write_ctx_file(bomb, len);
	free(bomb);
	keep_seed(declared ? "ctx-bomb-declared" : "ctx-bomb-undeclared");
	o = measured(open_session);
	assert_int_equal(o.ret, -EFBIG);
	assert_non_null(strstr(o.msg, path));
	assert_non_null(strstr(o.msg, "guest context table"));
	assert_non_null(strstr(o.msg, "exceeds the limit of 1984 bytes"));
	assert_true(o.rss_kb < RSS_MAX_KB);
}

/*
 * A few KB of zstd making 64 MB, in a file of ten samples (560 bytes of
 * data: at most 1984 raw bytes of table). The unfixed reader's cap was
 * 16 GiB: it inflated all of it, then found a bad header.
 */
static void test_guest_ctx_bomb_declared(void **state)
{
	(void)state;
	/* The frame header says 64 MB: refused before any allocation. */
	expect_bomb_refused(true);
}

static void test_guest_ctx_bomb_undeclared(void **state)
{
	(void)state;
	/* No size in the frame: decompression stops at the cap. */
	expect_bomb_refused(false);
}

/* The cap leaves room for a real table: one context per sample. */
static void test_guest_ctx_cap_fits_real_tables(void **state)
{
	struct guestctx_table t = {0}, back;
	struct kp_err err = {0};
	void *blob;
	size_t len;

	(void)state;
	for (uint32_t i = 0; i < 10; i++) {
		struct guest_ctx c = {100, i, 0x1000 * (i + 1), 0xffffffff81000000};

		assert_int_equal(guestctx_table_add(&t, &c), 0);
	}
	assert_int_equal(guestctx_table_encode(&t, &blob, &len), 0);
	/* Ten 8-byte records: the smallest data section ten samples can have. */
	assert_int_equal(guestctx_table_decode(blob, len, 80, "t", &back, &err), 0);
	assert_int_equal(back.nr_ctxs, 10);
	guestctx_table_release(&back);
	assert_int_equal(guestctx_table_decode(blob, len, 72, "t", &back, &err), -EFBIG);
	free(blob);
	guestctx_table_release(&t);
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
	return sh("rm -rf %s", dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_shared_ids_refused),
		cmocka_unit_test(test_overlapping_sections_refused),
		cmocka_unit_test(test_guest_ctx_bomb_declared),
		cmocka_unit_test(test_guest_ctx_bomb_undeclared),
		cmocka_unit_test(test_guest_ctx_cap_fits_real_tables),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
