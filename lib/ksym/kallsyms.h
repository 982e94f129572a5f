/* SPDX-License-Identifier: GPL-2.0 */
/* Text symbol tables: /proc/kallsyms (with its [module] column) and System.map. */
#ifndef KVMPROF_KALLSYMS_H
#define KVMPROF_KALLSYMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "base/err.h"
#include "symtab.h"

/* Does the buffer start like "<hex address> <type letter> <name>"? */
bool kallsyms_text_detect(const char *buf, size_t len);

/*
 * Parse kallsyms / System.map text into @st. @what names the input in
 * errors. Debian's placeholder System.map ("The real System.map is in the
 * linux-image-<version>-dbg package") fails with -ENODATA, and a table whose
 * addresses are all zero (kallsyms read without privilege) with -EPERM.
 */
int kallsyms_parse(const char *buf, size_t len, const char *what, struct symtab *st,
		   struct kp_err *err);

/*
 * The same from the first @size bytes of the file open as @fd, read
 * @piece bytes at a time (0: 64 KiB) through a buffer of its own. A piece
 * of KALLSYMS_PIECE_MIN bytes or more holds any line that parses, so the
 * table and the errors are kallsyms_parse()'s.
 */
#define KALLSYMS_PIECE_MIN 1024

int kallsyms_parse_fd(int fd, uint64_t size, size_t piece, const char *what,
		      struct symtab *st, struct kp_err *err);

/* Write @st in /proc/kallsyms format, at runtime addresses: placed at @slide. */
int kallsyms_write(const struct symtab *st, int64_t slide, FILE *out);

#endif
