// SPDX-License-Identifier: GPL-2.0
#include "guestid.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/fileio.h"

bool guest_name_valid(const char *name)
{
	size_t len = strnlen(name, GUEST_NAME_MAX);

	if (!len || len >= GUEST_NAME_MAX || !strcmp(name, ".") || !strcmp(name, ".."))
		return false;
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)name[i];

		if (c <= ' ' || c == 0x7f || c == '/' || c >= 0x80)
			return false;
	}
	return true;
}

/* "guest=NAME,debug-threads=on" or "NAME" (QEMU's ",," escapes a comma). */
static int parse_name_option(const char *opt, char *name, size_t size)
{
	const char *p = opt, *val = opt;
	size_t n = 0;

	if (!strncmp(p, "guest=", 6))
		val = p + 6;
	for (p = val; *p; p++) {
		if (*p == ',' && p[1] == ',') {
			p++;
		} else if (*p == ',') {
			break;
		}
		if (n + 1 >= size)
			return -EINVAL;
		name[n++] = *p;
	}
	name[n] = '\0';
	return guest_name_valid(name) ? 0 : -EINVAL;
}

int guest_name_from_argv(const char *cmdline, size_t len, char *name, size_t size)
{
	const char *p = cmdline, *end = cmdline + len;

	while (p < end) {
		size_t n = strnlen(p, (size_t)(end - p));
		const char *next = p + n + 1;

		if ((!strcmp(p, "-name") || !strcmp(p, "--name")) && next < end)
			return parse_name_option(next, name, size);
		if (!strncmp(p, "-name=", 6))
			return parse_name_option(p + 6, name, size);
		p = next;
	}
	return -ENOENT;
}

int guest_name_of_pid(pid_t pid, char *name, size_t size)
{
	char path[64], *buf;
	size_t len;
	int ret;

	snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)pid);
	ret = kp_read_file(path, 1 << 20, &buf, &len, NULL);
	if (ret)
		return ret;
	ret = guest_name_from_argv(buf, len, name, size);
	free(buf);
	return ret;
}

/* Does process @pid have open the file @st names? */
static bool holds_open(pid_t pid, const struct stat *st)
{
	char dir[64], path[320];
	struct dirent *de;
	bool found = false;
	DIR *d;

	snprintf(dir, sizeof(dir), "/proc/%d/fd", (int)pid);
	d = opendir(dir);
	if (!d)
		return false;
	while (!found && (de = readdir(d))) {
		struct stat fst;

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		found = !stat(path, &fst) && fst.st_dev == st->st_dev && fst.st_ino == st->st_ino;
	}
	closedir(d);
	return found;
}

int guest_name_from_disks(pid_t pid, const char *conf, char *name, size_t size)
{
	char line[4096], guest[GUEST_NAME_MAX] = "";
	FILE *f = fopen(conf, "r");
	int ret = -ENOENT;

	if (!f)
		return -errno;
	while (ret && fgets(line, sizeof(line), f)) {
		char word[16], a[GUEST_NAME_MAX + 1], b[4096];
		struct stat st;
		int n = sscanf(line, "%15s %64s %4095s", word, a, b);

		if (n >= 2 && !strcmp(word, "guest")) {
			/* A longer name was read cut short: it must not match. */
			size_t len = strlen(a);

			guest[0] = '\0';
			if (len < sizeof(guest) && guest_name_valid(a))
				memcpy(guest, a, len + 1);
		}
		else if (n == 3 && !strcmp(word, "disk") && guest[0] && !stat(b, &st) &&
			 holds_open(pid, &st)) {
			snprintf(name, size, "%s", guest);
			ret = 0;
		}
	}
	fclose(f);
	return ret;
}
