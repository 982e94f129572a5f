/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The fields of struct gm_meta and struct gm_kernel, each described once in
 * gm_fields[] (meta.c). The cache file (meta.c), info and info.json (info.c)
 * are all made by walking that table, so that none of them can miss a field
 * the others have. Only those two files use this header.
 */
#ifndef GM_FIELDS_H
#define GM_FIELDS_H

#include <stdbool.h>
#include <stddef.h>

#include "meta.h"

/* How a field is written, read and shown. */
enum gm_field_type {
	FT_STR,	    /* char[] from the guest, sanitized; "-" or null when empty */
	FT_VERSION, /* char[]: a kernel's version; its line starts the kernel */
	FT_BOOL,    /* bool, 0 or 1; info shows the text (no "%s") when it is set */
	FT_FILE,    /* bool: the kernel has this file; see file_list() in info.c */
	FT_INT,	    /* int */
	FT_UINT,    /* unsigned */
	FT_U64,	    /* uint64_t */
	FT_SECS,    /* double seconds, 2 decimals (in info 1) */
	FT_TIME,    /* time_t: seconds since the epoch, a UTC date in info */
	FT_SYMSRC,  /* enum gm_symsrc, by name */
	FT_SYMBOLS, /* no member: where the kernel's symbols came from, in words */
	FT_DEFAULT, /* no member: is it the kernel info names as the default */
	FT_CTXSTR,  /* const char * of struct gm_info_ctx, NULL when unknown */
	FT_MOUNTS,  /* mounts[nr_mounts]: a line each */
	FT_NOTES,   /* notes[nr_notes]: a line each */
	FT_KERNELS, /* kernels[nr_kernels]: the FS_KERNEL fields of each */
};

/* Which record a field is a member of. */
enum gm_field_scope {
	FS_META,   /* struct gm_meta */
	FS_KERNEL, /* struct gm_kernel */
};

/* Empty or 0: left out of info, and of the cache file when alone on its line. */
#define FF_OPTIONAL 1
/* In info only once inspection found the OS: a record of a failure has none. */
#define FF_OS 2
/* Not listed while the System.map is Debian's placeholder. */
#define FF_REAL_SYSMAP 4

struct gm_field {
	/* Key in the cache file; the next fields with the same key share its line. */
	const char *cache;
	/* info: the field, its value in place of "%s"; a FILE's name. */
	const char *text;
	/* info.json key: "a.b" is key b of object a; a FILE's, the name of its list. */
	const char *json;
	enum gm_field_type type;
	enum gm_field_scope scope;
	unsigned flags;
	size_t off, size; /* of the member in its record */
};

extern const struct gm_field gm_fields[];
extern const size_t gm_nr_fields;
#define GM_FIELDS_END (gm_fields + gm_nr_fields)

/* Where @f is in @rec: a struct gm_meta, a struct gm_kernel or (FT_CTXSTR) the ctx. */
static inline const void *gm_field_at(const struct gm_field *f, const void *rec)
{
	return (const char *)rec + f->off;
}

static inline bool gm_field_is_array(const struct gm_field *f)
{
	return f->type >= FT_MOUNTS;
}

/* Is the value @p of @f empty, 0 or false? */
bool gm_field_empty(const struct gm_field *f, const void *p);

/* The value @p of @f as the cache file has it; strings are returned as they are. */
const char *gm_field_scalar(char *buf, size_t size, const struct gm_field *f,
			    const void *p);

#endif
