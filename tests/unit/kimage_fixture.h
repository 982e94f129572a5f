/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A synthetic vmlinux for the kernel image tests: its kallsyms tables laid
 * out as scripts/kallsyms.c lays them out (both the <= 6.1 and the >= 6.2
 * orders, with and without absolute per-cpu symbols, "big" two-byte name
 * lengths), in an ELF with the program headers a real one has. Include it
 * after cmocka.h: it asserts.
 */
#ifndef KVMPROF_TEST_KIMAGE_FIXTURE_H
#define KVMPROF_TEST_KIMAGE_FIXTURE_H

#include <elf.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

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

#endif
