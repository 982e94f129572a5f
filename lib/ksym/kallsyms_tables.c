// SPDX-License-Identifier: GPL-2.0
/*
 * Symbols from the kallsyms tables embedded in a kernel image.
 *
 * Distributions ship a stripped vmlinux (inside vmlinuz) and no System.map,
 * but a CONFIG_KALLSYMS kernel carries its own symbol table in .rodata, as
 * emitted by scripts/kallsyms.c. kallsyms_locate.c finds those tables and
 * decodes their addresses; this file expands the names, finds the optional
 * kallsyms_seqs_of_names, checks the result and fills the symtab.
 *
 * Names are expanded through the token table. kallsyms_seqs_of_names
 * (optional) is a permutation that sorts the names, so it can only be
 * recognised once they are decoded. Then _stext/_etext (and _text on x86-64)
 * must be present, and when the tables list themselves (CONFIG_KALLSYMS_ALL),
 * their symbol addresses must equal where they were found, mapped through the
 * PT_LOAD program headers. Nothing goes into the symtab before every check
 * has passed.
 */
#include <elf.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buildid.h"
#include "kimage.h"
#include "kallsyms_tables_priv.h"

#define KS_MAX_NAME 1024 /* KSYM_NAME_LEN is 512 in 6.1-6.12 */

/* The decoded table, before it goes into a symtab. */
struct ksyms {
	uint64_t *addr;
	char *type;
	uint32_t *name; /* offsets into blob */
	uint16_t *name_len;
	char *blob;
	size_t blob_len;
};

/* ---- 4. names ---- */

/* ks->addr is already there: the addresses were decoded to find the tables. */
static int syms_alloc(struct ksyms *ks, uint32_t n, size_t chars, struct kp_err *err)
{
	ks->type = calloc(n, 1);
	ks->name = calloc(n, sizeof(*ks->name));
	ks->name_len = calloc(n, sizeof(*ks->name_len));
	ks->blob = malloc(chars + n);
	if (!ks->type || !ks->name || !ks->name_len || !ks->blob)
		return kp_errorf(err, ENOMEM, "kallsyms: out of memory for %u symbols",
				 n);
	return 0;
}

static void syms_free(struct ksyms *ks)
{
	free(ks->addr);
	free(ks->type);
	free(ks->name);
	free(ks->name_len);
	free(ks->blob);
}

/* Expand entry @i at @e into the blob: type letter apart, name NUL-terminated. */
static int name_expand(const struct ktables *kt, struct ksyms *ks, const uint8_t *e,
		       size_t len, uint32_t i, struct kp_err *err)
{
	size_t start = ks->blob_len, out = start;

	for (size_t k = 0; k < len; k++) {
		memcpy(ks->blob + out, kt->tok.str[e[k]], kt->tok.len[e[k]]);
		out += kt->tok.len[e[k]];
	}
	ks->type[i] = ks->blob[start];
	/* The first expanded char is the type: drop it from the name. */
	memmove(ks->blob + start, ks->blob + start + 1, out - start - 1);
	out--;
	if (out == start || out - start > KS_MAX_NAME)
		return kp_errorf(err, EBADMSG,
				 "kallsyms: symbol %u has a name of %zu chars", i,
				 out - start);
	ks->blob[out] = '\0';
	ks->name[i] = (uint32_t)start;
	ks->name_len[i] = (uint16_t)(out - start);
	ks->blob_len = out + 1;
	return 0;
}

static int names_decode(const struct kimg *img, const struct ktables *kt,
			struct ksyms *ks, struct kp_err *err)
{
	size_t pos = kt->names, len, hdr;
	int ret;

	for (uint32_t i = 0; i < kt->n; i++) {
		/* names_walk() already checked every entry fits. */
		ks_entry_len(img->p + pos, img->len - pos, &len, &hdr);
		ret = name_expand(kt, ks, img->p + pos + hdr, len, i, err);
		if (ret)
			return ret;
		pos += hdr + len;
	}
	return 0;
}

static const char *sym_name(const struct ksyms *ks, uint32_t i)
{
	return ks->blob + ks->name[i];
}

/* ---- 5. kallsyms_seqs_of_names (optional) ---- */

static uint32_t seq_at(const uint8_t *p, uint32_t i)
{
	return (uint32_t)p[3 * (size_t)i] << 16 | (uint32_t)p[3 * (size_t)i + 1] << 8 |
	       p[3 * (size_t)i + 2];
}

/*
 * A permutation of the symbols that lists them by name. Clang LTO kernels
 * sort names with their suffixes cut, so a few may look out of order.
 */
static bool seqs_valid(const struct kimg *img, const struct ktables *kt,
		       const struct ksyms *ks, size_t at)
{
	const uint8_t *p = img->p + at;
	uint32_t unordered = 0;
	uint8_t *seen;
	bool ok = true;

	if (!at || !in_image(img, at, (size_t)kt->n * 3))
		return false;
	seen = calloc(kt->n, 1);
	if (!seen)
		return false;
	for (uint32_t i = 0; i < kt->n && ok; i++) {
		uint32_t s = seq_at(p, i);

		ok = s < kt->n && !seen[s];
		if (!ok)
			break;
		seen[s] = 1;
		if (i && strcmp(sym_name(ks, seq_at(p, i - 1)), sym_name(ks, s)) > 0)
			unordered++;
	}
	free(seen);
	return ok && unordered <= kt->n / 100;
}

static void seqs_find(const struct kimg *img, struct ktables *kt, const struct ksyms *ks)
{
	size_t after_markers = align_up(kt->markers + 4 * (((size_t)kt->n + 255) / 256));
	size_t after_base = kt->relative_base ? kt->relative_base + 8 : 0;

	kt->seqs = 0;
	/* 6.1.y backport: between the markers and the token table. */
	if (align_up(after_markers + 3 * (size_t)kt->n) == kt->tok.table &&
	    seqs_valid(img, kt, ks, after_markers))
		kt->seqs = after_markers;
	/* 6.2+: last, after kallsyms_relative_base. */
	else if (seqs_valid(img, kt, ks, after_base))
		kt->seqs = after_base;
}

/* ---- 6. cross-checks ---- */

struct wanted {
	const char *name;
	uint32_t idx;
	bool found;
};

enum {
	W_TEXT,
	W_STEXT,
	W_ETEXT,
	W_NUM_SYMS,
	W_NAMES,
	W_MARKERS,
	W_TOKEN_TABLE,
	W_TOKEN_INDEX,
	W_OFFSETS,
	W_RELATIVE_BASE,
	W_ADDRESSES,
	W_SEQS,
	W_COUNT
};

static void wanted_find(const struct ksyms *ks, uint32_t n, struct wanted *w)
{
	static const char *const names[W_COUNT] = {
		"_text",
		"_stext",
		"_etext",
		"kallsyms_num_syms",
		"kallsyms_names",
		"kallsyms_markers",
		"kallsyms_token_table",
		"kallsyms_token_index",
		"kallsyms_offsets",
		"kallsyms_relative_base",
		"kallsyms_addresses",
		"kallsyms_seqs_of_names",
	};

	for (int k = 0; k < W_COUNT; k++)
		w[k] = (struct wanted){names[k], 0, false};
	for (uint32_t i = 0; i < n; i++) {
		const char *s = sym_name(ks, i);

		if (s[0] != '_' && s[0] != 'k')
			continue;
		for (int k = 0; k < W_COUNT; k++)
			if (!w[k].found && !strcmp(s, w[k].name))
				w[k] = (struct wanted){names[k], i, true};
	}
}

/* When a table lists itself, its address must be where it was found. */
static int table_check(const struct kimg *img, const struct ksyms *ks,
		       const struct wanted *w, size_t off, struct kp_err *err)
{
	uint64_t va;

	if (!w->found || !off)
		return 0;
	if (!ks_offset_to_vaddr(img, off, &va))
		return kp_errorf(err, ENOTSUP,
				 "kallsyms: %s at file offset %#zx is in no PT_LOAD",
				 w->name, off);
	if (va != ks->addr[w->idx])
		return kp_errorf(
			err, ENOTSUP,
			"kallsyms: layout not recognised: symbol %s is at %#llx, "
			"but the table was found at %#llx",
			w->name, (unsigned long long)ks->addr[w->idx],
			(unsigned long long)va);
	return 0;
}

static int tables_check(const struct kimg *img, const struct ktables *kt,
			const struct ksyms *ks, const struct wanted *w,
			struct kp_err *err)
{
	const size_t offs[W_COUNT] = {
		[W_NUM_SYMS] = kt->num_syms,
		[W_NAMES] = kt->names,
		[W_MARKERS] = kt->markers,
		[W_TOKEN_TABLE] = kt->tok.table,
		[W_TOKEN_INDEX] = kt->tok.index,
		[W_OFFSETS] = kt->base_relative ? kt->offsets : 0,
		[W_RELATIVE_BASE] = kt->relative_base,
		[W_ADDRESSES] = kt->base_relative ? 0 : kt->offsets,
		[W_SEQS] = kt->seqs,
	};
	int ret;

	for (int k = W_NUM_SYMS; k < W_COUNT; k++)
		if ((ret = table_check(img, ks, &w[k], offs[k], err)))
			return ret;
	return 0;
}

static int text_check(const struct kimg *img, const struct ksyms *ks,
		      const struct wanted *w, struct kp_err *err)
{
	bool need_text = img->machine == EM_X86_64;
	uint64_t stext, etext;

	if (!w[W_STEXT].found || !w[W_ETEXT].found || (need_text && !w[W_TEXT].found))
		return kp_errorf(err, ENOTSUP, "kallsyms: decoded, but %s is missing",
				 !w[W_STEXT].found   ? "_stext"
				 : !w[W_ETEXT].found ? "_etext"
						     : "_text");
	stext = ks->addr[w[W_STEXT].idx];
	etext = ks->addr[w[W_ETEXT].idx];
	if (etext <= stext || !ks_vaddr_mapped(img, stext) ||
	    !ks_vaddr_mapped(img, etext) ||
	    (w[W_TEXT].found && ks->addr[w[W_TEXT].idx] > stext))
		return kp_errorf(
			err, EBADMSG,
			"kallsyms: implausible text range _stext %#llx, _etext %#llx",
			(unsigned long long)stext, (unsigned long long)etext);
	return 0;
}

/* ---- the whole decode ---- */

static void kernel_release(const struct kimg *img, char *out, size_t size)
{
	static const char banner[] = "Linux version ";
	const uint8_t *p = img->p, *end = img->p + img->len;
	size_t n;

	out[0] = '\0';
	while ((p = memmem(p, (size_t)(end - p), banner, sizeof(banner) - 1))) {
		p += sizeof(banner) - 1;
		if (p < end && *p >= '0' && *p <= '9')
			break;
	}
	if (!p)
		return;
	for (n = 0; n + 1 < size && p + n < end && token_char_ok(p[n]); n++)
		out[n] = (char)p[n];
	out[n] = '\0';
}

static int syms_to_symtab(const struct ksyms *ks, uint32_t n, struct symtab *st,
			  struct kp_err *err)
{
	size_t names = 0;

	/* One block each for symbols and names (see kallsyms_parse()). */
	for (uint32_t i = 0; i < n; i++)
		names += ks->name_len[i] + 1;
	if (symtab_reserve(st, n, names))
		return kp_errorf(err, ENOMEM, "kallsyms: out of memory");
	for (uint32_t i = 0; i < n; i++)
		if (symtab_add_len(st, ks->addr[i], ks->type[i], sym_name(ks, i),
				   ks->name_len[i], NULL))
			return kp_errorf(err, ENOMEM, "kallsyms: out of memory");
	if (symtab_finish(st))
		return kp_errorf(err, ENOMEM, "kallsyms: out of memory");
	return 0;
}

static void describe(const struct kimg *img, const struct ktables *kt, struct symtab *st)
{
	char release[64];

	kernel_release(img, release, sizeof(release));
	symtab_set_source(st, "Linux %s kallsyms, %u symbols (%s order%s, %s)",
			  release[0] ? release : "(unknown version)", kt->n, kt->order,
			  kt->seqs ? " + seqs" : "",
			  !kt->base_relative ? "absolute"
			  : kt->abs_percpu   ? "base-relative + absolute per-cpu"
					     : "base-relative");
}

static int decode_checked(const struct kimg *img, struct ktables *kt, struct ksyms *ks,
			  struct kp_err *err)
{
	struct wanted w[W_COUNT];
	int ret;

	ret = syms_alloc(ks, kt->n, kt->name_chars, err);
	if (!ret)
		ret = names_decode(img, kt, ks, err);
	if (ret)
		return ret;
	seqs_find(img, kt, ks);
	wanted_find(ks, kt->n, w);
	ret = text_check(img, ks, w, err);
	if (!ret)
		ret = tables_check(img, kt, ks, w, err);
	return ret;
}

int kallsyms_tables_decode(const void *elf, size_t len, struct symtab *st,
			   struct kp_err *err)
{
	struct ktables kt = {0};
	struct ksyms ks = {0};
	struct kimg img;
	uint64_t *addr = NULL;
	int ret;

	ret = ks_elf_load(&img, elf, len, err);
	if (!ret)
		ret = ks_tables_locate(&img, &kt, &addr, err);
	ks.addr = addr;
	/* Everything is checked before the first symbol goes into @st. */
	if (!ret)
		ret = decode_checked(&img, &kt, &ks, err);
	if (!ret)
		ret = syms_to_symtab(&ks, kt.n, st, err);
	if (!ret) {
		st->build_id_len =
			buildid_from_elf(elf, len, st->build_id, KP_BUILD_ID_MAX);
		describe(&img, &kt, st);
	}
	syms_free(&ks);
	return ret;
}
