/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The symbol cache: tables decoded from kernel images or parsed from big
 * kallsyms text, kept per user.
 *
 * A vmlinuz holds its symbols only inside the compressed kernel: Debian's
 * 6.12 image must be decompressed whole (57 MB of zstd output) to find its
 * kallsyms tables, 0.15 s and 100 MB on every report; a guest's copied
 * /proc/kallsyms takes 15 ms to parse. The table is stored once, laid out
 * as a process uses it (symcache_entry.h), under a name made from the
 * file's identity (device, inode, size, modification and change times, to
 * the nanosecond), and mapped back while that file is unchanged: nothing
 * to decompress or parse, and the table stays in the page cache. Any change to
 * the file changes its change time, which no user can set, so a changed
 * file is read again. (symsrc.c says which files are worth it.)
 *
 * The cache is a hint, never an input to trust: the folder must pass
 * kp_path_trusted() for the user (owned by them or root and writable by no
 * one else, from / down), an entry must be a regular file they own that no
 * one else may write, no larger than SYMCACHE_ENTRY_MAX, whose header repeats
 * the identity in full; the table in it is checked (symcache_entry.c).
 * Anything else is a miss: the image is decoded and the entry replaced.
 */
#ifndef KVMPROF_SYMCACHE_H
#define KVMPROF_SYMCACHE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include "base/err.h"
#include "symtab.h"

/*
 * Kallsyms or System.map text this big or bigger is cached too: a kernel's
 * full table (160k lines, 7 MB) parses in about 15 ms here, an entry maps
 * in about 2; a table of a few thousand lines parses in less than the
 * lookup costs.
 */
#define SYMCACHE_TEXT_MIN (1ULL << 20)

/* A kernel with all its symbols makes an entry of about 13 MB. */
#define SYMCACHE_ENTRY_MAX (64ULL << 20)

/*
 * Every guest kernel update leaves its old image's entry behind: past this
 * many (about 13 MB each for a full kernel), storing one removes the oldest
 * stored.
 */
#define SYMCACHE_ENTRIES 32

/*
 * The folder kvmprof uses: $KVMPROF_SYMBOL_CACHE when set (empty: no cache),
 * else $XDG_CACHE_HOME/kvmprof/symbols, else $HOME/.cache/kvmprof/symbols.
 * Returns false when there is none: set but empty, none of these set, or
 * too long for @size.
 */
bool symcache_default_dir(char *buf, size_t size);

/*
 * The table stored for the file @image describes, whose decompressed
 * kernel (0 for text) was at most @max bytes. 0 and *out on a hit; -ENOENT
 * on a miss, which includes every entry not used for one of the reasons
 * above (@why, when not NULL, says which, for -v output).
 */
int symcache_load(const char *dir, const struct stat *image, uint64_t max,
		  struct symtab **out, struct kp_err *why);

/*
 * A table used in place is checked where it is read (symtab.h): damage
 * costs answers, which its lookups count. Remove each entry this process
 * loaded whose table refused anything, while it is still the file that
 * was mapped, and tell @said (may be NULL) of each, removed or not. The
 * next run reads the image again and stores a sound entry. Call once,
 * when done with the tables: their counts are let go.
 */
typedef void (*symcache_damage_fn)(const struct kp_err *err);
void symcache_drop_damaged(symcache_damage_fn said);

/*
 * Store @st, read from the file @image describes, whose decompressed
 * kernel was @kernel_len bytes (0: text). Creates @dir (mode 0700) and any
 * missing parents; the entry appears whole or not at all (written aside,
 * then renamed); then keeps at most SYMCACHE_ENTRIES. Returns 0 or a negative
 * errno, with @err naming the path.
 */
int symcache_store(const char *dir, const struct stat *image, uint64_t kernel_len,
		   const struct symtab *st, struct kp_err *err);

#endif
