// SPDX-License-Identifier: GPL-2.0
/*
 * x86 bzImage (vmlinuz) payloads, found through the boot protocol's setup
 * header (Documentation/arch/x86/boot.rst):
 *
 *   0x1f1  setup_sects     512-byte setup sectors after the boot sector (0 means 4)
 *   0x202  header          "HdrS"
 *   0x206  version         boot protocol version, 0x208 (2.08) added:
 *   0x248  payload_offset  from the start of the protected-mode code
 *   0x24c  payload_length
 *
 * The protected-mode code starts at (setup_sects + 1) * 512. The payload is
 * the compressed vmlinux ELF followed by its decompressed size (le32), which
 * the kernel's build appends for the decompressor.
 */
#include "kimage.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define HDR_SETUP_SECTS	   0x1f1
#define HDR_MAGIC	   0x202
#define HDR_VERSION	   0x206
#define HDR_PAYLOAD_OFFSET 0x248
#define HDR_PAYLOAD_LENGTH 0x24c
#define HDR_END		   0x250
#define PROTO_PAYLOAD	   0x208

static uint16_t le16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

bool kimage_is_bzimage(const void *buf, size_t len)
{
	const uint8_t *p = buf;

	return buf && len >= HDR_END && !memcmp(p + HDR_MAGIC, "HdrS", 4) &&
	       le16(p + HDR_VERSION) >= PROTO_PAYLOAD;
}

static int header_check(const uint8_t *p, size_t len, struct kp_err *err)
{
	uint16_t version;

	if (!p || len < HDR_END)
		return kp_errorf(
			err, ENOEXEC,
			"bzImage: %zu bytes, too short for an x86 boot setup header",
			len);
	if (memcmp(p + HDR_MAGIC, "HdrS", 4))
		return kp_errorf(err, ENOEXEC,
				 "bzImage: no \"HdrS\" boot setup header at 0x202 (not "
				 "an x86 kernel image)");
	version = le16(p + HDR_VERSION);
	if (version < PROTO_PAYLOAD)
		return kp_errorf(err, ENOTSUP,
				 "bzImage: boot protocol %u.%02u has no payload fields "
				 "(2.08+ needed)",
				 version >> 8, version & 0xff);
	return 0;
}

int kimage_payload(const void *buf, size_t len, const void **payload, size_t *payload_len,
		   enum kp_comp *comp, struct kp_err *err)
{
	const uint8_t *p = buf;
	uint64_t pm, start, plen;
	unsigned int sects;
	int ret;

	ret = header_check(p, len, err);
	if (ret)
		return ret;
	sects = p[HDR_SETUP_SECTS] ? p[HDR_SETUP_SECTS] : 4;
	pm = ((uint64_t)sects + 1) * 512;
	start = pm + le32(p + HDR_PAYLOAD_OFFSET);
	plen = le32(p + HDR_PAYLOAD_LENGTH);
	if (start > len || plen > len - start)
		return kp_errorf(err, EBADMSG,
				 "bzImage: payload (%llu bytes at %#llx) lies outside "
				 "the %zu-byte image",
				 (unsigned long long)plen, (unsigned long long)start,
				 len);
	if (plen < 8)
		return kp_errorf(err, EBADMSG,
				 "bzImage: payload of %llu bytes is too short",
				 (unsigned long long)plen);
	*payload = p + start;
	*payload_len = (size_t)plen;
	*comp = kp_comp_detect(*payload, *payload_len);
	if (*comp == KP_COMP_NONE && memcmp(*payload,
					    "\x7f"
					    "ELF",
					    4))
		return kp_errorf(
			err, EBADMSG,
			"bzImage: payload at %#llx has no known compression magic "
			"(starts %02x %02x %02x %02x)",
			(unsigned long long)start, p[start], p[start + 1], p[start + 2],
			p[start + 3]);
	return 0;
}

/* The size trailer is the cheapest integrity check we have: use it. */
static int size_check(const void *payload, size_t plen, enum kp_comp comp, size_t out_len,
		      struct kp_err *err)
{
	uint32_t want = le32((const uint8_t *)payload + plen - 4);

	if (comp == KP_COMP_NONE || want == (uint32_t)out_len)
		return 0;
	return kp_errorf(
		err, EBADMSG,
		"bzImage: %s payload decompressed to %zu bytes, but the image says %u",
		kp_comp_name(comp), out_len, want);
}

/* The kernel's size as the image states it: its own, or the size trailer's. */
static uint64_t stated_size(const void *payload, size_t plen, enum kp_comp comp)
{
	return comp == KP_COMP_NONE ? plen : le32((const uint8_t *)payload + plen - 4);
}

/*
 * Refuse an oversized kernel before allocating or decompressing anything: an
 * uncompressed payload is its own size, a compressed one states its size in
 * the trailer. The trailer is only the image's word, so kp_decompress()
 * enforces @max again while it runs.
 */
static int bound_check(const void *payload, size_t plen, enum kp_comp comp, uint64_t max,
		       struct kp_err *err)
{
	uint64_t want = stated_size(payload, plen, comp);

	if (want <= max)
		return 0;
	return kp_errorf(err, EFBIG,
			 "bzImage: %s payload holds a %llu-byte kernel, over the "
			 "%llu-byte limit",
			 kp_comp_name(comp), (unsigned long long)want,
			 (unsigned long long)max);
}

static int extract_payload(const void *payload, size_t plen, enum kp_comp comp,
			   uint64_t max, void **vmlinux, size_t *vmlinux_len,
			   struct kp_err *err)
{
	size_t max_out = max < SIZE_MAX ? (size_t)max : SIZE_MAX;
	int ret;

	/* The trailer, checked against @max (bound_check), sizes the output. */
	ret = kp_decompress_sized(
		comp, payload, plen, max_out,
		comp == KP_COMP_NONE ? 0 : le32((const uint8_t *)payload + plen - 4),
		vmlinux, vmlinux_len, err);
	if (ret) {
		kp_err_prefix(err, "bzImage payload");
		return ret;
	}
	ret = size_check(payload, plen, comp, *vmlinux_len, err);
	if (!ret && (*vmlinux_len < 4 || memcmp(*vmlinux,
						"\x7f"
						"ELF",
						4)))
		ret = kp_errorf(err, EBADMSG, "bzImage: %s payload is not an ELF image",
				kp_comp_name(comp));
	return ret;
}

int kimage_extract(const void *buf, size_t len, uint64_t max, void **vmlinux,
		   size_t *vmlinux_len, struct kp_err *err)
{
	const void *payload;
	size_t plen;
	enum kp_comp comp;
	int ret;

	*vmlinux = NULL;
	*vmlinux_len = 0;
	ret = kimage_payload(buf, len, &payload, &plen, &comp, err);
	if (!ret)
		ret = bound_check(payload, plen, comp, max, err);
	if (!ret)
		ret = extract_payload(payload, plen, comp, max, vmlinux, vmlinux_len,
				      err);
	if (ret) {
		free(*vmlinux);
		*vmlinux = NULL;
		*vmlinux_len = 0;
	}
	return ret;
}

uint64_t kimage_kernel_size(const void *buf, size_t len)
{
	const void *payload;
	enum kp_comp comp;
	size_t plen;

	if (kimage_payload(buf, len, &payload, &plen, &comp, NULL))
		return 0;
	return stated_size(payload, plen, comp);
}

int kimage_load_symbols(const void *buf, size_t len, uint64_t max, struct symtab *st,
			struct kp_err *err)
{
	char source[sizeof(st->source)];
	const void *payload;
	enum kp_comp comp;
	void *vmlinux;
	size_t vlen, plen;
	int ret;

	ret = kimage_extract(buf, len, max, &vmlinux, &vlen, err);
	if (ret)
		return ret;
	kimage_payload(buf, len, &payload, &plen, &comp, NULL);
	ret = kallsyms_tables_decode(vmlinux, vlen, st, err);
	free(vmlinux);
	if (ret) {
		kp_err_prefix(err, "bzImage %s payload", kp_comp_name(comp));
		return ret;
	}
	memcpy(source, st->source, sizeof(source));
	symtab_set_source(st, "bzImage %s, %s", kp_comp_name(comp), source);
	return 0;
}
