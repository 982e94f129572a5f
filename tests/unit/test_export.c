// SPDX-License-Identifier: GPL-2.0
/*
 * kvmprof export's writers: the protobuf encoder against known bytes, and
 * folded stacks, pprof and the flame graph layout from a synthetic
 * recording of two guests (one named, one not) and the host.
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
#include <zlib.h>
#include <cmocka.h>

#include "export.h"
#include "protobuf.h"
#include "session.h"
#include "guest_fixture.h"
#include "guest_recording.h"

#define NAMED_PID   100
#define UNNAMED_PID 200
#define HOST_PID    300

static char dir[] = "/tmp/kvmprof-export.XXXXXX";
static char data[96], kallsyms[96], out[96];

static void assert_bytes(const struct pb_buf *b, const uint8_t *want, size_t len)
{
	assert_int_equal(pb_status(b), 0);
	assert_int_equal(b->len, len);
	assert_memory_equal(b->data, want, len);
}

/* The examples of the protocol buffers encoding guide. */
static void test_protobuf_known_bytes(void **state)
{
	static const uint8_t varint[] = {0x08, 0x96, 0x01};
	static const uint8_t string[] = {0x12, 0x07, 't', 'e', 's', 't', 'i', 'n', 'g'};
	static const uint8_t packed[] = {0x22, 0x06, 0x03, 0x8e, 0x02, 0x9e, 0xa7, 0x05};
	static const uint8_t nested[] = {0x1a, 0x03, 0x08, 0x96, 0x01};
	const uint64_t values[] = {3, 270, 86942};
	struct pb_buf b = {0}, sub = {0};

	(void)state;
	pb_uint(&b, 1, 150);
	assert_bytes(&b, varint, sizeof(varint));
	pb_reset(&b);
	pb_string(&b, 2, "testing");
	assert_bytes(&b, string, sizeof(string));
	pb_reset(&b);
	pb_packed(&b, 4, values, 3);
	assert_bytes(&b, packed, sizeof(packed));
	pb_reset(&b);
	pb_uint(&sub, 1, 150);
	pb_message(&b, 3, &sub);
	assert_bytes(&b, nested, sizeof(nested));
	pb_reset(&b);
	pb_varint(&b, UINT64_MAX); /* ten bytes, the last holding one bit */
	assert_int_equal(b.len, 10);
	assert_int_equal(b.data[9], 0x01);
	pb_release(&sub);
	pb_release(&b);
}

/*
 * deb2p (pid 100): 3 samples in do_syscall_64 on vCPU 1, 1 in
 * native_safe_halt on vCPU 0, 2 in guest user space; the unnamed guest
 * (pid 200): 1 in do_syscall_64; the host: 2 in user space, unresolved.
 */
static void write_recording(void)
{
	struct guest_recording r;

	recording_begin(&r, data);
	recording_guest(&r, NAMED_PID, "deb2p");
	recording_guest(&r, UNNAMED_PID, "-");
	for (int i = 0; i < 3; i++)
		recording_sample(&r, NAMED_PID, PERF_RECORD_MISC_GUEST_KERNEL,
				 LINK_DO + 0x10, 1, 0x1234000, 1000);
	recording_sample(&r, NAMED_PID, PERF_RECORD_MISC_GUEST_KERNEL, LINK_HALT + 4, 0,
			 0x1234000, 1000);
	for (int i = 0; i < 2; i++)
		recording_sample(&r, NAMED_PID, PERF_RECORD_MISC_GUEST_USER, 0x400000, 0,
				 0x5678000, 1000);
	recording_sample(&r, UNNAMED_PID, PERF_RECORD_MISC_GUEST_KERNEL, LINK_DO, -1, 0,
			 1000);
	for (int i = 0; i < 2; i++)
		recording_sample(&r, HOST_PID, PERF_RECORD_MISC_USER, 0x7000, -1, 0, 500);
	recording_finish(&r);
}

static void load(struct session *s, struct export_profile *p, struct symbol_opts *so)
{
	struct kp_err err = {0};

	*so = (struct symbol_opts){.guestkallsyms = kallsyms, .guestmount = dir};
	assert_int_equal(session_open(s, data, "sym", so, &err), 0);
	export_profile_init(p, "cpu-clock", so);
	s->frame_fn = export_profile_add;
	s->frame_ctx = p;
	assert_int_equal(session_process(s, &err), 0);
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf = calloc(1, 1 << 16);

	assert_non_null(f);
	assert_non_null(buf);
	fread(buf, 1, (1 << 16) - 1, f);
	fclose(f);
	return buf;
}

static void test_folded_guest_roots(void **state)
{
	struct symbol_opts so;
	struct export_profile p;
	struct session s;
	FILE *f;
	char *text;

	(void)state;
	write_recording();
	load(&s, &p, &so);
	assert_int_equal(p.total_count, 9);
	f = fopen(out, "w");
	assert_int_equal(export_write_folded(&p, false, f), 0);
	fclose(f);
	text = slurp(out);
	/* Sorted; vCPUs and CR3s merged; one tower per guest, by name or pid. */
	assert_string_equal(text, ":301;[unknown] 2\n"
				  "deb2p;[guest user] 2\n"
				  "deb2p;do_syscall_64 3\n"
				  "deb2p;native_safe_halt 1\n"
				  "guest 200;do_syscall_64 1\n");
	free(text);
	f = fopen(out, "w");
	assert_int_equal(export_write_folded(&p, true, f), 0);
	fclose(f);
	text = slurp(out);
	assert_non_null(strstr(text, "deb2p;do_syscall_64 3000\n"));
	assert_non_null(strstr(text, ":301;[unknown] 1000\n"));
	free(text);
	export_profile_release(&p);
	session_close(&s);
}

/* A tiny profile.proto reader: the fields the writer's correctness shows in. */
struct decoded {
	char strings[64][64];
	size_t nr_strings;
	size_t nr_samples;
	size_t nr_labels;
	size_t nr_mappings;
	uint64_t label_keys[64];
};

static uint64_t varint(const uint8_t **p, const uint8_t *end)
{
	uint64_t v = 0;

	for (int shift = 0; *p < end; shift += 7) {
		uint8_t b = *(*p)++;

		v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			return v;
	}
	fail_msg("varint runs past the end");
	return 0;
}

/* Each field of the message in [p, end): @fn gets its number and, for LEN, bytes. */
static void fields(const uint8_t *p, const uint8_t *end,
		   void (*fn)(struct decoded *, uint32_t, const uint8_t *, size_t),
		   struct decoded *d)
{
	while (p < end) {
		uint64_t tag = varint(&p, end), len;

		if ((tag & 7) == PB_VARINT) {
			varint(&p, end);
			continue;
		}
		assert_int_equal(tag & 7, PB_LEN);
		len = varint(&p, end);
		assert_true(len <= (uint64_t)(end - p));
		fn(d, (uint32_t)(tag >> 3), p, len);
		p += len;
	}
}

static void sample_field(struct decoded *d, uint32_t field, const uint8_t *p, size_t len)
{
	const uint8_t *end = p + len;

	if (field == 3) { /* a label: its key is field 1 */
		uint64_t tag = varint(&p, end);

		assert_int_equal(tag, 1 << 3 | PB_VARINT);
		if (d->nr_labels < 64)
			d->label_keys[d->nr_labels] = varint(&p, end);
		d->nr_labels++;
	}
}

static void profile_field(struct decoded *d, uint32_t field, const uint8_t *p, size_t len)
{
	switch (field) {
	case 2:
		d->nr_samples++;
		fields(p, p + len, sample_field, d);
		break;
	case 3:
		d->nr_mappings++;
		break;
	case 6:
		assert_true(d->nr_strings < 64);
		snprintf(d->strings[d->nr_strings++], 64, "%.*s", (int)len, p);
		break;
	default:
		break;
	}
}

static bool has_string(const struct decoded *d, const char *s)
{
	for (size_t i = 0; i < d->nr_strings; i++)
		if (!strcmp(d->strings[i], s))
			return true;
	return false;
}

static void decode(const char *path, struct decoded *d)
{
	gzFile f = gzopen(path, "rb");
	uint8_t *buf = malloc(1 << 16);
	int n;

	assert_non_null(f);
	assert_non_null(buf);
	n = gzread(f, buf, 1 << 16);
	gzclose(f);
	assert_true(n > 0 && n < (1 << 16));
	memset(d, 0, sizeof(*d));
	fields(buf, buf + n, profile_field, d);
	free(buf);
}

static void test_pprof_labels(void **state)
{
	struct symbol_opts so;
	struct export_profile p;
	struct session s;
	struct kp_err err = {0};
	struct decoded d;

	(void)state;
	write_recording();
	load(&s, &p, &so);
	assert_int_equal(export_write_pprof(&p, out, &err), 0);
	decode(out, &d);
	assert_string_equal(d.strings[0], "");
	/* One sample per distinct stack and labels: vCPU 1, vCPU 0, user, pid 200, host.
	 */
	assert_int_equal(d.nr_samples, 5);
	for (size_t i = 0; i < d.nr_labels && i < 64; i++)
		assert_true(d.label_keys[i] > 0 && d.label_keys[i] < d.nr_strings);
	assert_true(has_string(&d, "samples"));
	assert_true(has_string(&d, "nanoseconds"));
	assert_true(has_string(&d, "do_syscall_64"));
	assert_true(has_string(&d, "guest"));
	assert_true(has_string(&d, "deb2p"));
	assert_true(has_string(&d, "guest 200"));
	assert_true(has_string(&d, "vcpu"));
	assert_true(has_string(&d, "cr3"));
	assert_true(has_string(&d, "0x1234000"));
	assert_true(has_string(&d, "guest-kernel"));
	assert_true(has_string(&d, "guest-user"));
	assert_true(has_string(&d, "host-user"));
	assert_true(has_string(&d, "[guest.kernel] deb2p"));
	assert_true(has_string(&d, "[guest.kernel] guest 200"));
	export_profile_release(&p);
	session_close(&s);
}

static const struct flame_rect *rect(const struct flame_graph *g, const char *name,
				     int depth)
{
	for (size_t i = 0; i < g->nr; i++)
		if (g->rects[i].depth == depth && !strcmp(g->rects[i].name, name))
			return &g->rects[i];
	fail_msg("no frame %s at depth %d", name, depth);
	return NULL;
}

static void test_flame_layout(void **state)
{
	struct symbol_opts so;
	struct export_profile p;
	struct session s;
	struct flame_graph g;
	const struct flame_rect *deb2p, *sys, *halt, *user, *other;
	FILE *f;
	char *svg;

	(void)state;
	write_recording();
	load(&s, &p, &so);
	assert_int_equal(flame_graph_build(&p, false, &g), 0);
	assert_int_equal(g.total, 9);
	assert_int_equal(g.max_depth, 1);
	/* Roots side by side by name, each as wide as its samples. */
	assert_int_equal(rect(&g, ":301", 0)->start, 0);
	deb2p = rect(&g, "deb2p", 0);
	assert_int_equal(deb2p->start, 2);
	assert_int_equal(deb2p->value, 6);
	assert_int_equal(deb2p->kind, EXPORT_KIND_ROOT_GUEST);
	other = rect(&g, "guest 200", 0);
	assert_int_equal(other->start, 8);
	/* Children inside their parent, sorted by name, by kind colored. */
	user = rect(&g, "[guest user]", 1);
	sys = rect(&g, "do_syscall_64", 1);
	halt = rect(&g, "native_safe_halt", 1);
	assert_int_equal(user->start, 2);
	assert_int_equal(sys->start, 4);
	assert_int_equal(sys->value, 3);
	assert_int_equal(halt->start, 7);
	assert_int_equal(sys->kind, LEVEL_GUEST_KERNEL);
	assert_int_equal(user->kind, LEVEL_GUEST_USER);
	f = fopen(out, "w");
	assert_int_equal(export_write_svg(&g, "a <test> & more", f), 0);
	fclose(f);
	svg = slurp(out);
	assert_non_null(strstr(svg, "<title>deb2p (6, 66.67%)</title>"));
	assert_non_null(strstr(svg, "a &lt;test&gt; &amp; more"));
	free(svg);
	flame_graph_release(&g);
	export_profile_release(&p);
	session_close(&s);
}

static int setup(void **state)
{
	(void)state;
	if (guest_fixture_make(dir, kallsyms, sizeof(kallsyms)))
		return -1;
	snprintf(data, sizeof(data), "%s/perf.data", dir);
	snprintf(out, sizeof(out), "%s/out", dir);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	guest_fixture_remove(dir, "/tmp/kvmprof-export.XXXXXX");
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_protobuf_known_bytes),
		cmocka_unit_test_setup_teardown(test_folded_guest_roots, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pprof_labels, setup, teardown),
		cmocka_unit_test_setup_teardown(test_flame_layout, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
