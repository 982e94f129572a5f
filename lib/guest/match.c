// SPDX-License-Identifier: GPL-2.0
#include "match.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/fileio.h"
#include "vmmtrust.h"

#define MAX_FDS	  4096 /* descriptors looked at per process */
#define ARGV0_MAX 4096 /* PATH_MAX: a longer argv[0] names no QEMU */

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

/*
 * The start of @pid's command line, NUL-terminated: argv[0] without reading
 * the rest, which may be 1 MiB of any process's arguments.
 */
static int read_argv0(pid_t pid, char *buf, size_t size)
{
	char path[64];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n <= 0)
		return -ENOENT;
	buf[n] = '\0';
	return 0;
}

bool guest_is_qemu(pid_t pid)
{
	char argv0[ARGV0_MAX + 1];
	const char *base;

	if (read_argv0(pid, argv0, sizeof(argv0)) || !argv0[0])
		return false;
	base = strrchr(argv0, '/');
	base = base ? base + 1 : argv0;
	return !strncmp(base, "qemu", 4) || !strcmp(base, "kvm");
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

int guest_match_disk(pid_t pid, const struct guest_ident *guests, size_t n)
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

int guest_match_name(pid_t pid, const struct guest_ident *guests, size_t n)
{
	char name[GUEST_NAME_MAX];

	if (pid <= 0 || argv_name(pid, name, sizeof(name)))
		return -ENOENT;
	return guest_by_name(name, guests, n);
}

int guest_match_pid(pid_t pid, const struct guest_ident *guests, size_t n,
		    const struct guest_trust *trust)
{
	int found;

	if (pid <= 0)
		return -ENOENT;
	found = guest_match_disk(pid, guests, n);
	if (found < 0 && guest_vmm_trusted(trust, pid, NULL))
		found = guest_match_name(pid, guests, n);
	return found;
}

int guest_name_of_vmm(pid_t pid, const struct guest_ident *guests, size_t n,
		      const struct guest_trust *trust, char *name, size_t size)
{
	int g = guest_match_pid(pid, guests, n, trust);
	int ret;

	if (g >= 0) {
		snprintf(name, size, "%s", guests[g].name);
		return 0;
	}
	ret = pid > 0 ? argv_name(pid, name, size) : -ENOENT;
	/* An untrusted process's -name must not borrow a configured guest's. */
	if (!ret && guest_by_name(name, guests, n) >= 0) {
		name[0] = '\0';
		return -EPERM;
	}
	return ret;
}
