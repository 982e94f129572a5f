/* SPDX-License-Identifier: GPL-2.0 */
/*
 * An x86-64 kernel's KASLR slide (runtime minus link-time address) from its
 * LSTAR register, which holds the runtime address of its syscall entry.
 * The profiler has a guest's LSTAR from the recorded guest context and
 * guestfs-mount reads it live from KVM's debugfs (guest/kvmdebugfs.h); both
 * turn it into a slide here, against a symbol table of the kernel.
 */
#ifndef KVMPROF_KASLR_H
#define KVMPROF_KASLR_H

#include <stdbool.h>
#include <stdint.h>

#include "base/err.h"
#include "symtab.h"

/* The symbol whose runtime address LSTAR holds. */
#define KASLR_LSTAR_SYMBOL "entry_SYSCALL_64"

/*
 * KASLR moves the kernel image up from its link address, in steps of its
 * alignment, and keeps it within the KERNEL_IMAGE_SIZE (1 GiB) above
 * __START_KERNEL_map: every slide it picks is below this.
 */
#define KASLR_MAX_SLIDE (1LL << 30)

/*
 * The slide at which @st's kernel runs when its LSTAR reads @lstar. Fails
 * with -ENOENT when @st has no KASLR_LSTAR_SYMBOL and -EINVAL when the
 * slide is not a multiple of 2 MiB (KP_SLIDE_ALIGN): then @st is not the
 * kernel that runs.
 */
int kaslr_slide_from_lstar(const struct symtab *st, uint64_t lstar, int64_t *slide,
			   struct kp_err *err);

/* Could KASLR have moved a kernel from its link address by @slide? */
bool kaslr_slide_possible(int64_t slide);

#endif
