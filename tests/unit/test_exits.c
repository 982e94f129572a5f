// SPDX-License-Identifier: GPL-2.0
/*
 * kvmprof stat exits: exits paired with the entries of their own vCPU
 * thread, a lost entry, histogram buckets, sort keys, --duration lines,
 * and a whole report of a file with 6.12's formats whose guest functions
 * are named from a symbol table placed at the recorded slide.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "builtin.h"
#include "exits.h"
#include "perf/exitreason.h"
#include "perf/perf.h"
#include "test_sample.h"
#include "perf/tracingdata.h"
#include "tracepoint_fixture.h"

#define SVM_HLT 0x78
#define SVM_IO	0x7b

static struct exits_event exit_ev(int tid, uint64_t time, uint32_t reason, uint64_t rip)
{
	return (struct exits_event){.kind = EV_EXIT,
				    .time = time,
				    .pid = 100,
				    .tid = tid,
				    .vcpu = tid - 10,
				    .isa = KVM_ISA_SVM,
				    .key = reason,
				    .guest_rip = rip};
}

static struct exits_event entry_ev(int tid, uint64_t time)
{
	return (struct exits_event){
		.kind = EV_ENTRY, .time = time, .pid = 100, .tid = tid, .vcpu = tid - 10};
}

static const struct exits_stat *stat_for(const struct exits_stats *st, uint64_t key)
{
	for (size_t i = 0; i < st->nr; i++)
		if (st->v[i].key == key)
			return &st->v[i];
	return NULL;
}

static void add_all(struct exits *x, const struct exits_event *e, size_t n)
{
	for (size_t i = 0; i < n; i++)
		assert_int_equal(exits_add(x, &e[i]), 0);
}

/* Two vCPUs interleaved: each exit ends at its own thread's entry. */
static void pairs_per_vcpu_thread(void **state)
{
	struct exits x;
	const struct exits_event ev[] = {
		exit_ev(10, 1000, SVM_HLT, 0),
		exit_ev(11, 1500, SVM_IO, 0),
		entry_ev(11, 2000),
		entry_ev(10, 301000),
	};
	const struct exits_stat *hlt, *io;

	exits_init(&x, EXITS_VMEXIT);
	add_all(&x, ev, 4);
	assert_int_equal(x.nr_guests, 1);
	hlt = stat_for(&x.guests[0]->all, SVM_HLT);
	io = stat_for(&x.guests[0]->all, SVM_IO);
	assert_non_null(hlt);
	assert_non_null(io);
	assert_int_equal(hlt->total_ns, 300000);
	assert_int_equal(io->total_ns, 500);
	assert_int_equal(x.guests[0]->nr_vcpus, 2);
	assert_int_equal(x.unpaired, 0);
	exits_release(&x);
}

/* An entry that never came: that exit is unpaired, not 2 ms long. */
static void missing_entry(void **state)
{
	struct exits x;
	const struct exits_event ev[] = {
		entry_ev(10, 10),
		exit_ev(10, 1000, SVM_HLT, 0),
		exit_ev(10, 2001000, SVM_IO, 0),
		entry_ev(10, 2004000),
		entry_ev(10, 2005000), /* an entry with no exit before it */
	};

	exits_init(&x, EXITS_VMEXIT);
	add_all(&x, ev, 5);
	assert_int_equal(x.unpaired, 1);
	assert_null(stat_for(&x.guests[0]->all, SVM_HLT));
	assert_int_equal(stat_for(&x.guests[0]->all, SVM_IO)->count, 1);
	assert_int_equal(stat_for(&x.guests[0]->all, SVM_IO)->max_ns, 3000);
	exits_release(&x);
}

static void buckets(void **state)
{
	assert_int_equal(exits_bucket(0), 0);
	assert_int_equal(exits_bucket(999), 0);
	assert_int_equal(exits_bucket(1000), 1);
	assert_int_equal(exits_bucket(1999), 1);
	assert_int_equal(exits_bucket(2000), 2);
	assert_int_equal(exits_bucket(4000), 3);
	assert_int_equal(exits_bucket(1000ULL * 512), 10);
	assert_int_equal(exits_bucket(UINT64_MAX), EXITS_BUCKETS - 1);
}

static void sort_keys(void **state)
{
	struct exits_stat v[3] = {
		{.key = 1, .count = 10, .total_ns = 100, .max_ns = 50},
		{.key = 2, .count = 2, .total_ns = 1000, .max_ns = 900},
		{.key = 3, .count = 5, .total_ns = 600, .max_ns = 130},
	};
	struct exits_stats st = {v, 3, 3};

	exits_stats_sort(&st, EXITS_BY_COUNT);
	assert_int_equal(v[0].key, 1);
	assert_int_equal(v[2].key, 2);
	exits_stats_sort(&st, EXITS_BY_TIME);
	assert_int_equal(v[0].key, 2);
	assert_int_equal(v[1].key, 3);
	exits_stats_sort(&st, EXITS_BY_MAX);
	assert_int_equal(v[0].key, 2);
	assert_int_equal(v[2].key, 1);
	exits_stats_sort(&st, EXITS_BY_MEAN); /* 10, 500, 120 */
	assert_int_equal(v[0].key, 2);
	assert_int_equal(v[1].key, 3);
}

static const char *fixed_resolve(void *ctx, int pid, uint64_t rip)
{
	return rip == 0xffffffff81001010ULL ? "native_safe_halt" : NULL;
}

/* Only exits longer than --duration are printed, with their function. */
static void duration_lines(void **state)
{
	char *buf = NULL;
	size_t len = 0;
	struct exits x;
	const struct exits_event ev[] = {
		exit_ev(10, 1000, SVM_HLT, 0xffffffff81001010ULL),
		entry_ev(10, 6000),
		exit_ev(10, 7000, SVM_HLT, 0xffffffff81001010ULL),
		entry_ev(10, 27000),
		exit_ev(10, 30000, SVM_IO, 0x401000),
		entry_ev(10, 45000),
	};

	exits_init(&x, EXITS_VMEXIT);
	x.duration_ns = 10000;
	x.duration_out = open_memstream(&buf, &len);
	x.resolve = fixed_resolve;
	add_all(&x, ev, 6);
	fclose(x.duration_out);
	assert_non_null(strstr(buf, "vcpu 0: hlt took 20us, at native_safe_halt"));
	assert_non_null(strstr(buf, "io took 15us, at [guest user]"));
	assert_null(strstr(buf, "took 5us"));
	free(buf);
	exits_release(&x);
}

/* A raw kvm_exit or kvm_entry sample laid out as 6.12's formats say. */
static struct test_raw_sample raw(uint64_t id, uint64_t time, uint32_t reason,
				  uint64_t rip)
{
	struct test_raw_sample s = {
		.h = {PERF_RECORD_SAMPLE, PERF_RECORD_MISC_KERNEL, sizeof(s)},
		.id = id,
		.pid = 100,
		.tid = 101,
		.time = time,
		.period = 1,
		.raw_size = sizeof(s.raw)};
	uint32_t isa = KVM_ISA_SVM, vcpu = 0;

	if (id == 1) { /* kvm_exit */
		memcpy(s.raw + 8, &reason, 4);
		memcpy(s.raw + 16, &rip, 8);
		memcpy(s.raw + 24, &isa, 4);
		memcpy(s.raw + 56, &vcpu, 4);
	} else {
		memcpy(s.raw + 8, &vcpu, 4);
		memcpy(s.raw + 16, &rip, 8);
	}
	return s;
}

static void add_tracing_data(struct pd_writer *w)
{
	static const char *const names[] = {"kvm_exit", "kvm_entry"};
	struct tracingdata_format fmts[2];
	struct tracingdata_input in = {"", 0, "", 0, fmts, 2};
	char *texts[2];
	size_t len;
	void *blob;

	for (int i = 0; i < 2; i++) {
		texts[i] = fixture_text("formats-6.12", names[i], &fmts[i].len);
		fmts[i].system = "kvm";
		fmts[i].text = texts[i];
	}
	assert_int_equal(tracingdata_write(&in, &blob, &len), 0);
	assert_int_equal(pd_writer_set_feature(w, PD_FEAT_TRACING_DATA, blob, len), 0);
	free(blob);
	free(texts[0]);
	free(texts[1]);
}

static void add_guest_table(struct pd_writer *w)
{
	struct kvmfeat kf = {0};
	struct kvmfeat_guest *g = kvmfeat_get(&kf, 100);
	char *buf;
	size_t len;

	snprintf(g->name, sizeof(g->name), "web1");
	g->has_slide = true;
	g->slide = 0x1000000;
	snprintf(g->slide_source, sizeof(g->slide_source), "test");
	assert_int_equal(kvmfeat_encode(&kf, &buf, &len), 0);
	assert_int_equal(pd_writer_set_kvmprof(w, buf, len), 0);
	free(buf);
	kvmfeat_release(&kf);
}

/* Exits at native_safe_halt+0x10 and handle_pio+0x20, run with a 16 MiB slide. */
static void write_file(const char *path)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_TRACEPOINT,
		.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
			       PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD |
			       PERF_SAMPLE_RAW,
		.sample_period = 1,
		.sample_id_all = 1};
	uint64_t exit_id = 1, entry_id = 2;
	struct test_raw_sample s[6] = {
		raw(1, 1000, SVM_HLT, 0xffffffff82001010ULL),  raw(2, 51000, 0, 0),
		raw(1, 60000, SVM_HLT, 0xffffffff82001010ULL), raw(2, 70000, 0, 0),
		raw(1, 80000, SVM_IO, 0xffffffff82002020ULL),  raw(2, 82000, 0, 0),
	};
	struct kp_err err = {0};
	struct pd_writer *w;

	assert_int_equal(pd_writer_create(path, &w, &err), 0);
	attr.config = 1461;
	assert_int_equal(pd_writer_add_evsel(w, &attr, "kvm:kvm_exit", &exit_id, 1), 0);
	attr.config = 1473;
	assert_int_equal(pd_writer_add_evsel(w, &attr, "kvm:kvm_entry", &entry_id, 1), 0);
	assert_int_equal(pd_writer_begin_data(w, &err), 0);
	for (int i = 0; i < 6; i++)
		assert_int_equal(pd_writer_append(w, &s[i], sizeof(s[i]), &err), 0);
	add_tracing_data(w);
	add_guest_table(w);
	assert_int_equal(pd_writer_finish(w, &err), 0);
}

/* Run kvmprof stat exits with @args, its output into a string. */
static char *run(char **args, int n)
{
	char out[] = "/tmp/kvmprof-exits-out.XXXXXX";
	int fd = mkstemp(out), saved = dup(1), ret;
	char *text = NULL;
	size_t len;

	fflush(stdout);
	dup2(fd, 1);
	ret = cmd_stat_exits(n, args);
	fflush(stdout);
	dup2(saved, 1);
	close(saved);
	close(fd);
	assert_int_equal(ret, 0);
	assert_int_equal(kp_read_file(out, 1 << 20, &text, &len, NULL), 0);
	unlink(out);
	return text;
}

static void report_names_guest_functions(void **state)
{
	char data[40] = "/tmp/kvmprof-exits.XXXXXX", syms[] = "/tmp/kvmprof-ksyms.XXXXXX";
	int fd = mkstemp(syms);
	const char *table =
		"ffffffff81000000 T _text\nffffffff81001000 T native_safe_halt\n"
		"ffffffff81002000 T handle_pio\nffffffff81003000 T _etext\n";
	char *args[] = {
		"exits", "report",	 "-i",		 data,	       "--guestkallsyms",
		syms,	 "--guestmount", "/nonexistent", "--duration", "40",
		NULL};
	char *out;

	assert_int_equal(write(fd, table, strlen(table)), (ssize_t)strlen(table));
	close(fd);
	close(mkstemp(data));
	write_file(data);
	out = run(args, 10);
	if (getenv("SHOW"))
		fputs(out, stderr);
	assert_non_null(strstr(out, "guest web1 (pid 100), all VCPUs (SVM)"));
	assert_non_null(strstr(out, "hlt          2"));
	assert_non_null(strstr(out, "50.00us"));
	assert_non_null(strstr(out, "native_safe_halt                     hlt 2"));
	assert_non_null(strstr(out, "handle_pio                           io 1"));
	/* Only the 50 us exit is longer than --duration 40. */
	assert_non_null(strstr(out, "hlt took 50us, at native_safe_halt"));
	assert_null(strstr(out, "took 10us"));
	free(out);
	unlink(data);
	strcat(data, ".old"); /* the empty file mkstemp made, kept by the writer */
	unlink(data);
	unlink(syms);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(pairs_per_vcpu_thread),
		cmocka_unit_test(missing_entry),
		cmocka_unit_test(buckets),
		cmocka_unit_test(sort_keys),
		cmocka_unit_test(duration_lines),
		cmocka_unit_test(report_names_guest_functions),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
