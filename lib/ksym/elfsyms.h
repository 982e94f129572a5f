/* SPDX-License-Identifier: GPL-2.0 */
/* Symbols from ELF kernels: vmlinux (.symtab) and kernel modules (.ko). */
#ifndef KVMPROF_ELFSYMS_H
#define KVMPROF_ELFSYMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "symtab.h"

bool elf_detect(const void *buf, size_t len);

/*
 * Read the .symtab of an ELF vmlinux (ET_EXEC) into @st at link-time
 * addresses, and its build-id. A stripped image fails with -ENODATA.
 */
int elfsyms_load_vmlinux(const void *buf, size_t len, const char *what, struct symtab *st,
			 struct kp_err *err);

struct elf_segment {
	uint64_t vaddr;
	uint64_t offset;
	uint64_t filesz;
};

struct elf_segments {
	struct elf_segment *segs;
	size_t nr;
};

/*
 * Read a user-space ELF (executable or shared object): function symbols
 * from .symtab, else .dynsym (most distribution binaries are stripped), one
 * "<function>@plt" per PLT entry, and its PT_LOAD segments so that file
 * offsets from mmap records map to symbol addresses.
 */
int elfsyms_load_user(const void *buf, size_t len, const char *what, struct symtab *st,
		      struct elf_segments *segs, struct kp_err *err);

/*
 * Function symbols of a separate debug file (.symtab only; no segments
 * needed), with the PLT entries of @loaded, the file it describes (a debug
 * file has no PLT contents), when that is given.
 */
int elfsyms_load_user_symbols(const void *buf, size_t len, const char *what,
			      const void *loaded, size_t loaded_len, struct symtab *st,
			      struct kp_err *err);

/* Link-time address of file offset @off, or UINT64_MAX when no segment holds it. */
uint64_t elf_segments_offset_to_vaddr(const struct elf_segments *segs, uint64_t off);
void elf_segments_release(struct elf_segments *segs);

struct kmod_section {
	char name[48];
	uint64_t offset; /* where the loader would place it, from the module base */
	uint64_t size;
	uint64_t align;
	bool exec;
};

struct kmod_layout {
	char name[64]; /* module name, from .modinfo or .gnu.linkonce.this_module */
	struct kmod_section *secs;
	size_t nr_secs;
	uint64_t text_size; /* executable, non-init sections laid out from 0 */
	uint64_t
		core_size; /* every allocated non-init section, as /proc/modules counts */
};

/*
 * Read a relocatable kernel module (ET_REL, already decompressed) into @st.
 * Text symbols get addresses relative to the module's text base, laid out
 * the way the kernel's module loader does, so that adding the load address
 * from /proc/modules gives runtime addresses. @layout may be NULL.
 */
int elfsyms_load_module(const void *buf, size_t len, const char *what, struct symtab *st,
			struct kmod_layout *layout, struct kp_err *err);

void kmod_layout_release(struct kmod_layout *layout);

#endif
