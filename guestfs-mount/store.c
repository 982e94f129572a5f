// SPDX-License-Identifier: GPL-2.0
#include "store.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/fs.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "access.h"
#include "artifacts.h"
#include "disks.h"
#include "base/base.h"
#include "inspect.h"
#include "live.h"
#include "meta.h"
#include "running.h"
#include "tree.h"
#include "util.h"

#define CACHE_FORMAT   "gm1"
#define WAIT_SECONDS   900  /* longest a reader waits for an inspection */
#define RUNNING_TTL_MS 1000 /* by-pid listing is re-scanned at most this often */
#define LIVE_TTL_S     1.0  /* a running guest's LSTAR is re-read at most this often */
#define MAX_RUNNING    1024

enum gm_state {
	GM_PENDING,
	GM_INSPECTING,
	GM_READY,
	GM_ERROR,
};

static const char *const state_names[] = {"pending", "inspecting", "ready", "error"};

struct gm_guest {
	const struct gm_guest_conf *conf;
	enum gm_state state;
	bool queued;  /* wants (re-)inspection */
	bool refresh; /* ignore its cached inspection (--refresh), once */
	char error[512];
	char key[17];	       /* cache key of the last identification */
	struct gm_ident ident; /* disks' device and inode, for by-pid */
	uint64_t sizes[GM_MAX_DISKS];
	uint64_t vsizes[GM_MAX_DISKS]; /* what the appliance must see */
	const char
		*looks_like[GM_MAX_DISKS]; /* image format a disk's content starts like */
	struct gm_meta meta;
	bool have_meta;
	struct gm_tree *tree; /* never NULL after init */
	struct gm_live live;  /* what its QEMU process runs, when running */
	double live_at;
};

static struct {
	const struct gm_config *cfg;
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
	struct gm_tree *graveyard;
	/* by-pid scan, cached briefly */
	pid_t run_pids[MAX_RUNNING];
	int run_idx[MAX_RUNNING];
	size_t run_nr;
	double run_at;
} S = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.changed = PTHREAD_COND_INITIALIZER,
	.work = PTHREAD_COND_INITIALIZER,
	.make_lock = PTHREAD_MUTEX_INITIALIZER,
};

const char *gm_store_label(enum gm_kind kind)
{
	return gm_config_label(S.cfg, kind);
}

/* --- disks and the cache key ----------------------------------------------------------
 */

static void fnv(uint64_t *h, const void *p, size_t n)
{
	const unsigned char *c = p;

	for (size_t i = 0; i < n; i++) {
		*h ^= c[i];
		*h *= 0x100000001b3ULL;
	}
}

static void fnv_str(uint64_t *h, const char *s)
{
	fnv(h, s, strlen(s) + 1);
}

static void make_key(const struct gm_guest_conf *gc, const struct gm_disk_info *ids,
		     char key[17])
{
	const struct gm_config *cfg = S.cfg;
	uint64_t h = 0xcbf29ce484222325ULL,
		 v[4] = {cfg->max_file_size, cfg->max_total_size, cfg->max_files,
			 cfg->max_kernels};

	fnv_str(&h, CACHE_FORMAT);
	fnv_str(&h, gc->name);
	fnv(&h, v, sizeof(v));
	for (size_t i = 0; i < gc->nr_disks; i++) {
		uint64_t d[7] = {(uint64_t)ids[i].dev,
				 (uint64_t)ids[i].ino,
				 (uint64_t)ids[i].rdev,
				 ids[i].size,
				 (uint64_t)ids[i].mtime.tv_sec,
				 (uint64_t)ids[i].mtime.tv_nsec,
				 gc->disks[i].format};

		fnv_str(&h, gc->disks[i].path);
		fnv(&h, d, sizeof(d));
	}
	snprintf(key, 17, "%016" PRIx64, h);
}

/* Identify every disk of @g (lock held): fills ident, sizes and key, or an error. */
static int identify(struct gm_guest *g, char *msg, size_t size)
{
	struct gm_disk_info ids[GM_MAX_DISKS];

	for (size_t i = 0; i < g->conf->nr_disks; i++) {
		struct kp_err err = {0};
		int ret = gm_disk_identify(&g->conf->disks[i], S.cfg->libguestfs_overlay,
					   &ids[i], &err);

		if (ret) {
			snprintf(msg, size, "%s", err.msg);
			return ret;
		}
	}
	g->ident.nr = g->conf->nr_disks;
	for (size_t i = 0; i < g->conf->nr_disks; i++) {
		g->ident.dev[i] = ids[i].dev;
		g->ident.ino[i] = ids[i].ino;
		g->sizes[i] = ids[i].size;
		g->vsizes[i] = ids[i].virtual_size;
		g->looks_like[i] = ids[i].looks_like;
	}
	make_key(g->conf, ids, g->key);
	return 0;
}

/* --- the cache folder ----------------------------------------------------------------
 */

static int prepare_cache(const char *dir, struct kp_err *err)
{
	char parent[4096], *slash;
	struct stat st;
	DIR *d;
	struct dirent *de;
	int ret;

	snprintf(parent, sizeof(parent), "%s", dir);
	slash = strrchr(parent, '/');
	if (slash && slash != parent) {
		*slash = '\0';
		ret = gm_mkdirs(parent, 0755);
		if (ret)
			return kp_errorf(err, -ret, "cache %s: %s", parent,
					 strerror(-ret));
	}
	if (mkdir(dir, 0700) && errno != EEXIST)
		return kp_errorf(err, errno, "cache %s: %s", dir, strerror(errno));
	if (lstat(dir, &st))
		return kp_errorf(err, errno, "cache %s: %s", dir, strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return kp_errorf(err, ENOTDIR, "cache %s: not a folder (a symlink?)",
				 dir);
	if (st.st_uid != geteuid())
		return kp_errorf(err, EPERM, "cache %s: owned by uid %u, not by us", dir,
				 (unsigned)st.st_uid);
	if ((st.st_mode & 07777) != 0700 && chmod(dir, 0700))
		return kp_errorf(err, errno, "cache %s: chmod 0700: %s", dir,
				 strerror(errno));
	/* Leftovers of inspections that were interrupted. */
	d = opendir(dir);
	while (d && (de = readdir(d))) {
		char path[4096];

		if (!strncmp(de->d_name, ".tmp-", 5) &&
		    !gm_path(path, sizeof(path), "%s/%s", dir, de->d_name))
			gm_rm_rf(path);
	}
	if (d)
		closedir(d);
	return 0;
}

static int key_dir(char *buf, size_t size, const char *key)
{
	return gm_path(buf, size, "%s/%s", S.cfg->cache_dir, key);
}

/* The key a guest's cache folder had before, to remove it when it is replaced. */
static void remember_key(const struct gm_guest *g, const char *key)
{
	char path[4096], old[64] = "", *buf;
	size_t len;

	if (gm_path(path, sizeof(path), "%s/by-name", S.cfg->cache_dir) ||
	    gm_mkdirs(path, 0700) ||
	    gm_path(path, sizeof(path), "%s/by-name/%s", S.cfg->cache_dir, g->conf->name))
		return;
	if (!kp_read_file(path, 64, &buf, &len, NULL)) {
		snprintf(old, sizeof(old), "%.*s", (int)strcspn(buf, "\n"), buf);
		free(buf);
	}
	if (old[0] && strcmp(old, key) && strspn(old, "0123456789abcdef") == 16 &&
	    !old[16]) {
		char dir[4096];

		if (!key_dir(dir, sizeof(dir), old))
			gm_rm_rf(dir);
	}
	gm_write_file(path, key, strlen(key));
}

/* --- publishing a guest's state --------------------------------------------------------
 */

static const struct gm_kernel *default_kernel(const struct gm_guest_conf *gc,
					      const struct gm_meta *m, const char **why,
					      char *err, size_t err_size)
{
	const struct gm_kernel *k;

	*why = NULL;
	if (!m->nr_kernels)
		return NULL;
	if (gc->kernel) {
		struct gm_buf b = {0};

		k = gm_meta_kernel(m, gc->kernel);
		if (k) {
			*why = "configured";
			return k;
		}
		for (size_t i = 0; i < m->nr_kernels; i++)
			gm_buf_printf(&b, "%s%s", i ? ", " : "", m->kernels[i].ver);
		snprintf(err, err_size,
			 "configured kernel %s is not installed (installed: %s)",
			 gc->kernel, b.data ? b.data : "");
		gm_buf_release(&b);
		return NULL;
	}
	k = m->boot_default[0] ? gm_meta_kernel(m, m->boot_default) : NULL;
	if (k) {
		*why = "bootloader default";
		return k;
	}
	*why = "newest";
	return &m->kernels[0];
}

/*
 * Build and install @g's tree for @state (lock NOT held; @g's conf and the
 * arguments are stable). @meta may be NULL. @keydir is the cache folder.
 */
static void publish(struct gm_guest *g, enum gm_state state, const char *error,
		    struct gm_meta *meta, const char *keydir)
{
	struct gm_info_ctx c = {.conf = g->conf};
	struct gm_buf info = {0}, json = {0};
	char kerr[512] = "", fullerr[1024];
	const struct gm_kernel *def = NULL;
	struct gm_tree *t;

	if (meta && state == GM_READY) {
		def = default_kernel(g->conf, meta, &c.def_why, kerr, sizeof(kerr));
		if (!def && !kerr[0])
			snprintf(kerr, sizeof(kerr), "no kernel");
		else if (def && def->symsrc == GM_SYMS_NONE)
			snprintf(kerr, sizeof(kerr), "kernel %s: no symbols: %s",
				 def->ver, def->error[0] ? def->error : "unknown reason");
		if (kerr[0]) {
			state = GM_ERROR;
			error = kerr;
		}
	}
	if (error && state == GM_ERROR) {
		/* No OS found (inspect.h): a wrong disk format would explain it. */
		bool no_os = meta && meta->error_code == ENOMEDIUM;
		const char *like = NULL;

		for (size_t i = 0; i < g->conf->nr_disks && no_os; i++)
			like = like ? like : g->looks_like[i];
		snprintf(fullerr, sizeof(fullerr), "%s%s%s%s", error,
			 like ? " (a disk configured as raw starts like a " : "",
			 like ? like : "", like ? " image: is that its format?)" : "");
		error = fullerr;
		gm_log("%s: error: %s", g->conf->name, error);
	}
	c.state = state_names[state];
	c.error = state == GM_ERROR ? error : NULL;
	c.meta = meta;
	c.def = def;
	c.key = keydir ? g->key : NULL;
	c.disk_sizes = g->sizes[0] ? g->sizes : NULL;
	gm_info_text(&info, &c);
	gm_info_json(&json, &c);
	t = gm_tree_build(g->conf->name, keydir, meta, def,
			  meta && meta->inspected_at ? meta->inspected_at : S.start_time,
			  info.data ? info.data : "", info.len,
			  json.data ? json.data : "", json.len);
	gm_buf_release(&info);
	gm_buf_release(&json);
	if (!t)
		gm_log("%s: out of memory building its tree", g->conf->name);

	pthread_mutex_lock(&S.lock);
	if (t) {
		if (g->tree) {
			g->tree->older = S.graveyard;
			S.graveyard = g->tree;
		}
		g->tree = t;
	}
	g->state = state;
	gm_sanitize(g->error, sizeof(g->error), state == GM_ERROR && error ? error : "");
	if (meta && meta != &g->meta) {
		gm_meta_release(&g->meta);
		g->meta = *meta;
		memset(meta, 0, sizeof(*meta));
		g->have_meta = true;
	}
	pthread_cond_broadcast(&S.changed);
	pthread_mutex_unlock(&S.lock);
}

/* --- the worker
 * --------------------------------------------------------------------------- */

struct work {
	struct gm_guest *g;
	struct gm_job job;
	char key[17];
	bool inspect;
};

/* Serve a guest from its cache folder if a complete inspection is there. */
static bool from_cache(struct work *w)
{
	struct gm_meta m;
	char dir[4096], path[4096];
	bool skip = w->g->refresh;

	w->g->refresh = false; /* only the worker uses it */
	if (skip || key_dir(dir, sizeof(dir), w->key) ||
	    gm_path(path, sizeof(path), "%s/meta", dir) || gm_meta_load(&m, path))
		return false;
	gm_log("%s: serving the inspection cached in %s", w->g->conf->name, dir);
	publish(w->g, m.error[0] ? GM_ERROR : GM_READY, m.error[0] ? m.error : NULL, &m,
		dir);
	gm_meta_release(&m);
	return true;
}

static void finish(struct work *w)
{
	struct gm_job *job = &w->job;
	struct gm_meta *m = &job->meta;
	char dir[4096], path[4096];
	double t0 = gm_now();
	int ret;

	if (job->ret && !m->error[0]) {
		/* Not a conclusion about the disk's content: not cached, tried again next
		 * time. */
		gm_rm_rf(job->dir);
		publish(w->g, GM_ERROR, job->err.msg, NULL, NULL);
		return;
	}
	if (job->ret)
		snprintf(m->error, sizeof(m->error), "%s", job->err.msg);
	for (size_t i = 0; !job->ret && i < m->nr_kernels; i++) {
		char kdir[4096];

		if (!gm_path(kdir, sizeof(kdir), "%s/" GM_K_DIR "/%s", job->dir,
			     m->kernels[i].ver))
			gm_derive_kernel(kdir, S.cfg, m, &m->kernels[i]);
	}
	m->derive_s = gm_now() - t0;
	m->inspected_at = time(NULL);
	ret = key_dir(dir, sizeof(dir), w->key);
	if (!ret)
		ret = gm_path(path, sizeof(path), "%s/meta", job->dir);
	if (!ret)
		ret = gm_meta_save(m, path);
	if (!ret) {
		gm_rm_rf(dir);
		ret = rename(job->dir, dir) ? -errno : 0;
	}
	if (ret) {
		gm_log("%s: cannot store the inspection in %s: %s", w->g->conf->name, dir,
		       strerror(-ret));
		gm_rm_rf(job->dir);
		publish(w->g, GM_ERROR, "cannot write the cache", NULL, NULL);
		return;
	}
	remember_key(w->g, w->key);
	if (!job->ret)
		gm_log("%s: ready: %zu kernel%s, %" PRIu64
		       " files copied (%.1f MB) in %.1f s, "
		       "symbols in %.1f s",
		       w->g->conf->name, m->nr_kernels, m->nr_kernels == 1 ? "" : "s",
		       m->files, (double)m->bytes / 1e6, m->extract_s, m->derive_s);
	publish(w->g, job->ret ? GM_ERROR : GM_READY, job->ret ? m->error : NULL, m, dir);
}

static int start_job(struct work *w)
{
	char tmpl[4096];

	memset(&w->job, 0, sizeof(w->job));
	w->job.conf = w->g->conf;
	w->job.cfg = S.cfg;
	memcpy(w->job.vsizes, w->g->vsizes, sizeof(w->job.vsizes));
	if (gm_path(tmpl, sizeof(tmpl), "%s/.tmp-%s-XXXXXX", S.cfg->cache_dir, w->key) ||
	    !mkdtemp(tmpl))
		return -errno;
	snprintf(w->job.dir, sizeof(w->job.dir), "%s", tmpl);
	return 0;
}

static void run(struct work *ws, size_t n)
{
	struct gm_job **jobs = calloc(n ? n : 1, sizeof(*jobs));
	size_t nj = 0;

	if (!jobs)
		return;
	for (size_t i = 0; i < n; i++) {
		struct work *w = &ws[i];
		char msg[512];

		pthread_mutex_lock(&S.lock);
		w->g->queued = false;
		if (identify(w->g, msg, sizeof(msg))) {
			pthread_mutex_unlock(&S.lock);
			publish(w->g, GM_ERROR, msg, NULL, NULL);
			continue;
		}
		memcpy(w->key, w->g->key, sizeof(w->key));
		pthread_mutex_unlock(&S.lock);
		if (from_cache(w))
			continue;
		if (start_job(w)) {
			publish(w->g, GM_ERROR, "cannot create a folder in the cache",
				NULL, NULL);
			continue;
		}
		pthread_mutex_lock(&S.lock);
		if (w->g->state != GM_READY)
			w->g->state = GM_INSPECTING;
		pthread_mutex_unlock(&S.lock);
		w->inspect = true;
		jobs[nj++] = &w->job;
	}
	if (S.cfg->shared_appliance && nj > 1) {
		gm_inspect(jobs, nj);
		for (size_t i = 0; i < n; i++)
			if (ws[i].inspect && !ws[i].job.retry_alone)
				finish(&ws[i]);
	}
	for (size_t i = 0; i < n && !S.stop; i++) {
		struct work *w = &ws[i];

		if (!w->inspect ||
		    (S.cfg->shared_appliance && nj > 1 && !w->job.retry_alone))
			continue;
		if (w->job.retry_alone)
			gm_log("%s: inspecting it alone (%s)", w->g->conf->name,
			       w->job.err.msg);
		gm_meta_release(&w->job.meta);
		gm_rm_rf(w->job.dir);
		mkdir(w->job.dir, 0700);
		{
			struct gm_job *one = &w->job;

			gm_inspect(&one, 1);
		}
		finish(w);
	}
	for (size_t i = 0; i < n; i++)
		gm_meta_release(&ws[i].job.meta);
	free(jobs);
}

/* A guest the access policy hides does not exist, for anyone. */
static bool visible(const struct gm_guest *g)
{
	return gm_access_exposes(g->conf->name);
}

static void recheck_disks(void)
{
	for (size_t i = 0; i < S.nr; i++) {
		struct gm_guest *g = &S.guests[i];
		char old[17], msg[512];

		if (g->state == GM_PENDING || !visible(g))
			continue;
		memcpy(old, g->key, sizeof(old));
		if (identify(g, msg, sizeof(msg))) {
			/* Still the same problem: nothing new to say. */
			if (g->state != GM_ERROR || strcmp(g->error, msg))
				g->queued = true;
		} else if (strcmp(old, g->key) ||
			   (g->state == GM_ERROR && !g->have_meta)) {
			gm_log("%s: disk changed: inspecting it again", g->conf->name);
			g->queued = true;
		}
	}
}

static void *worker_main(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&S.lock);
	while (!S.stop) {
		struct work *ws;
		size_t n = 0;

		if (S.recheck) {
			S.recheck = 0;
			recheck_disks();
		}
		for (size_t i = 0; i < S.nr; i++)
			n += S.guests[i].queued;
		if (!n) {
			struct timespec ts;

			clock_gettime(CLOCK_REALTIME, &ts);
			ts.tv_sec += 1;
			pthread_cond_timedwait(&S.work, &S.lock, &ts);
			continue;
		}
		ws = calloc(n, sizeof(*ws));
		n = 0;
		for (size_t i = 0; ws && i < S.nr; i++)
			if (S.guests[i].queued)
				ws[n++].g = &S.guests[i];
		pthread_mutex_unlock(&S.lock);
		if (ws)
			run(ws, n);
		free(ws);
		pthread_mutex_lock(&S.lock);
	}
	S.worker_done = true;
	pthread_cond_broadcast(&S.changed);
	pthread_mutex_unlock(&S.lock);
	return NULL;
}

/* --- set-up
 * ----------------------------------------------------------------------------- */

int gm_store_init(const struct gm_config *cfg, bool refresh, struct kp_err *err)
{
	int ret;

	S.cfg = cfg;
	S.start_time = time(NULL);
	ret = prepare_cache(cfg->cache_dir, err);
	if (ret)
		return ret;
	S.guests = calloc(cfg->nr_guests ? cfg->nr_guests : 1, sizeof(*S.guests));
	if (!S.guests)
		return kp_errorf(err, ENOMEM, "out of memory");
	S.nr = cfg->nr_guests;
	for (size_t i = 0; i < S.nr; i++) {
		struct gm_guest *g = &S.guests[i];

		g->conf = &cfg->guests[i];
		g->ident.name = g->conf->name;
		g->state = GM_PENDING;
		/* A guest the policy hides is inspected when it is exposed and read. */
		g->queued = !cfg->lazy && gm_access_exposes(g->conf->name);
		g->refresh = refresh;
		publish(g, GM_PENDING, NULL, NULL, NULL);
		if (!g->tree)
			return kp_errorf(err, ENOMEM, "out of memory");
	}
	return 0;
}

int gm_store_start(void)
{
	int ret = pthread_create(&S.worker, NULL, worker_main, NULL);

	S.started = !ret;
	return -ret;
}

void gm_store_recheck(void)
{
	S.recheck = 1;
}

bool gm_store_stop(double timeout_s)
{
	struct timespec ts;
	bool done;

	if (!S.started)
		return true;
	pthread_mutex_lock(&S.lock);
	S.stop = true;
	pthread_cond_broadcast(&S.work);
	pthread_cond_broadcast(&S.changed);
	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += (time_t)timeout_s;
	while (!S.worker_done)
		if (pthread_cond_timedwait(&S.changed, &S.lock, &ts))
			break;
	done = S.worker_done;
	pthread_mutex_unlock(&S.lock);
	if (done) {
		pthread_join(S.worker, NULL);
		S.started = false;
	}
	return done;
}

void gm_store_release(void)
{
	for (size_t i = 0; i < S.nr; i++) {
		gm_tree_free(S.guests[i].tree);
		gm_live_release(&S.guests[i].live);
		gm_meta_release(&S.guests[i].meta);
	}
	while (S.graveyard) {
		struct gm_tree *t = S.graveyard;

		S.graveyard = t->older;
		gm_tree_free(t);
	}
	free(S.guests);
	S.guests = NULL;
	S.nr = 0;
}

/* --- lookups (for fs.c)
 * ------------------------------------------------------------------ */

static struct gm_guest *guest_by_name(const char *name, size_t len)
{
	for (size_t i = 0; i < S.nr; i++)
		if (strlen(S.guests[i].conf->name) == len &&
		    !memcmp(S.guests[i].conf->name, name, len))
			return visible(&S.guests[i]) ? &S.guests[i] : NULL;
	return NULL;
}

/* Wait (lock held) until @g's first inspection is over. */
static int wait_ready(struct gm_guest *g)
{
	struct timespec ts;

	if (g->state == GM_PENDING && !g->queued) {
		g->queued = true; /* "inspect on-access" */
		pthread_cond_broadcast(&S.work);
	}
	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += WAIT_SECONDS;
	while ((g->state == GM_PENDING || g->state == GM_INSPECTING) && !S.stop) {
		if (pthread_cond_timedwait(&S.changed, &S.lock, &ts) == ETIMEDOUT)
			return -EAGAIN;
	}
	return S.stop ? -ESHUTDOWN : 0;
}

/* The identities of every guest's disks, for matching QEMU processes (lock held). */
static struct gm_ident *idents(void)
{
	struct gm_ident *v = calloc(S.nr ? S.nr : 1, sizeof(*v));

	for (size_t i = 0; v && i < S.nr; i++)
		v[i] = S.guests[i].ident;
	return v;
}

/* Which guest runs in QEMU process @pid; -1 if none. Drops and retakes the lock. */
static int pid_guest(pid_t pid)
{
	struct gm_ident *v = idents();
	int g;

	if (!v)
		return -1;
	pthread_mutex_unlock(&S.lock);
	g = gm_running_guest(pid, v, S.nr);
	free(v);
	pthread_mutex_lock(&S.lock);
	return g;
}

static void scan_running(void)
{
	struct gm_ident *v;
	double now = gm_now();

	if (now - S.run_at < RUNNING_TTL_MS / 1000.0)
		return;
	v = idents();
	if (!v)
		return;
	pthread_mutex_unlock(&S.lock);
	{
		pid_t pids[MAX_RUNNING];
		int idx[MAX_RUNNING];
		size_t n = gm_running_scan(pids, idx, MAX_RUNNING, v, S.nr);

		pthread_mutex_lock(&S.lock);
		memcpy(S.run_pids, pids, n * sizeof(*pids));
		memcpy(S.run_idx, idx, n * sizeof(*idx));
		S.run_nr = n;
		S.run_at = gm_now();
	}
	free(v);
}

enum where { AT_ROOT, AT_BYPID, AT_NODE };

struct spot {
	enum where where;
	struct gm_node *node;
	time_t mtime;
	struct gm_guest *guest; /* when the node is a guest's folder itself */
	struct gm_guest *owner; /* whose tree the node is in */
	bool by_pid;
	pid_t pid; /* by-pid/<pid>/... */
	/* A file whose content depends on the running guest (relocated kallsyms, info).
	 */
	bool live;
	const char *data;
	size_t len;
	char *owned; /* data, when it was made for this lookup */
};

/* The QEMU pid running @g, or 0 (lock held; dropped while scanning). */
static pid_t running_pid(struct gm_guest *g)
{
	scan_running();
	for (size_t i = 0; i < S.run_nr; i++)
		if (&S.guests[S.run_idx[i]] == g)
			return S.run_pids[i];
	return 0;
}

/* What @g's QEMU process @pid runs (lock held), re-read at most once a second. */
static const struct gm_live *live_of(struct gm_guest *g, pid_t pid)
{
	const struct gm_kernel *def;
	struct gm_live fresh;
	char keydir[4096], err[256];
	const char *why;
	double now = gm_now();

	if (!pid || g->state != GM_READY || !g->have_meta) {
		gm_live_release(&g->live);
		return NULL;
	}
	if (g->live.pid == pid && now - g->live_at < LIVE_TTL_S)
		return &g->live;
	def = default_kernel(g->conf, &g->meta, &why, err, sizeof(err));
	gm_live_probe(S.cfg->kvm_debugfs, pid, &g->meta,
		      key_dir(keydir, sizeof(keydir), g->key) ? NULL : keydir, def,
		      &g->live, &fresh);
	gm_live_release(&g->live);
	g->live = fresh;
	g->live_at = now;
	return &g->live;
}

/* Relocated kallsyms and info with the running guest's pid and slide (lock held). */
static void apply_live(struct spot *s, struct gm_guest *g)
{
	const struct gm_node *n = s->node;
	struct gm_info_running r;
	const struct gm_live *l;
	struct gm_buf b = {0};
	pid_t pid;

	if (s->where != AT_NODE || n->dir ||
	    (n->kind != GM_KIND_KALLSYMS && n->kind != GM_KIND_INFO))
		return;
	pid = s->pid ? s->pid : running_pid(g);
	l = live_of(g, pid);
	if (!l)
		return;
	if (n->kind == GM_KIND_KALLSYMS) {
		if (l->kernel < 0 || n->kernel != l->kernel || l->len != n->size)
			return;
		s->live = true;
		s->data = l->kallsyms;
		s->len = l->len;
		return;
	}
	r = (struct gm_info_running){
		.pid = (int)pid,
		.kernel = l->kernel >= 0 ? g->meta.kernels[l->kernel].ver : NULL,
		.slide = l->slide,
		.lstar = l->lstar,
		.why = l->why,
		.also = l->also,
	};
	gm_info_add_running(&b, n->data, n->size, !strcmp(n->name, GUEST_F_INFO_JSON), &r);
	if (!b.data)
		return;
	s->live = true;
	s->data = s->owned = b.data;
	s->len = b.len;
}

static int next_comp(const char **p, char *comp, size_t size)
{
	size_t n;

	while (**p == '/')
		(*p)++;
	n = strcspn(*p, "/");
	if (!n)
		return 0;
	if (n >= size)
		return -ENAMETOOLONG;
	memcpy(comp, *p, n);
	comp[n] = '\0';
	*p += n;
	return 1;
}

/* by-pid/<pid>/ of @g: the view of the kernel that @pid runs, else of the default one. */
static struct gm_node *pid_view(struct gm_guest *g, pid_t pid)
{
	const struct gm_live *l = live_of(g, pid);
	const struct gm_tree *t = g->tree;

	if (l && l->kernel >= 0 && (size_t)l->kernel < t->nr_pidviews &&
	    t->pidviews[l->kernel])
		return t->pidviews[l->kernel];
	return t->pidview;
}

/* Resolve a mount path (lock held); release with spot_done(). */
static int resolve(const char *path, struct spot *s, bool wait_guest_dir)
{
	char comp[256];
	const char *p = path;
	struct gm_guest *g;
	struct gm_node *n;
	int ret;

	memset(s, 0, sizeof(*s));
	s->mtime = S.start_time;
	ret = next_comp(&p, comp, sizeof(comp));
	if (ret <= 0) {
		s->where = AT_ROOT;
		return ret;
	}
	if (!strcmp(comp, GUEST_TREE_BY_PID)) {
		pid_t pid;
		int gi;

		ret = next_comp(&p, comp, sizeof(comp));
		s->by_pid = true;
		if (ret <= 0) {
			s->where = AT_BYPID;
			return ret;
		}
		pid = gm_parse_pid(comp);
		if (pid < 0 || (gi = pid_guest(pid)) < 0 || !visible(&S.guests[gi]))
			return -ENOENT;
		g = &S.guests[gi];
		s->owner = g;
		s->pid = pid;
		ret = wait_ready(g);
		if (ret)
			return ret;
		n = pid_view(g, pid);
		if (!n)
			return -ENOENT;
	} else {
		g = guest_by_name(comp, strlen(comp));
		if (!g)
			return -ENOENT;
		s->owner = g;
		n = g->tree->root;
		ret = next_comp(&p, comp, sizeof(comp));
		if (ret < 0)
			return ret;
		if (!ret) {
			if (wait_guest_dir && (ret = wait_ready(g)))
				return ret;
			s->where = AT_NODE;
			s->node = g->tree->root;
			s->mtime = g->tree->mtime;
			s->guest = g;
			return 0;
		}
		/* info and info.json answer at once, even during an inspection. */
		if (strcmp(comp, GUEST_F_INFO) && strcmp(comp, GUEST_F_INFO_JSON) &&
		    (ret = wait_ready(g)))
			return ret;
		n = gm_node_child(g->tree->root, comp);
		if (!n)
			return -ENOENT;
	}
	while ((ret = next_comp(&p, comp, sizeof(comp))) > 0) {
		if (!n->dir)
			return -ENOTDIR;
		n = gm_node_child(n, comp);
		if (!n)
			return -ENOENT;
	}
	if (ret < 0)
		return ret;
	s->where = AT_NODE;
	s->node = n;
	s->mtime = g->tree->mtime;
	apply_live(s, g);
	return 0;
}

/* Make a file on first use (lock held; dropped while working). */
static int make(struct gm_node *n)
{
	struct kp_err err = {0};
	uint64_t size;
	int ret;

	if (n->lazy == GM_LAZY_NONE || n->made)
		return 0;
	if (n->made_err)
		return -n->made_err;
	pthread_mutex_unlock(&S.lock);
	pthread_mutex_lock(&S.make_lock);
	if (gm_is_file(n->path, &size)) {
		ret = 0;
	} else {
		char dir[4096], *slash;

		snprintf(dir, sizeof(dir), "%s", n->path);
		slash = strrchr(dir, '/');
		if (slash)
			*slash = '\0';
		ret = gm_mkdirs(dir, 0700);
		if (!ret)
			ret = n->lazy == GM_LAZY_VMLINUX
				      ? gm_derive_vmlinux(n->src, n->path,
							  S.cfg->max_file_size, &err)
				      : gm_derive_module(n->src, n->path,
							 S.cfg->max_file_size, &err);
		if (ret)
			gm_log("cannot make %s: %s", n->path,
			       err.msg[0] ? err.msg : strerror(-ret));
		if (!ret && !gm_is_file(n->path, &size))
			ret = -EIO;
	}
	pthread_mutex_unlock(&S.make_lock);
	pthread_mutex_lock(&S.lock);
	if (ret) {
		n->made_err = ret == -EFBIG ? EFBIG : EIO;
		return -n->made_err;
	}
	n->size = size;
	n->made = true;
	return 0;
}

static void spot_done(struct spot *s)
{
	free(s->owned);
	s->owned = NULL;
}

static void entry_of(const struct spot *s, struct gm_entry *e)
{
	memset(e, 0, sizeof(*e));
	e->mtime = s->mtime;
	e->guest = s->owner ? s->owner->conf->name : NULL;
	e->by_pid = s->by_pid;
	if (s->where != AT_NODE || s->node->dir) {
		e->dir = true;
		e->kind = GM_KIND_DIR;
		e->module_tree = s->where == AT_NODE && s->node->module_tree;
		return;
	}
	e->size = s->live ? s->len : s->node->size;
	e->kind = s->node->kind;
}

int gm_store_stat(const char *path, struct gm_entry *e)
{
	struct spot s;
	int ret;

	pthread_mutex_lock(&S.lock);
	ret = resolve(path, &s, false);
	if (!ret && s.where == AT_NODE && !s.node->dir)
		ret = make(s.node);
	if (!ret)
		entry_of(&s, e);
	spot_done(&s);
	pthread_mutex_unlock(&S.lock);
	return ret;
}

int gm_store_list(const char *path, gm_fill_fn fill, void *ctx)
{
	struct gm_entry dir = {.dir = true, .kind = GM_KIND_DIR};
	struct gm_entry e;
	struct spot s;
	int ret;

	pthread_mutex_lock(&S.lock);
	ret = resolve(path, &s, true);
	if (ret)
		goto out;
	dir.mtime = s.mtime;
	if (s.where == AT_ROOT) {
		for (size_t i = 0; i < S.nr && !ret; i++) {
			if (!visible(&S.guests[i]))
				continue;
			e = dir;
			e.guest = S.guests[i].conf->name;
			ret = fill(ctx, e.guest, &e);
		}
		if (!ret) {
			e = dir;
			e.by_pid = true;
			ret = fill(ctx, GUEST_TREE_BY_PID, &e);
		}
	} else if (s.where == AT_BYPID) {
		char name[16];

		scan_running();
		for (size_t i = 0; i < S.run_nr && !ret; i++) {
			if (!visible(&S.guests[S.run_idx[i]]))
				continue;
			snprintf(name, sizeof(name), "%d", (int)S.run_pids[i]);
			e = dir;
			e.guest = S.guests[S.run_idx[i]].conf->name;
			e.by_pid = true;
			ret = fill(ctx, name, &e);
		}
	} else if (!s.node->dir) {
		ret = -ENOTDIR;
	} else {
		for (size_t i = 0; i < s.node->nr_kids && !ret; i++) {
			struct spot k = s;

			k.node = s.node->kids[i];
			k.guest = NULL;
			entry_of(&k, &e);
			ret = fill(ctx, k.node->name, &e);
		}
	}
out:
	spot_done(&s);
	pthread_mutex_unlock(&S.lock);
	return ret;
}

struct gm_open {
	int fd;	    /* a cache file, or -1 */
	char *data; /* a copy of an in-memory file */
	size_t len;
	bool by_pid;
};

/* Serve a copy of @len bytes: the source may change after open. */
static int copy_out(struct gm_open *h, const char *data, size_t len)
{
	h->data = malloc(len ? len : 1);
	if (!h->data)
		return -ENOMEM;
	memcpy(h->data, data, len);
	h->len = len;
	return 0;
}

int gm_store_open(const char *path, gm_may_open_fn may_open, struct gm_open **out)
{
	struct gm_open *h;
	struct gm_entry e;
	struct spot s;
	char *file = NULL;
	int ret;

	*out = NULL;
	h = calloc(1, sizeof(*h));
	if (!h)
		return -ENOMEM;
	h->fd = -1;
	pthread_mutex_lock(&S.lock);
	ret = resolve(path, &s, false);
	if (!ret && (s.where != AT_NODE || s.node->dir))
		ret = -EISDIR;
	if (!ret) {
		entry_of(&s, &e);
		h->by_pid = e.by_pid;
		ret = may_open(&e);
	}
	if (!ret)
		ret = make(s.node);
	if (!ret && s.live) {
		ret = copy_out(h, s.data, s.len);
	} else if (!ret && s.node->path) {
		file = strdup(s.node->path);
		ret = file ? 0 : -ENOMEM;
	} else if (!ret) {
		ret = copy_out(h, s.node->data, s.node->size);
	}
	spot_done(&s);
	pthread_mutex_unlock(&S.lock);
	if (!ret && file) {
		h->fd = open(file, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
		if (h->fd < 0)
			ret = errno == ENOENT ? -ESTALE : -EIO;
	}
	free(file);
	if (ret) {
		gm_store_close(h);
		return ret;
	}
	*out = h;
	return 0;
}

bool gm_store_is_mem(const struct gm_open *h)
{
	return h->fd < 0;
}

bool gm_store_is_stable(const struct gm_open *h)
{
	return h->fd >= 0 && !h->by_pid;
}

int gm_store_read(struct gm_open *h, char *buf, size_t size, off_t off)
{
	size_t done = 0;

	if (off < 0)
		return -EINVAL;
	if (h->fd < 0) {
		if ((uint64_t)off >= h->len)
			return 0;
		if (size > h->len - (size_t)off)
			size = h->len - (size_t)off;
		memcpy(buf, h->data + off, size);
		return (int)size;
	}
	while (done < size) {
		ssize_t n = pread(h->fd, buf + done, size - done, off + (off_t)done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (!n)
			break;
		done += (size_t)n;
	}
	return (int)done;
}

void gm_store_close(struct gm_open *h)
{
	if (!h)
		return;
	if (h->fd >= 0)
		close(h->fd);
	free(h->data);
	free(h);
}
