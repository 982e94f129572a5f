// SPDX-License-Identifier: GPL-2.0
/*
 * GNU build-id notes from ELF images read off a guest's disk: every offset
 * and size in the headers is checked against the buffer before use. Both
 * ELF64 and ELF32 little-endian images are handled (x86-64 and i386 kernels
 * and modules); big-endian images are reported as having no build-id.
 */
#include "buildid.h"

#include <elf.h>
#include <stdbool.h>
#include <string.h>

#ifndef NT_GNU_BUILD_ID
#define NT_GNU_BUILD_ID 3
#endif

/* A note region: its bytes and the alignment its entries are padded to. */
struct note_region {
	const unsigned char *p;
	size_t len;
	size_t align;
};

static uint16_t rd16(const unsigned char *p)
{
	uint16_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static uint32_t rd32(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v)); /* unaligned-safe; images are little-endian */
	return v;
}

static uint64_t rd64(const unsigned char *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/* Round up to @align without overflowing; SIZE_MAX means "past any buffer". */
static size_t pad(size_t n, size_t align)
{
	if (n > SIZE_MAX - (align - 1))
		return SIZE_MAX;
	return (n + align - 1) & ~(align - 1);
}

static size_t notes_scan(const struct note_region *r, uint8_t *id, size_t max)
{
	size_t pos = 0;

	while (r->len - pos >= 12) {
		uint32_t namesz = rd32(r->p + pos), descsz = rd32(r->p + pos + 4);
		uint32_t type = rd32(r->p + pos + 8);
		size_t name = pos + 12, nlen = pad(namesz, r->align);
		size_t desc, dlen = pad(descsz, r->align);

		if (nlen > r->len - name)
			return 0;
		desc = name + nlen;
		if (descsz > r->len - desc)
			return 0;
		if (type == NT_GNU_BUILD_ID && namesz == 4 &&
		    !memcmp(r->p + name, "GNU", 4)) {
			size_t n = descsz < max ? descsz : max;

			memcpy(id, r->p + desc, n);
			return n;
		}
		if (dlen > r->len - desc)
			return 0;
		pos = desc + dlen;
	}
	return 0;
}

size_t buildid_from_notes(const void *notes, size_t len, uint8_t *id, size_t max)
{
	struct note_region r = {notes, len, 4};

	if (!notes)
		return 0;
	return notes_scan(&r, id, max);
}

/* The parts of an ELF header we need, whatever the class. */
struct elf_view {
	const unsigned char *p;
	size_t len;
	bool is64;
	uint64_t shoff, phoff;
	size_t shentsize, phentsize, shnum, phnum;
};

static bool elf_view_init(struct elf_view *v, const void *elf, size_t len)
{
	const unsigned char *p = elf;

	memset(v, 0, sizeof(*v));
	if (!elf || len < EI_NIDENT || memcmp(p, ELFMAG, SELFMAG))
		return false;
	if (p[EI_DATA] != ELFDATA2LSB)
		return false;
	v->p = p;
	v->len = len;
	v->is64 = p[EI_CLASS] == ELFCLASS64;
	if (v->is64 && len >= sizeof(Elf64_Ehdr)) {
		v->phoff = rd64(p + offsetof(Elf64_Ehdr, e_phoff));
		v->shoff = rd64(p + offsetof(Elf64_Ehdr, e_shoff));
		v->phentsize = rd16(p + offsetof(Elf64_Ehdr, e_phentsize));
		v->phnum = rd16(p + offsetof(Elf64_Ehdr, e_phnum));
		v->shentsize = rd16(p + offsetof(Elf64_Ehdr, e_shentsize));
		v->shnum = rd16(p + offsetof(Elf64_Ehdr, e_shnum));
		return true;
	}
	if (p[EI_CLASS] == ELFCLASS32 && len >= sizeof(Elf32_Ehdr)) {
		v->phoff = rd32(p + offsetof(Elf32_Ehdr, e_phoff));
		v->shoff = rd32(p + offsetof(Elf32_Ehdr, e_shoff));
		v->phentsize = rd16(p + offsetof(Elf32_Ehdr, e_phentsize));
		v->phnum = rd16(p + offsetof(Elf32_Ehdr, e_phnum));
		v->shentsize = rd16(p + offsetof(Elf32_Ehdr, e_shentsize));
		v->shnum = rd16(p + offsetof(Elf32_Ehdr, e_shnum));
		return true;
	}
	return false;
}

/* Entry @i of a header table, or NULL when it is not wholly inside the image. */
static const unsigned char *table_entry(const struct elf_view *v, uint64_t off,
					size_t entsize, size_t i, size_t need)
{
	uint64_t at;

	if (entsize < need || off > v->len || i > (v->len - off) / entsize)
		return NULL;
	at = off + (uint64_t)i * entsize;
	if (need > v->len - at)
		return NULL;
	return v->p + at;
}

/* Turn a header's (offset, size, align) into a region inside the image. */
static bool region(const struct elf_view *v, uint64_t off, uint64_t size, uint64_t align,
		   struct note_region *r)
{
	if (off > v->len || size > v->len - off)
		return false;
	r->p = v->p + off;
	r->len = (size_t)size;
	r->align = align == 8 ? 8 : 4;
	return true;
}

static bool section_notes(const struct elf_view *v, size_t i, struct note_region *r)
{
	const unsigned char *s;

	if (v->is64) {
		s = table_entry(v, v->shoff, v->shentsize, i, sizeof(Elf64_Shdr));
		if (!s || rd32(s + offsetof(Elf64_Shdr, sh_type)) != SHT_NOTE)
			return false;
		return region(v, rd64(s + offsetof(Elf64_Shdr, sh_offset)),
			      rd64(s + offsetof(Elf64_Shdr, sh_size)),
			      rd64(s + offsetof(Elf64_Shdr, sh_addralign)), r);
	}
	s = table_entry(v, v->shoff, v->shentsize, i, sizeof(Elf32_Shdr));
	if (!s || rd32(s + offsetof(Elf32_Shdr, sh_type)) != SHT_NOTE)
		return false;
	return region(v, rd32(s + offsetof(Elf32_Shdr, sh_offset)),
		      rd32(s + offsetof(Elf32_Shdr, sh_size)),
		      rd32(s + offsetof(Elf32_Shdr, sh_addralign)), r);
}

static bool segment_notes(const struct elf_view *v, size_t i, struct note_region *r)
{
	const unsigned char *ph;

	if (v->is64) {
		ph = table_entry(v, v->phoff, v->phentsize, i, sizeof(Elf64_Phdr));
		if (!ph || rd32(ph + offsetof(Elf64_Phdr, p_type)) != PT_NOTE)
			return false;
		return region(v, rd64(ph + offsetof(Elf64_Phdr, p_offset)),
			      rd64(ph + offsetof(Elf64_Phdr, p_filesz)),
			      rd64(ph + offsetof(Elf64_Phdr, p_align)), r);
	}
	ph = table_entry(v, v->phoff, v->phentsize, i, sizeof(Elf32_Phdr));
	if (!ph || rd32(ph + offsetof(Elf32_Phdr, p_type)) != PT_NOTE)
		return false;
	return region(v, rd32(ph + offsetof(Elf32_Phdr, p_offset)),
		      rd32(ph + offsetof(Elf32_Phdr, p_filesz)),
		      rd32(ph + offsetof(Elf32_Phdr, p_align)), r);
}

size_t buildid_from_elf(const void *elf, size_t len, uint8_t *id, size_t max)
{
	struct elf_view v;
	struct note_region r;
	size_t n;

	if (!elf_view_init(&v, elf, len))
		return 0;
	/* Sections first: stripped kernels keep them, and they name the notes exactly. */
	for (size_t i = 0; i < v.shnum; i++)
		if (section_notes(&v, i, &r) && (n = notes_scan(&r, id, max)))
			return n;
	for (size_t i = 0; i < v.phnum; i++)
		if (segment_notes(&v, i, &r) && (n = notes_scan(&r, id, max)))
			return n;
	return 0;
}

void buildid_to_hex(const uint8_t *id, size_t len, char *out)
{
	static const char hex[] = "0123456789abcdef";

	for (size_t i = 0; i < len; i++) {
		out[2 * i] = hex[id[i] >> 4];
		out[2 * i + 1] = hex[id[i] & 15];
	}
	out[2 * len] = '\0';
}
