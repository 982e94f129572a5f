/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Private to kallsyms_locate.c and kallsyms_tables.c: the kernel ELF image,
 * where its kallsyms tables were found, and the byte-level helpers both use.
 * kallsyms_locate.c fills these in; kallsyms_tables.c decodes from them.
 */
#ifndef KVMPROF_KALLSYMS_TABLES_PRIV_H
#define KVMPROF_KALLSYMS_TABLES_PRIV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/err.h"

#define KS_ALIGN     8	    /* ALGN in scripts/kallsyms.c on 64-bit */
#define KS_MAX_ENTRY 0x3fff /* longest two-byte (ULEB128) entry length */
#define KS_MAX_SEGS  32

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

static inline uint16_t le16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static inline uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static inline uint64_t le64(const uint8_t *p)
{
	return (uint64_t)le32(p) | (uint64_t)le32(p + 4) << 32;
}

static inline size_t align_up(size_t off)
{
	return (off + KS_ALIGN - 1) & ~(size_t)(KS_ALIGN - 1);
}

/* Does [off, off + size) lie inside the image? */
static inline bool in_image(const struct kimg *img, size_t off, size_t size)
{
	return off <= img->len && size <= img->len - off;
}

static inline bool token_char_ok(uint8_t c)
{
	return c > 0x20 && c < 0x7f;
}

/* Load the ELF header and PT_LOAD segments of the kernel image @buf. */
int ks_elf_load(struct kimg *img, const void *buf, size_t len, struct kp_err *err);

/* File offset -> virtual address through the PT_LOAD segments. */
bool ks_offset_to_vaddr(const struct kimg *img, size_t off, uint64_t *va);

/* Is @va inside a PT_LOAD segment (its memory size)? */
bool ks_vaddr_mapped(const struct kimg *img, uint64_t va);

/* Length of the kallsyms_names entry at @p (its token count) and of its length prefix. */
bool ks_entry_len(const uint8_t *p, size_t avail, size_t *len, size_t *hdr);

/*
 * Find every table in @img and fill @kt; *@addr gets the kt->n decoded
 * addresses (the caller frees them). Fails with -ENOTSUP naming the table
 * that was not recognised.
 */
int ks_tables_locate(const struct kimg *img, struct ktables *kt, uint64_t **addr,
		     struct kp_err *err);

#endif
