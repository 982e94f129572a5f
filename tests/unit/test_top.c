// SPDX-License-Identifier: GPL-2.0
/*
 * kvmprof top's parts without a terminal or real events: a live session
 * fed ring records as the rings hand them over (guest context at the end
 * of each sample), aging and emptying of its rows, --guest-name, and the
 * screen layout at sizes down to a 20x5 terminal and below.
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
#include "guest_names.h"
#include "session.h"
#include "top_frame.h"
#include "top_layout.h"
#include "guest_fixture.h"
#include "test_sample.h"
#include "testutil.h"

#define WEB_PID 999991 /* no such processes: only the names set here */
#define DB_PID	999992

static char dir[] = "/tmp/kvmprof-top.XXXXXX";
static char kallsyms[64];
static struct evsel_open evsel;
static uint64_t evsel_id = 7;
static struct evlist el = {.evsels = &evsel, .nr_evsels = 1};
static struct guest_namer namer;
static struct symbol_opts so;
static struct session s;
static uint64_t clock_now = 1000;

struct ring_sample {
	struct test_sample s;
	struct perf_sample_guest_ctx ctx;
};

static void open_live(void)
{
	struct kp_err err = {0};

	evsel.attr = (struct perf_event_attr){
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_CPU_CLOCK,
		.sample_type = SAMPLE_TYPE | PERF_SAMPLE_GUEST_CTX,
		.sample_id_all = 1,
	};
	snprintf(evsel.name, sizeof(evsel.name), "cpu-clock");
	evsel.ids = &evsel_id;
	evsel.nr_ids = 1;
	so = (struct symbol_opts){.guestkallsyms = kallsyms, .guestmount = dir};
	assert_int_equal(session_open_live(&s, &el, true, &namer, "guest,sym", &so, &err),
			 0);
	s.kmaps.debugfs_dir = dir; /* no KVM debugfs here: contexts only */
	assert_non_null(kvmfeat_get(&s.kvmfeat, WEB_PID));
	snprintf(kvmfeat_get(&s.kvmfeat, WEB_PID)->name, GUEST_NAME_MAX, "web1");
	snprintf(kvmfeat_get(&s.kvmfeat, DB_PID)->name, GUEST_NAME_MAX, "db1");
}

/* A guest kernel sample of @pid in function @link at @slide, as the ring has it. */
static void ring_sample(uint32_t pid, uint64_t link, uint64_t slide)
{
	struct ring_sample r = {
		.s = {.h = {PERF_RECORD_SAMPLE, PERF_RECORD_MISC_GUEST_KERNEL, sizeof(r)},
		      .id = 7,
		      .ip = link + slide + 0x10,
		      .pid = pid,
		      .tid = pid + 1,
		      .time = clock_now++,
		      .period = 1000},
		.ctx = {.vcpu_id = 1,
			.pt_root = 0x1000,
			.kernel_entry = LINK_SYS + slide},
	};

	assert_int_equal(session_live_record(&s, &r.s.h), 0);
}

static void feed(uint32_t pid, uint64_t link, uint64_t slide, int n)
{
	struct kp_err err = {0};

	for (int i = 0; i < n; i++)
		ring_sample(pid, link, slide);
	assert_int_equal(session_live_flush(&s, &err), 0);
}

static const struct hist_entry *row(const char *sym, const char *guest)
{
	const struct hists *h = &s.hists[0];

	for (size_t i = 0; i < h->nr_entries; i++) {
		const struct hist_key *k = &h->entries[i]->key;

		if (k->sym && !strcmp(k->sym->name, sym) && k->guest &&
		    !strcmp(k->guest->name, guest))
			return h->entries[i];
	}
	return NULL;
}

static void test_live_feeding_resolves_and_follows_reboot(void **state)
{
	(void)state;
	open_live();
	feed(WEB_PID, LINK_DO, SLIDE1, 8);
	assert_non_null(row("do_syscall_64", "web1"));
	assert_true(row("do_syscall_64", "web1")->period == 8000);
	/* The guest rebooted: the next round's samples are at a new slide. */
	feed(WEB_PID, LINK_HALT, SLIDE2, 4);
	assert_non_null(row("native_safe_halt", "web1"));
	assert_true(row("native_safe_halt", "web1")->period == 4000);
	assert_int_equal(s.hists[0].nr_entries, 2);
	assert_true(s.level_samples[LEVEL_GUEST_KERNEL] == 12);
	/* Each round's contexts are dropped once it is in the model. */
	assert_int_equal(s.ctx.nr_samples, 0);
	session_close(&s);
}

static void test_decay_ages_and_drops_rows(void **state)
{
	(void)state;
	open_live();
	feed(WEB_PID, LINK_DO, SLIDE1, 8);
	feed(WEB_PID, LINK_HALT, SLIDE1, 1);
	assert_int_equal(session_decay(&s, 7, 8), 0);
	assert_true(row("do_syscall_64", "web1")->period == 7000);
	assert_true(s.hists[0].total_period == 7000 + 875);
	/* 875 -> 765 -> ... a row that reaches zero is dropped. */
	for (int i = 0; i < 60; i++)
		assert_int_equal(session_decay(&s, 7, 8), 0);
	assert_int_equal(s.hists[0].nr_entries, 0);
	assert_true(s.hists[0].total_period == 0);
	/* Cached rows went with them: new samples make new rows. */
	feed(WEB_PID, LINK_DO, SLIDE1, 2);
	assert_true(row("do_syscall_64", "web1")->period == 2000);
	assert_int_equal(session_decay(&s, 0, 1), 0); /* -z */
	assert_int_equal(s.hists[0].nr_entries, 0);
	session_close(&s);
}

static void test_guest_name_keeps_one_guest(void **state)
{
	(void)state;
	open_live();
	s.only_guest = "db1";
	feed(WEB_PID, LINK_DO, SLIDE1, 5);
	feed(DB_PID, LINK_HALT, SLIDE1, 3);
	assert_null(row("do_syscall_64", "web1"));
	assert_non_null(row("native_safe_halt", "db1"));
	assert_int_equal(s.hists[0].nr_entries, 1);
	assert_true(s.filtered == 5);
	session_close(&s);
}

/* A frame with @n rows of long cells. */
static void long_frame(struct top_frame *f, struct top_row *rows, size_t n)
{
	memset(f, 0, sizeof(*f));
	snprintf(f->headline, sizeof(f->headline),
		 "KvmTop:     8000 irqs/sec  kernel:50.0%%  us:25.0%%  guest "
		 "kernel:20.0%%  "
		 "guest us: 5.0%%");
	snprintf(f->notes[f->nr_notes++], TOP_LINE_MAX, "  guest web1 pid 1 20.0%%");
	snprintf(f->status, sizeof(f->status),
		 "q quit  h host: shown  s sort: guest,sym");
	f->nr_keys = 2;
	f->headers[0] = "Guest";
	f->headers[1] = "Symbol";
	f->rows = rows;
	f->nr_rows = n;
	for (size_t i = 0; i < n; i++) {
		rows[i].pct = 100.0 / (double)(i + 1);
		snprintf(rows[i].cells[0], TOP_CELL_MAX,
			 "guest-with-a-long-name-%zu (pid 4242)", i);
		snprintf(rows[i].cells[1], TOP_CELL_MAX,
			 "[g] a_very_long_guest_kernel_function_name_number_%zu", i);
	}
}

/* Lay out for @w x @h; check the limits; returns the text. */
static char *laid_out(const struct top_frame *f, int w, int h, int *lines)
{
	char *text = NULL, *p;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);

	assert_non_null(out);
	*lines = top_layout(f, w, h, out);
	fclose(out);
	assert_true(*lines <= h || !h);
	p = text;
	for (int i = 0; i < *lines; i++) {
		char *nl = strchr(p, '\n');

		assert_non_null(nl);
		assert_true(!w || nl - p <= w);
		p = nl + 1;
	}
	assert_int_equal(*p, '\0');
	return text;
}

static void test_layout_fits_every_size(void **state)
{
	static struct top_row rows[100];
	static const int sizes[][2] = {{120, 40}, {80, 24}, {40, 10},  {20, 5},
				       {8, 3},	  {1, 1},   {300, 200}};
	struct top_frame f;
	char *text;
	int lines;

	(void)state;
	long_frame(&f, rows, 100);
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		text = laid_out(&f, sizes[i][0], sizes[i][1], &lines);
		assert_int_equal(lines, sizes[i][1] < 105 ? sizes[i][1] : 105);
		assert_true(!strncmp(text, "KvmTop:", sizes[i][0] < 7 ? sizes[i][0] : 7));
		free(text);
	}
	/* 40 wide: the symbol keeps half the table, the guest column is cut to the rest.
	 */
	text = laid_out(&f, 40, 10, &lines);
	assert_non_null(strstr(text, "Overhead  Guest"));
	assert_non_null(strstr(text, " 100.00%  guest-with-a-l  [g] a_very_lon\n"));
	free(text);
	/* --stdio: no limits, nothing cut. */
	text = laid_out(&f, 0, 0, &lines);
	assert_int_equal(lines, 105);
	assert_non_null(strstr(text, "function_name_number_99\n"));
	free(text);
}

static int setup(void **state)
{
	(void)state;
	if (guest_fixture_make(dir, kallsyms, sizeof(kallsyms)))
		return -1;
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	guest_fixture_remove(dir, "/tmp/kvmprof-top.XXXXXX");
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(
			test_live_feeding_resolves_and_follows_reboot, setup, teardown),
		cmocka_unit_test_setup_teardown(test_decay_ages_and_drops_rows, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_guest_name_keeps_one_guest, setup,
						teardown),
		cmocka_unit_test(test_layout_fits_every_size),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
