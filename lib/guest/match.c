// SPDX-License-Identifier: GPL-2.0
#include "match.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/fileio.h"

#define MAX_FDS 4096 /* descriptors looked at per process */

pid_t guest_parse_pid(const char *s)
{
	long v = 0;

	if (!*s || *s == '0')
		return -1;
	for (; *s; s++) {
		if (*s < '0' || *s > '9' || v > 10000000)
			return -1;
		v = v * 10 + (*s - '0');
	}
	return v > 0 && v <= 0x3fffffff ? (pid_t)v : -1;
}

static int read_cmdline(pid_t pid, char **cmdline, size_t *len)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)pid);
	return kp_read_file(path, 1 << 20, cmdline, len, NULL);
}

bool guest_is_qemu(pid_t pid)
{
	const char *base;
	char *cmdline;
	size_t len;
	bool qemu;

	if (read_cmdline(pid, &cmdline, &len))
		return false;
	base = len ? strrchr(cmdline, '/') : NULL;
	base = base ? base + 1 : cmdline;
	qemu = len && (!strncmp(base, "qemu", 4) || !strcmp(base, "kvm"));
	free(cmdline);
	return qemu;
}

int guest_idents_of(const struct gm_config *cfg, struct guest_ident **out)
{
	struct guest_ident *v = calloc(cfg->nr_guests ? cfg->nr_guests : 1, sizeof(*v));

	*out = v;
	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < cfg->nr_guests; i++) {
		const struct gm_guest_conf *g = &cfg->guests[i];

		v[i].name = g->name;
		for (size_t d = 0; d < g->nr_disks; d++) {
			struct stat st;

			if (stat(g->disks[d].path, &st))
				continue;
			v[i].dev[v[i].nr] = st.st_dev;
			v[i].ino[v[i].nr++] = st.st_ino;
		}
	}
	return 0;
}

static int guest_of_file(const struct stat *st, const struct guest_ident *guests,
			 size_t n)
{
	for (size_t g = 0; g < n; g++)
		for (size_t i = 0; i < guests[g].nr; i++)
			if (guests[g].dev[i] == st->st_dev &&
			    guests[g].ino[i] == st->st_ino)
				return (int)g;
	return -ENOENT;
}

/* The guest one of whose disks @pid holds open, or -ENOENT. */
static int match_fds(pid_t pid, const struct guest_ident *guests, size_t n)
{
	char dir[64], path[128];
	struct dirent *de;
	unsigned seen = 0;
	int found = -ENOENT;
	DIR *d;

	snprintf(dir, sizeof(dir), "/proc/%d/fd", (int)pid);
	d = n ? opendir(dir) : NULL;
	if (!d)
		return -ENOENT;
	while (found < 0 && seen++ < MAX_FDS && (de = readdir(d))) {
		struct stat st;

		if (de->d_name[0] == '.' ||
		    (size_t)snprintf(path, sizeof(path), "%s/%s", dir, de->d_name) >=
			    sizeof(path))
			continue;
		/* stat() follows the magic link to the open file itself. */
		if (stat(path, &st) || (!S_ISREG(st.st_mode) && !S_ISBLK(st.st_mode)))
			continue;
		found = guest_of_file(&st, guests, n);
	}
	closedir(d);
	return found;
}

static int guest_by_name(const char *name, const struct guest_ident *guests, size_t n)
{
	for (size_t g = 0; g < n; g++)
		if (!strcmp(guests[g].name, name))
			return (int)g;
	return -ENOENT;
}

/* QEMU's -name of @pid into @name: 0, or -ENOENT / -EINVAL. */
static int argv_name(pid_t pid, char *name, size_t size)
{
	char *cmdline;
	size_t len;
	int ret;

	if (read_cmdline(pid, &cmdline, &len))
		return -ENOENT;
	ret = guest_name_from_argv(cmdline, len, name, size);
	free(cmdline);
	return ret;
}

int guest_match_pid(pid_t pid, const struct guest_ident *guests, size_t n)
{
	char name[GUEST_NAME_MAX];
	int found;

	if (pid <= 0)
		return -ENOENT;
	found = match_fds(pid, guests, n);
	if (found < 0 && !argv_name(pid, name, sizeof(name)))
		found = guest_by_name(name, guests, n);
	return found;
}

int guest_name_of_vmm(pid_t pid, const struct guest_ident *guests, size_t n, char *name,
		      size_t size)
{
	int g = guest_match_pid(pid, guests, n);

	if (g >= 0) {
		snprintf(name, size, "%s", guests[g].name);
		return 0;
	}
	return pid > 0 ? argv_name(pid, name, size) : -ENOENT;
}
