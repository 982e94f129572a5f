// SPDX-License-Identifier: GPL-2.0
/*
 * The daemon's store without FUSE and without an appliance: a real cache
 * folder, real disk files, the real worker thread, publishing and tree,
 * with inspection replaced by a hook that writes what an inspection of a
 * Debian guest copies out (a System.map) and visibility by a hook too.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "testutil.h"

#include "inspect.h"
#include "store.h"

#define VERSION "6.1.0-test"

static const char system_map[] = "ffffffff81000000 T _text\n"
				 "ffffffff81000100 T start_kernel\n"
				 "ffffffff81000200 T do_syscall_64\n"
				 "ffffffff81000300 T entry_SYSCALL_64\n"
				 "ffffffff81001000 T _etext\n";

struct fixture {
	char dir[64];
	char text[1024];
	struct gm_config cfg;
	int inspections; /* guests the hook inspected */
	bool fail;	 /* the hook fails as a broken appliance would */
	bool no_os;	 /* the hook finds no operating system */
	bool modules;	 /* the hook copies out compressed modules too */
	bool slow;	 /* the hook takes a while, as an appliance does */
};

/* How far this process's wall clock lags the kernel's (a step back). */
static _Atomic long wall_clock_lag;

/* Interposed for the whole test program, the store included. */
int clock_gettime(clockid_t clk, struct timespec *ts)
{
	int ret = (int)syscall(SYS_clock_gettime, clk, ts);

	if (!ret && clk == CLOCK_REALTIME)
		ts->tv_sec -= wall_clock_lag;
	return ret;
}

#define MOD_DIR	 "/lib/modules/" VERSION "/kernel/"
#define MOD_SIZE 102400

/*
 * A module tree with @fx->dir/raw compressed as a.ko.zst, b.ko.xz and
 * c.ko.gz, which state their size, and d.ko.zst, a zstd frame written from
 * a pipe, which does not.
 */
static void fake_modules(const char *kdir, const char *fxdir)
{
	assert_int_equal(
		sh("set -e; d='%s/" GM_D_MODULES "/kernel'; r='%s/raw'; "
		   "mkdir -p \"$d\"; zstd -q \"$r\" -o \"$d/a.ko.zst\"; "
		   "xz -c \"$r\" >\"$d/b.ko.xz\"; gzip -nc \"$r\" >\"$d/c.ko.gz\"; "
		   "zstd -qc <\"$r\" >\"$d/d.ko.zst\"",
		   kdir, fxdir),
		0);
}

static void write_file(const char *path, const char *data)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(data, f);
	fclose(f);
}

/* What inspect.c leaves in a job's folder for a guest with one kernel. */
static void fake_inspect(struct gm_job **jobs, size_t n, void *ctx)
{
	struct fixture *fx = ctx;

	for (size_t i = 0; i < n; i++) {
		struct gm_job *job = jobs[i];
		struct gm_kernel *k;
		char path[4200];

		fx->inspections++;
		if (fx->slow)
			usleep(300 * 1000);
		if (fx->fail) {
			job->ret = kp_errorf(&job->err, EIO, "appliance failed");
			continue;
		}
		if (fx->no_os) {
			/* A conclusion about the disk's content, as inspect.h says. */
			job->ret = kp_errorf(&job->err, ENOMEDIUM,
					     "no operating system found");
			job->meta.error_code = ENOMEDIUM;
			snprintf(job->meta.error, sizeof(job->meta.error), "%s",
				 job->err.msg);
			continue;
		}
		snprintf(job->meta.os, sizeof(job->meta.os), "linux");
		k = gm_meta_add_kernel(&job->meta, VERSION);
		assert_non_null(k);
		k->has_sysmap = true;
		snprintf(path, sizeof(path), "%s/" GM_K_DIR "/" VERSION, job->dir);
		assert_int_equal(sh("mkdir -p '%s'", path), 0);
		snprintf(path, sizeof(path), "%s/" GM_K_DIR "/" VERSION "/" GM_F_SYSMAP,
			 job->dir);
		write_file(path, system_map);
		if (fx->modules) {
			snprintf(path, sizeof(path), "%s/" GM_K_DIR "/" VERSION,
				 job->dir);
			fake_modules(path, fx->dir);
		}
	}
}

static bool hide_secret(const char *guest, void *ctx)
{
	return strcmp(guest, "secret") != 0;
}

static int setup(void **state)
{
	struct fixture *fx = calloc(1, sizeof(*fx));
	struct kp_err err = {0};
	char path[128];

	snprintf(fx->dir, sizeof(fx->dir), "/tmp/kvmprof-store.XXXXXX");
	assert_non_null(mkdtemp(fx->dir));
	snprintf(path, sizeof(path), "%s/web.img", fx->dir);
	write_file(path, "not a partition table, but bytes");
	snprintf(path, sizeof(path), "%s/secret.img", fx->dir);
	write_file(path, "other bytes");
	snprintf(fx->text, sizeof(fx->text),
		 "cache %s/cache\nkvm-debugfs %s/kvm\nguest web\n disk raw %s/web.img\n"
		 "guest secret\n disk raw %s/secret.img\n",
		 fx->dir, fx->dir, fx->dir, fx->dir);
	assert_int_equal(gm_config_init(&fx->cfg), 0);
	if (gm_config_parse(fx->text, strlen(fx->text), "test.conf", &fx->cfg, &err))
		fail_msg("%s", err.msg);
	*state = fx;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *fx = *state;

	wall_clock_lag = 0;
	gm_config_release(&fx->cfg);
	sh("rm -rf '%s'", fx->dir);
	free(fx);
	return 0;
}

static struct gm_store *start(struct fixture *fx)
{
	struct gm_store_hooks hooks = {
		.visible = hide_secret, .inspect = fake_inspect, .ctx = fx};
	struct kp_err err = {0};
	struct gm_store *store;

	if (gm_store_new(&fx->cfg, &hooks, false, &store, &err))
		fail_msg("%s", err.msg);
	assert_int_equal(gm_store_start(store), 0);
	return store;
}

static void stop(struct gm_store *store)
{
	assert_true(gm_store_stop(store, 10.0));
	gm_store_free(store);
}

static int allow(const struct gm_entry *e)
{
	return 0;
}

static int refuse(const struct gm_entry *e)
{
	return -EACCES;
}

/* The whole content of a served file. */
static char *read_all(struct gm_store *store, const char *path)
{
	static char buf[65536];
	struct gm_open *h;
	int n;

	assert_int_equal(gm_store_open(store, path, allow, &h), 0);
	n = gm_store_read(h, buf, sizeof(buf) - 1, 0);
	assert_true(n >= 0);
	buf[n] = '\0';
	gm_store_close(h);
	return buf;
}

struct listing {
	char names[16][64];
	int nr;
};

static int collect(void *ctx, const char *name, const struct gm_entry *e)
{
	struct listing *l = ctx;

	if (l->nr < 16)
		snprintf(l->names[l->nr++], 64, "%s", name);
	return 0;
}

static bool listed(const struct listing *l, const char *name)
{
	for (int i = 0; i < l->nr; i++)
		if (!strcmp(l->names[i], name))
			return true;
	return false;
}

static void test_serves_inspection(void **state)
{
	struct fixture *fx = *state;
	struct gm_store *store = start(fx);
	struct listing top = {0}, kernels = {0};
	struct gm_entry e;
	struct gm_open *h;

	/* The first lookup waits for the worker's inspection. */
	assert_int_equal(gm_store_stat(store, "/web/kallsyms", &e), 0);
	assert_false(e.dir);
	assert_int_equal(e.kind, GM_KIND_KALLSYMS);
	assert_string_equal(e.guest, "web");
	assert_non_null(strstr(read_all(store, "/web/kallsyms"), "T do_syscall_64"));
	assert_non_null(strstr(read_all(store, "/web/kernels/" VERSION "/System.map"),
			       "start_kernel"));
	assert_non_null(strstr(read_all(store, "/web/info"), "ready"));
	assert_int_equal(gm_store_list(store, "/web/kernels", collect, &kernels), 0);
	assert_true(listed(&kernels, VERSION));

	/* The hidden guest does not exist, for a lookup or a listing. */
	assert_int_equal(gm_store_stat(store, "/secret", &e), -ENOENT);
	assert_int_equal(gm_store_stat(store, "/secret/kallsyms", &e), -ENOENT);
	assert_int_equal(gm_store_list(store, "/", collect, &top), 0);
	assert_true(listed(&top, "web"));
	assert_true(listed(&top, GUEST_TREE_BY_PID));
	assert_false(listed(&top, "secret"));

	/* The open-time check decides, and nothing else is served. */
	assert_int_equal(gm_store_open(store, "/web/kallsyms", refuse, &h), -EACCES);
	assert_int_equal(gm_store_open(store, "/web/kernels", allow, &h), -EISDIR);
	assert_int_equal(gm_store_stat(store, "/web/nothing", &e), -ENOENT);
	assert_int_equal(gm_store_stat(store, "/web/kallsyms/x", &e), -ENOTDIR);
	assert_int_equal(gm_store_stat(store, "/by-pid/1", &e), -ENOENT);
	stop(store);
	/* Hidden guests are not inspected at all. */
	assert_int_equal(fx->inspections, 1);
}

static void test_cache_and_changed_disk(void **state)
{
	struct fixture *fx = *state;
	struct gm_store *store = start(fx);
	struct gm_entry e;

	assert_int_equal(gm_store_stat(store, "/web/kallsyms", &e), 0);
	stop(store);
	assert_int_equal(fx->inspections, 1);

	/* A restart serves the cached inspection: no appliance. */
	store = start(fx);
	assert_int_equal(gm_store_stat(store, "/web/kallsyms", &e), 0);
	assert_non_null(strstr(read_all(store, "/web/kallsyms"), "T start_kernel"));
	stop(store);
	assert_int_equal(fx->inspections, 1);

	/* A changed disk is a new key: inspected again. */
	assert_int_equal(sh("echo more >>'%s/web.img'", fx->dir), 0);
	store = start(fx);
	assert_int_equal(gm_store_stat(store, "/web/kallsyms", &e), 0);
	stop(store);
	assert_int_equal(fx->inspections, 2);
}

static void test_failed_inspection(void **state)
{
	struct fixture *fx = *state;
	struct gm_store *store;
	struct gm_entry e;

	fx->fail = true;
	store = start(fx);
	/* The guest's files fail with EIO, not "no such file": it may come back. */
	assert_int_equal(gm_store_stat(store, "/web/kallsyms", &e), -EIO);
	assert_non_null(strstr(read_all(store, "/web/info"), "appliance failed"));
	assert_int_equal(fx->inspections, 1);
	stop(store);

	/* A failure of the appliance is not a conclusion about the disk: not cached. */
	fx->fail = false;
	store = start(fx);
	assert_int_equal(gm_store_stat(store, "/web/kallsyms", &e), 0);
	stop(store);
	assert_int_equal(fx->inspections, 2);
}

/* The next reader after a failure of the host has the guest inspected again. */
static void test_host_failure_retried(void **state)
{
	struct fixture *fx = *state;
	struct gm_store *store;
	struct gm_entry e;
	struct listing l = {0};

	fx->fail = true;
	store = start(fx);
	assert_int_equal(gm_store_stat(store, "/web/kallsyms", &e), -EIO);
	assert_int_equal(fx->inspections, 1);
	fx->fail = false;
	/* Listing the guest's folder tries again too, and shows its files. */
	assert_int_equal(gm_store_list(store, "/web", collect, &l), 0);
	assert_true(listed(&l, "kallsyms"));
	assert_int_equal(fx->inspections, 2);
	assert_non_null(strstr(read_all(store, "/web/kallsyms"), "T start_kernel"));
	assert_non_null(strstr(read_all(store, "/web/info"), "state: ready"));
	stop(store);
	assert_int_equal(fx->inspections, 2);
}

/* A guest's folder still lists its info while its files fail. */
static void test_host_failure_lists_info(void **state)
{
	struct fixture *fx = *state;
	struct gm_store *store;
	struct gm_entry e;
	struct listing l = {0};

	fx->fail = true;
	store = start(fx);
	assert_int_equal(gm_store_stat(store, "/web/kallsyms", &e), -EIO);
	assert_int_equal(gm_store_list(store, "/web", collect, &l), 0);
	assert_true(listed(&l, "info"));
	assert_false(listed(&l, "kallsyms"));
	stop(store);
	assert_int_equal(fx->inspections, 2);
}

/*
 * A reader waits for the inspection however the wall clock steps: with the
 * clock an hour behind, a deadline taken from it has passed already.
 */
static void test_wait_survives_clock_step(void **state)
{
	struct fixture *fx = *state;
	struct listing l = {0};
	struct gm_store *store;

	fx->slow = true;
	wall_clock_lag = 3600;
	store = start(fx);
	assert_int_equal(gm_store_list(store, "/web", collect, &l), 0);
	wall_clock_lag = 0;
	assert_true(listed(&l, "kallsyms"));
	assert_non_null(strstr(read_all(store, "/web/info"), "state: ready"));
	stop(store);
	assert_int_equal(fx->inspections, 1);
}

static void test_no_os_hint(void **state)
{
	struct fixture *fx = *state;
	struct gm_store *store;
	struct gm_entry e;
	char path[128];

	/* A disk configured as raw whose content starts like a qcow2 image. */
	snprintf(path, sizeof(path), "%s/web.img", fx->dir);
	write_file(path, "QFI\xfb and the rest of a header");
	fx->no_os = true;
	store = start(fx);
	assert_int_equal(gm_store_stat(store, "/web/kallsyms", &e), -ENOENT);
	assert_non_null(
		strstr(read_all(store, "/web/info"), "starts like a qcow2 image"));
	stop(store);

	/* The conclusion is cached, hint included. */
	store = start(fx);
	assert_int_equal(gm_store_stat(store, "/web/kallsyms", &e), -ENOENT);
	assert_non_null(
		strstr(read_all(store, "/web/info"), "starts like a qcow2 image"));
	stop(store);
	assert_int_equal(fx->inspections, 1);

	/* Another failure on the same disk gives no such hint. */
	fx->no_os = false;
	fx->fail = true;
	write_file(path, "QFI\xfb and another header");
	store = start(fx);
	assert_int_equal(gm_store_stat(store, "/web/kallsyms", &e), -EIO);
	assert_null(strstr(read_all(store, "/web/info"), "starts like"));
	stop(store);
}

/*
 * A stand-in for a guest's QEMU: argv[0] says qemu, it holds @disk open, and
 * it is not our child (the daemon's own appliance is): a shell that
 * double-forks. Returns its pid; kill_qemu() ends it and its sleep.
 */
static pid_t start_qemu(const char *disk)
{
	int p[2];
	pid_t child, pid = 0;

	assert_int_equal(pipe(p), 0);
	child = fork();
	if (child == 0) {
		if (fork() == 0) {
			int fd = open(disk, O_RDONLY);

			if (fd < 0)
				_exit(1);
			/* A group of its own: the shell's sleep goes with it. */
			setpgid(0, 0);
			close(p[0]);
			pid = getpid();
			if (write(p[1], &pid, sizeof(pid)) != sizeof(pid))
				_exit(1);
			close(p[1]);
			execl("/bin/sh", "qemu-system-x86_64", "-c", "sleep 60",
			      (char *)NULL);
			_exit(127);
		}
		_exit(0);
	}
	close(p[1]);
	waitpid(child, NULL, 0);
	assert_int_equal(read(p[0], &pid, sizeof(pid)), sizeof(pid));
	close(p[0]);
	usleep(300000);
	return pid;
}

/* Otherwise the orphaned sleep holds the test's output open for a minute. */
static void kill_qemu(pid_t qemu)
{
	kill(-qemu, SIGKILL);
}

static struct gm_store *start_all(struct fixture *fx)
{
	struct gm_store_hooks hooks = {.inspect = fake_inspect, .ctx = fx};
	struct kp_err err = {0};
	struct gm_store *store;

	if (gm_store_new(&fx->cfg, &hooks, false, &store, &err))
		fail_msg("%s", err.msg);
	assert_int_equal(gm_store_start(store), 0);
	return store;
}

/* Files made on first use in the cache: 0 when there are @n. */
static int derived_files(const struct fixture *fx, int n)
{
	return sh("test $(find '%s/cache' -path '*/ko/*' -type f | wc -l) -eq %d",
		  fx->dir, n);
}

/* Open @path and check it holds exactly the module's raw bytes. */
static void expect_module(struct gm_store *store, const struct fixture *fx,
			  const char *path, bool sized_late)
{
	static char got[2 * MOD_SIZE], want[MOD_SIZE];
	char raw[128];
	struct gm_open *h;
	FILE *f;

	snprintf(raw, sizeof(raw), "%s/raw", fx->dir);
	f = fopen(raw, "r");
	assert_non_null(f);
	assert_int_equal(fread(want, 1, sizeof(want), f), MOD_SIZE);
	fclose(f);
	assert_int_equal(gm_store_open(store, path, allow, &h), 0);
	assert_int_equal(gm_store_is_sized_late(h), sized_late);
	assert_int_equal(gm_store_read(h, got, sizeof(got), 0), MOD_SIZE);
	assert_memory_equal(got, want, MOD_SIZE);
	gm_store_close(h);
}

/* A stat (find, du, ls -l) reports what the module states and makes nothing. */
static void test_stat_makes_nothing(void **state)
{
	static const char *const stated[] = {"a.ko", "b.ko", "c.ko"};
	struct fixture *fx = *state;
	struct listing l = {0};
	struct gm_store *store;
	struct gm_entry e;

	assert_int_equal(sh("head -c %d /dev/urandom >'%s/raw'", MOD_SIZE, fx->dir), 0);
	fx->modules = true;
	store = start(fx);
	for (size_t i = 0; i < 3; i++) {
		char path[128];

		snprintf(path, sizeof(path), "/web" MOD_DIR "%s", stated[i]);
		assert_int_equal(gm_store_stat(store, path, &e), 0);
		assert_int_equal(e.size, MOD_SIZE);
	}
	/* A frame without a content size: 0 until opened. */
	assert_int_equal(gm_store_stat(store, "/web" MOD_DIR "d.ko", &e), 0);
	assert_int_equal(e.size, 0);
	assert_int_equal(gm_store_list(store, "/web" MOD_DIR, collect, &l), 0);
	assert_int_equal(l.nr, 4);
	assert_int_equal(derived_files(fx, 0), 0);

	/* Opening makes the file, of the stated size or, unstated, read directly. */
	expect_module(store, fx, "/web" MOD_DIR "b.ko", false);
	expect_module(store, fx, "/web" MOD_DIR "d.ko", true);
	assert_int_equal(gm_store_stat(store, "/web" MOD_DIR "d.ko", &e), 0);
	assert_int_equal(e.size, MOD_SIZE);
	assert_int_equal(derived_files(fx, 2), 0);
	stop(store);
}

/* A guest over its max-derived-size gets EDQUOT, logged; another is unaffected. */
static void test_derived_budget(void **state)
{
	struct fixture *fx = *state;
	struct gm_store *store;
	struct gm_open *h;
	struct gm_entry e;
	char log[128];
	int saved;

	assert_int_equal(sh("head -c %d /dev/urandom >'%s/raw'", MOD_SIZE, fx->dir), 0);
	fx->modules = true;
	fx->cfg.max_derived_size = 150 << 10; /* one module of 100 KiB per guest */
	snprintf(log, sizeof(log), "%s/log", fx->dir);
	fflush(stderr);
	saved = dup(2);
	assert_true(freopen(log, "w", stderr) != NULL);
	store = start_all(fx);
	expect_module(store, fx, "/web" MOD_DIR "a.ko", false);
	assert_int_equal(gm_store_open(store, "/web" MOD_DIR "b.ko", allow, &h), -EDQUOT);
	/* Refused again without trying, and stat still answers. */
	assert_int_equal(gm_store_open(store, "/web" MOD_DIR "b.ko", allow, &h), -EDQUOT);
	assert_int_equal(gm_store_stat(store, "/web" MOD_DIR "b.ko", &e), 0);
	/* Files the budget already holds are still served. */
	expect_module(store, fx, "/web" MOD_DIR "a.ko", false);
	/* Another guest has a budget of its own. */
	expect_module(store, fx, "/secret" MOD_DIR "c.ko", false);
	stop(store);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	assert_int_equal(derived_files(fx, 2), 0);
	assert_int_equal(sh("grep -q '^guestfs-mount: web: /web" MOD_DIR
			    "b.ko: not made: it "
			    "needs 102400 bytes, .* of the guest.s 153600-byte "
			    "max-derived-size' '%s'",
			    log),
			 0);
	assert_int_equal(sh("! grep -q 'secret: .*not made' '%s'", log), 0);
}

static void test_running_guest(void **state)
{
	struct fixture *fx = *state;
	struct listing bypid = {0};
	struct gm_store *store;
	struct gm_entry e;
	char disk[128], path[128], pidstr[16];
	pid_t qemu;

	snprintf(disk, sizeof(disk), "%s/web.img", fx->dir);
	store = start(fx);
	assert_int_equal(gm_store_stat(store, "/web/kallsyms", &e), 0);
	qemu = start_qemu(disk);
	snprintf(pidstr, sizeof(pidstr), "%d", (int)qemu);
	sleep(1); /* the by-pid listing is cached for a second */

	/* Matched by the disk it holds open, though it has no -name. */
	assert_int_equal(gm_store_list(store, "/" GUEST_TREE_BY_PID, collect, &bypid), 0);
	assert_true(listed(&bypid, pidstr));
	snprintf(path, sizeof(path), "/" GUEST_TREE_BY_PID "/%s/" GUEST_PID_KALLSYMS,
		 pidstr);
	assert_int_equal(gm_store_stat(store, path, &e), 0);
	assert_true(e.by_pid);
	assert_non_null(
		strstr(read_all(store, path), "ffffffff81000300 T entry_SYSCALL_64"));
	/* info names the QEMU process running the guest. */
	snprintf(path, sizeof(path), "running: qemu pid %s", pidstr);
	assert_non_null(strstr(read_all(store, "/web/info"), path));

	/* KVM's debugfs gives its LSTAR: both views are relocated by the slide. */
	assert_int_equal(sh("d='%s/kvm/%s-11/vcpu0'; mkdir -p \"$d\" && "
			    "echo 0xffffffffab400300 >\"$d/guest_lstar\" && "
			    "echo 0x1000 >\"$d/guest_cr3\"",
			    fx->dir, pidstr),
			 0);
	sleep(1); /* LSTAR is re-read at most once a second */
	snprintf(path, sizeof(path), "/" GUEST_TREE_BY_PID "/%s/" GUEST_PID_KALLSYMS,
		 pidstr);
	assert_non_null(
		strstr(read_all(store, path), "ffffffffab400300 T entry_SYSCALL_64"));
	assert_non_null(strstr(read_all(store, "/web/kallsyms"),
			       "ffffffffab400300 T entry_SYSCALL_64"));
	assert_non_null(strstr(read_all(store, "/web/info"), "slide: 0x2a400000"));

	kill_qemu(qemu);
	stop(store);
}

#define NOBODY 65534

/*
 * Stand-ins for QEMU processes: @count shells whose argv[0] says qemu and
 * whose arguments say "-name @name" (when not NULL), running as @uid, each
 * holding @disk open when it is not NULL (opened before giving up root).
 * They block reading @hold's read end and end when the test closes its write
 * end; they are not our children (the daemon's own appliance is). Their pids
 * go to @pids.
 */
static void start_fakes(const char *disk, uid_t uid, const char *name, int hold[2],
			pid_t *pids, size_t count)
{
	int p[2];
	pid_t child;

	assert_int_equal(pipe(p), 0);
	child = fork();
	if (child == 0) {
		close(p[0]);
		close(hold[1]);
		for (size_t i = 0; i < count; i++) {
			if (fork() == 0) {
				pid_t me = getpid();
				int fd = disk ? open(disk, O_RDONLY) : 0;

				if (fd < 0 || dup2(hold[0], 0) < 0 ||
				    setresgid(uid, uid, uid) ||
				    setresuid(uid, uid, uid) ||
				    write(p[1], &me, sizeof(me)) != sizeof(me))
					_exit(1);
				close(p[1]);
				execl("/bin/sh", "qemu-system-x86_64", "-c",
				      "read x; exit 0", name ? "-name" : (char *)NULL,
				      name, (char *)NULL);
				_exit(127);
			}
		}
		_exit(0);
	}
	close(p[1]);
	for (size_t i = 0; i < count; i++)
		assert_int_equal(read(p[0], &pids[i], sizeof(pids[i])), sizeof(pids[i]));
	close(p[0]);
	waitpid(child, NULL, 0);
	usleep(300000); /* until each has exec'ed */
}

struct find {
	char name[16];
	bool found;
};

static int find_name(void *ctx, const char *name, const struct gm_entry *e)
{
	struct find *f = ctx;

	f->found |= !strcmp(f->name, name);
	return 0;
}

/* Is @pid in by-pid/, however long the listing? */
static bool by_pid_lists(struct gm_store *store, pid_t pid)
{
	struct find f = {.found = false};

	snprintf(f.name, sizeof(f.name), "%d", (int)pid);
	assert_int_equal(gm_store_list(store, "/" GUEST_TREE_BY_PID, find_name, &f), 0);
	return f.found;
}

/* Does @g's info name @pid as its running QEMU? */
static bool info_runs(struct gm_store *store, pid_t pid)
{
	char want[64];

	snprintf(want, sizeof(want), "running: qemu pid %d", (int)pid);
	return strstr(read_all(store, "/web/info"), want) != NULL;
}

/* Lines of @path that contain @needle. */
static int count_lines(const char *path, const char *needle)
{
	char line[2048];
	FILE *f = fopen(path, "r");
	int n = 0;

	assert_non_null(f);
	while (fgets(line, sizeof(line), f))
		n += strstr(line, needle) != NULL;
	fclose(f);
	return n;
}

/*
 * Any local user can start a process whose argv[0] is qemu-system-x86_64
 * with "-name web": it must not become web's running QEMU (by-pid/, and the
 * pid, kernel and slide in web's info). Only the disk, or the account QEMU
 * runs as, makes it one. The daemon says once that it ignores it.
 */
static void test_untrusted_name_ignored(void **state)
{
	struct fixture *fx = *state;
	struct gm_store *store;
	struct gm_entry e;
	char disk[128], log[128], path[128], needle[64];
	int hold[2], saved, fd;
	pid_t fake, holder;

	snprintf(disk, sizeof(disk), "%s/web.img", fx->dir);
	snprintf(log, sizeof(log), "%s/log", fx->dir);
	store = start(fx);
	assert_int_equal(gm_store_stat(store, "/web/kallsyms", &e), 0);
	assert_int_equal(pipe2(hold, O_CLOEXEC), 0);
	start_fakes(NULL, NOBODY, "web", hold, &fake, 1);
	start_fakes(disk, NOBODY, NULL, hold, &holder, 1);

	fflush(stderr);
	saved = dup(2);
	fd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	assert_int_equal(dup2(fd, 2), 2);
	close(fd);
	sleep(1); /* the by-pid listing is cached for a second */
	assert_false(by_pid_lists(store, fake));
	snprintf(path, sizeof(path), "/" GUEST_TREE_BY_PID "/%d/proc", (int)fake);
	assert_int_equal(gm_store_stat(store, path, &e), -ENOENT);
	assert_false(info_runs(store, fake));
	/* Whoever holds the disk open runs the guest, whatever its account. */
	assert_true(by_pid_lists(store, holder));
	sleep(1);
	assert_false(by_pid_lists(store, fake)); /* a second pass */
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	snprintf(needle, sizeof(needle), "process %d runs as uid 65534", (int)fake);
	assert_int_equal(count_lines(log, needle), 1);
	assert_int_equal(count_lines(log, "-name web is ignored"), 1);

	close(hold[1]);
	close(hold[0]);
	stop(store);
}

/* "qemu-user nobody": a QEMU running as that account is believed by its -name. */
static void test_qemu_user_trusted(void **state)
{
	struct fixture *fx = *state;
	struct kp_err err = {0};
	struct gm_store *store;
	struct gm_entry e;
	char text[1200];
	int hold[2];
	pid_t qemu;

	gm_config_release(&fx->cfg);
	snprintf(text, sizeof(text), "qemu-user nobody\n%s", fx->text);
	assert_int_equal(gm_config_init(&fx->cfg), 0);
	if (gm_config_parse(text, strlen(text), "test.conf", &fx->cfg, &err))
		fail_msg("%s", err.msg);
	store = start(fx);
	assert_int_equal(gm_store_stat(store, "/web/kallsyms", &e), 0);
	assert_int_equal(pipe2(hold, O_CLOEXEC), 0);
	start_fakes(NULL, NOBODY, "web", hold, &qemu, 1);
	sleep(1);
	assert_true(by_pid_lists(store, qemu));
	assert_true(info_runs(store, qemu));
	close(hold[1]);
	close(hold[0]);
	stop(store);
}

/*
 * 2000 processes of another user calling themselves web, all with lower
 * pids than the real QEMU: they took every one of the 1024 slots of the
 * running table, and the real guest dropped off by-pid/ and info.
 */
static void test_fakes_do_not_evict(void **state)
{
	enum { FAKES = 2000 };
	struct fixture *fx = *state;
	struct gm_store *store;
	struct gm_entry e;
	struct timespec t0, t1;
	char disk[128];
	pid_t *fakes = calloc(FAKES, sizeof(*fakes)), qemu;
	int hold[2];

	assert_non_null(fakes);
	snprintf(disk, sizeof(disk), "%s/web.img", fx->dir);
	store = start(fx);
	assert_int_equal(gm_store_stat(store, "/web/kallsyms", &e), 0);
	assert_int_equal(pipe2(hold, O_CLOEXEC), 0);
	start_fakes(NULL, NOBODY, "web", hold, fakes, FAKES);
	qemu = start_qemu(disk);
	sleep(1);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	assert_true(by_pid_lists(store, qemu));
	clock_gettime(CLOCK_MONOTONIC, &t1);
	print_message("# a by-pid pass over %d fakes took %.0f ms\n", FAKES,
		      (double)(t1.tv_sec - t0.tv_sec) * 1e3 +
			      (double)(t1.tv_nsec - t0.tv_nsec) / 1e6);
	assert_true(info_runs(store, qemu));
	for (size_t i = 0; i < FAKES; i += 97)
		assert_false(by_pid_lists(store, fakes[i]));
	kill_qemu(qemu);
	close(hold[1]);
	close(hold[0]);
	free(fakes);
	stop(store);
}

static void test_missing_disk(void **state)
{
	struct fixture *fx = *state;
	struct gm_store *store;
	struct gm_entry e;
	char path[128];

	snprintf(path, sizeof(path), "%s/web.img", fx->dir);
	unlink(path);
	store = start(fx);
	assert_int_equal(gm_store_stat(store, "/web/kallsyms", &e), -ENOENT);
	assert_non_null(strstr(read_all(store, "/web/info"), "web.img"));
	stop(store);
	assert_int_equal(fx->inspections, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_serves_inspection, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cache_and_changed_disk, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_failed_inspection, setup, teardown),
		cmocka_unit_test_setup_teardown(test_host_failure_retried, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_host_failure_lists_info, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_wait_survives_clock_step, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_no_os_hint, setup, teardown),
		cmocka_unit_test_setup_teardown(test_running_guest, setup, teardown),
		cmocka_unit_test_setup_teardown(test_untrusted_name_ignored, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_qemu_user_trusted, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fakes_do_not_evict, setup, teardown),
		cmocka_unit_test_setup_teardown(test_missing_disk, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stat_makes_nothing, setup, teardown),
		cmocka_unit_test_setup_teardown(test_derived_budget, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
