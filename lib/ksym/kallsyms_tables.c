// SPDX-License-Identifier: GPL-2.0
/*
 * Symbols from the kallsyms tables embedded in a kernel image.
 *
 * Distributions ship a stripped vmlinux (inside vmlinuz) and no System.map,
 * but a CONFIG_KALLSYMS kernel carries its own symbol table in .rodata, as
 * emitted by scripts/kallsyms.c. With no .symtab to say where the tables are,
 * they are found by their content and cross-checked against each other.
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
 *  4. kallsyms_seqs_of_names (optional): a permutation that sorts the names.
 * Then _stext/_etext (and _text on x86-64) must be present, and when the
 * tables list themselves (CONFIG_KALLSYMS_ALL), their symbol addresses must
 * equal where they were found, mapped through the PT_LOAD program headers.
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

#define KS_ALIGN       8 /* ALGN in scripts/kallsyms.c on 64-bit */
#define KS_MIN_SYMS    16
#define KS_MAX_SYMS    (1U << 24) /* seqs_of_names stores 3-byte indexes */
#define KS_MAX_ENTRY   0x3fff	  /* longest two-byte (ULEB128) entry length */
#define KS_MAX_NAME    1024	  /* KSYM_NAME_LEN is 512 in 6.1-6.12 */
#define KS_MAX_SEGS    32
#define KS_WALK_BUDGET (4ULL * KS_MAX_SYMS) /* name entries walked, all candidates */

struct kseg {
	uint64_t vaddr;
	uint64_t offset;
	uint64_t filesz;
	uint64_t memsz;
};

/* The ELF image: bytes and the PT_LOAD mapping between offsets and addresses. */
struct kimg {
	const uint8_t *p;
	size_t len;
	uint16_t machine;
	struct kseg segs[KS_MAX_SEGS];
	unsigned int nsegs;
};

struct ktokens {
	size_t table; /* file offset of kallsyms_token_table */
	size_t index; /* file offset of kallsyms_token_index */
	const char *str[256];
	uint16_t len[256];
};

struct ktables {
	struct ktokens tok;
	size_t num_syms; /* file offset of kallsyms_num_syms */
	uint32_t n;
	size_t names, names_end;
	size_t name_chars; /* total expanded length of all entries */
	size_t markers;
	size_t offsets;	      /* kallsyms_offsets or kallsyms_addresses */
	size_t relative_base; /* 0 when the addresses are absolute */
	size_t seqs;	      /* 0 when there is no kallsyms_seqs_of_names */
	bool base_relative;
	bool abs_percpu;
	const char *order; /* which table order matched */
};

/* The decoded table, before it goes into a symtab. */
struct ksyms {
	uint64_t *addr;
	char *type;
	uint32_t *name; /* offsets into blob */
	uint16_t *name_len;
	char *blob;
	size_t blob_len;
};

static uint16_t le16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static uint64_t le64(const uint8_t *p)
{
	return (uint64_t)le32(p) | (uint64_t)le32(p + 4) << 32;
}

static size_t align_up(size_t off)
{
	return (off + KS_ALIGN - 1) & ~(size_t)(KS_ALIGN - 1);
}

/* Does [off, off + size) lie inside the image? */
static bool in_image(const struct kimg *img, size_t off, size_t size)
{
	return off <= img->len && size <= img->len - off;
}

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

static int elf_load(struct kimg *img, const void *buf, size_t len, struct kp_err *err)
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

static bool offset_to_vaddr(const struct kimg *img, size_t off, uint64_t *va)
{
	const struct kseg *s = seg_of_offset(img, off);

	if (!s)
		return false;
	*va = s->vaddr + (off - s->offset);
	return true;
}

static bool vaddr_mapped(const struct kimg *img, uint64_t va)
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

static bool token_char_ok(uint8_t c)
{
	return c > 0x20 && c < 0x7f;
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
static bool entry_len(const uint8_t *p, size_t avail, size_t *len, size_t *hdr)
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

		if (!*budget || !entry_len(e, limit - pos, &len, &hdr))
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
	if (!vaddr_mapped(img, base))
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
		mapped += vaddr_mapped(img, addr[i]);
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
		entry_len(img->p + pos, img->len - pos, &len, &hdr);
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
	if (!offset_to_vaddr(img, off, &va))
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
	if (etext <= stext || !vaddr_mapped(img, stext) || !vaddr_mapped(img, etext) ||
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

static int tables_locate(const struct kimg *img, struct ktables *kt, uint64_t **addr,
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

static int syms_to_symtab(const struct ksyms *ks, uint32_t n, struct symtab *st,
			  struct kp_err *err)
{
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

	ret = elf_load(&img, elf, len, err);
	if (!ret)
		ret = tables_locate(&img, &kt, &addr, err);
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
