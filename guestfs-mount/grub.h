/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel a guest's GRUB boots by default, from the text of its
 * grub.cfg and grubenv (copied out of the guest by the appliance; parsed
 * here as untrusted text, like a kallsyms file). Covers what grub-mkconfig
 * writes: "set default=" with an index ("0", "1>2"), an entry's title or
 * $menuentry_id_option id, or "${saved_entry}" from grubenv
 * (GRUB_DEFAULT=saved, grub-set-default, grub-reboot's saved entry), and
 * top-level menuentries and submenus, also written on one line, and the
 * Boot Loader Specification entries a "blscfg" command adds (bls.h).
 * Anything else (scripting, other variables) means "cannot tell", never a
 * guess.
 */
#ifndef GM_GRUB_H
#define GM_GRUB_H

#include <stddef.h>

#include "bls.h"

#define GM_GRUB_MAX_CFG	    (1U << 20)
#define GM_GRUB_MAX_ENTRIES 1024

/* A guest's GRUB configuration: grub.cfg, grubenv (or NULL), BLS entries. */
struct gm_grub_text {
	const char *cfg;
	size_t cfg_len;
	const char *env;
	size_t env_len;
	const struct gm_bls_file *bls;
	size_t nr_bls;
};

/*
 * The version of the default entry's kernel (the part after "vmlinuz-" of
 * its "linux" line) in @ver. Returns 0, or -ENOENT when the default cannot
 * be determined, -E2BIG past the limits above and those of bls.h.
 */
int gm_grub_default(const struct gm_grub_text *t, char *ver, size_t size);

#endif
