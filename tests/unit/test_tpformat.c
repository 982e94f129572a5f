// SPDX-License-Identifier: GPL-2.0
/*
 * Tracepoint format files: the kvm events of Linux 6.12 and of a 6.18 host,
 * whose field offsets differ, read by name; and text that is not a format.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "perf/tpformat.h"
#include "tracepoint_fixture.h"

static void parse_fixture(const char *kernel, const char *event, struct tp_format *f)
{
	struct kp_err err = {0};
	size_t len;
	char *text = fixture_text(kernel, event, &len);

	assert_non_null(text);
	if (tp_format_parse(text, len, "kvm", f, &err))
		fail_msg("%s/%s: %s", kernel, event, err.msg);
	free(text);
}

static void assert_field(const struct tp_format *f, const char *name, uint32_t offset,
			 uint32_t size, bool is_signed)
{
	const struct tp_field *fld = tp_format_field(f, name);

	assert_non_null(fld);
	assert_int_equal(fld->offset, offset);
	assert_int_equal(fld->size, size);
	assert_int_equal(fld->is_signed, is_signed);
}

static void kvm_exit_612(void **state)
{
	struct tp_format f;

	parse_fixture("formats-6.12", "kvm_exit", &f);
	assert_string_equal(f.name, "kvm_exit");
	assert_string_equal(f.system, "kvm");
	assert_int_equal(f.id, 1461);
	assert_int_equal(f.nr_fields, 12);
	assert_field(&f, "common_pid", 4, 4, true);
	assert_field(&f, "exit_reason", 8, 4, false);
	assert_field(&f, "guest_rip", 16, 8, false);
	assert_field(&f, "isa", 24, 4, false);
	assert_field(&f, "info1", 32, 8, false);
	assert_field(&f, "vcpu_id", 56, 4, false);
	assert_null(tp_format_field(&f, "requests"));
}

static void kvm_entry_pio_msr_612(void **state)
{
	struct tp_format f;

	parse_fixture("formats-6.12", "kvm_entry", &f);
	assert_field(&f, "vcpu_id", 8, 4, false);
	assert_field(&f, "rip", 16, 8, false);
	assert_field(&f, "immediate_exit", 24, 1, false);
	assert_int_equal(f.nr_fields, 7);
	parse_fixture("formats-6.12", "kvm_pio", &f);
	assert_field(&f, "rw", 8, 4, false);
	assert_field(&f, "port", 12, 4, false);
	parse_fixture("formats-6.12", "kvm_msr", &f);
	assert_field(&f, "write", 8, 4, false);
	assert_field(&f, "ecx", 12, 4, false);
	assert_field(&f, "exception", 24, 1, false);
	parse_fixture("formats-6.12", "kvm_mmio", &f);
	assert_field(&f, "gpa", 16, 8, false);
}

/* A newer kernel moved and added fields: names still find them. */
static void kvm_exit_618_has_more(void **state)
{
	struct tp_format f;

	parse_fixture("formats-6.18", "kvm_exit", &f);
	assert_int_equal(f.id, 103);
	assert_field(&f, "requests", 64, 8, false);
	parse_fixture("formats-6.18", "kvm_entry", &f);
	assert_field(&f, "error_code", 32, 4, false);
}

static void values_read_in_bounds(void **state)
{
	struct tp_format f;
	uint8_t raw[64] = {0};
	uint32_t reason = 0x400, vcpu = 3;
	uint64_t rip = 0xffffffff81234567ULL, v = 0;
	int32_t pid = -2;

	parse_fixture("formats-6.12", "kvm_exit", &f);
	memcpy(raw + 4, &pid, 4);
	memcpy(raw + 8, &reason, 4);
	memcpy(raw + 16, &rip, 8);
	memcpy(raw + 56, &vcpu, 4);
	assert_true(tp_format_value(&f, "exit_reason", raw, sizeof(raw), &v));
	assert_int_equal(v, 0x400);
	assert_true(tp_format_value(&f, "guest_rip", raw, sizeof(raw), &v));
	assert_true(v == rip);
	assert_true(tp_format_value(&f, "common_pid", raw, sizeof(raw), &v));
	assert_true((int64_t)v == -2);
	assert_true(tp_format_value(&f, "vcpu_id", raw, 60, &v));
	assert_int_equal(v, 3);
	/* A record too short for the field, and a field that is not there. */
	assert_false(tp_format_value(&f, "vcpu_id", raw, 59, &v));
	assert_false(tp_format_value(&f, "requests", raw, sizeof(raw), &v));
}

static void rejects(const char *text)
{
	struct kp_err err = {0};
	struct tp_format f;

	assert_true(tp_format_parse(text, strlen(text), "kvm", &f, &err) < 0);
	assert_true(err.msg[0]);
}

static void malformed(void **state)
{
	char big[700];

	rejects("");
	rejects("name: kvm_exit\nformat:\n\tfield:u32 "
		"a;\toffset:8;\tsize:4;\tsigned:0;\n");
	rejects("name: kvm_exit\nID: 7\nformat:\n");
	rejects("name: kvm_exit\nID: 12x\n\tfield:u32 "
		"a;\toffset:8;\tsize:4;\tsigned:0;\n");
	rejects("name: kvm_exit\nID: 99999999999\n\tfield:u32 a;\toffset:8;\tsize:4;\n");
	rejects("name: kvm_exit\nID: 7\n\tfield:u32 "
		"a;\toffset:-8;\tsize:4;\tsigned:0;\n");
	rejects("name: kvm_exit\nID: 7\n\tfield:u32 a\toffset:8;\tsize:4;\tsigned:0;\n");
	rejects("name: kvm/exit\nID: 7\n\tfield:u32 a;\toffset:8;\tsize:4;\tsigned:0;\n");
	rejects("name: kvm_exit\nID: 7\n\tfield:u32 a;\toffset:8;\tsize:4;\tsigned:x;\n");
	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	memcpy(big, "name: e\nID: 1\n\tfield:", 21);
	rejects(big);
}

static void too_many_fields(void **state)
{
	size_t cap = 80 * (TP_FIELDS_MAX + 2), len;
	char *text = malloc(cap);

	len = (size_t)snprintf(text, cap, "name: e\nID: 1\nformat:\n");
	for (int i = 0; i <= TP_FIELDS_MAX; i++)
		len += (size_t)snprintf(
			text + len, cap - len,
			"\tfield:u32 f%d;\toffset:%d;\tsize:4;\tsigned:0;\n", i,
			8 + 4 * i);
	rejects(text);
	free(text);
}

/* Arrays and __data_loc: the name is the declared one, without brackets. */
static void array_names(void **state)
{
	const char *text =
		"name: e\nID: 1\nformat:\n"
		"\tfield:char prev_comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
		"\tfield:__data_loc char[] name;\toffset:24;\tsize:4;\tsigned:0;\n"
		"print fmt: \"field:u32 fake;\toffset:0;\tsize:4;\"\n";
	struct tp_format f;

	assert_int_equal(tp_format_parse(text, strlen(text), NULL, &f, NULL), 0);
	assert_int_equal(f.nr_fields, 2);
	assert_non_null(tp_format_field(&f, "prev_comm"));
	assert_non_null(tp_format_field(&f, "name"));
	assert_null(tp_format_field(&f, "fake"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(kvm_exit_612),
		cmocka_unit_test(kvm_entry_pio_msr_612),
		cmocka_unit_test(kvm_exit_618_has_more),
		cmocka_unit_test(values_read_in_bounds),
		cmocka_unit_test(malformed),
		cmocka_unit_test(too_many_fields),
		cmocka_unit_test(array_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
