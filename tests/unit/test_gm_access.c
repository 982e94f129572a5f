// SPDX-License-Identifier: GPL-2.0
/*
 * The access policy as the mount applies it, without a FUSE request: the
 * owner, group and bits each kind of entry gets, and the open-time decision
 * for a caller's uid and groups.
 */
#include <dlfcn.h>
#include <errno.h>
#include <grp.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <pwd.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <cmocka.h>

#include "policy/accesspolicy.h"

#include "access.h"

static struct access_policy *parse(const char *text)
{
	struct access_policy *p = NULL;
	struct kp_err err = {0};

	if (access_policy_parse(text, strlen(text), "test", &p, &err))
		fail_msg("%s", err.msg);
	return p;
}

static gid_t gid_of(const char *group)
{
	struct group *g = getgrnam(group);

	assert_non_null(g);
	return g->gr_gid;
}

static uid_t uid_of(const char *user)
{
	struct passwd *pw = getpwnam(user);

	assert_non_null(pw);
	return pw->pw_uid;
}

/*
 * A slow NSS: the policy's group lookups, when slow_nss is set, say they
 * started (nss_entered) and take two seconds, as an unreachable LDAP server
 * would. Defined here, the test binary's getgrnam_r is the one libkvmprof's
 * policy parser calls.
 */
static volatile int slow_nss;
static sem_t nss_entered;

int getgrnam_r(const char *name, struct group *grp, char *buf, size_t size,
	       struct group **res)
{
	int (*real)(const char *, struct group *, char *, size_t, struct group **) =
		(int (*)(const char *, struct group *, char *, size_t,
			 struct group **))dlsym(RTLD_NEXT, "getgrnam_r");

	if (slow_nss) {
		sem_post(&nss_entered);
		sleep(2);
	}
	return real(name, grp, buf, size, res);
}

static const struct gm_entry kallsyms = {.kind = GM_KIND_KALLSYMS, .guest = "web"};
static const struct gm_entry vmlinux = {.kind = GM_KIND_VMLINUX, .guest = "web"};

static void test_modes(void **state)
{
	struct access_policy *p = parse("expose *\nallow group:adm kallsyms\n"
					"allow * version\n");
	struct gm_entry version = {.kind = GM_KIND_VERSION, .guest = "web"};
	struct gm_entry top = {.dir = true, .kind = GM_KIND_DIR};
	struct stat st;

	/* One group may read: the bits say it, and the kernel enforces them. */
	gm_access_mode(p, &kallsyms, &st);
	assert_int_equal(st.st_mode, S_IFREG | 0440);
	assert_int_equal(st.st_uid, 0);
	assert_int_equal(st.st_gid, gid_of("adm"));
	/* Nobody else: root only. */
	gm_access_mode(p, &vmlinux, &st);
	assert_int_equal(st.st_mode, S_IFREG | 0400);
	gm_access_mode(p, &version, &st);
	assert_int_equal(st.st_mode, S_IFREG | 0444);
	gm_access_mode(p, &top, &st);
	assert_true(S_ISDIR(st.st_mode));
	/* No policy loaded: everything root only. */
	gm_access_mode(NULL, &kallsyms, &st);
	assert_int_equal(st.st_mode, S_IFREG | 0400);
	gm_access_mode(NULL, &top, &st);
	assert_int_equal(st.st_mode, S_IFDIR | 0500);
	access_policy_free(p);
}

static void test_decide(void **state)
{
	struct access_policy *p = parse("expose *\nallow group:adm kallsyms\n"
					"deny user:nobody all\n");
	gid_t adm = gid_of("adm"), other = 12345;
	uid_t nobody = uid_of("nobody");
	struct gm_entry by_pid = kallsyms;

	assert_int_equal(gm_access_decide(p, &kallsyms, 1000, &adm, 1), 0);
	assert_int_equal(gm_access_decide(p, &kallsyms, 1000, &other, 1), -EACCES);
	assert_int_equal(gm_access_decide(p, &vmlinux, 1000, &adm, 1), -EACCES);
	/* Deny wins over a group grant. */
	assert_int_equal(gm_access_decide(p, &kallsyms, nobody, &adm, 1), -EACCES);
	/* by-pid needs its own grant too. */
	by_pid.by_pid = true;
	assert_int_equal(gm_access_decide(p, &by_pid, 1000, &adm, 1), -EACCES);
	/* Root reads everything; without a policy, only root. */
	assert_int_equal(gm_access_decide(p, &vmlinux, 0, &other, 1), 0);
	assert_int_equal(gm_access_decide(NULL, &kallsyms, 1000, &adm, 1), -EACCES);
	access_policy_free(p);
}

static void *reload(void *arg)
{
	(void)arg;
	gm_access_refresh();
	return NULL;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/*
 * A SIGHUP reload looked the policy's groups up holding the policy's write
 * lock (and, called from the store, the store's lock): while NSS was slow,
 * every reader of the mount waited. Now the lookup holds no lock, and
 * readers use the old policy until the new one is swapped in.
 */
static void test_reload_does_not_block_readers(void **state)
{
	char dir[] = "/tmp/kvmprof-access.XXXXXX", path[64];
	struct kp_err err = {0};
	pthread_t t;
	double t0, waited;
	FILE *f;

	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/access.conf", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("expose web\nallow group:root kallsyms\n", f);
	fclose(f);
	assert_int_equal(gm_access_load(path, true, &err), 0);
	assert_true(gm_access_exposes("web"));
	assert_false(gm_access_exposes("db"));

	f = fopen(path, "w");
	assert_non_null(f);
	fputs("expose web db\nallow group:root kallsyms\n", f);
	fclose(f);
	assert_int_equal(sem_init(&nss_entered, 0, 0), 0);
	slow_nss = 1;
	gm_access_request_reload();
	assert_int_equal(pthread_create(&t, NULL, reload, NULL), 0);
	assert_int_equal(sem_wait(&nss_entered), 0);

	/* The reload is in its lookup: a reader answers at once, by the old policy. */
	t0 = now();
	assert_false(gm_access_exposes("db"));
	waited = now() - t0;
	print_message("# a reader waited %.3f s during a 2 s lookup\n", waited);
	assert_true(waited < 0.5);

	pthread_join(t, NULL);
	slow_nss = 0;
	assert_true(gm_access_exposes("db"));
	gm_access_release();
	unlink(path);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_modes),
		cmocka_unit_test(test_decide),
		cmocka_unit_test(test_reload_does_not_block_readers),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
