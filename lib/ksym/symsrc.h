/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Symbol sources: any file a kernel ships in, recognised by content, loaded
 * into one struct symtab. This is the library's front door.
 */
#ifndef KVMPROF_SYMSRC_H
#define KVMPROF_SYMSRC_H

#include <stddef.h>
#include <stdint.h>

#include "elfsyms.h"
#include "base/err.h"
#include "symtab.h"

enum symsrc_kind {
	SYMSRC_UNKNOWN,
	SYMSRC_KALLSYMS,   /* /proc/kallsyms or System.map text */
	SYMSRC_VMLINUX,	   /* ELF executable with .symtab */
	SYMSRC_KERNEL_ELF, /* stripped kernel ELF: embedded kallsyms tables */
	SYMSRC_MODULE,	   /* .ko, possibly compressed */
	SYMSRC_KIMAGE,	   /* bzImage / vmlinuz */
};

const char *symsrc_kind_name(enum symsrc_kind kind);

/*
 * What kvmprof's own commands let a symbol source decompress to: a file is
 * guest data as often as not, and a 32 KB module may expand to gigabytes.
 * guestfs-mount passes its max-file-size instead.
 */
#define SYMSRC_MAX_DEFAULT (256ULL << 20)

/*
 * Load any supported file (at most KP_FILE_MAX bytes). No decompressed form
 * of it (module, kernel image payload) may exceed @max bytes: -EFBIG, and
 * @err names the file and the limit. @layout (may be NULL) receives the section
 * layout when the input is a module. On failure *out is NULL and @err names
 * the file.
 */
int symsrc_load_file(const char *path, uint64_t max, struct symtab **out,
		     struct kmod_layout *layout, struct kp_err *err);
/*
 * Let symsrc_load_file() keep what it decodes from kernel images in the
 * symbol cache at @dir (symcache.h), and use it while the image is
 * unchanged; NULL or "" (the default): no cache. @warn (may be NULL) hears
 * of entries that could not be stored: the image is then decoded each time.
 */
typedef void (*symsrc_cache_warn_fn)(const struct kp_err *err);
void symsrc_set_cache(const char *dir, symsrc_cache_warn_fn warn);

int symsrc_load_buffer(const void *buf, size_t len, const char *what, uint64_t max,
		       struct symtab **out, struct kmod_layout *layout,
		       struct kp_err *err);

#endif
