/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The store's insides, shared by its files and by nothing else:
 *
 *   store.c    the object, and lookups of mount paths for the FUSE layer
 *   cachedir.c the cache folder and the key that names an inspection in it
 *   publish.c  a guest's state and served tree, replaced as one
 *   worker.c   the thread that identifies disks and runs inspections
 *   running.c  which QEMU process runs which guest, and what it runs
 *
 * One mutex (lock) guards every guest's state, tree and live view; the
 * worker and file making drop it while they work.
 */
#ifndef GM_STORE_PRIV_H
#define GM_STORE_PRIV_H

#include <pthread.h>
#include <signal.h>

#include "inspect.h"
#include "live.h"
#include "meta.h"
#include "store.h"
#include "tree.h"

#define GM_MAX_RUNNING 1024
#define GM_MAX_IGNORED 1024 /* untrusted QEMU pids remembered, to log each once */

enum gm_state {
	GM_PENDING,
	GM_INSPECTING,
	GM_READY,
	GM_ERROR,
};

struct gm_guest {
	struct gm_store *store;
	const struct gm_guest_conf *conf;
	enum gm_state state;
	bool queued;  /* wants (re-)inspection */
	bool refresh; /* ignore its cached inspection (--refresh), once */
	/*
	 * The last inspection failed for the host's reasons (the appliance
	 * died, a full cache): its files fail with EIO, and the next reader
	 * has it tried again.
	 */
	bool host_failure;
	char error[512];
	char key[17];		  /* cache key of the last identification */
	struct guest_ident ident; /* disks' device and inode, for by-pid */
	uint64_t sizes[GM_MAX_DISKS];
	uint64_t vsizes[GM_MAX_DISKS]; /* what the appliance must see */
	/* The image format a disk's content starts like, for error hints. */
	const char *looks_like[GM_MAX_DISKS];
	struct gm_meta meta;
	bool have_meta;
	struct gm_tree *tree; /* never NULL after init */
	/*
	 * Bytes of files made on first use in the cache folder of derived_key,
	 * against max-derived-size; derived_gen counts the folders it counted.
	 */
	uint64_t derived;
	char derived_key[17];
	unsigned derived_gen;
	struct gm_live live; /* what its QEMU process runs, when running */
	double live_at;
	char live_key[17]; /* the inspection (kernel set) live was worked out from */
};

struct gm_store {
	const struct gm_config *cfg;
	struct gm_store_hooks hooks;
	pthread_mutex_t lock;
	pthread_cond_t changed; /* a guest's state changed */
	pthread_cond_t work;	/* the worker has something to do */
	struct gm_guest *guests;
	size_t nr;
	pthread_t worker;
	bool started, stop, worker_done;
	volatile sig_atomic_t recheck;
	pthread_mutex_t make_lock; /* files made on first use */
	time_t start_time;
	struct gm_tree *graveyard; /* replaced trees: open files may still use them */
	/* The by-pid scan, cached briefly. */
	pid_t run_pids[GM_MAX_RUNNING];
	int run_idx[GM_MAX_RUNNING];
	size_t run_nr;
	double run_at;
	/* Whose QEMUs may claim a guest by -name; fixed at creation. */
	struct guest_trust trust;
	/* Untrusted QEMU processes already judged (note_lock, not lock). */
	pthread_mutex_t note_lock;
	pid_t ignored[GM_MAX_IGNORED];
	size_t ignored_next;
};

/* A guest the access policy hides does not exist, for anyone. */
bool gm_guest_visible(const struct gm_guest *g);

/* cachedir.c */
/*
 * Make the cache folder (0700, ours) and its missing parents, and check it:
 * it and every folder leading to it must be changeable by root alone
 * (kp_path_trusted()). Removes what interrupted inspections left. Returns
 * 0, or a negative errno with @err naming the folder at fault.
 */
int gm_cache_prepare(const char *dir, struct kp_err *err);
int gm_cache_key_dir(const struct gm_store *store, char *buf, size_t size,
		     const char *key);
/* Identify every disk of @g (lock held): fills ident, sizes and key. */
int gm_cache_identify(struct gm_guest *g, struct kp_err *err);
/* Record @key as @g's current cache folder, removing the one it replaces. */
void gm_cache_remember(const struct gm_guest *g, const char *key);

/* publish.c */
const struct gm_kernel *gm_default_kernel(const struct gm_guest_conf *gc,
					  const struct gm_meta *m, const char **why,
					  char *err, size_t err_size);
/*
 * Build and install @g's tree for @state (lock NOT held). @meta may be NULL;
 * it is taken over. @keydir is the cache folder, or NULL.
 */
void gm_publish(struct gm_guest *g, enum gm_state state, const char *error,
		struct gm_meta *meta, const char *keydir);
/* Publish an error of the host, not of the guest's disks (host_failure). */
void gm_publish_host_failure(struct gm_guest *g, const char *error);

/* worker.c */
/*
 * Wait (lock held) until @g's first inspection is over. -EIO when it failed
 * for the host's reasons; a guest in that state is inspected again first.
 */
int gm_wait_ready(struct gm_guest *g);

/* running.c (lock held; each may drop and retake it while reading /proc) */
/* The configured guest QEMU process @pid runs, or NULL. */
struct gm_guest *gm_running_guest_of(struct gm_store *store, pid_t pid);
/* Refresh the list of running guests (run_pids, run_idx) when it is old. */
void gm_running_scan(struct gm_store *store);
/* What @g's QEMU process @pid runs; NULL when not known. */
const struct gm_live *gm_running_live(struct gm_guest *g, pid_t pid);
/* The QEMU pid running @g, or 0. */
pid_t gm_running_pid(struct gm_guest *g);
/* by-pid/<pid>/ of @g: the view of the kernel @pid runs, else of the default one. */
struct gm_node *gm_running_view(struct gm_guest *g, pid_t pid);

#endif
