// SPDX-License-Identifier: GPL-2.0
/*
 * bzImage payload extraction and kallsyms table decoding.
 *
 * A small synthetic vmlinux is built here the way scripts/kallsyms.c lays
 * out its tables (both the <= 6.1 and the >= 6.2 orders, with and without
 * absolute per-cpu symbols, "big" two-byte name lengths), wrapped into a
 * hand-made bzImage. Debian's real kernels (scripts/fetch-debian-kernels.sh)
 * and the project's own (kernel/build.sh) are decoded from $KVMPROF_CACHE,
 * which make check and make unit fill first: a missing one is a failure.
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

/* ---- a byte buffer writer ---- */

struct wbuf {
	uint8_t *p;
	size_t len, cap;
};

static void wb_need(struct wbuf *w, size_t n)
{
	while (w->cap - w->len < n) {
		w->cap = w->cap ? w->cap * 2 : 4096;
		w->p = realloc(w->p, w->cap);
		assert_non_null(w->p);
	}
}

static void wb_put(struct wbuf *w, const void *data, size_t n)
{
	wb_need(w, n);
	memcpy(w->p + w->len, data, n);
	w->len += n;
}

static void wb_u8(struct wbuf *w, uint8_t v)
{
	wb_put(w, &v, 1);
}

static void wb_le(struct wbuf *w, uint64_t v, int bytes)
{
	for (int i = 0; i < bytes; i++)
		wb_u8(w, (uint8_t)(v >> (8 * i)));
}

static void wb_align(struct wbuf *w, size_t a)
{
	while (w->len % a)
		wb_u8(w, 0);
}

static void put_le32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

/* ---- a synthetic kernel symbol table ---- */

#define TEXT_VA	 0xffffffff81000000ULL
#define TEXT_OFF 0x1000ULL
#define TEXT_SZ	 0x100000ULL
#define RO_VA	 0xffffffff82000000ULL
#define RO_OFF	 (TEXT_OFF + TEXT_SZ)
#define NFUNCS	 700
#define MAX_SYMS (NFUNCS + 16)

struct fsym {
	uint64_t addr;
	char type;
	char name[300];
	bool percpu;
};

struct kopts {
	bool layout61; /* offsets first (<= 6.1), else offsets after token_index */
	bool abs_percpu;
	bool seqs;
	bool self_sym;	     /* list kallsyms_names among the symbols */
	bool self_sym_wrong; /* ... at a wrong address */
	bool no_etext;
};

struct kbuild {
	struct fsym syms[MAX_SYMS];
	unsigned int n;
	char tok[256][3];
	size_t names_off; /* in the rodata segment, known after a first layout */
};

static const uint8_t test_build_id[20] = {0xde, 0xad, 0xbe, 0xef, 1,  2,  3,  4,  5,  6,
					  7,	8,    9,    10,	  11, 12, 13, 14, 15, 16};

static void add_sym(struct kbuild *kb, uint64_t addr, char type, const char *name,
		    bool percpu)
{
	struct fsym *s = &kb->syms[kb->n++];

	assert_true(kb->n <= MAX_SYMS);
	s->addr = addr;
	s->type = type;
	s->percpu = percpu;
	snprintf(s->name, sizeof(s->name), "%s", name);
}

static void make_symbols(struct kbuild *kb, const struct kopts *o)
{
	char name[300];

	kb->n = 0;
	if (o->abs_percpu) {
		/* Per-cpu symbols, linked at 0 on x86-64 SMP: type 'A', sorted first. */
		add_sym(kb, 0, 'A', "fixed_percpu_data", true);
		add_sym(kb, 0, 'A', "__per_cpu_start", true);
		add_sym(kb, 0x6000, 'A', "cpu_tss_rw", true);
		add_sym(kb, 0x30000, 'A', "__per_cpu_end", true);
	}
	add_sym(kb, TEXT_VA, 'T', "_text", false);
	add_sym(kb, TEXT_VA, 'T', "_stext", false);
	add_sym(kb, TEXT_VA, 'T', "startup_64", false);
	for (int i = 0; i < NFUNCS; i++) {
		snprintf(name, sizeof(name), "%s_%d", i % 5 ? "do_syscall" : "sched_tick",
			 i);
		add_sym(kb, TEXT_VA + 0x100 + 0x40ULL * i, i % 3 ? 't' : 'T', name,
			false);
	}
	/* More than 127 tokens: needs the two-byte length of 6.1's "big" symbols. */
	memset(name, 0, sizeof(name));
	for (int i = 0; i < 200; i++)
		name[i] = "QzXwVk"[i % 6];
	add_sym(kb, TEXT_VA + 0x80000, 't', name, false);
	/* nm's '?' for a section it cannot classify (seen in tinyconfig kernels). */
	add_sym(kb, TEXT_VA + 0x90000, '?', "__nosave_begin", false);
	if (!o->no_etext)
		add_sym(kb, TEXT_VA + TEXT_SZ, 'T', "_etext", false);
	if (o->self_sym)
		add_sym(kb, o->self_sym_wrong ? RO_VA + 0x7f000 : RO_VA + kb->names_off,
			'R', "kallsyms_names", false);
}

static bool is_char(const struct kbuild *kb, unsigned int c)
{
	return kb->tok[c][0] == (char)c && !kb->tok[c][1];
}

static bool take_slot(struct kbuild *kb, bool *used, int *slot, unsigned int pair)
{
	while (*slot >= 0 && used[*slot])
		(*slot)--;
	if (*slot < 0)
		return false;
	kb->tok[*slot][0] = (char)(pair & 0xff);
	kb->tok[*slot][1] = (char)(pair >> 8);
	used[*slot] = true;
	return true;
}

/* As scripts/kallsyms.c: plain chars stand for themselves, free slots get pairs. */
static void make_tokens(struct kbuild *kb)
{
	static unsigned int pairs[65536];
	bool used[256] = {false};
	int slot = 255;

	memset(kb->tok, 0, sizeof(kb->tok));
	memset(pairs, 0, sizeof(pairs));
	for (unsigned int i = 0; i < kb->n; i++) {
		char full[302];

		snprintf(full, sizeof(full), "%c%s", kb->syms[i].type, kb->syms[i].name);
		for (size_t k = 0; full[k]; k++) {
			used[(uint8_t)full[k]] = true;
			if (full[k + 1])
				pairs[(uint8_t)full[k] | (uint8_t)full[k + 1] << 8]++;
		}
	}
	for (int c = 0; c < 256; c++)
		if (used[c])
			kb->tok[c][0] = (char)c;
	/*
	 * Frequent pairs first; rare ones (the long name's) stay plain chars so
	 * that name needs a two-byte length. Pairs that never occur fill the rest.
	 */
	for (;;) {
		unsigned int best = 0;

		for (unsigned int q = 1; q < 65536; q++)
			if (pairs[q] > pairs[best])
				best = q;
		if (pairs[best] < 40 || !take_slot(kb, used, &slot, best))
			break;
		pairs[best] = 0;
	}
	for (unsigned int q = 0x2121; q < 65536 && slot >= 0; q++)
		if (is_char(kb, q & 0xff) && is_char(kb, q >> 8) && !pairs[q])
			take_slot(kb, used, &slot, q);
}

static int find_pair(const struct kbuild *kb, char a, char b)
{
	for (int t = 0; t < 256; t++)
		if (kb->tok[t][0] == a && kb->tok[t][1] == b && b)
			return t;
	return -1;
}

static unsigned int big_entries;

/* Greedy: a pair token where one fits, the char itself otherwise. */
static void write_name(struct wbuf *w, const struct kbuild *kb, const struct fsym *s)
{
	uint8_t enc[400];
	char full[302];
	size_t n = 0;

	snprintf(full, sizeof(full), "%c%s", s->type, s->name);
	for (size_t k = 0; full[k];) {
		int t = find_pair(kb, full[k], full[k + 1]);

		enc[n++] = (uint8_t)(t >= 0 ? t : (uint8_t)full[k]);
		k += t >= 0 ? 2 : 1;
	}
	if (n <= 0x7f) {
		wb_u8(w, (uint8_t)n);
	} else {
		big_entries++;
		wb_u8(w, (uint8_t)((n & 0x7f) | 0x80));
		wb_u8(w, (uint8_t)(n >> 7));
	}
	wb_put(w, enc, n);
}

static void write_names_markers(struct wbuf *w, struct kbuild *kb)
{
	uint32_t markers[MAX_SYMS / 256 + 1];
	size_t start;

	wb_align(w, 8);
	wb_le(w, kb->n, 4); /* kallsyms_num_syms */
	wb_align(w, 8);
	start = kb->names_off = w->len; /* kallsyms_names */
	for (unsigned int i = 0; i < kb->n; i++) {
		if (!(i & 0xff))
			markers[i >> 8] = (uint32_t)(w->len - start);
		write_name(w, kb, &kb->syms[i]);
	}
	wb_align(w, 8); /* kallsyms_markers */
	for (unsigned int i = 0; i < (kb->n + 255) / 256; i++)
		wb_le(w, markers[i], 4);
}

static void write_tokens(struct wbuf *w, const struct kbuild *kb)
{
	uint16_t index[256];
	size_t start;

	wb_align(w, 8);
	start = w->len; /* kallsyms_token_table */
	for (int t = 0; t < 256; t++) {
		index[t] = (uint16_t)(w->len - start);
		wb_put(w, kb->tok[t], strlen(kb->tok[t]) + 1);
	}
	wb_align(w, 8); /* kallsyms_token_index */
	for (int t = 0; t < 256; t++)
		wb_le(w, index[t], 2);
}

static void write_offsets(struct wbuf *w, const struct kbuild *kb, const struct kopts *o)
{
	uint64_t base = TEXT_VA; /* the lowest relative symbol */

	wb_align(w, 8); /* kallsyms_offsets */
	for (unsigned int i = 0; i < kb->n; i++) {
		const struct fsym *s = &kb->syms[i];

		if (!o->abs_percpu)
			wb_le(w, s->addr - base, 4);
		else if (s->percpu)
			wb_le(w, s->addr, 4);
		else
			wb_le(w, (uint32_t)(int32_t)(base - s->addr - 1), 4);
	}
	wb_align(w, 8);
	wb_le(w, base, 8); /* kallsyms_relative_base */
}

static const struct kbuild *seq_kb;

static int seq_cmp(const void *a, const void *b)
{
	const struct fsym *x = &seq_kb->syms[*(const uint32_t *)a];
	const struct fsym *y = &seq_kb->syms[*(const uint32_t *)b];
	int r = strcmp(x->name, y->name);

	if (r)
		return r;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static void write_seqs(struct wbuf *w, const struct kbuild *kb)
{
	uint32_t seq[MAX_SYMS];

	for (unsigned int i = 0; i < kb->n; i++)
		seq[i] = i;
	seq_kb = kb;
	qsort(seq, kb->n, sizeof(seq[0]), seq_cmp);
	wb_align(w, 8); /* kallsyms_seqs_of_names */
	for (unsigned int i = 0; i < kb->n; i++) {
		wb_u8(w, (uint8_t)(seq[i] >> 16));
		wb_u8(w, (uint8_t)(seq[i] >> 8));
		wb_u8(w, (uint8_t)seq[i]);
	}
}

static void write_tables(struct wbuf *ro, struct kbuild *kb, const struct kopts *o)
{
	static const char banner[] =
		"Linux version 6.1.0-synthetic (test@kvmprof) #1 SMP";

	wb_put(ro, banner, sizeof(banner));
	if (o->layout61) {
		write_offsets(ro, kb, o);
		write_names_markers(ro, kb);
		if (o->seqs)
			write_seqs(ro, kb);
		write_tokens(ro, kb);
	} else {
		write_names_markers(ro, kb);
		write_tokens(ro, kb);
		write_offsets(ro, kb, o);
		write_seqs(ro, kb);
	}
	wb_put(ro, "trailing rodata", 16);
}

static void write_phdr(struct wbuf *w, uint32_t type, uint64_t off, uint64_t va,
		       uint64_t size)
{
	wb_le(w, type, 4);
	wb_le(w, type == PT_LOAD ? PF_R | PF_X : PF_R, 4);
	wb_le(w, off, 8);
	wb_le(w, va, 8);
	wb_le(w, va, 8);
	wb_le(w, size, 8);
	wb_le(w, size, 8);
	wb_le(w, type == PT_LOAD ? 0x200000 : 4, 8);
}

static void write_elf(struct wbuf *elf, const struct wbuf *ro)
{
	uint64_t note_off = (RO_OFF + ro->len + 3) & ~3ULL;
	uint8_t ident[EI_NIDENT] = {0x7f,	'E',	     'L',	'F',
				    ELFCLASS64, ELFDATA2LSB, EV_CURRENT};

	wb_put(elf, ident, EI_NIDENT);
	wb_le(elf, ET_EXEC, 2);
	wb_le(elf, EM_X86_64, 2);
	wb_le(elf, EV_CURRENT, 4);
	wb_le(elf, TEXT_VA, 8); /* entry */
	wb_le(elf, 64, 8);	/* phoff */
	wb_le(elf, 0, 8);	/* shoff: stripped, no sections */
	wb_le(elf, 0, 4);
	wb_le(elf, 64, 2);
	wb_le(elf, sizeof(Elf64_Phdr), 2);
	wb_le(elf, 3, 2);
	wb_le(elf, sizeof(Elf64_Shdr), 2);
	wb_le(elf, 0, 2);
	wb_le(elf, 0, 2);
	write_phdr(elf, PT_LOAD, TEXT_OFF, TEXT_VA, TEXT_SZ);
	write_phdr(elf, PT_LOAD, RO_OFF, RO_VA, ro->len);
	write_phdr(elf, PT_NOTE, note_off, 0, 16 + sizeof(test_build_id));
	wb_need(elf, RO_OFF - elf->len);
	memset(elf->p + elf->len, 0xcc, RO_OFF - elf->len); /* int3 "text" */
	elf->len = RO_OFF;
	wb_put(elf, ro->p, ro->len);
	wb_align(elf, 4);
	wb_le(elf, 4, 4);
	wb_le(elf, sizeof(test_build_id), 4);
	wb_le(elf, NT_GNU_BUILD_ID, 4);
	wb_put(elf, "GNU", 4);
	wb_put(elf, test_build_id, sizeof(test_build_id));
}

/* The vmlinux ELF; *names_off receives where kallsyms_names is in it. */
static struct wbuf build_vmlinux(const struct kopts *o, size_t *names_off)
{
	static struct kbuild kb;
	struct wbuf ro = {0}, elf = {0};

	/* Sizes do not depend on addresses: lay out once to learn where names go. */
	kb.names_off = 0;
	make_symbols(&kb, o);
	make_tokens(&kb);
	write_tables(&ro, &kb, o);
	make_symbols(&kb, o);
	ro.len = 0;
	write_tables(&ro, &kb, o);
	write_elf(&elf, &ro);
	free(ro.p);
	assert_true(big_entries > 0);
	if (names_off)
		*names_off = RO_OFF + kb.names_off;
	return elf;
}

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
	assert_int_equal(kimage_load_symbols(img.p, img.len, st, &err), -EBADMSG);
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
	const struct kopts o = {.abs_percpu = true};
	struct wbuf elf = build_vmlinux(&o, NULL), z = gzip_with_size(&elf);
	struct wbuf img;

	put_le32(z.p + z.len - 4, (uint32_t)elf.len + 1);
	img = make_bzimage(z.p, z.len, 0x20f);
	expect_extract_error(&img, KP_DECOMPRESS_MAX, EBADMSG, "but the image says");
	free(img.p);
	free(z.p);
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
		xz_with_size,
	};
	static const char *const names[] = {"gzip", "zstd", "xz"};
	const struct kopts o = {.layout61 = true, .abs_percpu = true, .seqs = true};
	struct wbuf elf = build_vmlinux(&o, NULL);

	for (size_t i = 0; i < 3; i++) {
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
		if (kimage_load_symbols(img.p, img.len, st, &err))
			fail_msg("%s: %s", names[i], err.msg);
		check_synthetic(st, &o);
		assert_non_null(strstr(st->source, names[i]));
		symtab_free(st);
		free(img.p);
		free(z.p);
	}
	free(elf.p);
}

/* ---- real kernels from $KVMPROF_CACHE, put there by make check / make unit ---- */

/* @sub's matches in the cache, or a failure naming what is missing and who makes it. */
static void cache_glob(const char *sub, const char *maker, glob_t *g)
{
	const char *cache = getenv("KVMPROF_CACHE");
	char pattern[512];

	snprintf(pattern, sizeof(pattern), "%s/%s",
		 cache && *cache ? cache : "/var/cache/kvmprof", sub);
	if (glob(pattern, 0, NULL, g))
		fail_msg("no %s: run %s (make check and make unit do)", pattern, maker);
}

static uint8_t *read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *p;
	long n;

	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	p = malloc((size_t)n);
	*len = fread(p, 1, (size_t)n, f);
	fclose(f);
	return p;
}

static void check_real_kernel(const char *path, const struct symtab *st)
{
	static const char *const wanted[] = {"_text",	      "_stext",
					     "_etext",	      "entry_SYSCALL_64",
					     "do_syscall_64", "__x64_sys_getpid"};
	uint64_t text = must_find(st, "_text")->addr,
		 etext = must_find(st, "_etext")->addr;
	uint64_t prev = 0;
	size_t ntext = 0;

	if (st->nr <= 50000)
		fail_msg("%s: only %zu symbols", path, st->nr);
	for (size_t i = 0; i < sizeof(wanted) / sizeof(wanted[0]); i++)
		must_find(st, wanted[i]);
	assert_true(must_find(st, "_stext")->addr - text < 0x200000);
	assert_true(symtab_in_text(st, must_find(st, "entry_SYSCALL_64")->addr));
	assert_true(symtab_in_text(st, must_find(st, "do_syscall_64")->addr));
	assert_true(symtab_in_text(st, must_find(st, "__x64_sys_getpid")->addr));
	/* Inside [_text, _etext): ordered, and code only. */
	for (size_t i = 0; i < st->nr; i++) {
		const struct ksym *s = &st->syms[i];

		if (s->addr < text || s->addr >= etext)
			continue;
		assert_true(s->addr >= prev);
		if (!ksym_is_text(s->type))
			fail_msg("%s: %c %s inside the text", path, s->type, s->name);
		prev = s->addr;
		ntext++;
	}
	assert_true(ntext > 20000);
	assert_true(st->build_id_len == 20);
}

static void check_debian_series(const char *series)
{
	char sub[128];
	glob_t g;

	snprintf(sub, sizeof(sub), "debian-kernels/*/boot/vmlinuz-%s.*", series);
	cache_glob(sub, "scripts/fetch-debian-kernels.sh", &g);
	for (size_t i = 0; i < g.gl_pathc; i++) {
		struct symtab *st = symtab_new();
		struct kp_err err = {0};
		size_t len = 0;
		uint8_t *img = read_file(g.gl_pathv[i], &len);

		if (!img)
			fail_msg("%s: cannot be read", g.gl_pathv[i]);
		if (kimage_load_symbols(img, len, st, &err))
			fail_msg("%s: %s", g.gl_pathv[i], err.msg);
		check_real_kernel(g.gl_pathv[i], st);
		print_message("[   INFO   ] %s: %s\n", g.gl_pathv[i], st->source);
		symtab_free(st);
		free(img);
	}
	globfree(&g);
}

/* The two series scripts/fetch-debian-kernels.sh fetches, both. */
static void test_debian_kernels(void **state)
{
	check_debian_series("6.1");
	check_debian_series("6.12");
}

/* ---- the project's own kernel build, checked against its real System.map ---- */

struct tsym {
	uint64_t addr;
	char type;
	const char *name;
};

static int tsym_cmp(const void *a, const void *b)
{
	const struct tsym *x = a, *y = b;
	int r;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	r = strcmp(x->name, y->name);
	return r ? r : x->type - y->type;
}

/* Text symbols of a System.map; the lines stay in @buf. */
static size_t map_text_syms(char *buf, struct tsym **out)
{
	size_t n = 0, cap = 1024;
	struct tsym *v = malloc(cap * sizeof(*v));

	for (char *line = strtok(buf, "\n"); line; line = strtok(NULL, "\n")) {
		char *type, *name, *end;
		uint64_t addr = strtoull(line, &end, 16);

		if (end[0] != ' ' || !end[1] || end[2] != ' ')
			continue;
		type = end + 1;
		name = end + 3;
		if (!ksym_is_text(*type))
			continue;
		if (n == cap)
			v = realloc(v, (cap *= 2) * sizeof(*v));
		v[n++] = (struct tsym){addr, *type, name};
	}
	qsort(v, n, sizeof(*v), tsym_cmp);
	*out = v;
	return n;
}

static size_t table_text_syms(const struct symtab *st, struct tsym **out)
{
	struct tsym *v = malloc((st->nr + 1) * sizeof(*v));
	size_t n = 0;

	for (size_t i = 0; i < st->nr; i++)
		if (ksym_is_text(st->syms[i].type))
			v[n++] = (struct tsym){st->syms[i].addr, st->syms[i].type,
					       st->syms[i].name};
	qsort(v, n, sizeof(*v), tsym_cmp);
	*out = v;
	return n;
}

static void compare_with_map(const char *dir, const struct symtab *st)
{
	char path[600];
	size_t len = 0, nmap, ntab;
	struct tsym *map, *tab;
	char *buf;

	snprintf(path, sizeof(path), "%s/System.map", dir);
	buf = (char *)read_file(path, &len);
	assert_non_null(buf);
	buf = realloc(buf, len + 1);
	buf[len] = '\0';
	nmap = map_text_syms(buf, &map);
	ntab = table_text_syms(st, &tab);
	for (size_t i = 0; i < nmap && i < ntab; i++)
		if (tsym_cmp(&map[i], &tab[i]))
			fail_msg("%s: System.map has %#llx %c %s, kallsyms %#llx %c %s",
				 dir, (unsigned long long)map[i].addr, map[i].type,
				 map[i].name, (unsigned long long)tab[i].addr,
				 tab[i].type, tab[i].name);
	assert_int_equal(nmap, ntab);
	print_message("[   INFO   ] %s: %zu text symbols, all equal to System.map\n", dir,
		      ntab);
	free(map);
	free(tab);
	free(buf);
}

static void test_project_kernel(void **state)
{
	glob_t g;

	cache_glob("kernel/*/System.map", "kernel/build.sh", &g);
	for (size_t i = 0; i < g.gl_pathc; i++) {
		char *dir = strdup(g.gl_pathv[i]), path[600];
		struct symtab *st = symtab_new();
		struct kp_err err = {0};
		size_t len = 0;
		uint8_t *img;

		*strrchr(dir, '/') = '\0';
		snprintf(path, sizeof(path), "%s/bzImage", dir);
		img = read_file(path, &len);
		if (!img)
			fail_msg("%s: missing next to System.map", path);
		if (kimage_load_symbols(img, len, st, &err))
			fail_msg("%s: %s", path, err.msg);
		compare_with_map(dir, st);
		symtab_free(st);
		free(img);
		free(dir);
	}
	globfree(&g);
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
		cmocka_unit_test(test_debian_kernels),
		cmocka_unit_test(test_project_kernel),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
