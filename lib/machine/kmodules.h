/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A kernel's loaded modules: where each one's text sits (from a
 * /proc/modules-format list) and, when a module tree is at hand, its
 * symbols (from the .ko, .ko.xz, .ko.zst or .ko.gz file of that name).
 */
#ifndef KVMPROF_KMODULES_H
#define KVMPROF_KMODULES_H

#include <stddef.h>
#include <stdint.h>

#include "dso.h"
#include "base/err.h"
#include "base/hashmap.h"

struct kmodule {
	char name[64];
	uint64_t start; /* text base, as /proc/modules shows it */
	uint64_t size;
	struct dso *dso; /* "[name]", symbols at text offsets */
	char *path;	 /* the module file, NULL when not found */
};

struct kmodules {
	struct kmodule *mods; /* sorted by start */
	size_t nr;
	struct hashmap files; /* normalised name -> path, from the module tree */
};

/*
 * Read a /proc/modules-format file (@what names it in errors) and index
 * the module files under @tree (may be NULL). DSOs come from @dsos.
 */
int kmodules_load(struct kmodules *km, const char *modules_file, const char *tree,
		  struct dso_cache *dsos, struct kp_err *err);
/* Module containing @ip and the symbol in it (NULL when unnamed). */
const struct ksym *kmodules_lookup(struct kmodules *km, uint64_t ip,
				   const struct dso **dso);
void kmodules_release(struct kmodules *km);

#endif
