/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A running guest's kernel and KASLR slide. With the kvmprof kernel series
 * on the host, KVM's debugfs gives each vCPU's guest LSTAR, the guest
 * kernel's runtime entry_SYSCALL_64 (lib/kvmdebugfs.h). Of the guest's
 * installed kernels, the one whose link-time entry_SYSCALL_64 is a valid
 * KASLR distance (a multiple of 2 MiB) from it is the one running, and that
 * distance is the slide: its kallsyms can then be served as the guest's own
 * /proc/kallsyms would read.
 */
#ifndef GM_LIVE_H
#define GM_LIVE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "meta.h"

struct gm_live {
	pid_t pid;	/* the QEMU process; 0: none running */
	uint64_t lstar; /* 0: unknown (see why) */
	int kernel;	/* index into the meta's kernels, -1 unknown */
	int64_t slide;
	char *kallsyms; /* that kernel's kallsyms, relocated */
	size_t len;
	char why[600];	/* what is missing, when kernel < 0 */
	char also[256]; /* other installed kernels the LSTAR fits as well */
	bool settled;	/* every kernel was tried against this pid and LSTAR */
};

/*
 * Work out what guest @pid runs: read its LSTAR from the KVM debugfs folder
 * @debugfs (NULL: the default), match it against the kallsyms files of
 * @meta's kernels in cache folder @keydir (preferring @def), and make the
 * relocated kallsyms. @old is reused when its pid and LSTAR are the same,
 * whether a kernel fitted or none did: pass it only while @meta's kernels
 * are those @old was worked out from. Always fills @out; out->kernel < 0
 * and out->why say what failed.
 */
void gm_live_probe(const char *debugfs, pid_t pid, const struct gm_meta *meta,
		   const char *keydir, const struct gm_kernel *def, struct gm_live *old,
		   struct gm_live *out);

void gm_live_release(struct gm_live *l);

/*
 * Relocate kallsyms text (lines "%016llx T name...") by @slide: kernel
 * addresses (in the top 2 GiB) move, others (per-CPU offsets, absolute
 * symbols, zeros) stay, as in the kernel's own /proc/kallsyms. The output
 * has the input's length. -EINVAL for a line without a 16-digit address.
 */
int gm_live_relocate(const char *in, size_t len, int64_t slide, char *out);

#endif
