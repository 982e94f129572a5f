/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Symbol sources: any file a kernel ships in, recognised by content, loaded
 * into one struct symtab. This is the library's front door.
 */
#ifndef KVMPROF_SYMSRC_H
#define KVMPROF_SYMSRC_H

#include <stddef.h>

#include "elfsyms.h"
#include "base/err.h"
#include "symtab.h"

enum symsrc_kind {
	SYMSRC_UNKNOWN,
	SYMSRC_KALLSYMS,	/* /proc/kallsyms or System.map text */
	SYMSRC_VMLINUX,		/* ELF executable with .symtab */
	SYMSRC_KERNEL_ELF,	/* stripped kernel ELF: embedded kallsyms tables */
	SYMSRC_MODULE,		/* .ko, possibly compressed */
	SYMSRC_KIMAGE,		/* bzImage / vmlinuz */
};

const char *symsrc_kind_name(enum symsrc_kind kind);

/*
 * Load any supported file. @layout (may be NULL) receives the section layout
 * when the input is a module. On failure *out is NULL and @err names the file.
 */
int symsrc_load_file(const char *path, struct symtab **out, struct kmod_layout *layout,
		     struct kp_err *err);
int symsrc_load_buffer(const void *buf, size_t len, const char *what, struct symtab **out,
		       struct kmod_layout *layout, struct kp_err *err);

#endif
