// SPDX-License-Identifier: GPL-2.0
#include "symcache_entry.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "base/hugepages.h"
#include "symcache.h"

/*
 * Where entries are laid out: 15 TiB from 0x500000000000, in slots of the
 * largest entry. Above where sanitizer shadow memory ends, below where the
 * kernel puts mappings and stacks (top-down from 0x7fff...), far above the
 * program and its heap: nothing a process of ours maps lands there.
 */
#define ENTRY_REGION   0x500000000000ULL
#define ENTRY_REGION_N ((0x5f0000000000ULL - ENTRY_REGION) / SYMCACHE_ENTRY_MAX)

/* A table bigger than any kernel's by far, as ksymblob.c allows. */
#define ENTRY_NR_MAX (1ULL << 24)

struct image_id image_id_of(const struct stat *sb)
{
	return (struct image_id){
		.dev = (uint64_t)sb->st_dev,
		.ino = (uint64_t)sb->st_ino,
		.size = (uint64_t)sb->st_size,
		.mtime_sec = sb->st_mtim.tv_sec,
		.mtime_nsec = sb->st_mtim.tv_nsec,
		.ctime_sec = sb->st_ctim.tv_sec,
		.ctime_nsec = sb->st_ctim.tv_nsec,
	};
}

/* FNV-1a over the identity: it only spreads names and addresses, the header decides. */
uint64_t image_id_hash(const struct image_id *id)
{
	const unsigned char *p = (const unsigned char *)id;
	uint64_t h = 0xcbf29ce484222325ULL;

	for (size_t i = 0; i < sizeof(*id); i++)
		h = (h ^ p[i]) * 0x100000001b3ULL;
	return h;
}

uint64_t symcache_entry_base(const struct image_id *id)
{
	return ENTRY_REGION + image_id_hash(id) % ENTRY_REGION_N * SYMCACHE_ENTRY_MAX;
}

/* ---- laying a table out ---- */

static size_t align8(size_t n)
{
	return (n + 7) & ~(size_t)7;
}

static void place_arrays(struct entry_header *h, const struct symtab *st,
			 size_t names_len)
{
	h->nr = st->nr;
	h->syms_off = align8(sizeof(*h));
	h->nr_addrs = st->nr_addrs;
	h->addrs_off = h->syms_off + st->nr * sizeof(struct ksym);
	h->best_off = h->addrs_off + st->nr_addrs * sizeof(uint64_t);
	h->nr_buckets = st->nr_buckets;
	h->buckets_off = h->best_off + st->nr_addrs * sizeof(uint32_t);
	h->by_name_off = h->buckets_off + st->nr_buckets * sizeof(uint32_t);
	h->names_off = h->by_name_off + st->nr * sizeof(uint32_t);
	h->names_len = names_len;
	h->len = h->names_off + names_len;
}

/* Copy a name into the entry; its pointer as the mapped entry will have it. */
static const char *put_name(const struct entry_header *h, uint8_t *e, size_t *pos,
			    const char *name)
{
	size_t len = strlen(name) + 1;
	const char *at = (const char *)(uintptr_t)(h->base + h->names_off + *pos);

	memcpy(e + h->names_off + *pos, name, len);
	*pos += len;
	return at;
}

static void fill_syms(const struct entry_header *h, const struct symtab *st, uint8_t *e)
{
	struct ksym *syms = (struct ksym *)(e + h->syms_off);
	const char *module = NULL;
	size_t pos = 0;

	for (size_t i = 0; i < st->nr; i++) {
		/* Field by field: the padding stays zero, the entry reproducible. */
		syms[i].addr = st->syms[i].addr;
		syms[i].size = st->syms[i].size;
		syms[i].type = st->syms[i].type;
		syms[i].name = put_name(h, e, &pos, st->syms[i].name);
		if (symtab_module_starts(st, i))
			module = put_name(h, e, &pos, st->syms[i].module);
		syms[i].module = st->syms[i].module ? module : NULL;
	}
}

int symcache_entry_encode(const struct symtab *st, const struct entry_header *proto,
			  void **out, size_t *len)
{
	struct entry_header h = *proto;
	size_t names_len;
	uint8_t *e;

	*out = NULL;
	if (!st->sorted || (st->nr && !st->nr_addrs) || symtab_check(st))
		return -EINVAL;
	if (st->nr > ENTRY_NR_MAX)
		return -EFBIG;
	names_len = symtab_names_size(st);
	place_arrays(&h, st, names_len);
	if (h.len > SYMCACHE_ENTRY_MAX)
		return -EFBIG;
	h.base = symcache_entry_base(&h.id);
	h.text_start = st->text_start;
	h.text_end = st->text_end;
	h.bucket_shift = st->bucket_shift;
	h.bounded = st->bounded;
	e = calloc(1, h.len);
	if (!e)
		return -ENOMEM;
	memcpy(e, &h, sizeof(h));
	symtab_order_by_name(st, (uint32_t *)(e + h.by_name_off));
	fill_syms(&h, st, e);
	memcpy(e + h.addrs_off, st->addrs, st->nr_addrs * sizeof(uint64_t));
	memcpy(e + h.best_off, st->best, st->nr_addrs * sizeof(uint32_t));
	memcpy(e + h.buckets_off, st->buckets, st->nr_buckets * sizeof(uint32_t));
	*out = e;
	*len = h.len;
	return 0;
}

/* ---- taking a mapped entry's table ---- */

static int bad(struct kp_err *why, const char *path, const char *what)
{
	kp_errorf(why, EINVAL, "%s: %s", path, what);
	return -EINVAL;
}

/* Each array inside the entry, after the one before it, aligned for its type. */
static bool layout_fits(const struct entry_header *h, size_t len)
{
	return h->len == len && h->nr <= ENTRY_NR_MAX && h->nr_addrs <= h->nr &&
	       h->nr_buckets <= h->nr + 66 && h->bucket_shift < 64 &&
	       h->syms_off >= sizeof(*h) && h->syms_off % 8 == 0 &&
	       h->addrs_off == h->syms_off + h->nr * sizeof(struct ksym) &&
	       h->best_off == h->addrs_off + h->nr_addrs * sizeof(uint64_t) &&
	       h->buckets_off == h->best_off + h->nr_addrs * sizeof(uint32_t) &&
	       h->by_name_off == h->buckets_off + h->nr_buckets * sizeof(uint32_t) &&
	       h->names_off == h->by_name_off + h->nr * sizeof(uint32_t) &&
	       h->names_off + h->names_len == len && h->base % 4096 == 0 &&
	       h->build_id_len <= KP_BUILD_ID_MAX &&
	       memchr(h->source, 0, sizeof(h->source));
}

/* @p (NULL stays NULL) in a copy of the entry @delta bytes from its base. */
static const char *moved(const char *p, uintptr_t delta)
{
	return p ? (const char *)((uintptr_t)p + delta) : NULL;
}

/*
 * The symbols: used where they lie when the entry is mapped at its base,
 * else copied with their pointers moved by @delta (checked after, with
 * the rest: symtab_check()).
 */
static int take_syms(const struct entry_header *h, const uint8_t *e, struct symtab *st)
{
	const struct ksym *in = (const void *)(e + h->syms_off);
	uintptr_t delta = (uintptr_t)e - (uintptr_t)h->base;
	struct ksym *out = (struct ksym *)in;

	if (delta) {
		out = kp_alloc_huge((h->nr ? h->nr : 1) * sizeof(*out));
		if (!out)
			return -ENOMEM;
		for (size_t i = 0; i < h->nr; i++)
			out[i] = (struct ksym){.addr = in[i].addr,
					       .size = in[i].size,
					       .name = moved(in[i].name, delta),
					       .module = moved(in[i].module, delta),
					       .type = in[i].type};
	}
	st->syms = out;
	st->syms_in_map = !delta;
	return 0;
}

static void take_index(const struct entry_header *h, const uint8_t *e, struct symtab *st)
{
	st->nr = st->alloc = h->nr;
	st->addrs = (uint64_t *)(e + h->addrs_off);
	st->best = (uint32_t *)(e + h->best_off);
	st->buckets = (uint32_t *)(e + h->buckets_off);
	st->by_name = (const uint32_t *)(e + h->by_name_off);
	st->nr_addrs = h->nr_addrs;
	st->nr_buckets = h->nr_buckets;
	st->bucket_shift = h->bucket_shift;
	st->index_in_map = true;
	st->bounded = h->bounded;
	st->sorted = true;
	st->text_start = h->text_start;
	st->text_end = h->text_end;
	st->unverified = true;
	st->names_lo = (uintptr_t)e + h->names_off;
	st->names_hi = (uintptr_t)e + h->len;
	memcpy(st->source, h->source, sizeof(st->source));
	memcpy(st->build_id, h->build_id, h->build_id_len);
	st->build_id_len = h->build_id_len;
}

int symcache_entry_table(const void *map, size_t len, const char *path,
			 struct symtab **out, struct kp_err *why)
{
	const uint8_t *e = map;
	struct entry_header h;
	struct symtab *st;
	int ret;

	*out = NULL;
	if (len < sizeof(h))
		return bad(why, path, "truncated");
	memcpy(&h, e, sizeof(h));
	if (!layout_fits(&h, len))
		return bad(why, path, "malformed header");
	if (h.names_len && e[len - 1])
		return bad(why, path, "unterminated names");
	st = symtab_new();
	if (!st)
		return kp_errorf(why, ENOMEM, "%s: out of memory", path);
	ret = take_syms(&h, e, st);
	if (ret) {
		symtab_free(st);
		return kp_errorf(why, ENOMEM, "%s: out of memory", path);
	}
	take_index(&h, e, st);
	/*
	 * Used in place, the entry is read only where lookups go (a report
	 * needs a few thousand of its 160k symbols). A copy has read it all.
	 */
	if (!st->syms_in_map) {
		if (symtab_check(st)) {
			symtab_free(st);
			return bad(why, path,
				   "its address index is malformed, a symbol out of "
				   "order or a name outside the entry");
		}
		st->unverified = false;
	}
	*out = st;
	return 0;
}
