// SPDX-License-Identifier: GPL-2.0
#include "vmproc.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "base/fileio.h"
#include "match.h"

#define CMDLINE_MAX   (1 << 20) /* as the matcher reads it */
#define FDS_MAX	      4096	/* QEMU holds tens; a bound for hostile ones */
#define KVM_RUN_IOCTL 0xae80UL	/* _IO(KVMIO, 0x80) */
/* The virtio-serial port every libguestfs appliance talks to its daemon on. */
#define APPLIANCE_CHANNEL "org.libguestfs.channel."

int vmproc_vcpu_index(const char *comm)
{
	char accel[8];
	int n, end = 0;

	if (sscanf(comm, "CPU %d/%7[A-Za-z]%n", &n, accel, &end) != 2 || n < 0)
		return -1;
	return comm[end] == '\0' || comm[end] == '\n' ? n : -1;
}

static int by_index(const void *a, const void *b)
{
	const struct vmproc_vcpu *x = a, *y = b;

	if (x->index != y->index)
		return (x->index > y->index) - (x->index < y->index);
	return (x->tid > y->tid) - (x->tid < y->tid);
}

/*
 * Without names (QEMU names its threads only with -name ...,debug-threads=on,
 * which libvirt sets), a vCPU thread is one blocked in ioctl(KVM_RUN): its
 * /proc/.../syscall reads "16 0x<fd> 0xae80 ...". One running guest code
 * reads "running" and is missed.
 */
static bool in_kvm_run(pid_t pid, pid_t tid)
{
	char path[64], line[128];
	unsigned long nr, fd, cmd;
	bool yes = false;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/syscall", (int)pid, (int)tid);
	f = fopen(path, "re");
	if (f && fgets(line, sizeof(line), f) &&
	    sscanf(line, "%lu %lx %lx", &nr, &fd, &cmd) == 3)
		yes = nr == SYS_ioctl && cmd == KVM_RUN_IOCTL;
	if (f)
		fclose(f);
	return yes;
}

static void add_vcpu(struct vmproc *vm, int index, pid_t tid)
{
	if (vm->nr_vcpus == VMPROC_MAX_VCPUS) {
		vm->vcpus_cut = true;
		return;
	}
	vm->vcpus[vm->nr_vcpus++] = (struct vmproc_vcpu){index, tid};
}

static int read_vcpus(struct vmproc *vm)
{
	char path[64], comm[32];
	struct dirent *de;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)vm->pid);
	d = opendir(path);
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		pid_t tid = guest_parse_pid(de->d_name);
		FILE *f;
		int idx = -1;

		if (tid <= 0)
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%d/comm", (int)vm->pid,
			 (int)tid);
		f = fopen(path, "re");
		if (f && fgets(comm, sizeof(comm), f))
			idx = vmproc_vcpu_index(comm);
		if (f)
			fclose(f);
		if (idx >= 0)
			add_vcpu(vm, idx, tid);
		else if (in_kvm_run(vm->pid, tid))
			vm->blocked[vm->nr_blocked < VMPROC_MAX_VCPUS ? vm->nr_blocked++
								      : 0] = tid;
	}
	closedir(d);
	/* Named threads are the better witness; else those in KVM_RUN, by tid. */
	for (size_t i = 0; !vm->nr_vcpus && i < vm->nr_blocked; i++)
		add_vcpu(vm, -1, vm->blocked[i]);
	qsort(vm->vcpus, vm->nr_vcpus, sizeof(vm->vcpus[0]), by_index);
	return 0;
}

/* QEMU option values double a comma to mean a literal one. */
static void copy_value(const char *v, char *out, size_t size)
{
	size_t n = 0;

	while (*v && n + 1 < size) {
		if (*v == ',' && v[1] != ',')
			break;
		if (*v == ',')
			v++;
		out[n++] = *v++;
	}
	out[n] = '\0';
}

static void add_disk(struct vmproc *vm, const char *path)
{
	if (!path[0] || vm->nr_disks == VMPROC_MAX_DISKS || !strncmp(path, "json:", 5))
		return;
	for (size_t i = 0; i < vm->nr_disks; i++)
		if (!strcmp(vm->disks[i].path, path))
			return;
	snprintf(vm->disks[vm->nr_disks++].path, VMPROC_PATH_MAX, "%s", path);
}

/* The file= or filename= of one -drive or -blockdev value. */
static void disk_of_option(const char *opt, struct vmproc *vm)
{
	static const char *const keys[] = {"file=", "filename="};
	char path[VMPROC_PATH_MAX];
	const char *p = opt;

	while (p && *p) {
		for (size_t k = 0; k < 2; k++) {
			size_t len = strlen(keys[k]);

			if (!strncmp(p, keys[k], len)) {
				copy_value(p + len, path, sizeof(path));
				add_disk(vm, path);
			}
		}
		/* The next key: after a single comma (",," is part of a value). */
		while (*p && !(*p == ',' && p[1] != ',')) {
			p += *p == ',' ? 2 : 1;
		}
		p = *p ? p + 1 : NULL;
	}
}

static bool is_hd_option(const char *arg)
{
	return !strncmp(arg, "-hd", 3) && arg[3] >= 'a' && arg[3] <= 'd' && !arg[4];
}

void vmproc_disks_from_argv(const char *cmdline, size_t len, struct vmproc *vm)
{
	const char *end = cmdline + len, *arg = cmdline, *next;

	for (; arg < end; arg = next) {
		next = arg + strnlen(arg, (size_t)(end - arg)) + 1;
		if (next >= end)
			break;
		if (!strcmp(arg, "-drive") || !strcmp(arg, "--drive") ||
		    !strcmp(arg, "-blockdev") || !strcmp(arg, "--blockdev"))
			disk_of_option(next, vm);
		else if (is_hd_option(arg))
			add_disk(vm, next);
	}
}

/* Mark each disk the process holds open, by device and inode. */
static void mark_open(struct vmproc *vm)
{
	struct stat disk[VMPROC_MAX_DISKS], st;
	bool known[VMPROC_MAX_DISKS];
	char path[VMPROC_PATH_MAX + 64];
	int nr_fds = 0;
	struct dirent *de;
	DIR *d;

	for (size_t i = 0; i < vm->nr_disks; i++) {
		/* A relative path is relative to QEMU's working folder. */
		if (vm->disks[i].path[0] == '/')
			snprintf(path, sizeof(path), "%s", vm->disks[i].path);
		else
			snprintf(path, sizeof(path), "/proc/%d/cwd/%s", (int)vm->pid,
				 vm->disks[i].path);
		known[i] = !stat(path, &disk[i]);
	}
	snprintf(path, sizeof(path), "/proc/%d/fd", (int)vm->pid);
	d = opendir(path);
	if (!d)
		return;
	while ((de = readdir(d)) && nr_fds++ < FDS_MAX) {
		if (fstatat(dirfd(d), de->d_name, &st, 0) || de->d_name[0] == '.')
			continue;
		for (size_t i = 0; i < vm->nr_disks; i++)
			if (known[i] && st.st_dev == disk[i].st_dev &&
			    st.st_ino == disk[i].st_ino)
				vm->disks[i].open = true;
	}
	closedir(d);
}

bool vmproc_argv_is_appliance(const char *cmdline, size_t len)
{
	const char *end = cmdline + len, *arg;

	for (arg = cmdline; arg < end; arg += strnlen(arg, (size_t)(end - arg)) + 1)
		if (memmem(arg, strnlen(arg, (size_t)(end - arg)), APPLIANCE_CHANNEL,
			   sizeof(APPLIANCE_CHANNEL) - 1))
			return true;
	return false;
}

bool vmproc_is_appliance(pid_t pid)
{
	char path[64], *cmdline;
	size_t len;
	bool yes;

	snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)pid);
	if (kp_read_file(path, CMDLINE_MAX, &cmdline, &len, NULL))
		return false;
	yes = vmproc_argv_is_appliance(cmdline, len);
	free(cmdline);
	return yes;
}

int vmproc_read(pid_t pid, struct vmproc *vm, struct kp_err *err)
{
	char path[64], *cmdline;
	size_t len;
	int ret;

	memset(vm, 0, sizeof(*vm));
	vm->pid = pid;
	snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)pid);
	ret = kp_read_file(path, CMDLINE_MAX, &cmdline, &len, err);
	if (ret)
		return ret;
	vmproc_disks_from_argv(cmdline, len, vm);
	free(cmdline);
	mark_open(vm);
	ret = read_vcpus(vm);
	if (ret)
		return kp_errorf(err, -ret, "%s: %s", path, strerror(-ret));
	return 0;
}
