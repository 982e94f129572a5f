// SPDX-License-Identifier: GPL-2.0
/*
 * The worker: one thread that identifies each queued guest's disks, serves
 * it from the cache when an inspection with the same key is there, and
 * otherwise inspects it (several guests in one appliance launch when the
 * configuration shares the appliance), derives its files and publishes it.
 * FUSE requests never wait for the appliance except in gm_wait_ready().
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "artifacts.h"
#include "store-priv.h"
#include "util.h"

#define WAIT_SECONDS 900 /* longest a reader waits for an inspection */

struct work {
	struct gm_guest *g;
	struct gm_job job;
	char key[17];
	bool inspect;
};

/* Serve a guest from its cache folder if a complete inspection is there. */
static bool from_cache(struct work *w)
{
	struct gm_store *store = w->g->store;
	struct gm_meta m;
	char dir[4096], path[4096];
	bool skip = w->g->refresh;

	w->g->refresh = false; /* only the worker uses it */
	if (skip || gm_cache_key_dir(store, dir, sizeof(dir), w->key) ||
	    gm_path(path, sizeof(path), "%s/meta", dir) || gm_meta_load(&m, path))
		return false;
	gm_log("%s: serving the inspection cached in %s", w->g->conf->name, dir);
	gm_publish(w->g, m.error[0] ? GM_ERROR : GM_READY, m.error[0] ? m.error : NULL,
		   &m, dir);
	gm_meta_release(&m);
	return true;
}

/*
 * The host could not write the inspection to @where (a full cache): nothing
 * of it is kept, and the guest fails with the errno until it is tried again.
 */
static void cache_failed(struct work *w, const char *where, int ret)
{
	char msg[512];

	gm_log("%s: cannot store the inspection in %s: %s", w->g->conf->name, where,
	       strerror(-ret));
	gm_rm_rf(w->job.dir);
	snprintf(msg, sizeof(msg), "cannot write the cache: %s", strerror(-ret));
	gm_publish_host_failure(w->g, msg);
}

static void finish(struct work *w)
{
	struct gm_store *store = w->g->store;
	struct gm_job *job = &w->job;
	struct gm_meta *m = &job->meta;
	char dir[4096], path[4096];
	double t0 = gm_now();
	int ret = 0;

	if (job->ret && !m->error[0]) {
		/* Not a conclusion about the disk's content: not cached, tried again next
		 * time. */
		gm_rm_rf(job->dir);
		gm_publish_host_failure(w->g, job->err.msg);
		return;
	}
	if (job->ret)
		snprintf(m->error, sizeof(m->error), "%s", job->err.msg);
	for (size_t i = 0; !job->ret && !ret && i < m->nr_kernels; i++) {
		char kdir[4096];

		if (!gm_path(kdir, sizeof(kdir), "%s/" GM_K_DIR "/%s", job->dir,
			     m->kernels[i].ver))
			ret = gm_derive_kernel(kdir, store->cfg, m, &m->kernels[i]);
	}
	if (ret) {
		cache_failed(w, job->dir, ret);
		return;
	}
	m->derive_s = gm_now() - t0;
	m->inspected_at = time(NULL);
	ret = gm_cache_key_dir(store, dir, sizeof(dir), w->key);
	if (!ret)
		ret = gm_path(path, sizeof(path), "%s/meta", job->dir);
	if (!ret)
		ret = gm_meta_save(m, path);
	if (!ret) {
		gm_rm_rf(dir);
		ret = rename(job->dir, dir) ? -errno : 0;
	}
	if (ret) {
		cache_failed(w, dir, ret);
		return;
	}
	gm_cache_remember(w->g, w->key);
	if (!job->ret)
		gm_log("%s: ready: %zu kernel%s, %" PRIu64
		       " files copied (%.1f MB) in %.1f s, "
		       "symbols in %.1f s",
		       w->g->conf->name, m->nr_kernels, m->nr_kernels == 1 ? "" : "s",
		       m->files, (double)m->bytes / 1e6, m->extract_s, m->derive_s);
	gm_publish(w->g, job->ret ? GM_ERROR : GM_READY, job->ret ? m->error : NULL, m,
		   dir);
}

static int start_job(struct work *w)
{
	const struct gm_config *cfg = w->g->store->cfg;
	char tmpl[4096];

	memset(&w->job, 0, sizeof(w->job));
	w->job.conf = w->g->conf;
	w->job.cfg = cfg;
	memcpy(w->job.vsizes, w->g->vsizes, sizeof(w->job.vsizes));
	if (gm_path(tmpl, sizeof(tmpl), "%s/.tmp-%s-XXXXXX", cfg->cache_dir, w->key) ||
	    !mkdtemp(tmpl))
		return -errno;
	snprintf(w->job.dir, sizeof(w->job.dir), "%s", tmpl);
	return 0;
}

/* Jobs that share an appliance launch, or one launch each. */
static void inspect(struct gm_store *store, struct gm_job **jobs, size_t n)
{
	if (store->hooks.inspect)
		store->hooks.inspect(jobs, n, store->hooks.ctx);
	else
		gm_inspect(jobs, n);
}

static void run(struct gm_store *store, struct work *ws, size_t n)
{
	struct gm_job **jobs = calloc(n ? n : 1, sizeof(*jobs));
	size_t nj = 0;

	if (!jobs)
		return;
	for (size_t i = 0; i < n; i++) {
		struct work *w = &ws[i];
		struct kp_err err = {0};
		int ret;

		pthread_mutex_lock(&store->lock);
		w->g->queued = false;
		/*
		 * Taken: from here a reader waits for what this run publishes, and
		 * does not queue the guest again (a second appliance launch).
		 */
		if (w->g->state != GM_READY)
			w->g->state = GM_INSPECTING;
		if (gm_cache_identify(w->g, &err)) {
			pthread_mutex_unlock(&store->lock);
			gm_publish(w->g, GM_ERROR, err.msg, NULL, NULL);
			continue;
		}
		memcpy(w->key, w->g->key, sizeof(w->key));
		pthread_mutex_unlock(&store->lock);
		if (from_cache(w))
			continue;
		if ((ret = start_job(w))) {
			char msg[512];

			snprintf(msg, sizeof(msg),
				 "cannot create a folder in the cache: %s",
				 strerror(-ret));
			gm_publish_host_failure(w->g, msg);
			continue;
		}
		w->inspect = true;
		jobs[nj++] = &w->job;
	}
	if (store->cfg->shared_appliance && nj > 1) {
		inspect(store, jobs, nj);
		for (size_t i = 0; i < n; i++)
			if (ws[i].inspect && !ws[i].job.retry_alone)
				finish(&ws[i]);
	}
	for (size_t i = 0; i < n && !store->stop; i++) {
		struct work *w = &ws[i];

		if (!w->inspect ||
		    (store->cfg->shared_appliance && nj > 1 && !w->job.retry_alone))
			continue;
		if (w->job.retry_alone)
			gm_log("%s: inspecting it alone (%s)", w->g->conf->name,
			       w->job.err.msg);
		gm_meta_release(&w->job.meta);
		gm_rm_rf(w->job.dir);
		mkdir(w->job.dir, 0700);
		{
			struct gm_job *one = &w->job;

			inspect(store, &one, 1);
		}
		finish(w);
	}
	for (size_t i = 0; i < n; i++)
		gm_meta_release(&ws[i].job.meta);
	free(jobs);
}

/* @ts: @seconds from now on the store's condition variables' clock. */
static void deadline(struct timespec *ts, time_t seconds)
{
	clock_gettime(CLOCK_MONOTONIC, ts);
	ts->tv_sec += seconds;
}

static void recheck_disks(struct gm_store *store)
{
	for (size_t i = 0; i < store->nr; i++) {
		struct gm_guest *g = &store->guests[i];
		char old[17];
		struct kp_err err = {0};

		if (g->state == GM_PENDING || !gm_guest_visible(g))
			continue;
		memcpy(old, g->key, sizeof(old));
		if (gm_cache_identify(g, &err)) {
			/* Still the same problem: nothing new to say. */
			if (g->state != GM_ERROR || strcmp(g->error, err.msg))
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
	struct gm_store *store = arg;

	pthread_mutex_lock(&store->lock);
	while (!store->stop) {
		struct work *ws;
		size_t n = 0;

		if (store->recheck) {
			store->recheck = 0;
			recheck_disks(store);
		}
		for (size_t i = 0; i < store->nr; i++)
			n += store->guests[i].queued;
		if (!n) {
			struct timespec ts;

			deadline(&ts, 1);
			pthread_cond_timedwait(&store->work, &store->lock, &ts);
			continue;
		}
		ws = calloc(n, sizeof(*ws));
		n = 0;
		for (size_t i = 0; ws && i < store->nr; i++)
			if (store->guests[i].queued)
				ws[n++].g = &store->guests[i];
		pthread_mutex_unlock(&store->lock);
		if (ws)
			run(store, ws, n);
		free(ws);
		pthread_mutex_lock(&store->lock);
	}
	store->worker_done = true;
	pthread_cond_broadcast(&store->changed);
	pthread_mutex_unlock(&store->lock);
	return NULL;
}

int gm_store_start(struct gm_store *store)
{
	int ret = pthread_create(&store->worker, NULL, worker_main, store);

	store->started = !ret;
	return -ret;
}

void gm_store_recheck(struct gm_store *store)
{
	store->recheck = 1;
}

bool gm_store_stop(struct gm_store *store, double timeout_s)
{
	struct timespec ts;
	bool done;

	if (!store->started)
		return true;
	pthread_mutex_lock(&store->lock);
	store->stop = true;
	pthread_cond_broadcast(&store->work);
	pthread_cond_broadcast(&store->changed);
	deadline(&ts, (time_t)timeout_s);
	while (!store->worker_done)
		if (pthread_cond_timedwait(&store->changed, &store->lock, &ts))
			break;
	done = store->worker_done;
	pthread_mutex_unlock(&store->lock);
	if (done) {
		pthread_join(store->worker, NULL);
		store->started = false;
	}
	return done;
}

int gm_wait_ready(struct gm_guest *g)
{
	struct gm_store *store = g->store;

	struct timespec ts;

	if (g->state == GM_ERROR && g->host_failure && !g->queued) {
		/* The host's trouble may be over (a relaunch, space freed): try again. */
		g->state = GM_PENDING;
		g->host_failure = false;
	}
	if (g->state == GM_PENDING && !g->queued) {
		g->queued = true; /* "inspect on-access" */
		pthread_cond_broadcast(&store->work);
	}
	deadline(&ts, WAIT_SECONDS);
	while ((g->state == GM_PENDING || g->state == GM_INSPECTING) && !store->stop) {
		if (pthread_cond_timedwait(&store->changed, &store->lock, &ts) ==
		    ETIMEDOUT) {
			gm_log("%s: a reader gave up after waiting %d s for its "
			       "inspection",
			       g->conf->name, WAIT_SECONDS);
			return -EAGAIN;
		}
	}
	if (store->stop)
		return -ESHUTDOWN;
	return g->state == GM_ERROR && g->host_failure ? -EIO : 0;
}
