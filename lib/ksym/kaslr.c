// SPDX-License-Identifier: GPL-2.0
#include "kaslr.h"

/*
 * The 2 MiB check holds for every table a caller may have: KASLR moves the
 * kernel in CONFIG_PHYSICAL_ALIGN steps, which x86-64 requires to be a
 * multiple of 2 MiB, so the slide from a link-time table and the difference
 * between two boots' slides (a runtime kallsyms saved earlier) both are
 * multiples of it. A misaligned result therefore always means another
 * kernel: guestfs-mount relies on it to rule out installed kernels, a report
 * to refuse the guest context's slide for a table that does not fit.
 *
 * The range check of kaslr_slide_possible() is not made here: it holds only
 * for link-time tables. A runtime table from an earlier boot rightly gives
 * a negative slide, which a report must accept.
 */
int kaslr_slide_from_lstar(const struct symtab *st, uint64_t lstar, int64_t *slide,
			   struct kp_err *err)
{
	return symtab_slide_from_anchor(st, KASLR_LSTAR_SYMBOL, lstar, slide, err);
}

bool kaslr_slide_possible(int64_t slide)
{
	return slide >= 0 && slide < KASLR_MAX_SLIDE;
}
