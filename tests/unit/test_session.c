// SPDX-License-Identifier: GPL-2.0
/*
 * A report session reading the guest kernel maps kvmprof record writes:
 * "[guest.kernel.kallsyms.PID]entry_SYSCALL_64" places that guest's table,
 * also when the map arrives after the table was loaded for earlier samples.
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
#include "session.h"
#include "test_sample.h"
#include "testutil.h"

#define QEMU_PID 4242
#define SLIDE	 0x19000000ULL	       /* a KASLR slide: a multiple of 2 MiB */
#define LINK_SYS 0xffffffff81000040ULL /* entry_SYSCALL_64 at link time */
#define LINK_DO	 0xffffffff81001000ULL /* do_syscall_64 */

static char dir[] = "/tmp/kvmprof-sess.XXXXXX";
static char data[64], kallsyms[64];
static struct pd_writer *w;

static int append(void *ctx, const struct perf_event_header *ev)
{
	struct kp_err err = {0};

	(void)ctx;
	return pd_writer_append(w, ev, ev->size, &err);
}

static void begin(void)
{
	struct perf_event_attr attr = {0};
	uint64_t id = 7;
	struct kp_err err = {0};

	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = PERF_COUNT_SW_CPU_CLOCK;
	attr.sample_type = SAMPLE_TYPE;
	attr.sample_id_all = 1;
	assert_int_equal(pd_writer_create(data, &w, &err), 0);
	assert_int_equal(pd_writer_add_evsel(w, &attr, "cpu-clock", &id, 1), 0);
	assert_int_equal(pd_writer_begin_data(w, &err), 0);
}

static void sample_at(uint16_t misc, uint32_t pid, uint64_t ip, uint64_t time)
{
	struct test_sample s = {
		.h = {PERF_RECORD_SAMPLE, misc, sizeof(s)},
		.id = 7,
		.ip = ip,
		.pid = pid,
		.tid = pid + 1,
		.time = time,
		.period = 1000,
	};

	assert_int_equal(append(NULL, &s.h), 0);
}

static void pid_sample(uint32_t pid, uint64_t ip, uint64_t time)
{
	sample_at(PERF_RECORD_MISC_GUEST_KERNEL, pid, ip, time);
}

static void guest_sample(uint64_t ip, uint64_t time)
{
	pid_sample(QEMU_PID, ip, time);
}

static void round_end(void)
{
	struct perf_event_header h = {PD_RECORD_FINISHED_ROUND, 0, sizeof(h)};

	assert_int_equal(append(NULL, &h), 0);
}

/* The map kvmprof record writes for the guest, through the recorder's own code. */
static void guest_map(struct guestkmaps *t)
{
	struct synth s = {SAMPLE_TYPE, true, 0, append, NULL};

	assert_int_equal(guestkmaps_note(t, &s, QEMU_PID, LINK_SYS + SLIDE, 0), 0);
}

static void finish(void)
{
	struct kp_err err = {0};

	assert_int_equal(pd_writer_finish(w, &err), 0);
}

/* The top row's symbol name after reporting with the guest's link-time table. */
static void report_pid(int pid, const char **top, char *slide_source, size_t size)
{
	struct symbol_opts so = {.guestkallsyms = kallsyms, .guestmount = dir};
	struct session s;
	struct kp_err err = {0};
	struct machine *m;

	assert_int_equal(session_open(&s, data, "sym", &so, &err), 0);
	assert_int_equal(session_process(&s, &err), 0);
	assert_true(s.hists[0].nr_entries > 0);
	*top = s.hists[0].entries[0]->key.sym ? s.hists[0].entries[0]->key.sym->name
					      : "?";
	*top = strdup(*top);
	m = machines_find_guest(&s.machines, pid);
	assert_non_null(m);
	snprintf(slide_source, size, "%s", m->slide_known ? m->slide_source : "unknown");
	session_close(&s);
}

static void report(const char **top, char *slide_source, size_t size)
{
	report_pid(QEMU_PID, top, slide_source, size);
}

static int setup(void **state)
{
	(void)state;
	if (!mkdtemp(dir))
		return -1;
	snprintf(data, sizeof(data), "%s/perf.data", dir);
	snprintf(kallsyms, sizeof(kallsyms), "%s/kallsyms", dir);
	return sh("printf 'ffffffff81000000 T _text\\nffffffff81000040 T "
		  "entry_SYSCALL_64\\n"
		  "ffffffff81001000 T do_syscall_64\\nffffffff81002000 T _etext\\n' >%s",
		  kallsyms);
}

static int teardown(void **state)
{
	(void)state;
	sh("rm -rf %s", dir);
	strcpy(dir, "/tmp/kvmprof-sess.XXXXXX");
	return 0;
}

static void test_map_before_samples(void **state)
{
	struct guestkmaps t = {0};
	const char *top;
	char source[96];

	(void)state;
	begin();
	guest_map(&t);
	for (int i = 0; i < 10; i++)
		guest_sample(LINK_DO + SLIDE + 0x10, 1000 + (uint64_t)i);
	round_end();
	finish();
	report(&top, source, sizeof(source));
	assert_string_equal(top, "do_syscall_64");
	assert_string_equal(source, "kernel map (entry_SYSCALL_64)");
	free((void *)top);
	guestkmaps_release(&t);
}

/* The default-guest copy written for perf lends no slide to another guest. */
static void test_copy_for_perf_not_borrowed(void **state)
{
	struct guestkmaps t = {0};
	const char *top;
	char source[96];

	(void)state;
	begin();
	guest_map(&t);
	for (int i = 0; i < 10; i++)
		pid_sample(QEMU_PID + 1, LINK_DO + SLIDE + 0x10, 1000 + (uint64_t)i);
	guest_sample(LINK_DO + SLIDE + 0x10, 1000);
	round_end();
	finish();
	report_pid(QEMU_PID + 1, &top, source, sizeof(source));
	assert_string_equal(source, "unknown");
	free((void *)top);
	guestkmaps_release(&t);
}

/* Samples of an earlier round loaded the table with no slide: the map still places it. */
static void test_map_after_table_loaded(void **state)
{
	struct guestkmaps t = {0};
	const char *top;
	char source[96];

	(void)state;
	begin();
	guest_sample(LINK_DO + SLIDE + 0x10, 1000);
	round_end();
	guestkmaps_saw_time(&t, 1000);
	guestkmaps_round(&t);
	guestkmaps_round(&t);
	guest_map(&t);
	for (int i = 0; i < 10; i++)
		guest_sample(LINK_DO + SLIDE + 0x20, 2000 + (uint64_t)i);
	round_end();
	finish();
	report(&top, source, sizeof(source));
	assert_string_equal(top, "do_syscall_64");
	assert_string_equal(source, "kernel map (entry_SYSCALL_64)");
	free((void *)top);
	guestkmaps_release(&t);
}

static void host_kernel_sample(uint64_t ip, uint64_t time)
{
	sample_at(PERF_RECORD_MISC_KERNEL, 100, ip, time);
}

/* The row of @h named @name (NULL: the unresolved one), or NULL. */
static const struct hist_entry *row_named(const struct hists *h, const char *name)
{
	for (size_t i = 0; i < h->nr_entries; i++) {
		const struct ksym *sym = h->entries[i]->key.sym;

		if (name ? sym && !strcmp(sym->name, name) : !sym)
			return h->entries[i];
	}
	return NULL;
}

/*
 * Host kernel samples are resolved where the kernel was when they were
 * taken: those before its map by the table as loaded, those after it with
 * the slide the map gives, although report resolves them in bulk.
 */
static void test_host_kernel_placed_mid_file(void **state)
{
	struct synth map = {SAMPLE_TYPE, true, 1500, append, NULL};
	struct symbol_opts so = {.kallsyms = kallsyms};
	struct session sess;
	struct kp_err err = {0};
	const struct hist_entry *named, *unnamed;

	(void)state;
	begin();
	for (int i = 0; i < 10; i++)
		host_kernel_sample(LINK_DO + 0x10, 1000 + (uint64_t)i);
	assert_int_equal(synth_mmap(&map, PERF_RECORD_MISC_KERNEL, -1, 0, 0, ~0ULL,
				    0xffffffff81000000ULL + 0x200000,
				    "[kernel.kallsyms]_text"),
			 0);
	for (int i = 0; i < 5; i++)
		host_kernel_sample(LINK_DO + 0x10, 2000 + (uint64_t)i);
	round_end();
	finish();
	assert_int_equal(session_open(&sess, data, "sym", &so, &err), 0);
	assert_int_equal(session_process(&sess, &err), 0);
	named = row_named(&sess.hists[0], "do_syscall_64");
	unnamed = row_named(&sess.hists[0], NULL);
	assert_non_null(named);
	assert_int_equal(named->samples, 10);
	assert_non_null(unnamed);
	assert_int_equal(unnamed->samples, 5);
	assert_int_equal(sess.hists[0].total_samples, 15);
	session_close(&sess);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_map_before_samples, setup, teardown),
		cmocka_unit_test_setup_teardown(test_map_after_table_loaded, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_copy_for_perf_not_borrowed, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_host_kernel_placed_mid_file, setup,
						teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
