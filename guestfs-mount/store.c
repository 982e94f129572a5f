// SPDX-License-Identifier: GPL-2.0
/*
 * The store object and the lookups of mount paths that the FUSE layer
 * makes: stat, list, open and read. Which QEMU process runs which guest is
 * in running.c; the cache, publishing and the worker have files of their own.
 */
#include "store-priv.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "artifacts.h"
#include "util.h"

const char *gm_store_label(const struct gm_store *store, enum gm_kind kind)
{
	return gm_config_label(store->cfg, kind);
}

bool gm_guest_visible(const struct gm_guest *g)
{
	const struct gm_store_hooks *h = &g->store->hooks;

	return !h->visible || h->visible(g->conf->name, h->ctx);
}

static void store_init_locks(struct gm_store *store)
{
	pthread_condattr_t attr;

	pthread_mutex_init(&store->lock, NULL);
	pthread_mutex_init(&store->make_lock, NULL);
	pthread_mutex_init(&store->note_lock, NULL);
	/* Waits are bounded in elapsed time: a step of the wall clock (a VM
	 * resumed, NTP) must neither cut them short nor stretch them. */
	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(&store->changed, &attr);
	pthread_cond_init(&store->work, &attr);
	pthread_condattr_destroy(&attr);
}

int gm_store_new(const struct gm_config *cfg, const struct gm_store_hooks *hooks,
		 bool refresh, struct gm_store **out, struct kp_err *err)
{
	struct gm_store *store = calloc(1, sizeof(*store));
	int ret;

	*out = store;
	if (!store)
		return kp_errorf(err, ENOMEM, "out of memory");
	store_init_locks(store);
	if (hooks)
		store->hooks = *hooks;
	store->cfg = cfg;
	store->start_time = time(NULL);
	ret = guest_trust_of(cfg, &store->trust, err);
	if (!ret)
		ret = gm_cache_prepare(cfg->cache_dir, err);
	if (ret)
		return ret;
	store->guests =
		calloc(cfg->nr_guests ? cfg->nr_guests : 1, sizeof(*store->guests));
	if (!store->guests)
		return kp_errorf(err, ENOMEM, "out of memory");
	store->nr = cfg->nr_guests;
	for (size_t i = 0; i < store->nr; i++) {
		struct gm_guest *g = &store->guests[i];

		g->store = store;
		g->conf = &cfg->guests[i];
		g->ident.name = g->conf->name;
		g->state = GM_PENDING;
		/* A guest the policy hides is inspected when it is exposed and read. */
		g->queued = !cfg->lazy && gm_guest_visible(g);
		g->refresh = refresh;
		gm_publish(g, GM_PENDING, NULL, NULL, NULL);
		if (!g->tree)
			return kp_errorf(err, ENOMEM, "out of memory");
	}
	return 0;
}

void gm_store_free(struct gm_store *store)
{
	if (!store)
		return;
	for (size_t i = 0; i < store->nr; i++) {
		gm_tree_free(store->guests[i].tree);
		gm_live_release(&store->guests[i].live);
		gm_meta_release(&store->guests[i].meta);
	}
	while (store->graveyard) {
		struct gm_tree *t = store->graveyard;

		store->graveyard = t->older;
		gm_tree_free(t);
	}
	free(store->guests);
	pthread_mutex_destroy(&store->lock);
	pthread_mutex_destroy(&store->make_lock);
	pthread_mutex_destroy(&store->note_lock);
	pthread_cond_destroy(&store->changed);
	pthread_cond_destroy(&store->work);
	free(store);
}

static struct gm_guest *guest_by_name(struct gm_store *store, const char *name,
				      size_t len)
{
	for (size_t i = 0; i < store->nr; i++)
		if (strlen(store->guests[i].conf->name) == len &&
		    !memcmp(store->guests[i].conf->name, name, len))
			return gm_guest_visible(&store->guests[i]) ? &store->guests[i]
								   : NULL;
	return NULL;
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
	pid = s->pid ? s->pid : gm_running_pid(g);
	l = gm_running_live(g, pid);
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
	gm_info_add_running(&b, n->data, n->size, !strcmp(n->name, GUEST_F_INFO_JSON),
			    &r);
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

/* Resolve a mount path (lock held); release with spot_done(). */
static int resolve(struct gm_store *store, const char *path, struct spot *s,
		   bool wait_guest_dir)
{
	char comp[256];
	const char *p = path;
	struct gm_guest *g;
	struct gm_node *n;
	int ret;

	memset(s, 0, sizeof(*s));
	s->mtime = store->start_time;
	ret = next_comp(&p, comp, sizeof(comp));
	if (ret <= 0) {
		s->where = AT_ROOT;
		return ret;
	}
	if (!strcmp(comp, GUEST_TREE_BY_PID)) {
		pid_t pid;

		ret = next_comp(&p, comp, sizeof(comp));
		s->by_pid = true;
		if (ret <= 0) {
			s->where = AT_BYPID;
			return ret;
		}
		pid = guest_parse_pid(comp);
		g = pid > 0 ? gm_running_guest_of(store, pid) : NULL;
		if (!g || !gm_guest_visible(g))
			return -ENOENT;
		s->owner = g;
		s->pid = pid;
		ret = gm_wait_ready(g);
		if (ret)
			return ret;
		n = gm_running_view(g, pid);
		if (!n)
			return -ENOENT;
	} else {
		g = guest_by_name(store, comp, strlen(comp));
		if (!g)
			return -ENOENT;
		s->owner = g;
		n = g->tree->root;
		ret = next_comp(&p, comp, sizeof(comp));
		if (ret < 0)
			return ret;
		if (!ret) {
			/* Its info stays listed when its files fail (EIO). */
			if (wait_guest_dir && (ret = gm_wait_ready(g)) && ret != -EIO)
				return ret;
			s->where = AT_NODE;
			s->node = g->tree->root;
			s->mtime = g->tree->mtime;
			s->guest = g;
			return 0;
		}
		/* info and info.json answer at once, even during an inspection. */
		if (strcmp(comp, GUEST_F_INFO) && strcmp(comp, GUEST_F_INFO_JSON) &&
		    (ret = gm_wait_ready(g)))
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

/*
 * How many bytes @n may be made of (lock held): its stated size, within
 * max-file-size and what is left of its guest's max-derived-size; when the
 * source states no size, whatever is left. -EFBIG or -EDQUOT, logged with
 * the guest, the file and the limit, when it cannot be made.
 */
static int derive_cap(const struct gm_store *store, const struct spot *s,
		      const char *path, uint64_t *cap)
{
	const struct gm_config *cfg = store->cfg;
	const struct gm_node *n = s->node;
	uint64_t used = s->owner->derived,
		 left = cfg->max_derived_size > used ? cfg->max_derived_size - used : 0;

	if (n->size_known && n->size > cfg->max_file_size) {
		gm_log("%s: %s: not made: its source states %llu bytes, over the "
		       "%llu-byte max-file-size",
		       s->owner->conf->name, path, (unsigned long long)n->size,
		       (unsigned long long)cfg->max_file_size);
		return -EFBIG;
	}
	if ((n->size_known ? n->size : 1) > left) {
		gm_log("%s: %s: not made: it needs %llu bytes, %llu are left of the "
		       "guest's %llu-byte max-derived-size",
		       s->owner->conf->name, path,
		       (unsigned long long)(n->size_known ? n->size : 1),
		       (unsigned long long)left,
		       (unsigned long long)cfg->max_derived_size);
		return -EDQUOT;
	}
	*cap = n->size_known		   ? n->size
	       : left < cfg->max_file_size ? left
					   : cfg->max_file_size;
	return 0;
}

/* Write @n's file from its source, at most @cap bytes (make_lock held). */
static int derive(const struct gm_store *store, const struct spot *s, const char *path,
		  uint64_t cap, uint64_t *size)
{
	uint64_t max_in = store->cfg->max_file_size;
	const struct gm_node *n = s->node;
	struct kp_err err = {0};
	char dir[4096], *slash;
	int ret;

	if (gm_is_file(n->path, size))
		return 0;
	snprintf(dir, sizeof(dir), "%s", n->path);
	slash = strrchr(dir, '/');
	if (slash)
		*slash = '\0';
	ret = gm_mkdirs(dir, 0700);
	if (!ret)
		ret = n->lazy == GM_LAZY_VMLINUX
			      ? gm_derive_vmlinux(n->src, n->path, max_in, cap, &err)
			      : gm_derive_module(n->src, n->path, max_in, cap, &err);
	if (!ret && !gm_is_file(n->path, size))
		ret = -EIO;
	if (!ret && n->size_known && *size != n->size) {
		/* A stat already said otherwise: a header that lies is refused. */
		snprintf(err.msg, sizeof(err.msg),
			 "made %llu bytes, but its source states %llu",
			 (unsigned long long)*size, (unsigned long long)n->size);
		unlink(n->path);
		ret = -EIO;
	}
	if (ret)
		gm_log("%s: cannot make %s: %s", s->owner->conf->name, path,
		       err.msg[0] ? err.msg : strerror(-ret));
	return ret;
}

/*
 * Make a file on first open, never on stat (lock held; dropped while
 * working). *sized_late tells that the size stat reported was not known.
 */
static int make(struct gm_store *store, struct spot *s, const char *path,
		bool *sized_late)
{
	struct gm_node *n = s->node;
	struct gm_guest *g = s->owner;
	uint64_t cap = 0, size = 0;
	unsigned gen = g->derived_gen;
	int ret;

	if (n->lazy == GM_LAZY_NONE || n->made)
		return 0;
	if (n->made_err)
		return -n->made_err;
	ret = derive_cap(store, s, path, &cap);
	if (!ret) {
		g->derived += cap; /* held while unlocked */
		pthread_mutex_unlock(&store->lock);
		pthread_mutex_lock(&store->make_lock);
		ret = derive(store, s, path, cap, &size);
		pthread_mutex_unlock(&store->make_lock);
		pthread_mutex_lock(&store->lock);
		/* A new inspection meanwhile started a new count without this file. */
		if (gen == g->derived_gen)
			g->derived -= cap;
		/* Capped by the budget rather than max-file-size: the budget ran out. */
		if (ret == -EFBIG && !n->size_known && cap < store->cfg->max_file_size)
			ret = -EDQUOT;
	}
	if (ret) {
		n->made_err = ret == -EFBIG || ret == -EDQUOT ? -ret : EIO;
		return -n->made_err;
	}
	if (gen == g->derived_gen)
		g->derived += size;
	*sized_late = !n->size_known;
	n->size = size;
	n->size_known = true;
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

int gm_store_stat(struct gm_store *store, const char *path, struct gm_entry *e)
{
	struct spot s;
	int ret;

	pthread_mutex_lock(&store->lock);
	/* Never makes a file: a stat reports the size its source states. */
	ret = resolve(store, path, &s, false);
	if (!ret)
		entry_of(&s, e);
	spot_done(&s);
	pthread_mutex_unlock(&store->lock);
	return ret;
}

int gm_store_list(struct gm_store *store, const char *path, gm_fill_fn fill, void *ctx)
{
	struct gm_entry dir = {.dir = true, .kind = GM_KIND_DIR};
	struct gm_entry e;
	struct spot s;
	int ret;

	pthread_mutex_lock(&store->lock);
	ret = resolve(store, path, &s, true);
	if (ret)
		goto out;
	dir.mtime = s.mtime;
	if (s.where == AT_ROOT) {
		for (size_t i = 0; i < store->nr && !ret; i++) {
			if (!gm_guest_visible(&store->guests[i]))
				continue;
			e = dir;
			e.guest = store->guests[i].conf->name;
			ret = fill(ctx, e.guest, &e);
		}
		if (!ret) {
			e = dir;
			e.by_pid = true;
			ret = fill(ctx, GUEST_TREE_BY_PID, &e);
		}
	} else if (s.where == AT_BYPID) {
		char name[16];

		gm_running_scan(store);
		for (size_t i = 0; i < store->run_nr && !ret; i++) {
			if (!gm_guest_visible(&store->guests[store->run_idx[i]]))
				continue;
			snprintf(name, sizeof(name), "%d", (int)store->run_pids[i]);
			e = dir;
			e.guest = store->guests[store->run_idx[i]].conf->name;
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
	pthread_mutex_unlock(&store->lock);
	return ret;
}

struct gm_open {
	int fd;	    /* a cache file, or -1 */
	char *data; /* a copy of an in-memory file */
	size_t len;
	bool by_pid;
	bool sized_late; /* made by this open, of a size no stat could tell */
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

int gm_store_open(struct gm_store *store, const char *path, gm_may_open_fn may_open,
		  struct gm_open **out)
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
	pthread_mutex_lock(&store->lock);
	ret = resolve(store, path, &s, false);
	if (!ret && (s.where != AT_NODE || s.node->dir))
		ret = -EISDIR;
	if (!ret) {
		entry_of(&s, &e);
		h->by_pid = e.by_pid;
		ret = may_open(&e);
	}
	if (!ret)
		ret = make(store, &s, path, &h->sized_late);
	if (!ret && s.live) {
		ret = copy_out(h, s.data, s.len);
	} else if (!ret && s.node->path) {
		file = strdup(s.node->path);
		ret = file ? 0 : -ENOMEM;
	} else if (!ret) {
		ret = copy_out(h, s.node->data, s.node->size);
	}
	spot_done(&s);
	pthread_mutex_unlock(&store->lock);
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

bool gm_store_is_stable(const struct gm_open *h)
{
	return h->fd >= 0 && !h->by_pid && !h->sized_late;
}

bool gm_store_is_sized_late(const struct gm_open *h)
{
	return h->sized_late;
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
