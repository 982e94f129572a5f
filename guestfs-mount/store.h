/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The store behind the mount: every configured guest's state and served
 * tree, the cache folder keyed by disk identity, and the worker thread that
 * inspects guests. The FUSE layer (fs.c) only calls the functions below,
 * with the store it was given as private data; the store knows nothing of
 * FUSE, so it is tested without a mount (tests/unit/test_gm_store.c).
 *
 * Paths are those of the mount: "/", "/<guest>/...", "/by-pid/<pid>/...".
 */
#ifndef GM_STORE_H
#define GM_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "guest/guest.h"
#include "base/base.h"

struct gm_store;
struct gm_job;

/* What the store asks of the rest of the daemon. NULL members take the defaults. */
struct gm_store_hooks {
	/* Is @guest exposed? A hidden guest does not exist for anyone. Default: yes. */
	bool (*visible)(const char *guest, void *ctx);
	/* Inspect @n guests in one appliance launch. Default: gm_inspect(). */
	void (*inspect)(struct gm_job **jobs, size_t n, void *ctx);
	void *ctx;
};

/* Prepare the cache folder and every guest's initial state. */
int gm_store_new(const struct gm_config *cfg, const struct gm_store_hooks *hooks,
		 bool refresh, struct gm_store **out, struct kp_err *err);
/* Start the worker (after daemonizing: threads do not survive fork). */
int gm_store_start(struct gm_store *store);
/* Ask the worker to re-check every disk's identity (SIGHUP); async-signal-safe. */
void gm_store_recheck(struct gm_store *store);
/* Stop the worker. Returns false when it is stuck in an inspection. */
bool gm_store_stop(struct gm_store *store, double timeout_s);
void gm_store_free(struct gm_store *store);

struct gm_entry {
	bool dir;
	uint64_t size;
	time_t mtime;
	enum gm_kind kind;
	/* For access decisions: */
	const char *guest; /* whose artifact; NULL for the top and by-pid/ */
	bool by_pid;	   /* under by-pid/ */
	bool module_tree;  /* a folder of a lib/modules tree */
};

/*
 * Files made on first use (kernel ELF, decompressed modules) are made by
 * gm_store_open(), within max-file-size and the guest's max-derived-size
 * (-EFBIG, -EDQUOT); a stat never makes one and reports the size its source
 * states, or 0 when it states none.
 */
int gm_store_stat(struct gm_store *store, const char *path, struct gm_entry *e);

typedef int (*gm_fill_fn)(void *ctx, const char *name, const struct gm_entry *e);
int gm_store_list(struct gm_store *store, const char *path, gm_fill_fn fill, void *ctx);

struct gm_open;
/* Decides whether the caller may open a file: 0 or a negative errno. */
typedef int (*gm_may_open_fn)(const struct gm_entry *e);
int gm_store_open(struct gm_store *store, const char *path, gm_may_open_fn may_open,
		  struct gm_open **h);
/*
 * Does the content behind this path stay the same until a new inspection?
 * Cache files do; in-memory files and everything under by-pid/ (one path
 * changes file when the guest boots another kernel) do not.
 */
bool gm_store_is_stable(const struct gm_open *h);
/*
 * Was the file made by this open, with a size no earlier stat could know (its
 * source states none)? The kernel may still hold the stated 0: read directly.
 */
bool gm_store_is_sized_late(const struct gm_open *h);
int gm_store_read(struct gm_open *h, char *buf, size_t size, off_t off);
void gm_store_close(struct gm_open *h);

/* The SELinux label of a kind of file. */
const char *gm_store_label(const struct gm_store *store, enum gm_kind kind);

#endif
