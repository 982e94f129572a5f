/* SPDX-License-Identifier: GPL-2.0 */
/*
 * x86 compressed kernel images (bzImage / vmlinuz): payload extraction from
 * the setup header and the kallsyms tables embedded in the kernel.
 */
#ifndef KVMPROF_KIMAGE_H
#define KVMPROF_KIMAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "decompress.h"
#include "base/err.h"
#include "symtab.h"

/* "MZ" ... "HdrS" at 0x202 with a protocol version that has payload_offset. */
bool kimage_is_bzimage(const void *buf, size_t len);

/*
 * Locate the compressed payload of a bzImage through its setup header:
 * *payload points into @buf, *comp is its compression (by magic).
 */
int kimage_payload(const void *buf, size_t len, const void **payload, size_t *payload_len,
		   enum kp_comp *comp, struct kp_err *err);

/*
 * Decompress the payload of a bzImage into *vmlinux (malloc'ed): on x86 this is
 * the stripped vmlinux ELF. kimage_payload() tells the compression. An ELF over
 * @max bytes (KP_DECOMPRESS_MAX when the caller has no limit of its own) fails
 * with -EFBIG: refused up front from the payload's length or size trailer, and
 * bounded again while decompressing, since the trailer may lie.
 */
int kimage_extract(const void *buf, size_t len, uint64_t max, void **vmlinux,
		   size_t *vmlinux_len, struct kp_err *err);

/*
 * Decode the kallsyms tables embedded in a (decompressed, possibly stripped)
 * kernel ELF into @st, at link-time addresses, and fill st->build_id from
 * its NT_GNU_BUILD_ID note. Layouts of Linux 6.1 through 6.12 are supported;
 * others fail with -ENOTSUP and a message naming what was not recognised.
 */
int kallsyms_tables_decode(const void *elf, size_t len, struct symtab *st,
			   struct kp_err *err);

/*
 * The size of the kernel in bzImage @buf, as the image states it (an
 * uncompressed payload's own size, a compressed one's trailer); 0 when
 * @buf is not a bzImage with a payload.
 */
uint64_t kimage_kernel_size(const void *buf, size_t len);

/* bzImage -> symbols: kimage_extract() within @max, then kallsyms_tables_decode(). */
int kimage_load_symbols(const void *buf, size_t len, uint64_t max, struct symtab *st,
			struct kp_err *err);

#endif
