// SPDX-License-Identifier: GPL-2.0
#include "guestsyms.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "layout.h"

/* The guest's folders in the tree, most specific first, and their files. */
enum { IN_NAME, IN_PID, IN_BY_PID, NR_FOLDERS };

static const struct {
	const char *kallsyms;
	const char *modules;
	const char *version;
} folder_files[NR_FOLDERS] = {
	[IN_NAME] = {GUEST_F_KALLSYMS, GUEST_F_MODULES, GUEST_F_VERSION},
	[IN_PID] = {GUEST_PID_KALLSYMS, GUEST_PID_MODULES, GUEST_PID_VERSION},
	[IN_BY_PID] = {GUEST_PID_KALLSYMS, GUEST_PID_MODULES, GUEST_PID_VERSION},
};

static bool name_known(const char *name)
{
	return name && name[0] && strcmp(name, "-");
}

/* Folder @which of the guest in the tree; false when it has none (no name). */
static bool guest_folder(const struct guestsyms_opts *o, const char *name, int pid,
			 int which, char *dir, size_t size)
{
	const char *mount = o->mount ? o->mount : GUEST_MOUNT_DEFAULT;

	if (which == IN_NAME) {
		if (!name_known(name))
			return false;
		snprintf(dir, size, "%s/%s", mount, name);
	} else if (which == IN_PID) {
		snprintf(dir, size, "%s/%d", mount, pid);
	} else {
		snprintf(dir, size, "%s/" GUEST_TREE_BY_PID "/%d", mount, pid);
	}
	return true;
}

static bool file_exists(const char *path)
{
	struct stat sb;

	return stat(path, &sb) == 0 && S_ISREG(sb.st_mode);
}

/* perf's layout serves a running guest's /proc/kallsyms: runtime addresses. */
static bool is_runtime_table(const char *path)
{
	static const char tail[] = "/" GUEST_PID_KALLSYMS;
	size_t len = strlen(path), n = sizeof(tail) - 1;

	return len >= n && !strcmp(path + len - n, tail);
}

static void add_file(struct guestsyms_file *f, const char *path, bool given)
{
	snprintf(f->path, sizeof(f->path), "%s", path);
	f->given = given;
	f->runtime = is_runtime_table(f->path);
}

int guestsyms_kernel_files(const struct guestsyms_opts *o, const char *name, int pid,
			   struct guestsyms_file *files, int max)
{
	char dir[GUESTSYMS_PATH_MAX], path[GUESTSYMS_PATH_MAX + 32];
	int n = 0;

	if (o->vmlinux && n < max)
		add_file(&files[n++], o->vmlinux, true);
	if (o->kallsyms && n < max)
		add_file(&files[n++], o->kallsyms, true);
	for (int i = 0; i < NR_FOLDERS && n < max; i++) {
		if (!guest_folder(o, name, pid, i, dir, sizeof(dir)))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, folder_files[i].kallsyms);
		add_file(&files[n++], path, false);
	}
	return n;
}

int guestsyms_load_first(const struct guestsyms_file *files, int n,
			 guestsyms_load_fn load, void *ctx)
{
	for (int i = 0; i < n; i++) {
		if (!files[i].given && !file_exists(files[i].path))
			continue;
		if (load(ctx, &files[i]))
			return i;
		if (files[i].given)
			return -1;
	}
	return -1;
}

bool guestsyms_release(const char *path, char *out, size_t size)
{
	char buf[256] = "", a[64], b[64], c[128];
	FILE *f = fopen(path, "r");

	if (!f)
		return false;
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = '\0';
	fclose(f);
	if (sscanf(buf, "%63s %63s %127s", a, b, c) == 3 && !strcmp(a, "Linux"))
		snprintf(out, size, "%s", c); /* "Linux version RELEASE ..." */
	else if (sscanf(buf, "%127s", c) == 1)
		snprintf(out, size, "%s", c);
	else
		return false;
	return true;
}

/* Folder @which's module list and, when its release is known, module tree. */
static bool modules_in(const struct guestsyms_opts *o, const char *name, int pid,
		       int which, struct guestsyms_modules *out)
{
	char dir[300], ver[600], rel[128];

	if (!guest_folder(o, name, pid, which, dir, sizeof(dir)))
		return false;
	snprintf(out->list, sizeof(out->list), "%s/%s", dir, folder_files[which].modules);
	if (!file_exists(out->list)) {
		out->list[0] = '\0';
		return false;
	}
	snprintf(ver, sizeof(ver), "%s/%s", dir, folder_files[which].version);
	if (guestsyms_release(ver, rel, sizeof(rel)))
		snprintf(out->tree, sizeof(out->tree), "%s/" GUEST_D_LIB_MODULES "/%s",
			 dir, rel);
	return true;
}

bool guestsyms_modules(const struct guestsyms_opts *o, const char *name, int pid,
		       struct guestsyms_modules *out)
{
	memset(out, 0, sizeof(*out));
	for (int i = 0; i < NR_FOLDERS; i++)
		if (modules_in(o, name, pid, i, out))
			break;
	if (o->modules)
		snprintf(out->list, sizeof(out->list), "%s", o->modules);
	return out->list[0] != '\0';
}
