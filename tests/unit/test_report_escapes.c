// SPDX-License-Identifier: GPL-2.0
/*
 * A perf.data file whose every string carries terminal escape sequences
 * (ESC, OSC, CSI, their C1 forms in UTF-8 and as raw bytes): the report,
 * headers included, must print none of them.
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

#include "base/base.h"
#include "output.h"
#include "perf/perf.h"
#include "session.h"
#include "test_sample.h"
#include "testutil.h"

#define QEMU_PID 4242
#define HOST_PID 77
#define LINK_DO	 0xffffffff81001000ULL
#define MAP_AT	 0x400000ULL

/* ESC OSC title BEL, C1 CSI in UTF-8, raw C1 CSI and OSC, a bare BEL. */
#define EVIL                       \
	"\033]0;pwned\007\xc2\x9b" \
	"31m\x9b"                  \
	"32m\x9d\a"

static char dir[] = "/tmp/kvmprof-esc.XXXXXX";
static char data[64], kallsyms[64];
static struct pd_writer *w;

static int append(void *ctx, const struct perf_event_header *ev)
{
	struct kp_err err = {0};

	(void)ctx;
	return pd_writer_append(w, ev, ev->size, &err);
}

static void sample(uint16_t misc, uint32_t pid, uint64_t ip, uint64_t time)
{
	struct test_sample s = {
		.h = {PERF_RECORD_SAMPLE, misc, sizeof(s)},
		.id = 7,
		.ip = ip,
		.pid = pid,
		.tid = pid,
		.time = time,
		.period = 1000,
	};

	assert_int_equal(append(NULL, &s.h), 0);
}

static void set_features(void)
{
	char *argv[] = {"kvmprof", "record", "-o", "x" EVIL};
	const char *feat = "kvmprof-feature 1\n"
			   "guest 4242 web1 slide=0 slide-source=" EVIL "\n";

	pd_writer_set_string(w, PD_FEAT_HOSTNAME, "host" EVIL);
	pd_writer_set_string(w, PD_FEAT_OSRELEASE, "6.12" EVIL);
	pd_writer_set_string(w, PD_FEAT_ARCH, "x86" EVIL);
	pd_writer_set_nrcpus(w, 4, 4);
	assert_int_equal(pd_writer_set_cmdline(w, 4, argv), 0);
	assert_int_equal(pd_writer_set_kvmprof(w, feat, strlen(feat)), 0);
}

/* Every name a report shows, each with the escapes in it. */
static void write_evil_file(void)
{
	struct perf_event_attr attr = {0};
	struct synth syn = {SAMPLE_TYPE, true, 0, append, NULL};
	struct kp_err err = {0};
	uint64_t id = 7;

	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = PERF_COUNT_SW_CPU_CLOCK;
	attr.sample_type = SAMPLE_TYPE;
	attr.sample_id_all = 1;
	assert_int_equal(pd_writer_create(data, &w, &err), 0);
	assert_int_equal(pd_writer_add_evsel(w, &attr, "cpu-clock" EVIL, &id, 1), 0);
	assert_int_equal(pd_writer_begin_data(w, &err), 0);
	assert_int_equal(synth_comm(&syn, HOST_PID, HOST_PID, "comm" EVIL), 0);
	assert_int_equal(synth_mmap(&syn, PERF_RECORD_MISC_USER, HOST_PID, HOST_PID,
				    MAP_AT, 0x1000, 0, "/usr/bin/dso" EVIL),
			 0);
	for (int i = 0; i < 10; i++) {
		sample(PERF_RECORD_MISC_USER, HOST_PID, MAP_AT + 0x10,
		       1000 + (uint64_t)i);
		sample(PERF_RECORD_MISC_GUEST_KERNEL, QEMU_PID, LINK_DO + 0x10,
		       2000 + (uint64_t)i);
	}
	set_features();
	assert_int_equal(pd_writer_finish(w, &err), 0);
}

/* Only newlines and what sanitize() keeps: no ESC, no C0 or C1, no stray byte. */
static void assert_terminal_safe(const char *out, size_t len)
{
	for (size_t i = 0; i < len;) {
		size_t n = out[i] == '\n' ? 1 : sanitize_char_len(out + i);

		if (!n)
			fail_msg("byte %#x at offset %zu of the report",
				 (unsigned char)out[i], i);
		i += n;
	}
}

static void test_report_prints_no_escapes(void **state)
{
	struct symbol_opts so = {.guestkallsyms = kallsyms, .guestmount = dir};
	struct output_opts oo = {.header = true, .show_samples = true};
	struct kp_err err = {0};
	struct session s;
	char *out = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	write_evil_file();
	assert_int_equal(session_open(&s, data, "comm,pid,dso,sym,guest", &so, &err), 0);
	assert_int_equal(session_process(&s, &err), 0);
	f = open_memstream(&out, &len);
	assert_non_null(f);
	output_report(&s, &oo, f);
	assert_int_equal(fclose(f), 0);
	session_close(&s);
	assert_terminal_safe(out, len);
	/* Each string was printed, neutralised: the test saw what it means to test. */
	assert_non_null(
		strstr(out, "# hostname: host?]0;pwned??31m?32m??, os release: 6.12?"));
	assert_non_null(strstr(out, "# cmdline: kvmprof record -o x?]0;pwned?"));
	assert_non_null(strstr(out, "of event 'cpu-clock?]0;pwned?"));
	assert_non_null(strstr(out, "(from ?]0;pwned??31m?32m?"
				    "?)"));
	assert_non_null(strstr(out, "comm?]0;pwned?"));
	assert_non_null(strstr(out, "dso?]0;pwned?"));
	assert_non_null(strstr(out, "evil?]0;pwned?"));
	free(out);
}

/* Error messages quote file names and file data: they are printed safe too. */
static void test_error_prints_no_escapes(void **state)
{
	struct kp_err err = {0};
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);

	(void)state;
	assert_non_null(f);
	kp_errorf(&err, EINVAL, "%s: bad", "file" EVIL);
	kp_err_print(f, "kvmprof report", &err);
	assert_int_equal(fclose(f), 0);
	assert_terminal_safe(out, len);
	assert_string_equal(out, "kvmprof report: file?]0;pwned??31m?32m??: bad\n");
	free(out);
}

static int setup(void **state)
{
	(void)state;
	if (!mkdtemp(dir))
		return -1;
	snprintf(data, sizeof(data), "%s/perf.data", dir);
	snprintf(kallsyms, sizeof(kallsyms), "%s/kallsyms", dir);
	/* The guest's own symbol names are guest data too. */
	return sh("printf 'ffffffff81000000 T _text\\nffffffff81001000 T "
		  "evil\\033]0;pwned\\007\\302\\233\\n"
		  "ffffffff81002000 T _etext\\n' >%s",
		  kallsyms);
}

static int teardown(void **state)
{
	(void)state;
	sh("rm -rf %s", dir);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_report_prints_no_escapes),
		cmocka_unit_test(test_error_prints_no_escapes),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
