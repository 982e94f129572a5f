// SPDX-License-Identifier: GPL-2.0
/* Reading guest LSTAR and CR3 from KVM's per-vCPU debugfs files. */
#include "kvmdebugfs.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* "0x<hex>\n", nothing else: the kernel's DEFINE_DEBUGFS_ATTRIBUTE format. */
static int parse_hex(const char *s, uint64_t *val)
{
	char *end;

	if (strncmp(s, "0x", 2) || !s[2])
		return -EINVAL;
	errno = 0;
	*val = strtoull(s + 2, &end, 16);
	if (errno || end == s + 2 || (*end && strcmp(end, "\n")))
		return -EINVAL;
	return 0;
}

static int read_hex(int dirfd, const char *name, uint64_t *val)
{
	char buf[32];
	ssize_t n;
	int fd, ret;

	fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	ret = n < 0 ? -errno : 0;
	close(fd);
	if (ret)
		return ret;
	buf[n] = '\0';
	return parse_hex(buf, val);
}

/* "<pid>-<digits>" for @pid. */
static bool vm_dir_of(const char *name, pid_t pid)
{
	char prefix[24];
	size_t n = (size_t)snprintf(prefix, sizeof(prefix), "%d-", (int)pid);

	return !strncmp(name, prefix, n) && name[n] &&
	       strspn(name + n, "0123456789") == strlen(name + n);
}

/* "vcpu<N>": N, or -1. */
static long vcpu_index(const char *name)
{
	char *end;
	long n;

	if (strncmp(name, "vcpu", 4) || !name[4])
		return -1;
	n = strtol(name + 4, &end, 10);
	return *end || n < 0 || n > INT_MAX ? -1 : n;
}

/* The lowest vCPU of VM folder @vmfd with a nonzero LSTAR. */
static int scan_vm(int vmfd, struct kvm_guest_regs *best, bool *found, bool *any_files)
{
	DIR *d = fdopendir(vmfd);
	struct dirent *de;
	int ret = 0;

	if (!d) {
		close(vmfd);
		return -errno;
	}
	while ((de = readdir(d))) {
		long idx = vcpu_index(de->d_name);
		struct kvm_guest_regs r = {0};
		int cfd, rc;

		if (idx < 0 || (*found && (unsigned long)idx >= best->vcpu))
			continue;
		cfd = openat(dirfd(d), de->d_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (cfd < 0)
			continue;
		rc = read_hex(cfd, "guest_lstar", &r.lstar);
		close(cfd);
		if (rc == -ENOENT)
			continue;
		*any_files = true;
		if (rc) {
			ret = rc;
			continue;
		}
		if (!r.lstar)
			continue;
		r.vcpu = (unsigned int)idx;
		*best = r;
		*found = true;
	}
	closedir(d);
	return ret;
}

int kvm_debugfs_guest_regs(const char *dir, pid_t pid, struct kvm_guest_regs *regs,
			   struct kp_err *err)
{
	bool found = false, any_files = false;
	struct dirent *de;
	int ret = 0;
	DIR *d;

	if (!dir)
		dir = KVM_DEBUGFS_DIR;
	d = opendir(dir);
	if (!d)
		return kp_errorf(err, errno, "%s: %s", dir, strerror(errno));
	while ((de = readdir(d))) {
		int vmfd, rc;

		if (!vm_dir_of(de->d_name, pid))
			continue;
		vmfd = openat(dirfd(d), de->d_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (vmfd < 0)
			continue;
		rc = scan_vm(vmfd, regs, &found, &any_files);
		if (rc && !ret)
			ret = rc;
	}
	closedir(d);
	if (found)
		return 0;
	if (ret)
		return kp_errorf(err, -ret, "%s: guest registers of pid %d: %s", dir,
				 (int)pid,
				 ret == -EINVAL ? "unexpected contents" : strerror(-ret));
	if (any_files)
		return kp_errorf(err, EAGAIN,
				 "pid %d: no vCPU has run its guest kernel yet",
				 (int)pid);
	return kp_errorf(err, ENOENT, "%s: no vCPU files with guest registers for pid %d",
			 dir, (int)pid);
}
