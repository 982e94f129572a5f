// SPDX-License-Identifier: GPL-2.0
/*
 * What /proc says about a QEMU process: the disks its command line names,
 * its vCPU threads by name, and libguestfs appliances told apart. The
 * command line parsers on fixed argv blobs; vmproc_read() on a real child
 * process with named threads and an open file.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "guest/guest.h"

static struct vmproc vm;

static void disks_of(const char *argv, size_t len)
{
	memset(&vm, 0, sizeof(vm));
	vmproc_disks_from_argv(argv, len, &vm);
}

static void test_drive_options(void **state)
{
	static const char argv[] =
		"qemu-system-x86_64\0-m\0256\0"
		"-drive\0if=virtio,file=/img/web,,1.qcow2,format=qcow2\0"
		"-blockdev\0driver=file,filename=rel.raw,node-name=f0\0"
		"-hdb\0/img/b.raw\0"
		"-drive\0file=json:{\"file\":\"x\"}\0"
		"-drive\0file=/img/b.raw,format=raw\0"
		"-name\0file=/not/a/disk\0"
		"-hda";
	(void)state;
	disks_of(argv, sizeof(argv));
	assert_int_equal(vm.nr_disks, 3);
	assert_string_equal(vm.disks[0].path, "/img/web,1.qcow2"); /* ",," is a comma */
	assert_string_equal(vm.disks[1].path, "rel.raw");
	assert_string_equal(vm.disks[2].path, "/img/b.raw"); /* once */
}

/* A hostile command line fills at most VMPROC_MAX_DISKS, and no more. */
static void test_disk_bounds(void **state)
{
	static char argv[1 << 16];
	size_t len = 0;

	(void)state;
	for (int i = 0; i < 100; i++)
		len += (size_t)snprintf(argv + len, sizeof(argv) - len,
					"-drive%cfile=/d/%d%c", 0, i, 0);
	disks_of(argv, len);
	assert_int_equal(vm.nr_disks, VMPROC_MAX_DISKS);
	/* A value longer than a path is cut, not overflowed. */
	memset(argv, 'a', sizeof(argv));
	memcpy(argv, "-hda\0", 5);
	argv[sizeof(argv) - 1] = '\0';
	disks_of(argv, sizeof(argv));
	assert_int_equal(strlen(vm.disks[0].path), VMPROC_PATH_MAX - 1);
}

static void test_vcpu_names(void **state)
{
	(void)state;
	assert_int_equal(vmproc_vcpu_index("CPU 0/KVM\n"), 0);
	assert_int_equal(vmproc_vcpu_index("CPU 12/TCG"), 12);
	assert_int_equal(vmproc_vcpu_index("CPU 1/KVM extra"), -1);
	assert_int_equal(vmproc_vcpu_index("qemu-system-x86"), -1);
	assert_int_equal(vmproc_vcpu_index("CPU -1/KVM"), -1);
	assert_int_equal(vmproc_vcpu_index("IO mon_iothread"), -1);
}

static void test_appliance(void **state)
{
	static const char appliance[] =
		"qemu-system-x86_64\0-device\0"
		"virtserialport,chardev=channel0,name=org.libguestfs.channel.0";
	static const char guest[] = "qemu-system-x86_64\0-name\0org.libguestfs";

	(void)state;
	assert_true(vmproc_argv_is_appliance(appliance, sizeof(appliance)));
	assert_false(vmproc_argv_is_appliance(guest, sizeof(guest)));
}

static void *idle(void *name)
{
	pthread_setname_np(pthread_self(), name);
	pause();
	return NULL;
}

/* A child with threads named as QEMU names vCPUs, holding @disk open. */
static pid_t fake_vmm(const char *disk, int ready)
{
	static const char *const names[] = {"CPU 1/KVM", "CPU 0/KVM", "IO iothread"};
	pid_t pid = fork();
	pthread_t t;

	if (pid)
		return pid;
	if (open(disk, O_RDONLY) < 0)
		_exit(1);
	for (int i = 0; i < 3; i++)
		pthread_create(&t, NULL, idle, (void *)names[i]);
	usleep(100000);
	if (write(ready, "x", 1) != 1)
		_exit(1);
	pause();
	_exit(0);
}

static void test_read_real_process(void **state)
{
	char disk[] = "/tmp/kvmprof-vmproc.XXXXXX";
	struct kp_err err = {0};
	int fd = mkstemp(disk), pipefd[2];
	char c;
	pid_t pid;

	(void)state;
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(pipe(pipefd), 0);
	pid = fake_vmm(disk, pipefd[1]);
	assert_int_equal(read(pipefd[0], &c, 1), 1);
	assert_int_equal(vmproc_read(pid, &vm, &err), 0);
	assert_int_equal(vm.nr_vcpus, 2); /* not the iothread */
	assert_int_equal(vm.vcpus[0].index, 0);
	assert_int_equal(vm.vcpus[1].index, 1);
	assert_true(vm.vcpus[0].tid != pid && vm.vcpus[1].tid != pid);
	/* Its command line is this test's: no disk named, so none listed. */
	assert_int_equal(vm.nr_disks, 0);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	assert_int_equal(vmproc_read(pid, &vm, &err), -ENOENT);
	unlink(disk);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_drive_options),
		cmocka_unit_test(test_disk_bounds),
		cmocka_unit_test(test_vcpu_names),
		cmocka_unit_test(test_appliance),
		cmocka_unit_test(test_read_real_process),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
