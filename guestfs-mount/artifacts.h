/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Host-side derivation of the served files from what was copied out of a
 * guest, with kvmprof's own parsers (lib/): symbol tables in kallsyms
 * format, the /proc/modules-style list, the version banner, the build-id.
 */
#ifndef GM_ARTIFACTS_H
#define GM_ARTIFACTS_H

#include <stdint.h>

#include "guest/guest.h"
#include "base/base.h"
#include "meta.h"

/* Derived files in a kernel's cache folder (next to the guest-* copies). */
#define GM_F_KALLSYMS "kallsyms"
#define GM_F_MODULES  "modules"
#define GM_F_VERSION  "version"
#define GM_F_BUILD_ID "build-id"
#define GM_F_NOTES    "notes"	/* sys/kernel/notes: the build-id ELF note */
#define GM_F_VMLINUX  "vmlinux" /* made on first use from guest-vmlinuz */
#define GM_D_KO	      "ko"	/* decompressed modules, made on first use */

/*
 * Fill @kdir's derived files and @k's symbol fields. Problems with the
 * guest's files become notes in @m; returns 0, or the negative errno of the
 * first derived file the host could not write (a full cache), after which
 * the folder must not be published.
 */
int gm_derive_kernel(const char *kdir, const struct gm_config *cfg, struct gm_meta *m,
		     struct gm_kernel *k);

/*
 * The kernel ELF inside a kernel image (a bzImage payload), written to @out.
 * The image may be @max_in bytes, what is written @max (else -EFBIG).
 */
int gm_derive_vmlinux(const char *vmlinuz, const char *out, uint64_t max_in, uint64_t max,
		      struct kp_err *err);

/* A compressed module (.ko.xz, .ko.zst, .ko.gz) decompressed to @out; limits as above. */
int gm_derive_module(const char *src, const char *out, uint64_t max_in, uint64_t max,
		     struct kp_err *err);

/*
 * The size gm_derive_vmlinux() or gm_derive_module() would make, read from
 * the source's headers without decompressing: 0, or -ENODATA when the
 * source states none. Only the guest's word: derive with @max set to it,
 * and check the result.
 */
int gm_vmlinux_declared(const char *vmlinuz, uint64_t max, uint64_t *size);
int gm_module_declared(const char *src, uint64_t max, uint64_t *size);

/* Module file names the tree serves decompressed: the length of the suffix, or 0. */
size_t gm_module_comp_suffix(const char *name);

#endif
