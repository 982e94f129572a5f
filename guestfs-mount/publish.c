// SPDX-License-Identifier: GPL-2.0
/*
 * Publishing a guest's state: its info files and its served tree are built
 * outside the lock, then swapped in at once, so a reader sees the old tree
 * or the new one and never a mix. Replaced trees are kept until exit, since
 * a file opened from one may still be read.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "store-priv.h"
#include "util.h"

static const char *const state_names[] = {"pending", "inspecting", "ready", "error"};

const struct gm_kernel *gm_default_kernel(const struct gm_guest_conf *gc,
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

/* @g's conf and the arguments are stable while the lock is not held. */
static void publish(struct gm_guest *g, enum gm_state state, const char *error,
		    struct gm_meta *meta, const char *keydir, bool host_failure)
{
	struct gm_store *store = g->store;
	struct gm_info_ctx c = {.conf = g->conf};
	struct gm_buf info = {0}, json = {0};
	char kerr[512] = "", fullerr[1024];
	const struct gm_kernel *def = NULL;
	struct gm_tree *t;

	if (meta && state == GM_READY) {
		def = gm_default_kernel(g->conf, meta, &c.def_why, kerr, sizeof(kerr));
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
	t = gm_tree_build(g->conf->name, store->cfg, keydir, meta, def,
			  meta && meta->inspected_at ? meta->inspected_at
						     : store->start_time,
			  info.data ? info.data : "", info.len,
			  json.data ? json.data : "", json.len);
	gm_buf_release(&info);
	gm_buf_release(&json);
	if (!t)
		gm_log("%s: out of memory building its tree", g->conf->name);
	else if (t->modules_cut)
		gm_log("%s: module trees hold more than %u files and folders "
		       "(max-files): the rest is not served",
		       g->conf->name, store->cfg->max_files);

	pthread_mutex_lock(&store->lock);
	if (t) {
		if (g->tree) {
			g->tree->older = store->graveyard;
			store->graveyard = g->tree;
		}
		g->tree = t;
		/* The same inspection's files stay counted; a new one counts its own. */
		if (keydir && strcmp(g->derived_key, g->key)) {
			snprintf(g->derived_key, sizeof(g->derived_key), "%s", g->key);
			g->derived = t->derived;
			g->derived_gen++;
		}
	}
	g->state = state;
	g->host_failure = host_failure;
	gm_sanitize(g->error, sizeof(g->error), state == GM_ERROR && error ? error : "");
	if (meta && meta != &g->meta) {
		gm_meta_release(&g->meta);
		g->meta = *meta;
		memset(meta, 0, sizeof(*meta));
		g->have_meta = true;
	}
	pthread_cond_broadcast(&store->changed);
	pthread_mutex_unlock(&store->lock);
}

void gm_publish(struct gm_guest *g, enum gm_state state, const char *error,
		struct gm_meta *meta, const char *keydir)
{
	publish(g, state, error, meta, keydir, false);
}

void gm_publish_host_failure(struct gm_guest *g, const char *error)
{
	publish(g, GM_ERROR, error, NULL, NULL, true);
}
