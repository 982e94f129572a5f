/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KVMPROF_BUILDID_H
#define KVMPROF_BUILDID_H

#include <stddef.h>
#include <stdint.h>

/*
 * Find the NT_GNU_BUILD_ID note in a buffer of ELF notes (a .notes or
 * .note.gnu.build-id section, or a PT_NOTE segment). Returns its length
 * (at most @max) copied into @id, or 0 when there is none.
 */
size_t buildid_from_notes(const void *notes, size_t len, uint8_t *id, size_t max);

/* Same, searching the section headers and program headers of an ELF image. */
size_t buildid_from_elf(const void *elf, size_t len, uint8_t *id, size_t max);

/* Lower-case hex, NUL-terminated; @out must hold 2 * len + 1 bytes. */
void buildid_to_hex(const uint8_t *id, size_t len, char *out);

#endif
