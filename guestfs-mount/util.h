/* SPDX-License-Identifier: GPL-2.0 */
/* Logging, host-side file helpers and string sanitizing for guestfs-mount. */
#ifndef GM_UTIL_H
#define GM_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "base/base.h"

/* Progress and errors go to stderr, or to syslog once the daemon detached. */
void gm_log_to_syslog(void);
void gm_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Monotonic seconds. */
double gm_now(void);

/* snprintf that fails with -ENAMETOOLONG instead of truncating. */
int gm_path(char *buf, size_t size, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* mkdir -p; new folders get @mode. */
int gm_mkdirs(const char *path, unsigned mode);

/* Remove a tree (never following symlinks). Missing is fine. */
int gm_rm_rf(const char *path);

/* Write @len bytes to @path through a temporary file and rename(): readers see all or
 * nothing. */
int gm_write_file(const char *path, const void *data, size_t len);

/* Open @path.tmp for writing (0600, O_EXCL after removing a stale one). */
FILE *gm_create_tmp(const char *path, char *tmp, size_t tmp_size);
/* fclose + rename the temporary over @path; removes it on failure. */
int gm_commit_tmp(FILE *f, const char *tmp, const char *path);

/* Does a regular file (not a symlink) exist at @path? Its size in *size. */
bool gm_is_file(const char *path, uint64_t *size);

/* Is there a folder (not a symlink) at @path? */
bool gm_is_dir(const char *path);

/*
 * Copy a guest-controlled string for display: printable ASCII is kept,
 * anything else (control characters, escapes, bytes >= 0x80) becomes '?'.
 * Stricter than sanitize() (lib/base): the daemon's files stay ASCII. @dst
 * may be @src.
 */
void gm_sanitize(char *dst, size_t size, const char *src);

/* Growable text buffer for generated files. */
struct gm_buf {
	char *data;
	size_t len, cap;
	bool failed;
};

void gm_buf_printf(struct gm_buf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/*
 * @s quoted and escaped, null for NULL. Valid UTF-8 is kept; a byte that is
 * not is written '?' rather than "\u00XX", which would decode to a C1
 * control for 0x80..0x9f.
 */
void gm_buf_json_string(struct gm_buf *b, const char *s);
void gm_buf_release(struct gm_buf *b);

#endif
