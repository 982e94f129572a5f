// SPDX-License-Identifier: GPL-2.0
/*
 * bzImage payload extraction and kallsyms table decoding.
 *
 * A small synthetic vmlinux is built here the way scripts/kallsyms.c lays
 * out its tables (both the <= 6.1 and the >= 6.2 orders, with and without
 * absolute per-cpu symbols, "big" two-byte name lengths), wrapped into a
 * hand-made bzImage. Real kernels are decoded in test_kimage_real.c.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <elf.h>
#include <errno.h>
#include <glob.h>
#include <lzma.h>
#include <zlib.h>
#include <zstd.h>

#include "ksym/ksym.h"

#include "kimage_fixture.h"

/* ---- checks on a decoded table ---- */

static const struct ksym *must_find(const struct symtab *st, const char *name)
{
	const struct ksym *s = symtab_find(st, name);

	if (!s)
		fail_msg("%s: symbol %s missing", st->source, name);
	return s;
}

static void check_synthetic(const struct symtab *st, const struct kopts *o)
{
	const struct ksym *s;
	size_t longest = 0;

	assert_int_equal(st->nr,
			 NFUNCS + 6 + (o->abs_percpu ? 4 : 0) + (o->self_sym ? 1 : 0));
	assert_int_equal(must_find(st, "_text")->addr, TEXT_VA);
	assert_int_equal(must_find(st, "_stext")->addr, TEXT_VA);
	assert_int_equal(must_find(st, "_etext")->addr, TEXT_VA + TEXT_SZ);
	s = must_find(st, "do_syscall_698");
	assert_int_equal(s->addr, TEXT_VA + 0x100 + 0x40 * 698);
	assert_int_equal(s->type, 't');
	s = must_find(st, "sched_tick_15");
	assert_int_equal(s->type, 'T');
	for (size_t i = 0; i < st->nr; i++)
		if (strlen(st->syms[i].name) > longest)
			longest = strlen(st->syms[i].name);
	assert_int_equal(longest, 200);
	assert_int_equal(must_find(st, "__nosave_begin")->type, '?');
	if (o->abs_percpu) {
		s = must_find(st, "cpu_tss_rw");
		assert_int_equal(s->addr, 0x6000);
		assert_int_equal(s->type, 'A');
	}
	assert_int_equal(st->text_start, TEXT_VA);
	assert_int_equal(st->text_end, TEXT_VA + TEXT_SZ);
	assert_int_equal(st->build_id_len, sizeof(test_build_id));
	assert_memory_equal(st->build_id, test_build_id, sizeof(test_build_id));
	assert_non_null(strstr(st->source, "6.1.0-synthetic"));
}

static void expect_decode(const struct kopts *o)
{
	struct wbuf elf = build_vmlinux(o, NULL);
	struct symtab *st = symtab_new();
	struct kp_err err = {0};

	if (kallsyms_tables_decode(elf.p, elf.len, st, &err))
		fail_msg("%s", err.msg);
	check_synthetic(st, o);
	symtab_free(st);
	free(elf.p);
}

static void expect_decode_error(const uint8_t *p, size_t len, int code, const char *msg)
{
	struct symtab *st = symtab_new();
	struct kp_err err = {0};
	int ret = kallsyms_tables_decode(p, len, st, &err);

	if (ret != -code)
		fail_msg("expected error %d (%s), got %d: %s", code, msg, ret, err.msg);
	if (!strstr(err.msg, msg))
		fail_msg("expected \"%s\" in \"%s\"", msg, err.msg);
	/* Nothing half-decoded is left behind. */
	assert_int_equal(st->nr, 0);
	symtab_free(st);
}

/* ---- kallsyms tests ---- */

static void test_kallsyms_61_layout(void **state)
{
	const struct kopts with_seqs = {
		.layout61 = true, .abs_percpu = true, .seqs = true};
	const struct kopts plain = {.layout61 = true, .abs_percpu = true};

	expect_decode(&with_seqs);
	expect_decode(&plain);
}

static void test_kallsyms_62_layout(void **state)
{
	const struct kopts percpu = {.abs_percpu = true};
	const struct kopts relative = {0};

	expect_decode(&percpu);
	expect_decode(&relative);
}

/* With CONFIG_KALLSYMS_ALL the tables list themselves: their addresses must agree. */
static void test_kallsyms_self_check(void **state)
{
	const struct kopts good = {.abs_percpu = true, .self_sym = true};
	const struct kopts bad = {
		.abs_percpu = true, .self_sym = true, .self_sym_wrong = true};
	struct wbuf elf;

	expect_decode(&good);
	elf = build_vmlinux(&bad, NULL);
	expect_decode_error(elf.p, elf.len, ENOTSUP, "layout not recognised");
	free(elf.p);
}

static void test_kallsyms_missing_etext(void **state)
{
	const struct kopts o = {.abs_percpu = true, .no_etext = true};
	struct wbuf elf = build_vmlinux(&o, NULL);

	expect_decode_error(elf.p, elf.len, ENOTSUP, "_etext is missing");
	free(elf.p);
}

static void test_kallsyms_damaged(void **state)
{
	const struct kopts o = {.abs_percpu = true};
	size_t names;
	struct wbuf elf = build_vmlinux(&o, &names);
	uint8_t *p = malloc(elf.len);

	/* A count that does not match the names and markers. */
	memcpy(p, elf.p, elf.len);
	p[names - 8] += 1;
	expect_decode_error(p, elf.len, ENOTSUP, "no kallsyms_num_syms/names/markers");
	/* An entry of length 0. */
	memcpy(p, elf.p, elf.len);
	p[names + 3 * 10] = 0;
	p[names] = 0;
	expect_decode_error(p, elf.len, ENOTSUP, "no kallsyms_num_syms/names/markers");
	/* kallsyms_relative_base replaced by an address no PT_LOAD maps. */
	memcpy(p, elf.p, elf.len);
	for (size_t off = RO_OFF; off + 8 <= elf.len; off += 8)
		if (!memcmp(p + off, "\x00\x00\x00\x81\xff\xff\xff\xff", 8))
			memset(p + off, 0x11, 8);
	expect_decode_error(p, elf.len, ENOTSUP, "no kallsyms_offsets");
	/* Not an ELF, an ELF without the tables, a truncated one. */
	expect_decode_error((const uint8_t *)"MZ\0\0", 4, ENOEXEC, "not an ELF image");
	memcpy(p, elf.p, RO_OFF);
	expect_decode_error(p, RO_OFF, EBADMSG, "outside the image");
	free(p);
	free(elf.p);
}

/* Random damage to the tables: an error or a table, never a crash. */
static void test_kallsyms_fuzz(void **state)
{
	const struct kopts o = {.layout61 = true, .abs_percpu = true, .seqs = true};
	struct wbuf elf = build_vmlinux(&o, NULL);
	uint8_t *p = malloc(elf.len);
	uint32_t seed = 7;

	for (int round = 0; round < 300; round++) {
		struct symtab *st = symtab_new();
		struct kp_err err = {0};
		int ret;

		memcpy(p, elf.p, elf.len);
		for (int k = 0; k < 1 + round % 8; k++) {
			seed = seed * 1103515245 + 12345;
			p[RO_OFF + (seed >> 8) % (elf.len - RO_OFF)] =
				(uint8_t)(seed >> 24);
		}
		ret = kallsyms_tables_decode(p, elf.len - (round % 5 == 0 ? 700 : 0), st,
					     &err);
		assert_true(ret == 0 || (ret < 0 && err.msg[0]));
		symtab_free(st);
	}
	free(p);
	free(elf.p);
}

/* ---- bzImage ---- */

#define SETUP_SECTS 3
#define PM_START    ((SETUP_SECTS + 1) * 512)
#define PAYLOAD_OFF 0x120

/* A bzImage header by hand around @payload (which should end with its size trailer). */
static struct wbuf make_bzimage(const void *payload, size_t len, uint16_t version)
{
	struct wbuf w = {0};

	wb_need(&w, PM_START + PAYLOAD_OFF + len);
	memset(w.p, 0, PM_START + PAYLOAD_OFF);
	memcpy(w.p, "MZ", 2);
	w.p[0x1f1] = SETUP_SECTS;
	w.p[0x1fe] = 0x55;
	w.p[0x1ff] = 0xaa;
	memcpy(w.p + 0x202, "HdrS", 4);
	w.p[0x206] = (uint8_t)version;
	w.p[0x207] = (uint8_t)(version >> 8);
	put_le32(w.p + 0x248, PAYLOAD_OFF);
	put_le32(w.p + 0x24c, (uint32_t)len);
	memset(w.p + PM_START, 0xcc, PAYLOAD_OFF); /* "decompressor code" */
	w.len = PM_START + PAYLOAD_OFF;
	wb_put(&w, payload, len);
	return w;
}

static struct wbuf gzip_with_size(const struct wbuf *in)
{
	struct wbuf out = {malloc(compressBound(in->len) + 64), 0, 0};
	z_stream zs = {0};

	assert_int_equal(
		deflateInit2(&zs, 6, Z_DEFLATED, 16 + MAX_WBITS, 9, Z_DEFAULT_STRATEGY),
		Z_OK);
	zs.next_in = in->p;
	zs.avail_in = (uInt)in->len;
	zs.next_out = out.p;
	zs.avail_out = (uInt)compressBound(in->len) + 60;
	assert_int_equal(deflate(&zs, Z_FINISH), Z_STREAM_END);
	out.len = zs.total_out;
	deflateEnd(&zs);
	put_le32(out.p + out.len, (uint32_t)in->len); /* as the kernel's size_append */
	out.len += 4;
	return out;
}

static struct wbuf zstd_with_size(const struct wbuf *in)
{
	struct wbuf out = {malloc(ZSTD_compressBound(in->len) + 4), 0, 0};

	out.len = ZSTD_compress(out.p, ZSTD_compressBound(in->len), in->p, in->len, 3);
	assert_false(ZSTD_isError(out.len));
	put_le32(out.p + out.len, (uint32_t)in->len);
	out.len += 4;
	return out;
}

/* As the kernel's build pipes its image to zstd: the frame states no size. */
static struct wbuf zstd_piped_with_size(const struct wbuf *in)
{
	struct wbuf out = {malloc(ZSTD_compressBound(in->len) + 4), 0, 0};
	ZSTD_inBuffer zin = {in->p, in->len, 0};
	ZSTD_outBuffer zout = {out.p, ZSTD_compressBound(in->len), 0};
	ZSTD_CCtx *cctx = ZSTD_createCCtx();

	ZSTD_CCtx_setParameter(cctx, ZSTD_c_contentSizeFlag, 0);
	assert_int_equal(ZSTD_compressStream2(cctx, &zout, &zin, ZSTD_e_end), 0);
	ZSTD_freeCCtx(cctx);
	assert_int_equal(ZSTD_getFrameContentSize(out.p, zout.pos),
			 ZSTD_CONTENTSIZE_UNKNOWN);
	out.len = zout.pos;
	put_le32(out.p + out.len, (uint32_t)in->len);
	out.len += 4;
	return out;
}

static struct wbuf xz_with_size(const struct wbuf *in)
{
	size_t cap = lzma_stream_buffer_bound(in->len) + 4;
	struct wbuf out = {malloc(cap), 0, 0};

	assert_int_equal(lzma_easy_buffer_encode(1, LZMA_CHECK_CRC32, NULL, in->p,
						 in->len, out.p, &out.len, cap - 4),
			 LZMA_OK);
	put_le32(out.p + out.len, (uint32_t)in->len);
	out.len += 4;
	return out;
}

static void test_bzimage_detect(void **state)
{
	static const uint8_t junk[0x300];
	struct wbuf img = make_bzimage("xxxxxxxx", 8, 0x20f);

	assert_true(kimage_is_bzimage(img.p, img.len));
	assert_false(kimage_is_bzimage(img.p, 0x24f));
	assert_false(kimage_is_bzimage(junk, sizeof(junk)));
	assert_false(kimage_is_bzimage(NULL, 0));
	img.p[0x206] = 0x07; /* 2.07: no payload fields */
	assert_false(kimage_is_bzimage(img.p, img.len));
	free(img.p);
}

static void expect_extract_error(const struct wbuf *img, uint64_t max, int code,
				 const char *msg)
{
	struct kp_err err = {0};
	void *out = (void *)1;
	size_t out_len = 1;
	int ret = kimage_extract(img->p, img->len, max, &out, &out_len, &err);

	/* code 0: any error will do, as long as the message says what failed. */
	if (code ? ret != -code : ret >= 0)
		fail_msg("expected error %d (%s), got %d: %s", code, msg, ret, err.msg);
	if (!strstr(err.msg, msg))
		fail_msg("expected \"%s\" in \"%s\"", msg, err.msg);
	assert_null(out);
	assert_int_equal(out_len, 0);
}

static void test_bzimage_bogus_payload(void **state)
{
	static const uint8_t bogus[64] =
		"this is no compressed kernel at all, just bytes";
	struct wbuf img = make_bzimage(bogus, sizeof(bogus), 0x20f);
	struct symtab *st = symtab_new();
	struct kp_err err = {0};

	expect_extract_error(&img, KP_DECOMPRESS_MAX, EBADMSG,
			     "no known compression magic");
	assert_int_equal(kimage_load_symbols(img.p, img.len, KP_DECOMPRESS_MAX, st, &err),
			 -EBADMSG);
	assert_non_null(strstr(err.msg, "bzImage: payload at 0x920"));
	/* Right magic, garbage after it. */
	memcpy(img.p + PM_START + PAYLOAD_OFF, "\x28\xb5\x2f\xfd", 4);
	expect_extract_error(&img, KP_DECOMPRESS_MAX, 0, "bzImage payload: zstd stream");
	memcpy(img.p + PM_START + PAYLOAD_OFF,
	       "\xfd"
	       "7zXZ\0",
	       6);
	expect_extract_error(&img, KP_DECOMPRESS_MAX, EBADMSG,
			     "bzImage payload: xz stream");
	symtab_free(st);
	free(img.p);
}

static void test_bzimage_bad_header(void **state)
{
	struct wbuf img = make_bzimage("\x1f\x8b\x08xxxxxxxxx", 12, 0x20f);

	put_le32(img.p + 0x24c, 0x7fffffff);
	expect_extract_error(&img, KP_DECOMPRESS_MAX, EBADMSG, "lies outside the");
	put_le32(img.p + 0x24c, 12);
	put_le32(img.p + 0x248, 0xfffffff0);
	expect_extract_error(&img, KP_DECOMPRESS_MAX, EBADMSG, "lies outside the");
	put_le32(img.p + 0x248, PAYLOAD_OFF);
	img.p[0x206] = 0x06;
	expect_extract_error(&img, KP_DECOMPRESS_MAX, ENOTSUP, "boot protocol 2.06");
	img.p[0x206] = 0x0f;
	memcpy(img.p + 0x202, "HdrZ", 4);
	expect_extract_error(&img, KP_DECOMPRESS_MAX, ENOEXEC, "no \"HdrS\"");
	img.len = 0x100;
	expect_extract_error(&img, KP_DECOMPRESS_MAX, ENOEXEC, "too short");
	free(img.p);
}

/* setup_sects == 0 means 4 (boot protocol): the payload moves with it. */
static void test_bzimage_setup_sects_zero(void **state)
{
	const struct kopts o = {.abs_percpu = true};
	struct wbuf elf = build_vmlinux(&o, NULL), z = gzip_with_size(&elf);
	struct wbuf img = {0};
	struct kp_err err = {0};
	size_t out_len;
	void *out;

	wb_need(&img, 5 * 512 + z.len);
	memset(img.p, 0, 5 * 512);
	memcpy(img.p + 0x202, "HdrS", 4);
	img.p[0x206] = 0x08, img.p[0x207] = 0x02;
	put_le32(img.p + 0x24c, (uint32_t)z.len);
	img.len = 5 * 512;
	wb_put(&img, z.p, z.len);
	if (kimage_extract(img.p, img.len, KP_DECOMPRESS_MAX, &out, &out_len, &err))
		fail_msg("%s", err.msg);
	assert_int_equal(out_len, elf.len);
	assert_memory_equal(out, elf.p, elf.len);
	free(out);
	free(img.p);
	free(z.p);
	free(elf.p);
}

static void test_bzimage_size_trailer(void **state)
{
	struct wbuf (*const compress[])(const struct wbuf *) = {gzip_with_size,
								zstd_piped_with_size};
	const struct kopts o = {.abs_percpu = true};
	struct wbuf elf = build_vmlinux(&o, NULL);

	/*
	 * A trailer one byte off either way: the zstd frame that states no size
	 * is decoded in one pass only at the trailer's size, and otherwise
	 * streamed, so the mismatch is found either way.
	 */
	for (size_t i = 0; i < 2; i++)
		for (int off = -1; off <= 1; off += 2) {
			struct wbuf z = compress[i](&elf), img;

			put_le32(z.p + z.len - 4, (uint32_t)((int)elf.len + off));
			img = make_bzimage(z.p, z.len, 0x20f);
			expect_extract_error(&img, KP_DECOMPRESS_MAX, EBADMSG,
					     "but the image says");
			free(img.p);
			free(z.p);
		}
	free(elf.p);
}

static void expect_extract_ok(const struct wbuf *img, uint64_t max,
			      const struct wbuf *elf)
{
	struct kp_err err = {0};
	size_t out_len;
	void *out;

	if (kimage_extract(img->p, img->len, max, &out, &out_len, &err))
		fail_msg("cap %llu: %s", (unsigned long long)max, err.msg);
	assert_int_equal(out_len, elf->len);
	assert_memory_equal(out, elf->p, elf->len);
	free(out);
}

/* guestfs-mount passes max-file-size: a kernel one byte over it is refused. */
static void test_bzimage_cap(void **state)
{
	const struct kopts o = {.abs_percpu = true};
	struct wbuf elf = build_vmlinux(&o, NULL), z = gzip_with_size(&elf);
	struct wbuf img = make_bzimage(z.p, z.len, 0x20f);
	struct wbuf raw = make_bzimage(elf.p, elf.len, 0x20f);
	char msg[200];

	snprintf(msg, sizeof(msg),
		 "bzImage: gzip payload holds a %zu-byte kernel, over the %zu-byte limit",
		 elf.len, elf.len - 1);
	expect_extract_error(&img, elf.len - 1, EFBIG, msg);
	expect_extract_ok(&img, elf.len, &elf);
	/* A trailer that understates the size does not get past the cap. */
	put_le32(img.p + img.len - 4, 100);
	expect_extract_error(
		&img, 4096, EFBIG,
		"bzImage payload: gzip stream: decompressed data exceeds the "
		"limit of 4096 bytes");
	/* An uncompressed payload is its own size. */
	expect_extract_error(&raw, elf.len - 1, EFBIG, "uncompressed payload holds a");
	expect_extract_ok(&raw, elf.len, &elf);
	free(raw.p);
	free(img.p);
	free(z.p);
	free(elf.p);
}

static void test_bzimage_symbols(void **state)
{
	struct wbuf (*const compress[])(const struct wbuf *) = {
		gzip_with_size,
		zstd_with_size,
		zstd_piped_with_size,
		xz_with_size,
	};
	static const char *const names[] = {"gzip", "zstd", "zstd", "xz"};
	const struct kopts o = {.layout61 = true, .abs_percpu = true, .seqs = true};
	struct wbuf elf = build_vmlinux(&o, NULL);

	for (size_t i = 0; i < 4; i++) {
		struct wbuf z = compress[i](&elf), img = make_bzimage(z.p, z.len, 0x20f);
		struct symtab *st = symtab_new();
		struct kp_err err = {0};
		const void *payload;
		size_t plen;
		enum kp_comp comp;

		assert_int_equal(
			kimage_payload(img.p, img.len, &payload, &plen, &comp, &err), 0);
		assert_ptr_equal(payload, img.p + PM_START + PAYLOAD_OFF);
		assert_int_equal(plen, z.len);
		assert_string_equal(kp_comp_name(comp), names[i]);
		if (kimage_load_symbols(img.p, img.len, KP_DECOMPRESS_MAX, st, &err))
			fail_msg("%s: %s", names[i], err.msg);
		check_synthetic(st, &o);
		assert_non_null(strstr(st->source, names[i]));
		symtab_free(st);
		free(img.p);
		free(z.p);
	}
	free(elf.p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kallsyms_61_layout),
		cmocka_unit_test(test_kallsyms_62_layout),
		cmocka_unit_test(test_kallsyms_self_check),
		cmocka_unit_test(test_kallsyms_missing_etext),
		cmocka_unit_test(test_kallsyms_damaged),
		cmocka_unit_test(test_kallsyms_fuzz),
		cmocka_unit_test(test_bzimage_detect),
		cmocka_unit_test(test_bzimage_bogus_payload),
		cmocka_unit_test(test_bzimage_bad_header),
		cmocka_unit_test(test_bzimage_setup_sects_zero),
		cmocka_unit_test(test_bzimage_size_trailer),
		cmocka_unit_test(test_bzimage_cap),
		cmocka_unit_test(test_bzimage_symbols),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
