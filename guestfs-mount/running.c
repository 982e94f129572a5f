// SPDX-License-Identifier: GPL-2.0
/*
 * Running guests: which QEMU process runs which configured guest (lib/guest's
 * matcher, restricted to QEMU processes that are not our own appliance), and
 * what kernel and slide it runs (live.c), for by-pid/ and for info.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/base.h"
#include "store-priv.h"
#include "util.h"

#define RUNNING_TTL_S 1.0 /* by-pid listing is re-scanned at most this often */
#define LIVE_TTL_S    1.0 /* a running guest's LSTAR is re-read at most this often */

static pid_t parent_of(pid_t pid)
{
	char path[64], *buf, *p;
	size_t len;
	int ppid = -1;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if (kp_read_file(path, 4096, &buf, &len, NULL))
		return -1;
	/* "pid (comm) state ppid ...": comm may hold anything, so look after the last
	 * ')'. */
	p = strrchr(buf, ')');
	if (p && sscanf(p + 1, " %*c %d", &ppid) != 1)
		ppid = -1;
	free(buf);
	return ppid;
}

/* What one pass over /proc may still spend on processes it does not trust. */
struct budget {
	unsigned untrusted; /* other users' QEMUs whose descriptors may be looked at */
	unsigned claims;    /* their -name that may be read, to log an ignored one */
};

static const struct budget PASS_BUDGET = {.untrusted = 64, .claims = 8};

/* Has @pid been judged untrusted before? Remember it either way (note_lock held). */
static bool seen_before(struct gm_store *store, pid_t pid)
{
	for (size_t i = 0; i < GM_MAX_IGNORED; i++)
		if (store->ignored[i] == pid)
			return true;
	store->ignored[store->ignored_next++ % GM_MAX_IGNORED] = pid;
	return false;
}

/*
 * @pid, run by an account we do not trust, holds no guest's disk: if its
 * -name names a configured guest, say once that it is ignored. The -name is
 * read for a few new processes a pass, so fakes cannot make every pass read
 * 1 MiB of each one's arguments.
 */
static void note_ignored(struct gm_store *store, pid_t pid, uid_t uid,
			 const struct guest_ident *guests, size_t n, struct budget *b)
{
	bool seen;
	int g;

	if (!b->claims)
		return;
	pthread_mutex_lock(&store->note_lock);
	seen = seen_before(store, pid);
	pthread_mutex_unlock(&store->note_lock);
	if (seen)
		return;
	b->claims--;
	g = guest_match_name(pid, guests, n);
	if (g >= 0)
		gm_log("QEMU process %d runs as uid %u, not as root or %s, and holds "
		       "none "
		       "of guest %s's disks: its -name %s is ignored",
		       (int)pid, (unsigned)uid,
		       store->trust.qemu_user[0] ? store->trust.qemu_user : "a QEMU user",
		       guests[g].name, guests[g].name);
}

/*
 * Which of @guests QEMU process @pid runs, or -1. Our own libguestfs
 * appliance is a child QEMU that holds the same disks open: never a guest.
 * A process holding a guest's disk open is that guest whoever runs it; its
 * -name counts only when it runs as an account we trust (guest/vmmtrust.h).
 * Cheap tests come first: argv[0] (4 KiB read), then the process's uids.
 */
static int qemu_guest(struct gm_store *store, pid_t pid, const struct guest_ident *guests,
		      size_t n, struct budget *b)
{
	uid_t uid;
	int g;

	if (pid <= 0 || pid == getpid() || !guest_is_qemu(pid) ||
	    parent_of(pid) == getpid())
		return -1;
	if (guest_vmm_trusted(&store->trust, pid, &uid)) {
		g = guest_match_disk(pid, guests, n);
		if (g < 0)
			g = guest_match_name(pid, guests, n);
		return g >= 0 ? g : -1;
	}
	if (!b->untrusted)
		return -1;
	b->untrusted--;
	g = guest_match_disk(pid, guests, n);
	if (g >= 0)
		return g;
	note_ignored(store, pid, uid, guests, n, b);
	return -1;
}

/* A copy of every guest's disk identities, to match with the lock dropped. */
static struct guest_ident *idents(const struct gm_store *store)
{
	struct guest_ident *v = calloc(store->nr ? store->nr : 1, sizeof(*v));

	for (size_t i = 0; v && i < store->nr; i++)
		v[i] = store->guests[i].ident;
	return v;
}

struct gm_guest *gm_running_guest_of(struct gm_store *store, pid_t pid)
{
	struct guest_ident *v = idents(store);
	struct budget b = PASS_BUDGET;
	int g;

	if (!v)
		return NULL;
	pthread_mutex_unlock(&store->lock);
	g = qemu_guest(store, pid, v, store->nr, &b);
	free(v);
	pthread_mutex_lock(&store->lock);
	return g >= 0 ? &store->guests[g] : NULL;
}

/*
 * Every running guest's QEMU pid (at most @max), with the guest's index in
 * @idx. Only matched processes take a slot: ignored ones cannot crowd out a
 * real guest, and the work spent on them is capped per pass.
 */
static size_t scan(struct gm_store *store, pid_t *pids, int *idx, size_t max,
		   const struct guest_ident *guests, size_t n)
{
	DIR *d = opendir("/proc");
	struct budget b = PASS_BUDGET;
	struct dirent *de;
	size_t nr = 0;

	if (!d)
		return 0;
	while (nr < max && (de = readdir(d))) {
		pid_t pid = guest_parse_pid(de->d_name);
		int g = pid > 0 ? qemu_guest(store, pid, guests, n, &b) : -1;

		if (g >= 0) {
			pids[nr] = pid;
			idx[nr++] = g;
		}
	}
	closedir(d);
	return nr;
}

void gm_running_scan(struct gm_store *store)
{
	pid_t pids[GM_MAX_RUNNING];
	int idx[GM_MAX_RUNNING];
	struct guest_ident *v;
	size_t n;

	if (gm_now() - store->run_at < RUNNING_TTL_S)
		return;
	v = idents(store);
	if (!v)
		return;
	pthread_mutex_unlock(&store->lock);
	n = scan(store, pids, idx, GM_MAX_RUNNING, v, store->nr);
	pthread_mutex_lock(&store->lock);
	memcpy(store->run_pids, pids, n * sizeof(*pids));
	memcpy(store->run_idx, idx, n * sizeof(*idx));
	store->run_nr = n;
	store->run_at = gm_now();
	free(v);
}

pid_t gm_running_pid(struct gm_guest *g)
{
	struct gm_store *store = g->store;

	gm_running_scan(store);
	for (size_t i = 0; i < store->run_nr; i++)
		if (&store->guests[store->run_idx[i]] == g)
			return store->run_pids[i];
	return 0;
}

/* Re-read at most once a second: LSTAR changes only when the guest reboots. */
const struct gm_live *gm_running_live(struct gm_guest *g, pid_t pid)
{
	const struct gm_kernel *def;
	struct gm_live fresh;
	char keydir[4096], err[256];
	const char *why;
	double now = gm_now();
	bool same;

	if (!pid || g->state != GM_READY || !g->have_meta) {
		gm_live_release(&g->live);
		return NULL;
	}
	if (g->live.pid == pid && now - g->live_at < LIVE_TTL_S)
		return &g->live;
	def = gm_default_kernel(g->conf, &g->meta, &why, err, sizeof(err));
	/* What was worked out for another inspection's kernels does not hold. */
	same = !strcmp(g->live_key, g->key);
	gm_live_probe(g->store->cfg->kvm_debugfs, pid, &g->meta,
		      gm_cache_key_dir(g->store, keydir, sizeof(keydir), g->key) ? NULL
										 : keydir,
		      def, same ? &g->live : NULL, &fresh);
	gm_live_release(&g->live);
	g->live = fresh;
	g->live_at = now;
	memcpy(g->live_key, g->key, sizeof(g->live_key));
	return &g->live;
}

struct gm_node *gm_running_view(struct gm_guest *g, pid_t pid)
{
	const struct gm_live *l = gm_running_live(g, pid);
	const struct gm_tree *t = g->tree;

	if (l && l->kernel >= 0 && (size_t)l->kernel < t->nr_pidviews &&
	    t->pidviews[l->kernel])
		return t->pidviews[l->kernel];
	return t->pidview;
}
