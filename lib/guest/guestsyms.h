/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Where a guest's kernel symbols are: the files to try for its kernel
 * table, its list of loaded modules and its module tree. They come from
 * the options a command was given and from the guest tree (layout.h) under
 * a mount point, in guestfs-mount's <name>/ folders or perf kvm's <pid>/
 * and by-pid/<pid>/ ones. Every command that resolves guest samples finds
 * them here, so that all look in the same places, in the same order.
 */
#ifndef KVMPROF_GUESTSYMS_H
#define KVMPROF_GUESTSYMS_H

#include <stdbool.h>
#include <stddef.h>

/* What the user named; NULL fields mean "look in the usual places". */
struct guestsyms_opts {
	const char *mount;    /* the guest tree; NULL: GUEST_MOUNT_DEFAULT */
	const char *vmlinux;  /* --guestvmlinux */
	const char *kallsyms; /* --guestkallsyms */
	const char *modules;  /* --guestmodules */
};

#define GUESTSYMS_PATH_MAX  512
#define GUESTSYMS_FILES_MAX 5 /* two named by the user, three in the tree */

struct guestsyms_file {
	char path[GUESTSYMS_PATH_MAX];
	bool given;   /* named by the user (see guestsyms_load_first()) */
	bool runtime; /* a running guest's /proc/kallsyms: runtime addresses */
};

/*
 * The files that may hold the kernel symbols of guest @name ("-" or NULL
 * when unknown) run by QEMU process @pid, most specific first:
 * --guestvmlinux, --guestkallsyms, then in the tree <name>/kallsyms,
 * perf's <pid>/proc/kallsyms and by-pid/<pid>/proc/kallsyms. Fills at most
 * @max of @files and returns how many.
 */
int guestsyms_kernel_files(const struct guestsyms_opts *o, const char *name, int pid,
			   struct guestsyms_file *files, int max);

/* Loads @f for the caller; false when it cannot. */
typedef bool (*guestsyms_load_fn)(void *ctx, const struct guestsyms_file *f);

/*
 * Load the first of @files that @load accepts, in order. A file the user
 * named is always tried, so that its own error is what the user sees, and
 * its failure ends the search: the user asked for that file and no other.
 * The usual places are tried only when present. Returns the index of the
 * file loaded, or -1.
 */
int guestsyms_load_first(const struct guestsyms_file *files, int n,
			 guestsyms_load_fn load, void *ctx);

struct guestsyms_modules {
	char list[512]; /* the /proc/modules-format list, "" when none */
	char tree[700]; /* the folder with the module files, "" when unknown */
};

/*
 * The loaded modules of guest @name (as above) run by @pid: the list from
 * the first tree folder that has one (<name>/modules, <pid>/proc/modules,
 * by-pid/<pid>/proc/modules) and, when that folder names the guest's
 * release, its lib/modules/<release>/. --guestmodules replaces the list,
 * not the tree. False when no list is known.
 */
bool guestsyms_modules(const struct guestsyms_opts *o, const char *name, int pid,
		       struct guestsyms_modules *out);

/*
 * The kernel release in version file @path: guestfs-mount's <name>/version
 * holds the release alone, perf's proc/version is the guest's /proc/version
 * ("Linux version RELEASE ..."). False when unreadable or empty.
 */
bool guestsyms_release(const char *path, char *out, size_t size);

#endif
