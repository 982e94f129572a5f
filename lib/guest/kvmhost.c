// SPDX-License-Identifier: GPL-2.0
#include "kvmhost.h"

#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <unistd.h>

bool kvm_is_loaded(void)
{
	const char *path = getenv("KVMPROF_KVM_DEVICE");

	if (path)
		return access(path, F_OK) == 0;
	return access(KVM_DEVICE_SYSFS, F_OK) == 0 || access("/dev/kvm", F_OK) == 0;
}

/* The folder the KVM device appears in: /dev, or KVMPROF_KVM_DEVICE's. */
static int device_folder(char *buf, size_t size)
{
	const char *path = getenv("KVMPROF_KVM_DEVICE");
	char *folder;
	int n;

	if (!path)
		path = "/dev/kvm";
	n = snprintf(buf, size, "%s", path);
	if (n < 0 || (size_t)n >= size)
		return -ENAMETOOLONG;
	/* In buf, or a static "." or "/": dirname() may return either. */
	folder = dirname(buf);
	memmove(buf, folder, strlen(folder) + 1);
	return 0;
}

int kvm_watch_open(void)
{
	char folder[PATH_MAX];
	int fd, ret = device_folder(folder, sizeof(folder));

	if (ret)
		return ret;
	fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (inotify_add_watch(fd, folder, IN_CREATE | IN_MOVED_TO) < 0) {
		ret = -errno;
		close(fd);
		return ret;
	}
	return fd;
}

bool kvm_watch_check(int fd)
{
	char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));

	while (read(fd, buf, sizeof(buf)) > 0)
		;
	return kvm_is_loaded();
}
