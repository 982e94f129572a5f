// SPDX-License-Identifier: GPL-2.0
#include "ksymblob.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <lz4frame.h>
#include <stdbool.h>
#include <zstd.h>

#include "base/arena.h"
#include "ksym/decompress.h"
#include "base/hugepages.h"

#define BLOB_MAGIC "KPKSYM1"
#define NO_MODULE  0xffffffffU
#define RAW_MAX	   (256ULL << 20)

struct blob_header {
	char magic[8];
	uint64_t nr;
	uint64_t names_len;
	int64_t unused; /* was a slide, which record always left 0: ignored */
};

static size_t raw_size(uint64_t nr, uint64_t names_len)
{
	return sizeof(struct blob_header) + nr * (8 + 4 + 4 + 1) + names_len;
}

static void fill_raw(const struct symtab *st, uint8_t *raw, size_t names_len)
{
	struct blob_header h = {BLOB_MAGIC, st->nr, names_len, 0};
	uint64_t *addrs = (uint64_t *)(raw + sizeof(h));
	uint32_t *name_off = (uint32_t *)(addrs + st->nr);
	uint32_t *mod_off = name_off + st->nr;
	uint8_t *types = (uint8_t *)(mod_off + st->nr);
	char *names = (char *)(types + st->nr);
	uint32_t pos = 0, last_mod = NO_MODULE;

	memcpy(raw, &h, sizeof(h));
	for (size_t i = 0; i < st->nr; i++) {
		const struct ksym *s = &st->syms[i];
		size_t len = strlen(s->name) + 1;

		addrs[i] = s->addr;
		types[i] = (uint8_t)s->type;
		memcpy(names + pos, s->name, len);
		name_off[i] = pos;
		pos += (uint32_t)len;
		if (symtab_module_starts(st, i)) {
			len = strlen(s->module) + 1;
			memcpy(names + pos, s->module, len);
			last_mod = pos;
			pos += (uint32_t)len;
		}
		mod_off[i] = s->module ? last_mod : NO_MODULE;
	}
}

/*
 * An LZ4 frame: larger than zstd's output, but it decodes in under half
 * the time, and every report of the file pays the decoding. The fast
 * level, not the high-compression one: for a host's 121k symbols, 30 ms
 * to encode (the raw layout included) against 200 ms, each recording's
 * start, for 2.0 MB against 1.7 MB; decoding takes the same 4 ms.
 */
static int compress(const void *raw, size_t len, void **out, size_t *out_len)
{
	LZ4F_preferences_t prefs = {
		.frameInfo = {.blockSizeID = LZ4F_max64KB, .contentSize = len}};
	size_t bound = LZ4F_compressFrameBound(len, &prefs), n;
	void *z = malloc(bound);

	if (!z)
		return -ENOMEM;
	n = LZ4F_compressFrame(z, bound, raw, len, &prefs);
	if (LZ4F_isError(n)) {
		free(z);
		return -EIO;
	}
	*out = z;
	*out_len = n;
	return 0;
}

static int encode_raw(const struct symtab *st, void **out, size_t *out_len)
{
	size_t names_len = symtab_names_size(st), len = raw_size(st->nr, names_len);
	uint8_t *raw;

	if (names_len >= NO_MODULE)
		return -EFBIG;
	raw = malloc(len);
	if (!raw)
		return -ENOMEM;
	fill_raw(st, raw, names_len);
	*out = raw;
	*out_len = len;
	return 0;
}

int ksymblob_encode(const struct symtab *st, void **out, size_t *out_len)
{
	void *raw;
	size_t len;
	int ret = symtab_check(st) ? -EINVAL : encode_raw(st, &raw, &len);

	if (ret)
		return ret;
	ret = compress(raw, len, out, out_len);
	free(raw);
	return ret;
}

static int bad(struct kp_err *err, const char *what, const char *why)
{
	return kp_errorf(err, EINVAL, "%s: embedded symbol table: %s", what, why);
}

/* Every offset is checked: the blob comes from a file, maybe a damaged one. */
static int fill_table(const uint8_t *raw, size_t len, const char *what, struct symtab *st,
		      struct kp_err *err)
{
	struct blob_header h;
	const uint64_t *addrs;
	const uint32_t *name_off, *mod_off;
	const uint8_t *types;
	char *names;

	memcpy(&h, raw, sizeof(h));
	if (memcmp(h.magic, BLOB_MAGIC, sizeof(h.magic)) || h.nr > (1U << 24) ||
	    h.names_len > len || raw_size(h.nr, h.names_len) != len)
		return bad(err, what, "malformed header");
	addrs = (const uint64_t *)(raw + sizeof(h));
	name_off = (const uint32_t *)(addrs + h.nr);
	mod_off = name_off + h.nr;
	types = (const uint8_t *)(mod_off + h.nr);
	/* Names stay in @raw, which must outlive the table (see decode_raw()). */
	names = (char *)(types + h.nr);
	st->syms = kp_alloc_huge(h.nr * sizeof(*st->syms));
	if (!st->syms)
		return kp_errorf(err, ENOMEM, "%s: out of memory", what);
	if (h.names_len && names[h.names_len - 1])
		return bad(err, what, "unterminated names");
	st->alloc = h.nr;
	for (size_t i = 0; i < h.nr; i++) {
		if (name_off[i] >= h.names_len ||
		    (mod_off[i] != NO_MODULE && mod_off[i] >= h.names_len))
			return bad(err, what, "name offset out of range");
		st->syms[i] = (struct ksym){
			.addr = addrs[i],
			.name = names + name_off[i],
			.module = mod_off[i] == NO_MODULE ? NULL : names + mod_off[i],
			.type = (char)types[i]};
	}
	st->nr = h.nr;
	return symtab_finish(st) ? kp_errorf(err, ENOMEM, "%s: out of memory", what) : 0;
}

/* An LZ4 frame that states its size, straight into @raw. */
static int lz4_into(const void *blob, size_t len, void *raw, size_t size)
{
	LZ4F_decompressOptions_t opts = {.stableDst = 1};
	LZ4F_dctx *dctx;
	size_t dst = size, src = len, ret;

	if (LZ4F_isError(LZ4F_createDecompressionContext(&dctx, LZ4F_VERSION)))
		return -ENOMEM;
	ret = LZ4F_decompress(dctx, raw, &dst, blob, &src, &opts);
	LZ4F_freeDecompressionContext(dctx);
	/* 0: the frame ended, and all of it was consumed. */
	return ret == 0 && dst == size && src == len ? 0 : -EBADMSG;
}

/* The frame's stated size: LZ4 (written now) or zstd (older files); 0 if none. */
static size_t content_size(const void *blob, size_t len, bool *lz4)
{
	LZ4F_frameInfo_t info = {0};
	unsigned long long z;
	LZ4F_dctx *dctx;
	size_t n = len, ret;

	*lz4 = len >= 4 && !memcmp(blob, "\x04\x22\x4d\x18", 4);
	if (!*lz4) {
		z = ZSTD_getFrameContentSize(blob, len);
		return z == ZSTD_CONTENTSIZE_UNKNOWN || z == ZSTD_CONTENTSIZE_ERROR ||
				       z > RAW_MAX
			       ? 0
			       : (size_t)z;
	}
	if (LZ4F_isError(LZ4F_createDecompressionContext(&dctx, LZ4F_VERSION)))
		return 0;
	ret = LZ4F_getFrameInfo(dctx, &info, blob, &n);
	LZ4F_freeDecompressionContext(dctx);
	return LZ4F_isError(ret) || info.contentSize > RAW_MAX ? 0 : info.contentSize;
}

/*
 * The usual case, a frame that states its size: straight into a buffer
 * that can be huge pages. -EAGAIN leaves the rest (and the error messages)
 * to kp_decompress().
 */
static int decompress(const void *blob, size_t len, void **out, size_t *out_len,
		      bool *lz4)
{
	size_t size = content_size(blob, len, lz4);
	void *raw;
	int ret;

	if (!size)
		return -EAGAIN;
	raw = kp_alloc_huge(size);
	if (!raw)
		return -EAGAIN;
	if (*lz4)
		ret = lz4_into(blob, len, raw, size);
	else
		ret = ZSTD_decompress(raw, size, blob, len) == size ? 0 : -EBADMSG;
	if (ret) {
		free(raw);
		return -EAGAIN;
	}
	*out = raw;
	*out_len = size;
	return 0;
}

/* The uncompressed layout; the names stay in @raw, which must outlive the table. */
static int decode_raw(const void *raw, size_t len, const char *what, struct symtab **out,
		      struct kp_err *err)
{
	struct symtab *st;
	int ret;

	*out = NULL;
	if (len < sizeof(struct blob_header))
		return bad(err, what, "truncated");
	st = symtab_new();
	if (!st)
		return kp_errorf(err, ENOMEM, "%s: out of memory", what);
	ret = fill_table(raw, len, what, st, err);
	if (ret) {
		symtab_free(st);
		return ret;
	}
	*out = st;
	return 0;
}

int ksymblob_decode(const void *blob, size_t len, const char *what, struct symtab **out,
		    struct kp_err *err)
{
	void *raw;
	size_t raw_len;
	bool lz4;
	int ret;

	*out = NULL;
	ret = decompress(blob, len, &raw, &raw_len, &lz4);
	if (ret == -EAGAIN)
		ret = kp_decompress(lz4 ? KP_COMP_LZ4 : KP_COMP_ZSTD, blob, len, RAW_MAX,
				    &raw, &raw_len, err);
	if (ret) {
		kp_err_prefix(err, "%s: embedded symbol table", what);
		return ret;
	}
	/* Names stay in the decompressed buffer, which the table then owns. */
	ret = decode_raw(raw, raw_len, what, out, err);
	if (ret)
		free(raw);
	else
		(*out)->owned = raw;
	return ret;
}
