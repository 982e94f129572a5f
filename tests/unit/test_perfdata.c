// SPDX-License-Identifier: GPL-2.0
/* perf.data writer/reader round trip, and damaged files failing cleanly. */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "base/base.h"
#include "perf/perf.h"
#include "test_sample.h"

static char path[] = "/tmp/kvmprof-pd-XXXXXX";

/* A writer with two events and @nr_samples samples appended (not flushed). */
static struct pd_writer *start_file(int nr_samples)
{
	struct perf_event_attr attr[2] = {0};
	uint64_t ids0[] = {100, 101}, ids1[] = {200, 201};
	struct pd_writer *w;
	struct kp_err err = {0};

	for (int i = 0; i < 2; i++) {
		attr[i].type = PERF_TYPE_SOFTWARE;
		attr[i].config = i ? PERF_COUNT_SW_TASK_CLOCK : PERF_COUNT_SW_CPU_CLOCK;
		attr[i].sample_type = SAMPLE_TYPE;
		attr[i].sample_id_all = 1;
	}
	assert_int_equal(pd_writer_create(path, &w, &err), 0);
	assert_int_equal(pd_writer_add_evsel(w, &attr[0], "cpu-clock", ids0, 2), 0);
	assert_int_equal(pd_writer_add_evsel(w, &attr[1], "task-clock", ids1, 2), 0);
	assert_int_equal(pd_writer_begin_data(w, &err), 0);
	for (int i = 0; i < nr_samples; i++) {
		struct test_sample s = {
			.h = {PERF_RECORD_SAMPLE, PERF_RECORD_MISC_GUEST_KERNEL,
			      sizeof(s)},
			.id = i % 2 ? 201 : 100,
			.ip = 0xffffffff81000000ULL + (uint64_t)i,
			.pid = 42,
			.tid = 43,
			.time = (uint64_t)i * 1000,
			.cpu = (uint32_t)i % 4,
			.period = 250000,
		};

		assert_int_equal(pd_writer_append(w, &s, sizeof(s), &err), 0);
	}
	return w;
}

static void write_file(int nr_samples, const char *kvmprof_blob)
{
	struct pd_writer *w = start_file(nr_samples);
	struct kp_err err = {0};
	char *argv[] = {"kvmprof", "record", "-a"};

	pd_writer_set_string(w, PD_FEAT_HOSTNAME, "testhost");
	pd_writer_set_nrcpus(w, 4, 2);
	pd_writer_set_cmdline(w, 3, argv);
	if (kvmprof_blob)
		pd_writer_set_kvmprof(w, kvmprof_blob, strlen(kvmprof_blob));
	assert_int_equal(pd_writer_finish(w, &err), 0);
}

static int setup(void **state)
{
	int fd = mkstemp(path);

	if (fd < 0)
		return -1;
	close(fd);
	return 0;
}

static int teardown(void **state)
{
	char old[64];

	snprintf(old, sizeof(old), "%s.old", path);
	unlink(path);
	unlink(old);
	return 0;
}

static void test_roundtrip(void **state)
{
	struct pd_file *f;
	struct kp_err err = {0};
	const struct perf_event_header *ev;
	uint64_t pos = 0;
	int n = 0;

	write_file(1000, "kvmprof-feature 1\nguest 42 web1 slide=1e200000\n");
	assert_int_equal(pd_open(path, &f, &err), 0);
	assert_int_equal(f->nr_evsels, 2);
	assert_string_equal(f->evsels[0].name, "cpu-clock");
	assert_string_equal(f->evsels[1].name, "task-clock");
	assert_string_equal(f->hostname, "testhost");
	assert_int_equal(f->nr_cpus_online, 2);
	assert_string_equal(f->cmdline, "kvmprof record -a");
	assert_non_null(f->kvmprof_feature);
	assert_non_null(memmem(f->kvmprof_feature, f->kvmprof_feature_size, "web1", 4));
	while (pd_next(f, &pos, &ev, &err) == 1) {
		struct pd_sample s;

		assert_int_equal(pd_parse_sample(f, ev, &s, &err), 0);
		assert_int_equal(s.ip, 0xffffffff81000000ULL + (uint64_t)n);
		assert_int_equal(s.pid, 42);
		assert_int_equal(s.tid, 43);
		assert_int_equal(s.cpu, (uint32_t)n % 4);
		assert_int_equal(s.period, 250000);
		assert_ptr_equal(s.evsel, &f->evsels[n % 2]);
		assert_int_equal(s.misc & PERF_RECORD_MISC_CPUMODE_MASK,
				 PERF_RECORD_MISC_GUEST_KERNEL);
		n++;
	}
	assert_int_equal(err.code, 0);
	assert_int_equal(n, 1000);
	pd_close(f);
}

static struct test_sample sample_number(int i)
{
	return (struct test_sample){
		.h = {PERF_RECORD_SAMPLE, PERF_RECORD_MISC_GUEST_KERNEL,
		      sizeof(struct test_sample)},
		.id = 100,
		.ip = 0xffffffff81000000ULL + (uint64_t)i,
		.pid = 42,
		.tid = 43,
		.time = (uint64_t)i * 1000,
		.period = 250000,
	};
}

/*
 * Records appended by reference, as record does from its rings: one long
 * run (written from where it lies), short runs (copied), a run broken by a
 * gap, copies in between, and the source overwritten once each batch is
 * ended. Read back, they are all there, in the order appended.
 */
static void test_append_by_reference(void **state)
{
	enum { RUN = 3000, N = RUN + 41 };
	struct test_sample *ring = calloc(RUN, sizeof(*ring));
	struct pd_writer *w = start_file(0);
	struct kp_err err = {0};
	const struct perf_event_header *ev;
	struct pd_file *f;
	uint64_t pos = 0;
	int n = 0, next = 0;

	assert_non_null(ring);
	/* A buffered copy, then a long run (over what is copied): the copy first. */
	ring[0] = sample_number(next++);
	assert_int_equal(pd_writer_append(w, &ring[0], sizeof(ring[0]), &err), 0);
	for (int i = 0; i < RUN; i++)
		ring[i] = sample_number(next++);
	for (int i = 0; i < RUN; i++)
		assert_int_equal(pd_writer_append_ref(w, &ring[i], sizeof(ring[i]), &err),
				 0);
	assert_int_equal(pd_writer_end_refs(w, &err), 0);
	/*
	 * Short runs: ring[0-2], a gap (ring[3] is dropped), ring[4-5], a
	 * copy, ring[6-7]. Numbered in the order they must come out.
	 */
	{
		static const int order[8] = {0, 1, 2, -1, 3, 4, 6, 7};
		struct test_sample copy = sample_number(next + 5);

		for (int i = 0; i < 8; i++)
			ring[i] = sample_number(order[i] < 0 ? 999999 : next + order[i]);
		for (int i = 0; i < 8; i++) {
			if (order[i] < 0)
				continue;
			if (i == 6)
				assert_int_equal(
					pd_writer_append(w, &copy, sizeof(copy), &err),
					0);
			assert_int_equal(
				pd_writer_append_ref(w, &ring[i], sizeof(ring[i]), &err),
				0);
		}
		assert_int_equal(pd_writer_end_refs(w, &err), 0);
		next += 8;
	}
	memset(ring, 0xff, RUN * sizeof(*ring)); /* the ring's room taken back */
	for (int i = 0; i < N - next; i++) {
		struct test_sample copy = sample_number(next + i);

		assert_int_equal(pd_writer_append(w, &copy, sizeof(copy), &err), 0);
	}
	assert_int_equal(pd_writer_finish(w, &err), 0);
	free(ring);

	assert_int_equal(pd_open(path, &f, &err), 0);
	while (pd_next(f, &pos, &ev, &err) == 1) {
		struct pd_sample s;

		assert_int_equal(pd_parse_sample(f, ev, &s, &err), 0);
		assert_int_equal(s.ip, 0xffffffff81000000ULL + (uint64_t)n);
		n++;
	}
	assert_int_equal(err.code, 0);
	assert_int_equal(n, N);
	pd_close(f);
}

struct read_back_seen {
	uint64_t first_ip;
	int n;
	bool in_order;
	int stop_at; /* return 1 at this record, -1: never */
};

static int saw_record(void *ctx, const struct perf_event_header *ev)
{
	struct read_back_seen *seen = ctx;
	const struct test_sample *t = (const void *)ev;

	if (ev->type != PERF_RECORD_SAMPLE || ev->size != sizeof(*t) ||
	    t->ip != seen->first_ip + (uint64_t)seen->n)
		seen->in_order = false;
	if (seen->n++ == seen->stop_at)
		return 1;
	return 0;
}

/*
 * Records written unread (by reference, as whole rings) are read back from
 * the file, and only those of the range asked for: over more than one
 * read-back piece, with records that straddle the pieces.
 */
static void test_read_back(void **state)
{
	enum { RUN = 30000 }; /* 1.4 MB: two pieces, a record cut between them */
	struct test_sample *ring = calloc(RUN, sizeof(*ring));
	struct pd_writer *w = start_file(5);
	struct read_back_seen seen = {.in_order = true, .stop_at = -1};
	struct kp_err err = {0};
	uint64_t from, to;

	assert_non_null(ring);
	from = pd_writer_data_size(w);
	for (int i = 0; i < RUN; i++)
		ring[i] = sample_number(1000 + i);
	for (int i = 0; i < RUN; i++)
		assert_int_equal(pd_writer_append_ref(w, &ring[i], sizeof(ring[i]), &err),
				 0);
	assert_int_equal(pd_writer_end_refs(w, &err), 0);
	to = pd_writer_data_size(w);
	ring[0] = sample_number(0);
	assert_int_equal(pd_writer_append(w, &ring[0], sizeof(ring[0]), &err), 0);

	seen.first_ip = sample_number(1000).ip;
	assert_int_equal(pd_writer_read_back(w, from, to, saw_record, &seen, &err), 0);
	assert_int_equal(seen.n, RUN);
	assert_true(seen.in_order);

	/* What the function returns stops the read. */
	seen = (struct read_back_seen){
		.first_ip = seen.first_ip, .in_order = true, .stop_at = 25000};
	assert_int_equal(pd_writer_read_back(w, from, to, saw_record, &seen, &err), 1);
	assert_int_equal(seen.n, 25001);

	/* A range that ends inside a record, or lies outside the data. */
	assert_int_not_equal(
		pd_writer_read_back(w, from, from + 20, saw_record, &seen, &err), 0);
	assert_non_null(strstr(err.msg, "cut short"));
	err = (struct kp_err){0};
	assert_int_not_equal(pd_writer_read_back(w, to, from, saw_record, &seen, &err),
			     0);
	assert_non_null(strstr(err.msg, "no data between"));
	err = (struct kp_err){0};
	assert_int_not_equal(pd_writer_read_back(w, from, pd_writer_data_size(w) + 8,
						 saw_record, &seen, &err),
			     0);
	assert_non_null(strstr(err.msg, "no data between"));
	/* An impossible record size is named with its offset. */
	{
		struct perf_event_header bad = {PERF_RECORD_SAMPLE, 0, 4};
		uint64_t at = pd_writer_data_size(w);
		char where[64];

		err = (struct kp_err){0};
		assert_int_equal(pd_writer_append(w, &bad, sizeof(bad), &err), 0);
		seen.stop_at = -1;
		assert_int_not_equal(pd_writer_read_back(w, from, at + sizeof(bad),
							 saw_record, &seen, &err),
				     0);
		snprintf(where, sizeof(where), "data offset %llu has size 4",
			 (unsigned long long)at);
		assert_non_null(strstr(err.msg, where));
	}
	pd_writer_abort(w);
	free(ring);
}

/*
 * Pieces written at once come after what is buffered, in their order, and
 * count in the data size; more pieces than one call takes are refused.
 */
static void test_write_pieces(void **state)
{
	struct test_sample s[4] = {sample_number(0), sample_number(1), sample_number(2),
				   sample_number(3)};
	struct iovec pieces[PD_WRITER_PIECES + 1];
	struct pd_writer *w = start_file(0);
	struct kp_err err = {0};
	const struct perf_event_header *ev;
	struct pd_file *f;
	uint64_t pos = 0, size;
	int n = 0;

	assert_int_equal(pd_writer_append(w, &s[0], sizeof(s[0]), &err), 0);
	size = pd_writer_data_size(w);
	pieces[0] = (struct iovec){&s[1], 2 * sizeof(s[1])}; /* two records */
	pieces[1] = (struct iovec){&s[3], sizeof(s[3])};
	assert_int_equal(pd_writer_write_pieces(w, pieces, 2, &err), 0);
	assert_int_equal(pd_writer_data_size(w), size + 3 * sizeof(s[0]));
	for (int i = 0; i <= PD_WRITER_PIECES; i++)
		pieces[i] = (struct iovec){&s[0], sizeof(s[0])};
	assert_int_not_equal(
		pd_writer_write_pieces(w, pieces, PD_WRITER_PIECES + 1, &err), 0);
	assert_int_equal(pd_writer_finish(w, &err), 0);

	assert_int_equal(pd_open(path, &f, &err), 0);
	while (pd_next(f, &pos, &ev, &err) == 1) {
		struct pd_sample smp;

		assert_int_equal(pd_parse_sample(f, ev, &smp, &err), 0);
		assert_int_equal(smp.ip, sample_number(n).ip);
		n++;
	}
	assert_int_equal(n, 4);
	pd_close(f);
}

static void test_previous_file_kept(void **state)
{
	char old[64];

	write_file(1, NULL);
	write_file(2, NULL);
	snprintf(old, sizeof(old), "%s.old", path);
	assert_int_equal(access(old, F_OK), 0);
}

/* Every truncation point must fail with the path named, or parse cleanly. */
static void test_truncation_never_crashes(void **state)
{
	char *buf, cut_path[64];
	size_t len;
	struct kp_err err = {0};

	write_file(50, "kvmprof-feature 1\n");
	assert_int_equal(kp_read_file(path, KP_FILE_MAX, &buf, &len, &err), 0);
	snprintf(cut_path, sizeof(cut_path), "%s.cut", path);
	for (size_t cut = 0; cut < len; cut += 7) {
		FILE *out = fopen(cut_path, "w");
		struct pd_file *f;
		const struct perf_event_header *ev;
		uint64_t pos = 0;
		int ret;

		fwrite(buf, 1, cut, out);
		fclose(out);
		kp_err_clear(&err);
		ret = pd_open(cut_path, &f, &err);
		if (ret) {
			assert_non_null(strstr(err.msg, cut_path));
			continue;
		}
		while ((ret = pd_next(f, &pos, &ev, &err)) == 1) {
			struct pd_sample s;

			pd_parse_sample(f, ev, &s, &err);
		}
		pd_close(f);
	}
	unlink(cut_path);
	free(buf);
}

static void test_bad_record_size_names_offset(void **state)
{
	char *buf;
	size_t len;
	struct kp_err err = {0};
	struct pd_file *f;
	const struct perf_event_header *ev;
	struct pd_file_header h;
	uint64_t pos = 0;
	FILE *out;
	int ret;

	write_file(10, NULL);
	assert_int_equal(kp_read_file(path, KP_FILE_MAX, &buf, &len, &err), 0);
	memcpy(&h, buf, sizeof(h));
	/* Third record: claim a size running past the data section. */
	((struct perf_event_header *)(buf + h.data.offset +
				      2 * sizeof(struct test_sample)))
		->size = 0xfff0;
	out = fopen(path, "w");
	fwrite(buf, 1, len, out);
	fclose(out);
	assert_int_equal(pd_open(path, &f, &err), 0);
	while ((ret = pd_next(f, &pos, &ev, &err)) == 1)
		;
	assert_int_equal(ret, -EINVAL);
	assert_non_null(strstr(err.msg, path));
	assert_non_null(strstr(err.msg, "offset 0x"));
	pd_close(f);
	free(buf);
}

static void test_not_perf_data(void **state)
{
	struct pd_file *f;
	struct kp_err err = {0};
	FILE *out = fopen(path, "w");

	for (int i = 0; i < 100; i++)
		fputs("not a perf.data file at all\n", out);
	fclose(out);
	assert_int_equal(pd_open(path, &f, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "bad magic"));
	kp_err_clear(&err);
	assert_int_equal(pd_open("/nonexistent/perf.data", &f, &err), -ENOENT);
	assert_non_null(strstr(err.msg, "/nonexistent/perf.data"));
}

/*
 * The writer's temporary file sits next to the output, maybe in a folder
 * others may write. A symlink planted at the name it used to take
 * (NAME.tmp.PID) must not be written through.
 */
static void test_tmp_name_not_followed(void **state)
{
	char dir[] = "/tmp/kvmprof-pd-dir-XXXXXX", out[64], victim[64], trap[96];
	struct perf_event_attr attr = {0};
	struct pd_writer *w;
	struct pd_file *f;
	struct kp_err err = {0};
	struct stat st;
	char *text;
	size_t len;
	FILE *v;

	assert_non_null(mkdtemp(dir));
	snprintf(out, sizeof(out), "%s/perf.data", dir);
	snprintf(victim, sizeof(victim), "%s/victim", dir);
	snprintf(trap, sizeof(trap), "%s.tmp.%d", out, (int)getpid());
	v = fopen(victim, "w");
	assert_non_null(v);
	fputs("precious", v);
	fclose(v);
	assert_int_equal(symlink(victim, trap), 0);

	attr.type = PERF_TYPE_SOFTWARE;
	attr.sample_type = SAMPLE_TYPE;
	assert_int_equal(pd_writer_create(out, &w, &err), 0);
	assert_int_equal(pd_writer_add_evsel(w, &attr, "cpu-clock", NULL, 0), 0);
	assert_int_equal(pd_writer_begin_data(w, &err), 0);
	assert_int_equal(pd_writer_finish(w, &err), 0);

	assert_int_equal(kp_read_file(victim, 64, &text, &len, NULL), 0);
	assert_string_equal(text, "precious");
	free(text);
	assert_int_equal(lstat(out, &st), 0);
	assert_true(S_ISREG(st.st_mode));
	assert_int_equal(pd_open(out, &f, &err), 0);
	pd_close(f);
	assert_int_equal(unlink(trap), 0);
	assert_int_equal(unlink(victim), 0);
	assert_int_equal(unlink(out), 0);
	assert_int_equal(rmdir(dir), 0);
}

static uint64_t count_records(const struct pd_file *f)
{
	const struct perf_event_header *ev;
	struct kp_err err = {0};
	uint64_t pos = 0, n = 0;

	while (pd_next(f, &pos, &ev, &err) == 1)
		n++;
	assert_int_equal(err.code, 0);
	return n;
}

/*
 * A writer killed after flushing 50 samples, with 10 more in its buffer:
 * the file holds the 50, read with the header's "not finished" noted.
 */
static void test_killed_writer_read(void **state)
{
	struct kp_err err = {0};
	struct pd_file *f;
	struct stat st;
	int status;
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid == 0) {
		struct pd_writer *w = start_file(50);
		struct perf_event_header round = {PD_RECORD_FINISHED_ROUND, 0, 8};

		if (pd_writer_flush(w, &err))
			_exit(1);
		for (int i = 0; i < 10; i++)
			pd_writer_append(w, &round, sizeof(round), &err);
		raise(SIGKILL);
		_exit(1);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(pd_open(path, &f, &err), 0);
	assert_true(f->unfinished);
	assert_int_equal(f->unfinished_records, 50);
	assert_int_equal(f->unfinished_end, (uint64_t)st.st_size);
	assert_int_equal(count_records(f), 50);
	pd_close(f);

	/* Cut inside the last record: the 49 before it. */
	assert_int_equal(truncate(path, st.st_size - 5), 0);
	assert_int_equal(pd_open(path, &f, &err), 0);
	assert_true(f->unfinished);
	assert_int_equal(f->unfinished_records, 49);
	assert_int_equal(count_records(f), 49);
	pd_close(f);
}

/* perf's killed file: features announced in the header, no table written. */
static void test_killed_perf_file_read(void **state)
{
	struct pd_file_header h;
	struct kp_err err = {0};
	struct pd_file *f;
	FILE *io;

	write_file(20, NULL);
	io = fopen(path, "r+");
	assert_non_null(io);
	assert_int_equal(fread(&h, sizeof(h), 1, io), 1);
	assert_true(h.features[0] != 0);
	assert_int_equal(truncate(path, (off_t)(h.data.offset + h.data.size)), 0);
	h.data.size = 0;
	rewind(io);
	assert_int_equal(fwrite(&h, sizeof(h), 1, io), 1);
	fclose(io);
	assert_int_equal(pd_open(path, &f, &err), 0);
	assert_true(f->unfinished);
	assert_int_equal(f->unfinished_records, 20);
	assert_int_equal(count_records(f), 20);
	assert_string_equal(f->hostname, "");
	pd_close(f);
}

/* A finished file with no records is not taken for a killed one. */
static void test_finished_empty_file(void **state)
{
	struct kp_err err = {0};
	struct pd_file *f;

	write_file(0, NULL);
	assert_int_equal(pd_open(path, &f, &err), 0);
	assert_false(f->unfinished);
	assert_string_equal(f->hostname, "testhost");
	assert_int_equal(count_records(f), 0);
	pd_close(f);
}

/* A recording that fails leaves the previous file, not a partial one. */
static void test_abort_restores_previous(void **state)
{
	struct kp_err err = {0};
	struct pd_file *f;
	char old[64];

	write_file(3, NULL);
	snprintf(old, sizeof(old), "%s.old", path);
	unlink(old);
	pd_writer_abort(start_file(7));
	assert_int_not_equal(access(old, F_OK), 0);
	assert_int_equal(pd_open(path, &f, &err), 0);
	assert_false(f->unfinished);
	assert_int_equal(count_records(f), 3);
	pd_close(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_roundtrip),
		cmocka_unit_test(test_append_by_reference),
		cmocka_unit_test(test_read_back),
		cmocka_unit_test(test_write_pieces),
		cmocka_unit_test(test_previous_file_kept),
		cmocka_unit_test(test_truncation_never_crashes),
		cmocka_unit_test(test_bad_record_size_names_offset),
		cmocka_unit_test(test_not_perf_data),
		cmocka_unit_test(test_tmp_name_not_followed),
		cmocka_unit_test(test_killed_writer_read),
		cmocka_unit_test(test_killed_perf_file_read),
		cmocka_unit_test(test_finished_empty_file),
		cmocka_unit_test(test_abort_restores_previous),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
