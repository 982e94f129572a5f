// SPDX-License-Identifier: GPL-2.0
/*
 * Locating the kallsyms tables in a kernel image.
 *
 * A stripped vmlinux has no .symtab to say where scripts/kallsyms.c put its
 * tables in .rodata, so they are found by their content and cross-checked
 * against each other. This file only finds them (and the PT_LOAD mapping
 * needed to do so); turning the located tables into symbols is in
 * kallsyms_tables.c.
 *
 * Supported: 64-bit little-endian kernel ELF images (x86-64 tested) whose
 * tables are laid out, each table aligned to 8 bytes, in one of the orders
 *
 *   Linux <= 6.1:    offsets, relative_base, num_syms, names, markers,
 *                    [seqs_of_names: 6.1.y stable backport], token_table, token_index
 *   Linux 6.2..6.12: num_syms, names, markers, token_table, token_index,
 *                    offsets, relative_base, seqs_of_names
 *
 * with base-relative offsets (CONFIG_KALLSYMS_BASE_RELATIVE, no longer an
 * option in 6.12), with or without CONFIG_KALLSYMS_ABSOLUTE_PERCPU (x86-64
 * SMP: offsets >= 0 are absolute per-cpu addresses, negative ones are
 * relative_base - 1 - offset), or absolute 8-byte kallsyms_addresses; names
 * with one-byte or "big" two-byte (6.1+) lengths. Verified on Debian's
 * 6.1.0-57 (6.1.192) and 6.12.117 kernels, and on a 6.12 tinyconfig build
 * against its System.map. Anything else, e.g. kernels that dropped
 * kallsyms_relative_base for PC-relative offsets or 32-bit kernels, fails
 * with -ENOTSUP and names the table that was not recognised.
 *
 * How the tables are found:
 *  1. kallsyms_token_index: 256 increasing le16 offsets at an 8-aligned
 *     position, just after kallsyms_token_table whose 256 NUL-terminated
 *     tokens it must describe exactly (one-char tokens stand for themselves).
 *  2. kallsyms_num_syms + kallsyms_names: a u32 count, then at +8 a stream of
 *     that many entries that decode through the tokens to names with a type
 *     letter, followed (8-aligned) by kallsyms_markers, which must hold the
 *     offset of every 256th entry. Searched backwards from the token table.
 *  3. kallsyms_offsets + kallsyms_relative_base: tried before num_syms (<=
 *     6.1) and after token_index (>= 6.2); the decoded addresses must be
 *     sorted and the lowest relative one must equal relative_base.
 * kallsyms_seqs_of_names (optional) and the checks that need decoded names
 * (_stext/_etext, tables listing themselves) are done in kallsyms_tables.c.
 */
#include <elf.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kallsyms_tables_priv.h"

#define KS_MIN_SYMS    16
#define KS_MAX_SYMS    (1U << 24)	    /* seqs_of_names stores 3-byte indexes */
#define KS_WALK_BUDGET (4ULL * KS_MAX_SYMS) /* name entries walked, all candidates */

/* ---- ELF program headers ---- */

static int elf_add_load(struct kimg *img, const uint8_t *ph, struct kp_err *err)
{
	struct kseg *s;

	if (img->nsegs == KS_MAX_SEGS)
		return kp_errorf(err, ENOTSUP, "kallsyms: more than %d PT_LOAD segments",
				 KS_MAX_SEGS);
	s = &img->segs[img->nsegs];
	s->offset = le64(ph + offsetof(Elf64_Phdr, p_offset));
	s->vaddr = le64(ph + offsetof(Elf64_Phdr, p_vaddr));
	s->filesz = le64(ph + offsetof(Elf64_Phdr, p_filesz));
	s->memsz = le64(ph + offsetof(Elf64_Phdr, p_memsz));
	if (s->offset > img->len || s->filesz > img->len - s->offset)
		return kp_errorf(err, EBADMSG,
				 "kallsyms: PT_LOAD segment %u lies outside the image",
				 img->nsegs);
	/* Tables are searched at 8-aligned offsets: those must be 8-aligned addresses. */
	if ((s->offset - s->vaddr) % KS_ALIGN)
		return kp_errorf(
			err, ENOTSUP,
			"kallsyms: PT_LOAD segment %u: offset %#llx and address %#llx "
			"disagree modulo %d",
			img->nsegs, (unsigned long long)s->offset,
			(unsigned long long)s->vaddr, KS_ALIGN);
	img->nsegs++;
	return 0;
}

int ks_elf_load(struct kimg *img, const void *buf, size_t len, struct kp_err *err)
{
	const uint8_t *p = buf;
	uint64_t phoff;
	size_t phentsize, phnum;
	int ret;

	memset(img, 0, sizeof(*img));
	img->p = p;
	img->len = len;
	if (!buf || len < sizeof(Elf64_Ehdr) || memcmp(p, ELFMAG, SELFMAG))
		return kp_errorf(err, ENOEXEC, "kallsyms: not an ELF image");
	if (p[EI_CLASS] != ELFCLASS64 || p[EI_DATA] != ELFDATA2LSB)
		return kp_errorf(
			err, ENOTSUP,
			"kallsyms: only 64-bit little-endian kernels are supported");
	img->machine = le16(p + offsetof(Elf64_Ehdr, e_machine));
	phoff = le64(p + offsetof(Elf64_Ehdr, e_phoff));
	phentsize = le16(p + offsetof(Elf64_Ehdr, e_phentsize));
	phnum = le16(p + offsetof(Elf64_Ehdr, e_phnum));
	if (phentsize < sizeof(Elf64_Phdr) || phoff > len ||
	    phnum > (len - phoff) / phentsize)
		return kp_errorf(err, EBADMSG,
				 "kallsyms: program headers lie outside the image");
	for (size_t i = 0; i < phnum; i++) {
		const uint8_t *ph = p + phoff + i * phentsize;

		if (le32(ph) == PT_LOAD && (ret = elf_add_load(img, ph, err)))
			return ret;
	}
	if (!img->nsegs)
		return kp_errorf(err, ENOTSUP, "kallsyms: no PT_LOAD segment");
	return 0;
}

static const struct kseg *seg_of_offset(const struct kimg *img, size_t off)
{
	for (unsigned int i = 0; i < img->nsegs; i++) {
		const struct kseg *s = &img->segs[i];

		if (off >= s->offset && off - s->offset < s->filesz)
			return s;
	}
	return NULL;
}

bool ks_offset_to_vaddr(const struct kimg *img, size_t off, uint64_t *va)
{
	const struct kseg *s = seg_of_offset(img, off);

	if (!s)
		return false;
	*va = s->vaddr + (off - s->offset);
	return true;
}

bool ks_vaddr_mapped(const struct kimg *img, uint64_t va)
{
	for (unsigned int i = 0; i < img->nsegs; i++) {
		const struct kseg *s = &img->segs[i];

		if (va >= s->vaddr && va - s->vaddr <= s->memsz)
			return true;
	}
	return false;
}

/* ---- 1. kallsyms_token_table and kallsyms_token_index ---- */

/* Cheap filter: 256 increasing le16 offsets, the first 0, none too far apart. */
static bool token_index_plausible(const struct kimg *img, size_t off)
{
	const uint8_t *p = img->p + off;

	if (le16(p) != 0 || le16(p + 2) == 0 || le16(p + 2) > 257)
		return false;
	for (int i = 1; i < 256; i++) {
		unsigned int d = (unsigned int)le16(p + 2 * i) - le16(p + 2 * i - 2);

		if (le16(p + 2 * i) <= le16(p + 2 * i - 2) || d > 257)
			return false;
	}
	return true;
}

/* Token @i at @s must have exactly @len printable chars and a NUL. */
static bool token_ok(const uint8_t *s, size_t len, int i)
{
	for (size_t k = 0; k < len; k++)
		if (!token_char_ok(s[k]))
			return false;
	/* A one-char token is a char that occurs in names: it stands for itself. */
	return s[len] == 0 && (len != 1 || s[0] == i);
}

/* With the token table starting at @table, do all 256 tokens fit exactly? */
static bool tokens_fit(const struct kimg *img, size_t table, size_t index,
		       struct ktokens *tok)
{
	const uint8_t *ix = img->p + index;
	unsigned int self = 0;

	for (int i = 0; i < 256; i++) {
		size_t start = table + le16(ix + 2 * i);
		size_t end = i < 255 ? table + le16(ix + 2 * i + 2) - 1 : 0;

		if (i == 255) {
			const uint8_t *nul = memchr(img->p + start, 0, index - start);

			if (!nul)
				return false;
			end = (size_t)(nul - img->p);
		}
		if (!token_ok(img->p + start, end - start, i))
			return false;
		tok->str[i] = (const char *)img->p + start;
		tok->len[i] = (uint16_t)(end - start);
		self += tok->len[i] == 1;
	}
	/* Real tables have dozens of plain chars (letters, digits, '_'). */
	return self >= 20;
}

/*
 * The table ends right before the 8-aligned index: the last token, its NUL,
 * then up to 7 bytes of padding. The last token starts after the previous
 * NUL and sits at the last index entry: that fixes where the table starts.
 */
static bool token_table_find(const struct kimg *img, size_t index, struct ktokens *tok)
{
	size_t last = le16(img->p + index + 2 * 255);
	size_t end = index, start;

	while (end > 0 && index - end < KS_ALIGN && img->p[end - 1] == 0)
		end--;
	if (end == index || end == 0 || img->p[end - 1] == 0)
		return false;
	/* end: the last token's NUL. */
	for (start = end - 1; start > 0 && end - start <= 256 && img->p[start - 1];
	     start--)
		;
	if (start < last || (start - last) % KS_ALIGN)
		return false;
	if (!tokens_fit(img, start - last, index, tok))
		return false;
	tok->table = start - last;
	tok->index = index;
	return true;
}

/* Next token table/index pair at or after file offset @from; false if none. */
static bool tokens_next(const struct kimg *img, size_t from, struct ktokens *tok)
{
	for (size_t off = align_up(from); off + 512 <= img->len; off += KS_ALIGN)
		if (token_index_plausible(img, off) && token_table_find(img, off, tok))
			return true;
	return false;
}

/* ---- 2. kallsyms_num_syms, kallsyms_names, kallsyms_markers ---- */

/* Length of the entry at @p (the token count) and of its length prefix. */
bool ks_entry_len(const uint8_t *p, size_t avail, size_t *len, size_t *hdr)
{
	if (avail < 1)
		return false;
	if (!(p[0] & 0x80)) {
		*len = p[0];
		*hdr = 1;
	} else {
		/* "Big" symbols (6.1+): two-byte ULEB128, only when needed. */
		if (avail < 2 || p[1] & 0x80)
			return false;
		*len = (size_t)(p[0] & 0x7f) | (size_t)p[1] << 7;
		*hdr = 2;
		if (*len <= 0x7f)
			return false;
	}
	return *len > 0 && *len <= avail - *hdr;
}

/* nm's type letters, and '?' for symbols in sections nm cannot classify. */
static bool is_type_letter(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '?';
}

/*
 * Walk @n entries from @names up to @limit, checking each starts with a type
 * letter and fits; record every 256th offset for the markers, sum the name
 * lengths. *budget bounds the total work a crafted image can cause.
 */
static bool names_walk(const struct kimg *img, const struct ktokens *tok, size_t names,
		       size_t limit, uint32_t n, uint32_t *marks, size_t *end,
		       size_t *chars, uint64_t *budget)
{
	size_t pos = names, len, hdr;

	*chars = 0;
	for (uint32_t i = 0; i < n; i++) {
		const uint8_t *e = img->p + pos;

		if (!*budget || !ks_entry_len(e, limit - pos, &len, &hdr))
			return false;
		--*budget;
		if (!tok->len[e[hdr]] || !is_type_letter(tok->str[e[hdr]][0]))
			return false;
		if (!(i & 0xff))
			marks[i >> 8] = (uint32_t)(pos - names);
		for (size_t k = 0; k < len; k++)
			*chars += tok->len[e[hdr + k]];
		pos += hdr + len;
	}
	*end = pos;
	return true;
}

static bool markers_match(const struct kimg *img, size_t at, const uint32_t *marks,
			  uint32_t count)
{
	if (!in_image(img, at, (size_t)count * 4))
		return false;
	for (uint32_t i = 0; i < count; i++)
		if (le32(img->p + at + 4 * (size_t)i) != marks[i])
			return false;
	return true;
}

/*
 * Is there a kallsyms_num_syms at @at, with names and markers after it? In
 * every supported layout they end before the token table.
 */
static bool names_try(const struct kimg *img, struct ktables *kt, size_t at,
		      uint32_t *marks, uint64_t *budget)
{
	uint32_t n = le32(img->p + at);
	size_t end, chars;

	if (n < KS_MIN_SYMS || n > KS_MAX_SYMS || le32(img->p + at + 4) != 0)
		return false;
	if (!names_walk(img, &kt->tok, at + 8, kt->tok.table, n, marks, &end, &chars,
			budget))
		return false;
	if (!markers_match(img, align_up(end), marks, (n + 255) / 256))
		return false;
	kt->num_syms = at;
	kt->n = n;
	kt->names = at + 8;
	kt->names_end = end;
	kt->markers = align_up(end);
	kt->name_chars = chars;
	return true;
}

/* The names precede the token table in every layout: search backwards from it. */
static int names_find(const struct kimg *img, struct ktables *kt, struct kp_err *err)
{
	uint32_t *marks = malloc(((KS_MAX_SYMS + 255) / 256) * sizeof(*marks));
	uint64_t budget = KS_WALK_BUDGET;
	bool found = false;

	if (!marks)
		return kp_errorf(err, ENOMEM, "kallsyms: out of memory");
	for (size_t at = kt->tok.table; at >= KS_ALIGN && !found && budget;) {
		at -= KS_ALIGN;
		found = names_try(img, kt, at, marks, &budget);
	}
	free(marks);
	if (!found)
		return kp_errorf(err, ENOTSUP,
				 "kallsyms: token table at %#zx, but no "
				 "kallsyms_num_syms/names/markers "
				 "before it decode consistently",
				 kt->tok.table);
	return 0;
}

/* ---- 3. kallsyms_offsets/relative_base or kallsyms_addresses ---- */

/* Like kallsyms_sym_address() in kernel/kallsyms.c (6.1 and 6.12). */
static uint64_t sym_address(const struct ktables *kt, const uint8_t *p, uint32_t i,
			    uint64_t base)
{
	int32_t off;

	if (!kt->base_relative)
		return le64(p + 8 * (size_t)i);
	off = (int32_t)le32(p + 4 * (size_t)i);
	if (!kt->abs_percpu)
		return base + (uint32_t)off;
	if (off >= 0)
		return (uint64_t)off;
	return base - 1 - (int64_t)off;
}

/* scripts/kallsyms.c sorts by address before emitting: allow 0.1% out of order. */
static bool addresses_sorted(const uint64_t *addr, uint32_t n)
{
	uint32_t bad = 0;

	for (uint32_t i = 1; i < n; i++)
		bad += addr[i] < addr[i - 1];
	return bad <= n / 1000;
}

static bool offsets_try_relative(const struct kimg *img, struct ktables *kt, size_t at,
				 uint64_t *addr)
{
	size_t rb = at + align_up((size_t)kt->n * 4);
	const uint8_t *p = img->p + at;
	uint64_t base;
	uint32_t first;

	if (at % KS_ALIGN || !in_image(img, at, rb - at + 8))
		return false;
	base = le64(img->p + rb);
	if (!ks_vaddr_mapped(img, base))
		return false;
	kt->base_relative = true;
	/* Relative entries are negative only with absolute per-cpu symbols. */
	kt->abs_percpu = (int32_t)le32(p + 4 * ((size_t)kt->n - 1)) < 0;
	for (first = 0; kt->abs_percpu && first < kt->n; first++)
		if ((int32_t)le32(p + 4 * (size_t)first) < 0)
			break;
	for (uint32_t i = 0; i < kt->n; i++)
		addr[i] = sym_address(kt, p, i, base);
	/* relative_base is the address of the lowest relative symbol. */
	if (first == kt->n || addr[first] != base || !addresses_sorted(addr, kt->n))
		return false;
	kt->offsets = at;
	kt->relative_base = rb;
	return true;
}

static bool offsets_try_absolute(const struct kimg *img, struct ktables *kt, size_t at,
				 uint64_t *addr)
{
	uint32_t mapped = 0;

	if (at % KS_ALIGN || !in_image(img, at, (size_t)kt->n * 8))
		return false;
	kt->base_relative = false;
	kt->abs_percpu = false;
	for (uint32_t i = 0; i < kt->n; i++) {
		addr[i] = sym_address(kt, img->p + at, i, 0);
		mapped += ks_vaddr_mapped(img, addr[i]);
	}
	if (mapped < kt->n / 2 || !addresses_sorted(addr, kt->n))
		return false;
	kt->offsets = at;
	kt->relative_base = 0;
	return true;
}

static int addresses_find(const struct kimg *img, struct ktables *kt, uint64_t *addr,
			  struct kp_err *err)
{
	size_t rel_before = align_up((size_t)kt->n * 4) + 8;
	size_t abs_before = align_up((size_t)kt->n * 8);
	size_t after = kt->tok.index + 512;

	kt->order = "6.1";
	if (kt->num_syms >= rel_before &&
	    offsets_try_relative(img, kt, kt->num_syms - rel_before, addr))
		return 0;
	if (kt->num_syms >= abs_before &&
	    offsets_try_absolute(img, kt, kt->num_syms - abs_before, addr))
		return 0;
	kt->order = "6.2+";
	if (offsets_try_relative(img, kt, after, addr) ||
	    offsets_try_absolute(img, kt, after, addr))
		return 0;
	return kp_errorf(
		err, ENOTSUP,
		"kallsyms: %u names found at %#zx, but no kallsyms_offsets with "
		"kallsyms_relative_base (or kallsyms_addresses) before kallsyms_num_syms "
		"or after kallsyms_token_index decodes to sorted addresses",
		kt->n, kt->names);
}

/* ---- all tables ---- */

int ks_tables_locate(const struct kimg *img, struct ktables *kt, uint64_t **addr,
		     struct kp_err *err)
{
	struct kp_err first = {0};
	size_t from = 0;
	int ret = -ENOTSUP;

	/* Another region may look like a token table: try each until one decodes. */
	while (tokens_next(img, from, &kt->tok)) {
		from = kt->tok.index + KS_ALIGN;
		kp_err_clear(&first);
		ret = names_find(img, kt, &first);
		if (ret)
			continue;
		*addr = calloc(kt->n, sizeof(**addr));
		if (!*addr)
			return kp_errorf(err, ENOMEM, "kallsyms: out of memory");
		ret = addresses_find(img, kt, *addr, &first);
		if (!ret)
			return 0;
		free(*addr);
		*addr = NULL;
	}
	if (first.code)
		return kp_errorf(err, first.code, "%s", first.msg);
	return kp_errorf(err, ENOTSUP,
			 "kallsyms: no kallsyms_token_table/kallsyms_token_index found "
			 "(kernel built without CONFIG_KALLSYMS, or an unknown layout)");
}
