// SPDX-License-Identifier: GPL-2.0
#include "running.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/base.h"
#include "guest/guest.h"
#include "util.h"

#define MAX_FDS 4096	/* descriptors looked at per process */

pid_t gm_parse_pid(const char *s)
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

/* argv[0]'s base name says QEMU: qemu-system-*, qemu-kvm, kvm. */
static bool is_qemu(pid_t pid, char **cmdline, size_t *len)
{
	char path[64];
	const char *base;

	snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)pid);
	if (kp_read_file(path, 1 << 20, cmdline, len, NULL))
		return false;
	if (!*len) {
		free(*cmdline);
		return false;
	}
	base = strrchr(*cmdline, '/');
	base = base ? base + 1 : *cmdline;
	if (!strncmp(base, "qemu", 4) || !strcmp(base, "kvm"))
		return true;
	free(*cmdline);
	return false;
}

static pid_t parent_of(pid_t pid)
{
	char path[64], *buf, *p;
	size_t len;
	int ppid = -1;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if (kp_read_file(path, 4096, &buf, &len, NULL))
		return -1;
	/* "pid (comm) state ppid ...": comm may hold anything, so look after the last ')'. */
	p = strrchr(buf, ')');
	if (p && sscanf(p + 1, " %*c %d", &ppid) != 1)
		ppid = -1;
	free(buf);
	return ppid;
}

static int match_fds(pid_t pid, const struct gm_ident *guests, size_t n)
{
	char dir[64];
	struct dirent *de;
	unsigned seen = 0;
	int found = -1;
	DIR *d;

	snprintf(dir, sizeof(dir), "/proc/%d/fd", (int)pid);
	d = opendir(dir);
	if (!d)
		return -1;
	while (found < 0 && seen++ < MAX_FDS && (de = readdir(d))) {
		char path[128];
		struct stat st;

		if (de->d_name[0] == '.')
			continue;
		if (gm_path(path, sizeof(path), "%s/%s", dir, de->d_name))
			continue;
		/* stat() follows the magic link to the open file itself. */
		if (stat(path, &st) || (!S_ISREG(st.st_mode) && !S_ISBLK(st.st_mode)))
			continue;
		for (size_t g = 0; found < 0 && g < n; g++)
			for (size_t i = 0; i < guests[g].nr; i++)
				if (guests[g].dev[i] == st.st_dev && guests[g].ino[i] == st.st_ino)
					found = (int)g;
	}
	closedir(d);
	return found;
}

int gm_running_guest(pid_t pid, const struct gm_ident *guests, size_t n)
{
	char *cmdline, name[GUEST_NAME_MAX];
	size_t len;
	int found;

	if (pid <= 0 || pid == getpid() || !is_qemu(pid, &cmdline, &len))
		return -1;
	/* Our own libguestfs appliance holds the same disks open. */
	if (parent_of(pid) == getpid()) {
		free(cmdline);
		return -1;
	}
	found = match_fds(pid, guests, n);
	if (found < 0 && !guest_name_from_argv(cmdline, len, name, sizeof(name))) {
		for (size_t g = 0; g < n; g++)
			if (!strcmp(guests[g].name, name))
				found = (int)g;
	}
	free(cmdline);
	return found;
}

size_t gm_running_scan(pid_t *pids, int *idx, size_t max, const struct gm_ident *guests,
		       size_t n)
{
	DIR *d = opendir("/proc");
	struct dirent *de;
	size_t nr = 0;

	if (!d)
		return 0;
	while (nr < max && (de = readdir(d))) {
		pid_t pid = gm_parse_pid(de->d_name);
		int g;

		if (pid < 0)
			continue;
		g = gm_running_guest(pid, guests, n);
		if (g >= 0) {
			pids[nr] = pid;
			idx[nr++] = g;
		}
	}
	closedir(d);
	return nr;
}
