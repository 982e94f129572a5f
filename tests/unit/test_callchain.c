// SPDX-License-Identifier: GPL-2.0
/*
 * Call chains from a synthetic host recording with PERF_SAMPLE_CALLCHAIN:
 * report's Children and Self columns and its caller-order tree, and
 * export's folded stacks, which must be the chains, outermost caller first.
 *
 * root_fn calls mid_fn, which calls leaf_fn: 3 samples in leaf_fn (chain
 * leaf, mid, root) and 1 in mid_fn itself (chain mid, root).
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

#include "export.h"
#include "output.h"
#include "perf/perf.h"
#include "session.h"
#include "test_sample.h"

#define HOST_PID 301
#define ROOT	 0xffffffff81000000ULL
#define MID	 0xffffffff81001000ULL
#define LEAF	 0xffffffff81002000ULL
#define TEXT	 0xffffffff80fff000ULL /* _text: the kernel map's reference */

static char dir[] = "/tmp/kvmprof-chain.XXXXXX";
static char data[96], kallsyms[96], out[96];

/* A test_sample followed by its chain: PERF_CONTEXT_KERNEL and @nr ips. */
struct chain_sample {
	struct test_sample s;
	uint64_t nr;
	uint64_t ips[4];
};

static void append(struct pd_writer *w, uint64_t time, const uint64_t *ips, size_t nr)
{
	struct kp_err err = {0};
	struct chain_sample c = {0};
	size_t size = sizeof(c.s) + 8 * (2 + nr);

	c.s = (struct test_sample){
		.h = {PERF_RECORD_SAMPLE, PERF_RECORD_MISC_KERNEL, (uint16_t)size},
		.id = 7,
		.ip = ips[0],
		.pid = HOST_PID,
		.tid = HOST_PID,
		.time = time,
		.period = 1000,
	};
	c.nr = nr + 1;
	c.ips[0] = PERF_CONTEXT_KERNEL;
	memcpy(&c.ips[1], ips, nr * 8);
	assert_int_equal(pd_writer_append(w, &c, size, &err), 0);
}

/* The host kernel's map, as perf record and kvmprof record write it. */
static void append_kernel_map(struct pd_writer *w)
{
	struct {
		struct perf_event_header h;
		uint32_t pid, tid;
		uint64_t start, len, pgoff;
		char filename[24];
		uint32_t id_pid, id_tid;
		uint64_t time;
		uint32_t cpu, res;
		uint64_t id;
	} m = {
		.h = {PERF_RECORD_MMAP, PERF_RECORD_MISC_KERNEL, sizeof(m)},
		.pid = (uint32_t)-1,
		.start = TEXT,
		.len = 0x1000000,
		.pgoff = TEXT,
		.filename = "[kernel.kallsyms]_text",
		.id = 7,
	};
	struct kp_err err = {0};

	assert_int_equal(pd_writer_append(w, &m, sizeof(m), &err), 0);
}

static void write_recording(void)
{
	static const uint64_t in_leaf[] = {LEAF + 0x10, MID + 0x20, ROOT + 0x30};
	static const uint64_t in_mid[] = {MID + 0x40, ROOT + 0x30};
	struct perf_event_attr attr = {0};
	struct pd_writer *w;
	struct kp_err err = {0};
	uint64_t id = 7, t = 0;

	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = PERF_COUNT_SW_CPU_CLOCK;
	attr.sample_type = SAMPLE_TYPE | PERF_SAMPLE_CALLCHAIN;
	attr.sample_id_all = 1;
	assert_int_equal(pd_writer_create(data, &w, &err), 0);
	assert_int_equal(pd_writer_add_evsel(w, &attr, "cpu-clock", &id, 1), 0);
	assert_int_equal(pd_writer_begin_data(w, &err), 0);
	append_kernel_map(w);
	for (int i = 0; i < 3; i++)
		append(w, ++t, in_leaf, 3);
	append(w, ++t, in_mid, 2);
	assert_int_equal(pd_writer_finish(w, &err), 0);
}

static void open_session(struct session *s, struct symbol_opts *so, const char *sort)
{
	struct kp_err err = {0};

	*so = (struct symbol_opts){.kallsyms = kallsyms, .guestmount = dir};
	write_recording();
	assert_int_equal(session_open(s, data, sort, so, &err), 0);
	s->want_host = true;
	s->want_guest = true;
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf = calloc(1, 1 << 16);

	assert_non_null(f);
	assert_non_null(buf);
	assert_true(fread(buf, 1, (1 << 16) - 1, f) > 0);
	fclose(f);
	return buf;
}

/* Process @s, print its report with @o, close it: the report's text. */
static char *report_text(struct session *s, const struct output_opts *o)
{
	struct kp_err err = {0};
	FILE *f;

	assert_int_equal(session_process(s, &err), 0);
	f = fopen(out, "w");
	assert_non_null(f);
	output_report(s, o, f);
	fclose(f);
	session_close(s);
	return slurp(out);
}

/* The report line of @sym: its Children and Self percentages. */
static void row_of(const char *text, const char *sym, double *children, double *self)
{
	char want[64];
	const char *line, *end;

	snprintf(want, sizeof(want), "[k] %s\n", sym);
	end = strstr(text, want);
	assert_non_null(end);
	for (line = end; line > text && line[-1] != '\n'; line--)
		;
	assert_int_equal(sscanf(line, " %lf%% %lf%%", children, self), 2);
}

static void test_report_children(void **state)
{
	struct output_opts o = {.header = true, .children = true};
	struct symbol_opts so;
	struct session s;
	double children, self;
	char *text;

	(void)state;
	open_session(&s, &so, "sym");
	s.chains.children = true;
	text = report_text(&s, &o);
	assert_non_null(strstr(text, "Children"));
	row_of(text, "root_fn", &children, &self);
	assert_true(children == 100.0 && self == 0.0);
	row_of(text, "mid_fn", &children, &self);
	assert_true(children == 100.0 && self == 25.0);
	row_of(text, "leaf_fn", &children, &self);
	assert_true(children == 75.0 && self == 75.0);
	/* Sorted by Children: the callers first. */
	assert_true(strstr(text, "] root_fn") < strstr(text, "] leaf_fn"));
	assert_true(strstr(text, "] mid_fn") < strstr(text, "] leaf_fn"));
	free(text);
}

static void test_report_graph_caller_order(void **state)
{
	struct output_opts o = {.header = true, .graph = true, .chain_percent = 0.5};
	struct symbol_opts so;
	struct session s;
	const char *row, *root, *mid;
	char *text;

	(void)state;
	open_session(&s, &so, "sym");
	s.chains.graph = true;
	s.chains.caller_order = true;
	text = report_text(&s, &o);
	/* leaf_fn's tree runs from root_fn down through mid_fn to leaf_fn. */
	row = strstr(text, "[k] leaf_fn\n");
	assert_non_null(row);
	root = strstr(row, "root_fn");
	mid = strstr(row, "mid_fn");
	assert_non_null(root);
	assert_non_null(mid);
	assert_true(root < mid);
	free(text);
}

static void test_folded_stacks_are_the_chains(void **state)
{
	struct symbol_opts so;
	struct export_profile p;
	struct kp_err err = {0};
	struct session s;
	FILE *f;
	char *text;

	(void)state;
	open_session(&s, &so, "sym");
	export_profile_init(&p, "cpu-clock", &so);
	s.frame_fn = export_profile_add;
	s.frame_ctx = &p;
	assert_int_equal(session_process(&s, &err), 0);
	assert_int_equal(p.total_count, 4);
	f = fopen(out, "w");
	assert_int_equal(export_write_folded(&p, false, f), 0);
	fclose(f);
	text = slurp(out);
	assert_string_equal(text, ":301;root_fn;mid_fn 1\n"
				  ":301;root_fn;mid_fn;leaf_fn 3\n");
	free(text);
	export_profile_release(&p);
	session_close(&s);
}

static int setup(void **state)
{
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(data, sizeof(data), "%s/perf.data", dir);
	snprintf(kallsyms, sizeof(kallsyms), "%s/kallsyms", dir);
	snprintf(out, sizeof(out), "%s/out", dir);
	f = fopen(kallsyms, "w");
	assert_non_null(f);
	fprintf(f,
		"%llx T _text\n%llx T root_fn\n%llx T mid_fn\n%llx T leaf_fn\n%llx T "
		"end_fn\n",
		(unsigned long long)TEXT, (unsigned long long)ROOT,
		(unsigned long long)MID, (unsigned long long)LEAF,
		(unsigned long long)LEAF + 0x1000);
	fclose(f);
	return 0;
}

static int teardown(void **state)
{
	char old[128];

	(void)state;
	snprintf(old, sizeof(old), "%s.old", data); /* each test writes the file anew */
	unlink(old);
	unlink(data);
	unlink(kallsyms);
	unlink(out);
	rmdir(dir);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_report_children),
		cmocka_unit_test(test_report_graph_caller_order),
		cmocka_unit_test(test_folded_stacks_are_the_chains),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
