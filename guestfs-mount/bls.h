/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Boot Loader Specification entries (/boot/loader/entries/NAME.conf, as
 * Fedora and RHEL install them) turned into menu entries the way GRUB's
 * blscfg command does: each file is one entry whose id is NAME, titled by
 * its "title" key, booting its "linux" key, in blscfg's order (by the
 * "version" key compared as rpm compares versions, newest first). The
 * files come from the guest: parsed as bounded, untrusted text.
 */
#ifndef GM_BLS_H
#define GM_BLS_H

#include <stddef.h>

#define GM_BLS_MAX_FILES 256	     /* entries in the folder */
#define GM_BLS_MAX_FILE	 (64U << 10) /* bytes of one entry */
#define GM_BLS_FIELD	 256

/* One entry file: @name is its file name, with ".conf". */
struct gm_bls_file {
	const char *name;
	const char *text;
	size_t len;
};

struct gm_bls_entry {
	char id[GM_BLS_FIELD];
	char title[GM_BLS_FIELD];
	char version[GM_BLS_FIELD];
	char kver[GM_BLS_FIELD]; /* of its linux key's vmlinuz-VER, or "" */
};

/*
 * The @n files as entries in @out (room for @n), in blscfg's order.
 * Returns the number of entries, or -E2BIG past the limits above.
 */
int gm_bls_entries(const struct gm_bls_file *files, size_t n, struct gm_bls_entry *out);

/* rpm's version comparison (rpmvercmp), which blscfg sorts by: <0, 0, >0. */
int gm_bls_vercmp(const char *a, const char *b);

#endif
