// SPDX-License-Identifier: GPL-2.0
#include "tree.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "artifacts.h"
#include "inspect.h"
#include "util.h"

#define MAX_DEPTH 12

static struct gm_node *new_node(struct gm_tree *t, const char *name)
{
	struct gm_node *n;

	if (t->nr == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 64;
		struct gm_node **all = realloc(t->all, cap * sizeof(*all));

		if (!all)
			return NULL;
		t->all = all;
		t->cap = cap;
	}
	n = calloc(1, sizeof(*n));
	if (!n)
		return NULL;
	n->kernel = -1;
	n->name = strdup(name);
	if (!n->name) {
		free(n);
		return NULL;
	}
	t->all[t->nr++] = n;
	return n;
}

int gm_tree_link(struct gm_tree *t, struct gm_node *parent, struct gm_node *child)
{
	(void)t;
	if (parent->nr_kids == parent->cap_kids) {
		size_t cap = parent->cap_kids ? parent->cap_kids * 2 : 8;
		struct gm_node **k = realloc(parent->kids, cap * sizeof(*k));

		if (!k)
			return -ENOMEM;
		parent->kids = k;
		parent->cap_kids = cap;
	}
	parent->kids[parent->nr_kids++] = child;
	return 0;
}

struct gm_tree *gm_tree_new(const char *root_name, time_t mtime)
{
	struct gm_tree *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->mtime = mtime;
	t->root = new_node(t, root_name);
	if (!t->root) {
		gm_tree_free(t);
		return NULL;
	}
	t->root->dir = true;
	t->root->kind = GM_KIND_DIR;
	return t;
}

void gm_tree_free(struct gm_tree *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->nr; i++) {
		struct gm_node *n = t->all[i];

		free(n->name);
		free(n->path);
		free(n->data);
		free(n->src);
		free(n->kids);
		free(n);
	}
	free(t->all);
	free(t->pidviews);
	free(t);
}

static struct gm_node *find_unsorted(const struct gm_node *dir, const char *name)
{
	for (size_t i = 0; i < dir->nr_kids; i++)
		if (!strcmp(dir->kids[i]->name, name))
			return dir->kids[i];
	return NULL;
}

struct gm_node *gm_tree_dir(struct gm_tree *t, struct gm_node *parent, const char *name)
{
	struct gm_node *n = find_unsorted(parent, name);

	if (n)
		return n->dir ? n : NULL;
	n = new_node(t, name);
	if (!n || gm_tree_link(t, parent, n))
		return NULL;
	n->dir = true;
	n->kind = GM_KIND_DIR;
	return n;
}

struct gm_node *gm_tree_dirs(struct gm_tree *t, struct gm_node *parent, const char *path)
{
	char comp[256];

	while (parent && *path) {
		size_t n = strcspn(path, "/");

		if (!n || n >= sizeof(comp))
			return NULL;
		memcpy(comp, path, n);
		comp[n] = '\0';
		parent = gm_tree_dir(t, parent, comp);
		path += n + (path[n] == '/');
	}
	return parent;
}

struct gm_node *gm_tree_file(struct gm_tree *t, struct gm_node *parent, const char *name,
			     enum gm_kind kind, const char *path, uint64_t size)
{
	struct gm_node *n = new_node(t, name);

	if (!n || gm_tree_link(t, parent, n))
		return NULL;
	n->kind = kind;
	n->size = size;
	n->path = strdup(path);
	return n->path ? n : NULL;
}

struct gm_node *gm_tree_mem(struct gm_tree *t, struct gm_node *parent, const char *name,
			    enum gm_kind kind, const char *data, size_t len)
{
	struct gm_node *n = new_node(t, name);

	if (!n || gm_tree_link(t, parent, n))
		return NULL;
	n->kind = kind;
	n->size = len;
	n->data = malloc(len ? len : 1);
	if (!n->data)
		return NULL;
	memcpy(n->data, data, len);
	return n;
}

static int by_name(const void *a, const void *b)
{
	const struct gm_node *x = *(struct gm_node *const *)a,
			     *y = *(struct gm_node *const *)b;
	int c = strcmp(x->name, y->name);

	/* Same name: the plain file first, the one made on first use after it. */
	return c ? c : (int)x->lazy - (int)y->lazy;
}

void gm_tree_finish(struct gm_tree *t)
{
	for (size_t i = 0; i < t->nr; i++) {
		struct gm_node *d = t->all[i];
		size_t w = 0;

		if (!d->dir || d->nr_kids < 1)
			continue;
		qsort(d->kids, d->nr_kids, sizeof(*d->kids), by_name);
		for (size_t r = 0; r < d->nr_kids; r++)
			if (!w || strcmp(d->kids[w - 1]->name, d->kids[r]->name))
				d->kids[w++] = d->kids[r];
		d->nr_kids = w;
	}
}

struct gm_node *gm_node_child(const struct gm_node *dir, const char *name)
{
	size_t lo = 0, hi = dir->nr_kids;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(name, dir->kids[mid]->name);

		if (!c)
			return dir->kids[mid];
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return NULL;
}

/* --- building a guest's tree from its cache folder ------------------------------------
 */

/* A file of the cache folder, if it exists. */
static struct gm_node *add_cached(struct gm_tree *t, struct gm_node *dir,
				  const char *name, enum gm_kind kind, const char *kdir,
				  const char *file)
{
	char path[4096];
	uint64_t size;

	if (gm_path(path, sizeof(path), "%s/%s", kdir, file) || !gm_is_file(path, &size))
		return NULL;
	return gm_tree_file(t, dir, name, kind, path, size);
}

/*
 * A file made on first open. Its size until then is what its source states
 * (stat must not make it: a find over the tree would fill the cache), or 0
 * when the source states none; making it then settles the size.
 */
static struct gm_node *add_lazy(struct gm_tree *t, struct gm_node *dir, const char *name,
				enum gm_kind kind, enum gm_lazy lazy, const char *src,
				const char *path)
{
	uint64_t size = 0;
	bool made = gm_is_file(path, &size), known = made;
	struct gm_node *n;

	if (made)
		t->derived += size;
	else if (lazy == GM_LAZY_VMLINUX)
		known = !gm_vmlinux_declared(src, t->max_file_size, &size);
	else
		known = !gm_module_declared(src, t->max_file_size, &size);
	n = gm_tree_file(t, dir, name, kind, path, known ? size : 0);
	if (!n)
		return NULL;
	n->lazy = lazy;
	n->made = made;
	n->size_known = known;
	n->src = strdup(src);
	return n->src ? n : NULL;
}

/* One more file or folder of a module tree, within max-files. */
static bool take_module_node(struct gm_tree *t)
{
	if (!t->mod_left) {
		t->modules_cut = true;
		return false;
	}
	t->mod_left--;
	return true;
}

/* Mirror the module tree copied out of the guest; compressed modules served decompressed.
 */
static int add_module_tree(struct gm_tree *t, struct gm_node *dir, const char *hdir,
			   const char *kodir, int depth)
{
	DIR *d;
	struct dirent *de;
	int ret = 0;

	if (depth > MAX_DEPTH || !(d = opendir(hdir)))
		return 0;
	while (!ret && (de = readdir(d))) {
		char path[4096], out[4096], name[256];
		struct stat st;
		size_t sfx;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, "..") ||
		    gm_path(path, sizeof(path), "%s/%s", hdir, de->d_name) ||
		    lstat(path, &st) || (!S_ISDIR(st.st_mode) && !S_ISREG(st.st_mode)))
			continue;
		if (!take_module_node(t))
			break;
		if (S_ISDIR(st.st_mode)) {
			struct gm_node *sub = gm_tree_dir(t, dir, de->d_name);

			if (sub)
				sub->module_tree = true;
			if (!sub || gm_path(out, sizeof(out), "%s/%s", kodir, de->d_name))
				ret = -ENOMEM;
			else
				ret = add_module_tree(t, sub, path, out, depth + 1);
			continue;
		}
		sfx = gm_module_comp_suffix(de->d_name);
		if (!sfx) {
			if (!gm_tree_file(t, dir, de->d_name, GM_KIND_MODULE, path,
					  (uint64_t)st.st_size))
				ret = -ENOMEM;
			continue;
		}
		snprintf(name, sizeof(name), "%.*s", (int)(strlen(de->d_name) - sfx),
			 de->d_name);
		if (gm_path(out, sizeof(out), "%s/%s", kodir, name))
			continue;
		if (!add_lazy(t, dir, name, GM_KIND_MODULE, GM_LAZY_MODULE, path, out))
			ret = -ENOMEM;
	}
	closedir(d);
	return ret;
}

/* The files of one kernel in @dir; returns the nodes the by-pid view needs. */
struct kfiles {
	struct gm_node *kallsyms, *modules, *version, *notes, *sysmap, *vmlinux, *config,
		*build_id, *moddir;
};

static int add_kernel(struct gm_tree *t, struct gm_node *dir, const char *kdir,
		      const struct gm_kernel *k, struct kfiles *kf)
{
	char path[4096], src[4096];

	memset(kf, 0, sizeof(*kf));
	kf->kallsyms = add_cached(t, dir, GUEST_F_KALLSYMS, GM_KIND_KALLSYMS, kdir,
				  GM_F_KALLSYMS);
	if (k->symsrc == GM_SYMS_SYSTEM_MAP)
		kf->sysmap = add_cached(t, dir, GUEST_F_SYSTEM_MAP, GM_KIND_SYSTEM_MAP,
					kdir, GM_F_SYSMAP);
	else if (k->symsrc == GM_SYMS_DEBUG_SYSTEM_MAP)
		kf->sysmap = add_cached(t, dir, GUEST_F_SYSTEM_MAP, GM_KIND_SYSTEM_MAP,
					kdir, GM_F_DEBUG_SYSMAP);
	else
		kf->sysmap = add_cached(t, dir, GUEST_F_SYSTEM_MAP, GM_KIND_SYSTEM_MAP,
					kdir, GM_F_KALLSYMS);
	if (k->has_debug_vmlinux && !k->debug_mismatch) {
		kf->vmlinux = add_cached(t, dir, GUEST_F_VMLINUX, GM_KIND_VMLINUX, kdir,
					 GM_F_DEBUG_VMLINUX);
	} else if (k->has_vmlinuz) {
		if (gm_path(path, sizeof(path), "%s/" GM_F_VMLINUX, kdir) ||
		    gm_path(src, sizeof(src), "%s/" GM_F_VMLINUZ, kdir))
			return -ENAMETOOLONG;
		kf->vmlinux = add_lazy(t, dir, GUEST_F_VMLINUX, GM_KIND_VMLINUX,
				       GM_LAZY_VMLINUX, src, path);
		if (!kf->vmlinux)
			return -ENOMEM;
	}
	add_cached(t, dir, GUEST_F_VMLINUZ, GM_KIND_VMLINUZ, kdir, GM_F_VMLINUZ);
	kf->modules =
		add_cached(t, dir, GUEST_F_MODULES, GM_KIND_MODULES, kdir, GM_F_MODULES);
	kf->config =
		add_cached(t, dir, GUEST_F_CONFIG, GM_KIND_CONFIG, kdir, GM_F_CONFIG);
	kf->version =
		add_cached(t, dir, GUEST_F_VERSION, GM_KIND_VERSION, kdir, GM_F_VERSION);
	kf->build_id = add_cached(t, dir, GUEST_F_BUILD_ID, GM_KIND_BUILD_ID, kdir,
				  GM_F_BUILD_ID);
	kf->notes = add_cached(t, dir, GUEST_F_NOTES, GM_KIND_BUILD_ID, kdir, GM_F_NOTES);
	return 0;
}

/* Link @n at @path below @dir (folders made as needed); @path ends with @n's name. */
static bool link_at(struct gm_tree *t, struct gm_node *dir, const char *path,
		    struct gm_node *n)
{
	const char *slash = strrchr(path, '/');
	char parent[64];

	if (!n)
		return true;
	if (slash) {
		snprintf(parent, sizeof(parent), "%.*s", (int)(slash - path), path);
		dir = gm_tree_dirs(t, dir, parent);
	}
	return dir && !gm_tree_link(t, dir, n);
}

static void link_if(struct gm_tree *t, struct gm_node *dir, struct gm_node *n)
{
	link_at(t, dir, "", n);
}

/* What perf kvm --guestmount reads in <mount>/<pid>/ for a guest running @kf's kernel. */
static struct gm_node *pidview(struct gm_tree *t, const struct kfiles *kf)
{
	struct gm_node *pv = new_node(t, "pid");
	bool ok;

	if (!pv)
		return NULL;
	pv->dir = true;
	pv->kind = GM_KIND_DIR;
	ok = link_at(t, pv, GUEST_PID_KALLSYMS, kf->kallsyms) &&
	     link_at(t, pv, GUEST_PID_MODULES, kf->modules) &&
	     link_at(t, pv, GUEST_PID_VERSION, kf->version) &&
	     link_at(t, pv, GUEST_PID_NOTES, kf->notes) &&
	     gm_tree_dirs(t, pv, GUEST_D_LIB_MODULES) &&
	     link_at(t, gm_tree_dirs(t, pv, GUEST_D_LIB_MODULES), "", kf->moddir);
	return ok ? pv : NULL;
}

struct gm_tree *gm_tree_build(const char *name, const struct gm_config *cfg,
			      const char *keydir, const struct gm_meta *meta,
			      const struct gm_kernel *def, time_t mtime, const char *info,
			      size_t info_len, const char *json, size_t json_len)
{
	struct gm_tree *t = gm_tree_new(name, mtime);
	struct gm_node *root, *kernels = NULL, *libmods = NULL;
	struct kfiles defk = {0};
	bool ok = true;

	if (!t)
		return NULL;
	t->mod_left = cfg ? cfg->max_files : UINT_MAX;
	t->max_file_size = cfg ? cfg->max_file_size : UINT64_MAX;
	root = t->root;
	ok &= gm_tree_mem(t, root, GUEST_F_INFO, GM_KIND_INFO, info, info_len) != NULL;
	ok &= gm_tree_mem(t, root, GUEST_F_INFO_JSON, GM_KIND_INFO, json, json_len) !=
	      NULL;
	if (meta && meta->nr_kernels && keydir) {
		t->pidviews = calloc(meta->nr_kernels, sizeof(*t->pidviews));
		t->nr_pidviews = meta->nr_kernels;
		kernels = gm_tree_dir(t, root, GUEST_D_KERNELS);
		libmods = gm_tree_dirs(t, root, GUEST_D_LIB_MODULES);
		ok &= kernels && libmods && t->pidviews;
	}
	for (size_t i = 0; ok && kernels && i < meta->nr_kernels; i++) {
		const struct gm_kernel *k = &meta->kernels[i];
		char kdir[4096], hdir[4096], kodir[4096];
		struct gm_node *kd = gm_tree_dir(t, kernels, k->ver), *md = NULL;
		struct kfiles kf;

		if (!kd ||
		    gm_path(kdir, sizeof(kdir), "%s/" GM_K_DIR "/%s", keydir, k->ver) ||
		    add_kernel(t, kd, kdir, k, &kf)) {
			ok = false;
			break;
		}
		if (!gm_path(hdir, sizeof(hdir), "%s/" GM_D_MODULES, kdir) &&
		    !gm_path(kodir, sizeof(kodir), "%s/" GM_D_KO, kdir) &&
		    gm_is_dir(hdir)) {
			md = gm_tree_dir(t, libmods, k->ver);
			if (md)
				md->module_tree = true;
			if (!md || add_module_tree(t, md, hdir, kodir, 0))
				ok = false;
			kf.moddir = md;
		}
		if (kf.kallsyms)
			kf.kallsyms->kernel = (int)i;
		t->pidviews[i] = pidview(t, &kf);
		ok &= t->pidviews[i] != NULL;
		if (k == def)
			defk = kf;
	}
	if (ok && def) {
		link_if(t, root, defk.kallsyms);
		link_if(t, root, defk.sysmap);
		link_if(t, root, defk.vmlinux);
		link_if(t, root, defk.modules);
		link_if(t, root, defk.config);
		link_if(t, root, defk.version);
		link_if(t, root, defk.build_id);
		if (t->pidviews)
			t->pidview = t->pidviews[def - meta->kernels];
	}
	if (!ok) {
		gm_tree_free(t);
		return NULL;
	}
	gm_tree_finish(t);
	return t;
}
