// SPDX-License-Identifier: GPL-2.0
#include "vmmtrust.h"

#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define STATUS_MAX 8192 /* /proc/PID/status is ~1.5 KiB; Uid: is near its top */

/* @name's uid: 0, -ENOENT when there is no such user, or another -errno. */
static int uid_of(const char *name, uid_t *uid)
{
	struct passwd pw, *res = NULL;
	size_t size = 1024;
	char *buf = NULL;
	int ret;

	do {
		char *b = realloc(buf, size);

		if (!b) {
			free(buf);
			return -ENOMEM;
		}
		buf = b;
		ret = getpwnam_r(name, &pw, buf, size, &res);
		size *= 2;
	} while (ret == ERANGE && size <= (1 << 20));
	if (!ret && res)
		*uid = pw.pw_uid;
	free(buf);
	return ret ? -ret : res ? 0 : -ENOENT;
}

static void add_uid(struct guest_trust *t, uid_t uid)
{
	for (size_t i = 0; i < t->nr; i++)
		if (t->uids[i] == uid)
			return;
	t->uids[t->nr++] = uid;
}

int guest_trust_of(const struct gm_config *cfg, struct guest_trust *t, struct kp_err *err)
{
	const char *user = cfg->qemu_user ? cfg->qemu_user : GUEST_QEMU_USER_DEFAULT;
	uid_t uid;
	int ret;

	memset(t, 0, sizeof(*t));
	add_uid(t, 0);
	add_uid(t, getuid());
	ret = uid_of(user, &uid);
	if (ret == -ENOENT && !cfg->qemu_user)
		return 0; /* no libvirt here: root's and the caller's QEMUs only */
	if (ret == -ENOENT)
		return kp_errorf(err, EINVAL, "qemu-user %s: no such user", user);
	if (ret)
		return kp_errorf(err, -ret, "qemu-user %s: %s", user, strerror(-ret));
	add_uid(t, uid);
	snprintf(t->qemu_user, sizeof(t->qemu_user), "%s", user);
	return 0;
}

/* The four uids of "Uid:\t0\t0\t0\t0" in /proc/PID/status. */
static int status_uids(pid_t pid, unsigned long uids[4])
{
	char path[64], buf[STATUS_MAX];
	const char *line;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -EIO;
	buf[n] = '\0';
	line = strstr(buf, "\nUid:");
	if (!line || sscanf(line + 5, "%lu %lu %lu %lu", &uids[0], &uids[1], &uids[2],
			    &uids[3]) != 4)
		return -EIO;
	return 0;
}

static bool trusted_uid(const struct guest_trust *t, unsigned long uid)
{
	for (size_t i = 0; i < t->nr; i++)
		if (t->uids[i] == uid)
			return true;
	return false;
}

bool guest_vmm_trusted(const struct guest_trust *t, pid_t pid, uid_t *uid)
{
	unsigned long uids[4];

	if (uid)
		*uid = (uid_t)-1;
	if (status_uids(pid, uids))
		return false;
	if (uid)
		*uid = (uid_t)uids[0];
	for (int i = 0; i < 4; i++)
		if (!trusted_uid(t, uids[i]))
			return false;
	return true;
}
