/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The served tree of one guest: folders and files, each file backed by a
 * file of the cache or by a small buffer. A tree never changes once
 * published, except that files made on first use (decompressed kernel ELF,
 * decompressed modules) learn their size; a newer inspection publishes a
 * new tree. Nodes may appear in several folders (the by-pid view reuses the
 * guest's files).
 */
#ifndef GM_TREE_H
#define GM_TREE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "guest/guest.h"
#include "meta.h"

enum gm_lazy {
	GM_LAZY_NONE,
	GM_LAZY_VMLINUX, /* path is made from the kernel image src */
	GM_LAZY_MODULE,	 /* path is made by decompressing the module src */
};

struct gm_node {
	char *name;
	bool dir;
	enum gm_kind kind;
	/* Files: a cache file, or a buffer when path is NULL. */
	char *path;
	char *data;
	uint64_t size;
	enum gm_lazy lazy;
	char *src;
	bool made;	 /* lazy file made */
	bool size_known; /* lazy file: size is the made file's or its source's word */
	int made_err;	 /* lazy file could not be made: the errno to return */
	/* Folders: children sorted by name once the tree is finished. */
	bool module_tree; /* a lib/modules/<version>/ folder or one below it */
	int kernel;	  /* kallsyms: its kernel's index in the meta, else -1 */
	struct gm_node **kids;
	size_t nr_kids, cap_kids;
};

struct gm_tree {
	struct gm_node **all; /* every node, for freeing */
	size_t nr, cap;
	struct gm_node *root;	   /* the guest's folder */
	struct gm_node *pidview;   /* by-pid/<pid>/ contents, or NULL */
	struct gm_node **pidviews; /* the same for each kernel (meta's order) */
	size_t nr_pidviews;
	time_t mtime;
	/* Bytes of files made on first use found already made when it was built. */
	uint64_t derived;
	/* A module tree had more files and folders than max-files: the rest is not
	 * served. */
	bool modules_cut;
	unsigned mod_left; /* while building: module tree nodes still allowed */
	uint64_t max_file_size;
	struct gm_tree *older; /* trees replaced while mounted, freed at exit */
};

struct gm_tree *gm_tree_new(const char *root_name, time_t mtime);
void gm_tree_free(struct gm_tree *t);

/* Child folder @name of @parent, created when missing. NULL on failure. */
struct gm_node *gm_tree_dir(struct gm_tree *t, struct gm_node *parent, const char *name);
struct gm_node *gm_tree_file(struct gm_tree *t, struct gm_node *parent, const char *name,
			     enum gm_kind kind, const char *path, uint64_t size);
struct gm_node *gm_tree_mem(struct gm_tree *t, struct gm_node *parent, const char *name,
			    enum gm_kind kind, const char *data, size_t len);
/* Folders along @path ("a/b/c") below @parent, created when missing. */
struct gm_node *gm_tree_dirs(struct gm_tree *t, struct gm_node *parent, const char *path);
/* Add an existing node under another folder too. */
int gm_tree_link(struct gm_tree *t, struct gm_node *parent, struct gm_node *child);

/* Sort every folder; of two entries with one name the one not made on first use stays. */
void gm_tree_finish(struct gm_tree *t);

/* Child by name in a finished tree. */
struct gm_node *gm_node_child(const struct gm_node *dir, const char *name);

/*
 * The tree of a guest whose inspection is in the cache folder @keydir: the
 * default kernel's files at the top, kernels/<version>/ for every kernel,
 * lib/modules/<version>/ module trees, info and info.json (given), and the
 * by-pid view. @def is the default kernel or NULL. @cfg's max-files bounds
 * the files and folders of all module trees together (modules_cut tells),
 * and files made on first use are sized from their sources' headers, never
 * made here. @cfg may be NULL: no limits.
 */
struct gm_tree *gm_tree_build(const char *name, const struct gm_config *cfg,
			      const char *keydir, const struct gm_meta *meta,
			      const struct gm_kernel *def, time_t mtime, const char *info,
			      size_t info_len, const char *json, size_t json_len);

#endif
