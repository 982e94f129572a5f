// SPDX-License-Identifier: GPL-2.0
/*
 * access.conf: grammar errors with their line numbers, the default, user and
 * group grants, deny precedence, guest scoping, and the permission bits.
 * Subjects are accounts every Debian system has (daemon, bin, sys, adm,
 * nobody), looked up here rather than assumed to have fixed ids.
 */
#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "policy/accesspolicy.h"

static gid_t gid_of(const char *name)
{
	struct group *g = getgrnam(name);

	assert_non_null(g);
	return g->gr_gid;
}

static uid_t uid_of(const char *name)
{
	struct passwd *p = getpwnam(name);

	assert_non_null(p);
	return p->pw_uid;
}

static struct access_policy *parse_ok(const char *text)
{
	struct access_policy *p = NULL;
	struct kp_err err = {0};
	int ret = access_policy_parse(text, strlen(text), "access.conf", &p, &err);

	if (ret)
		fail_msg("unexpected error: %s", err.msg);
	assert_non_null(p);
	return p;
}

/* Parsing fails, and the message starts with "access.conf:LINE: " and contains @what. */
static void parse_fails(const char *text, unsigned line, const char *what)
{
	struct access_policy *p = (void *)1;
	struct kp_err err = {0};
	char prefix[64];

	assert_true(access_policy_parse(text, strlen(text), "access.conf", &p, &err) < 0);
	assert_null(p);
	if (line)
		snprintf(prefix, sizeof(prefix), "access.conf:%u: ", line);
	else
		snprintf(prefix, sizeof(prefix), "access.conf: ");
	if (strncmp(err.msg, prefix, strlen(prefix)) || !strstr(err.msg, what))
		fail_msg("message '%s' lacks '%s' or '%s'", err.msg, prefix, what);
}

/* A process of user @user whose only group is its primary one, plus @extra. */
static bool allows(const struct access_policy *p, const char *user, const char *extra,
		   const char *guest, enum artifact_kind kind)
{
	struct passwd *pw = getpwnam(user);
	gid_t gids[2];
	size_t n = 0;

	assert_non_null(pw);
	gids[n++] = pw->pw_gid;
	if (extra)
		gids[n++] = gid_of(extra);
	return access_policy_allows(p, pw->pw_uid, gids, n, guest, kind);
}

static void test_kind_names(void **state)
{
	enum artifact_kind k;

	for (unsigned i = 0; i < ARTIFACT_KIND_NR; i++) {
		assert_int_equal(artifact_kind_parse(artifact_kind_name(i), &k), 0);
		assert_int_equal(k, i);
	}
	assert_int_equal(artifact_kind_parse("vmlinuz", &k), -EINVAL);
	assert_string_equal(artifact_kind_name(ARTIFACT_MODULE_FILES), "module-files");
	assert_string_equal(artifact_kind_name(ARTIFACT_KIND_NR), "?");
}

static void test_grammar_errors(void **state)
{
	parse_fails("expose *\n\nfrobnicate all\n", 3, "unknown directive 'frobnicate'");
	parse_fails("# c\nexpose *\nallow group:adm kallsyms colour=red\n", 3,
		    "unknown option 'colour'");
	parse_fails("expose *\nallow group:adm kallsyms guest\n", 2,
		    "unexpected 'guest'");
	parse_fails("expose *\nallow group:adm kalsyms\n", 2, "unknown kind 'kalsyms'");
	parse_fails("expose *\nallow group:adm kallsyms,,modules\n", 2, "empty kind");
	parse_fails("expose *\nallow group:adm kallsyms,\n", 2, "empty kind");
	parse_fails("expose *\nallow group:adm\n", 2, "needs a subject and kinds");
	parse_fails("expose *\ndeny\n", 2, "needs a subject and kinds");
	parse_fails("expose *\nallow adm kallsyms\n", 2, "not a subject");
	parse_fails("expose *\nallow uid:4 kallsyms\n", 2, "not a subject");
	parse_fails("expose *\nallow group: kallsyms\n", 2, "invalid group name");
	parse_fails("expose *\n\n\n\nallow group:kvmprof-no-such-group-x1 kallsyms\n", 5,
		    "unknown group 'kvmprof-no-such-group-x1'");
	parse_fails("expose *\nallow user:kvmprof-no-such-user-x1 all\n", 2,
		    "unknown user 'kvmprof-no-such-user-x1'");
	parse_fails("expose *\nallow user:root all\n", 2, "cannot name root");
	parse_fails("expose *\ndeny user:root vmlinux\n", 2, "cannot name root");
	parse_fails("expose\n", 1, "needs '*' or guest names");
	parse_fails("expose * web1\n", 1, "do not mix");
	parse_fails("expose web1\nexpose *\n", 2, "do not mix");
	parse_fails("expose web1\nexpose web1\n", 2, "exposed twice");
	parse_fails("expose ../etc\n", 1, "invalid guest name");
	parse_fails("expose *\nallow * kallsyms guest=a/b\n", 2, "invalid guest name");
	parse_fails("expose *\nallow * kallsyms guest=a guest=b\n", 2, "given twice");
	parse_fails("expose web1\n\nallow group:adm kallsyms guest=db\n", 3,
		    "guest 'db' is not exposed");
	parse_fails("# nothing\n", 0, "no 'expose' line");
	parse_fails("", 0, "no 'expose' line");
}

static void test_line_limits(void **state)
{
	char *text = malloc(AP_MAX_LINE + 64);
	struct access_policy *p = NULL;
	struct kp_err err = {0};

	assert_non_null(text);
	strcpy(text, "expose *\n# ");
	memset(text + strlen(text), 'x', AP_MAX_LINE);
	strcpy(text + strlen("expose *\n# ") + AP_MAX_LINE, "\n");
	parse_fails(text, 2, "line longer than");
	free(text);

	assert_true(access_policy_parse("expose *\n\0\n", 11, "access.conf", &p, &err) <
		    0);
	assert_string_equal(err.msg, "access.conf:2: NUL byte");
	assert_null(p);
}

static void test_comments_blank_crlf(void **state)
{
	struct access_policy *p = parse_ok("# header\r\n\r\n   \t\n\t# indented comment\n"
					   "expose *\r\n#allow * all\n");

	assert_true(access_policy_exposes(p, "web1"));
	assert_false(allows(p, "daemon", NULL, "web1", ARTIFACT_KALLSYMS));
	access_policy_free(p);
}

static void test_default_root_only(void **state)
{
	struct access_policy *p = NULL;
	struct kp_err err = {0};
	struct artifact_perm perm;
	gid_t root_gids[] = {0};

	assert_int_equal(access_policy_default(&p, &err), 0);
	assert_true(access_policy_exposes(p, "any-guest"));
	assert_false(access_policy_exposes(p, "../x"));
	assert_false(access_policy_exposes(p, NULL));
	for (unsigned k = 0; k < ARTIFACT_KIND_NR; k++) {
		assert_true(access_policy_allows(p, 0, root_gids, 1, "g", k));
		assert_false(allows(p, "daemon", "adm", "g", k));
		assert_false(allows(p, "nobody", NULL, "g", k));
		assert_int_equal(access_policy_file_perm(p, "g", k, false, &perm), 0);
		assert_int_equal(perm.mode, 0400);
		assert_int_equal(perm.uid, 0);
		assert_int_equal(perm.gid, 0);
		assert_true(perm.exact);
	}
	assert_int_equal(access_policy_dir_perm(p, NULL, false, &perm), 0);
	assert_int_equal(perm.mode, 0500);
	assert_int_equal(access_policy_dir_perm(p, "g", true, &perm), 0);
	assert_int_equal(perm.mode, 0500);
	access_policy_free(p);
}

/*
 * A private copy of @src, owned by us and 0600: the loader insists on
 * owner-only write access, which a checkout's umask need not give.
 */
static void copy_private(const char *src, char *path)
{
	char buf[65536];
	FILE *in = fopen(src, "r");
	size_t n;
	int fd;

	if (!in)
		fail_msg("%s: cannot be read", src);
	n = fread(buf, 1, sizeof(buf), in);
	fclose(in);
	assert_true(n < sizeof(buf));
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, buf, n), (ssize_t)n);
	close(fd);
}

/* The shipped policy/access.conf is the root-only default. */
static void test_shipped_file(void **state)
{
	char path[] = "/tmp/test_accesspolicy.XXXXXX";
	struct access_policy *p = NULL;
	struct kp_err err = {0};
	int ret;

	copy_private("policy/access.conf", path);
	ret = access_policy_load(path, &p, &err);
	unlink(path);
	if (ret)
		fail_msg("policy/access.conf: %s", err.msg);
	assert_true(access_policy_exposes(p, "web1"));
	assert_false(allows(p, "daemon", "adm", "web1", ARTIFACT_KALLSYMS));
	access_policy_free(p);
}

static void test_group_grant(void **state)
{
	/* The example of policy/access.conf, with group adm in the role of kvmprof. */
	struct access_policy *p = parse_ok("expose *\n"
					   "allow group:adm kallsyms,modules,by-pid\n"
					   "deny  group:adm vmlinux,module-files\n");
	struct artifact_perm perm;

	assert_true(allows(p, "daemon", "adm", "web1", ARTIFACT_KALLSYMS));
	assert_true(allows(p, "daemon", "adm", "web1", ARTIFACT_MODULES));
	assert_true(access_policy_allows_by_pid(p, uid_of("daemon"),
						(gid_t[]){gid_of("adm")}, 1, "web1",
						ARTIFACT_KALLSYMS));
	assert_false(allows(p, "daemon", "adm", "web1", ARTIFACT_VMLINUX));
	assert_false(allows(p, "daemon", "adm", "web1", ARTIFACT_MODULE_FILES));
	assert_false(allows(p, "daemon", "adm", "web1", ARTIFACT_SYSTEM_MAP));
	assert_false(access_policy_allows_by_pid(p, uid_of("daemon"),
						 (gid_t[]){gid_of("adm")}, 1, "web1",
						 ARTIFACT_VMLINUX));
	/* Not a member: nothing. No groups at all: nothing. */
	assert_false(allows(p, "daemon", NULL, "web1", ARTIFACT_KALLSYMS));
	assert_false(access_policy_allows(p, uid_of("daemon"), NULL, 0, "web1",
					  ARTIFACT_KALLSYMS));

	assert_int_equal(
		access_policy_file_perm(p, "web1", ARTIFACT_KALLSYMS, false, &perm), 0);
	assert_int_equal(perm.mode, 0440);
	assert_int_equal(perm.gid, gid_of("adm"));
	assert_true(perm.exact);
	assert_int_equal(
		access_policy_file_perm(p, "web1", ARTIFACT_KALLSYMS, true, &perm), 0);
	assert_int_equal(perm.mode, 0440);
	assert_int_equal(perm.gid, gid_of("adm"));
	assert_int_equal(
		access_policy_file_perm(p, "web1", ARTIFACT_VMLINUX, false, &perm), 0);
	assert_int_equal(perm.mode, 0400);
	assert_int_equal(perm.gid, 0);
	assert_true(perm.exact);
	assert_int_equal(access_policy_file_perm(p, "web1", ARTIFACT_CONFIG, true, &perm),
			 0);
	assert_int_equal(perm.mode, 0400);
	assert_int_equal(access_policy_dir_perm(p, "web1", false, &perm), 0);
	assert_int_equal(perm.mode, 0550);
	assert_int_equal(perm.gid, gid_of("adm"));
	assert_int_equal(access_policy_dir_perm(p, NULL, true, &perm), 0);
	assert_int_equal(perm.mode, 0550);
	assert_int_equal(access_policy_dir_bits(0440), 0550);
	assert_int_equal(access_policy_dir_bits(0400), 0500);
	assert_int_equal(access_policy_dir_bits(0444), 0555);
	access_policy_free(p);
}

static void test_user_grant(void **state)
{
	struct access_policy *p = parse_ok("expose *\nallow user:daemon vmlinux\n");
	struct artifact_perm perm;

	assert_true(allows(p, "daemon", NULL, "g", ARTIFACT_VMLINUX));
	assert_false(allows(p, "daemon", NULL, "g", ARTIFACT_KALLSYMS));
	assert_false(allows(p, "bin", "daemon", "g",
			    ARTIFACT_VMLINUX)); /* group daemon != user */
	/* Bits cannot name one user: fail closed, and say so. */
	assert_int_equal(access_policy_file_perm(p, "g", ARTIFACT_VMLINUX, false, &perm),
			 0);
	assert_int_equal(perm.mode, 0400);
	assert_false(perm.exact);
	assert_int_equal(access_policy_dir_perm(p, "g", false, &perm), 0);
	assert_int_equal(perm.mode, 0511);
	assert_false(perm.exact);
	access_policy_free(p);
}

static void test_everyone(void **state)
{
	struct access_policy *p = parse_ok("expose *\nallow * version,build-id\n");
	struct artifact_perm perm;

	assert_true(allows(p, "nobody", NULL, "g", ARTIFACT_VERSION));
	assert_true(allows(p, "nobody", NULL, "g", ARTIFACT_BUILD_ID));
	assert_false(allows(p, "nobody", NULL, "g", ARTIFACT_KALLSYMS));
	assert_int_equal(access_policy_file_perm(p, "g", ARTIFACT_VERSION, false, &perm),
			 0);
	assert_int_equal(perm.mode, 0444);
	assert_true(perm.exact);
	/* by-pid is not granted: the by-pid copies stay root-only. */
	assert_int_equal(access_policy_file_perm(p, "g", ARTIFACT_VERSION, true, &perm),
			 0);
	assert_int_equal(perm.mode, 0400);
	assert_false(access_policy_allows_by_pid(p, uid_of("nobody"), NULL, 0, "g",
						 ARTIFACT_VERSION));
	assert_int_equal(access_policy_dir_perm(p, "g", false, &perm), 0);
	assert_int_equal(perm.mode, 0555);
	access_policy_free(p);
}

static void test_deny_precedence(void **state)
{
	/* Deny wins whatever the order, against user, group and * grants. */
	static const char *const texts[] = {
		"expose *\nallow group:adm all\ndeny user:daemon vmlinux\n",
		"expose *\ndeny user:daemon vmlinux\nallow group:adm all\n",
		"expose *\nallow user:daemon all\ndeny group:adm vmlinux\n",
		"expose *\ndeny * vmlinux\nallow user:daemon all\n",
	};
	struct artifact_perm perm;

	for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
		struct access_policy *p = parse_ok(texts[i]);

		assert_false(allows(p, "daemon", "adm", "g", ARTIFACT_VMLINUX));
		assert_true(allows(p, "daemon", "adm", "g", ARTIFACT_KALLSYMS));
		access_policy_free(p);
	}

	/* An allow that a deny cuts into cannot be expressed by bits: fail closed. */
	struct access_policy *p = parse_ok(texts[0]);

	assert_true(allows(p, "bin", "adm", "g", ARTIFACT_VMLINUX));
	assert_int_equal(access_policy_file_perm(p, "g", ARTIFACT_VMLINUX, false, &perm),
			 0);
	assert_int_equal(perm.mode, 0400);
	assert_false(perm.exact);
	assert_int_equal(access_policy_file_perm(p, "g", ARTIFACT_KALLSYMS, false, &perm),
			 0);
	assert_int_equal(perm.mode, 0440);
	assert_true(perm.exact);
	access_policy_free(p);

	/* deny * leaves root only, exactly; deny of the same group cancels the grant. */
	p = parse_ok("expose *\nallow group:adm kallsyms\ndeny * kallsyms\n");
	assert_false(allows(p, "daemon", "adm", "g", ARTIFACT_KALLSYMS));
	assert_true(access_policy_allows(p, 0, NULL, 0, "g", ARTIFACT_KALLSYMS));
	assert_int_equal(access_policy_file_perm(p, "g", ARTIFACT_KALLSYMS, false, &perm),
			 0);
	assert_int_equal(perm.mode, 0400);
	assert_true(perm.exact);
	access_policy_free(p);
	p = parse_ok(
		"expose *\nallow group:adm kallsyms\ndeny group:adm kallsyms guest=g\n");
	assert_false(allows(p, "daemon", "adm", "g", ARTIFACT_KALLSYMS));
	assert_true(allows(p, "daemon", "adm", "h", ARTIFACT_KALLSYMS));
	assert_int_equal(access_policy_file_perm(p, "g", ARTIFACT_KALLSYMS, false, &perm),
			 0);
	assert_int_equal(perm.mode, 0400);
	assert_true(perm.exact);
	assert_int_equal(access_policy_file_perm(p, "h", ARTIFACT_KALLSYMS, false, &perm),
			 0);
	assert_int_equal(perm.mode, 0440);
	access_policy_free(p);
}

static void test_several_groups(void **state)
{
	struct access_policy *p =
		parse_ok("expose *\nallow group:adm kallsyms\n"
			 "allow group:sys kallsyms\nallow group:bin version\n");
	struct artifact_perm perm;

	assert_true(allows(p, "daemon", "adm", "g", ARTIFACT_KALLSYMS));
	assert_true(allows(p, "daemon", "sys", "g", ARTIFACT_KALLSYMS));
	assert_false(allows(p, "daemon", "sys", "g", ARTIFACT_VERSION));
	/* Two groups for one kind: bits cannot say it. */
	assert_int_equal(access_policy_file_perm(p, "g", ARTIFACT_KALLSYMS, false, &perm),
			 0);
	assert_int_equal(perm.mode, 0400);
	assert_false(perm.exact);
	/* One group per kind is exact, per file... */
	assert_int_equal(access_policy_file_perm(p, "g", ARTIFACT_VERSION, false, &perm),
			 0);
	assert_int_equal(perm.mode, 0440);
	assert_int_equal(perm.gid, gid_of("bin"));
	/* ...but their folder can only be searched by anyone, not listed. */
	assert_int_equal(access_policy_dir_perm(p, "g", false, &perm), 0);
	assert_int_equal(perm.mode, 0511);
	access_policy_free(p);
}

static void test_guest_scoping(void **state)
{
	struct access_policy *p = parse_ok("expose web1 web2\nexpose db\n"
					   "allow group:adm kallsyms guest=web1\n"
					   "allow group:adm modules guest=*\n");
	struct artifact_perm perm;

	assert_true(access_policy_exposes(p, "web1"));
	assert_true(access_policy_exposes(p, "db"));
	assert_false(access_policy_exposes(p, "other"));
	assert_true(allows(p, "daemon", "adm", "web1", ARTIFACT_KALLSYMS));
	assert_false(allows(p, "daemon", "adm", "web2", ARTIFACT_KALLSYMS));
	assert_true(allows(p, "daemon", "adm", "web2", ARTIFACT_MODULES));
	/* Not exposed: hidden from everyone, root included. */
	assert_false(access_policy_allows(p, 0, NULL, 0, "other", ARTIFACT_KALLSYMS));
	assert_false(allows(p, "daemon", "adm", "other", ARTIFACT_MODULES));
	assert_int_equal(
		access_policy_file_perm(p, "other", ARTIFACT_MODULES, false, &perm),
		-ENOENT);
	assert_int_equal(access_policy_dir_perm(p, "other", false, &perm), -ENOENT);
	assert_int_equal(
		access_policy_file_perm(p, "web2", ARTIFACT_KALLSYMS, false, &perm), 0);
	assert_int_equal(perm.mode, 0400);
	assert_int_equal(
		access_policy_file_perm(p, "web1", ARTIFACT_KALLSYMS, false, &perm), 0);
	assert_int_equal(perm.mode, 0440);
	assert_int_equal(access_policy_dir_perm(p, NULL, false, &perm), 0);
	assert_int_equal(perm.mode, 0550);
	access_policy_free(p);

	/* With expose *, the root folder accounts for guests only rules name. */
	p = parse_ok("expose *\nallow group:adm info guest=web1\n");
	assert_int_equal(access_policy_dir_perm(p, NULL, false, &perm), 0);
	assert_int_equal(perm.mode, 0550);
	assert_int_equal(access_policy_dir_perm(p, "web2", false, &perm), 0);
	assert_int_equal(perm.mode, 0500);
	access_policy_free(p);
}

static void test_load_file_checks(void **state)
{
	char path[] = "/tmp/test_accesspolicy.XXXXXX";
	struct access_policy *p = NULL;
	struct kp_err err = {0};
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, "expose *\nallow bogus\n", 21), 21);
	close(fd);
	assert_int_equal(chmod(path, 0644), 0);
	assert_int_equal(access_policy_load(path, &p, &err), -EINVAL);
	assert_non_null(strstr(err.msg, ":2: "));
	assert_int_equal(strncmp(err.msg, path, strlen(path)), 0);

	kp_err_clear(&err);
	assert_int_equal(chmod(path, 0666), 0);
	assert_int_equal(access_policy_load(path, &p, &err), -EPERM);
	assert_int_equal(strncmp(err.msg, path, strlen(path)), 0);
	assert_non_null(strstr(err.msg, "(mode 0666); fix with chmod go-w"));
	assert_null(p);
	unlink(path);

	kp_err_clear(&err);
	assert_int_equal(access_policy_load(path, &p, &err), -ENOENT);
	kp_err_clear(&err);
	assert_int_equal(access_policy_load("/tmp", &p, &err), -EINVAL);
}

/*
 * A policy file root owns, in a folder another user owns: that user may
 * swap the file, so it is refused, naming the folder.
 */
static void test_load_checks_folders(void **state)
{
	char dir[] = "/tmp/test_accesspolicy.XXXXXX", sub[64], path[96], cmd[128];
	struct access_policy *p = NULL;
	struct kp_err err = {0};
	FILE *f;

	assert_non_null(mkdtemp(dir));
	snprintf(sub, sizeof(sub), "%s/etc", dir);
	snprintf(path, sizeof(path), "%s/access.conf", sub);
	assert_int_equal(mkdir(sub, 0755), 0);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("expose *\n", f);
	fclose(f);
	assert_int_equal(chmod(path, 0644), 0);
	assert_int_equal(access_policy_load(path, &p, &err), 0);
	access_policy_free(p);
	p = NULL;

	assert_int_equal(chown(sub, 65534, 65534), 0);
	assert_int_equal(access_policy_load(path, &p, &err), -EPERM);
	assert_null(p);
	assert_int_equal(strncmp(err.msg, path, strlen(path)), 0);
	assert_non_null(strstr(err.msg, "folder "));
	assert_non_null(strstr(err.msg, "/etc is owned by uid 65534"));

	kp_err_clear(&err);
	assert_int_equal(chown(sub, 0, 0), 0);
	assert_int_equal(chmod(sub, 0775), 0);
	assert_int_equal(access_policy_load(path, &p, &err), -EPERM);
	assert_non_null(strstr(err.msg, "/etc is group-writable (mode 0775)"));
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kind_names),
		cmocka_unit_test(test_grammar_errors),
		cmocka_unit_test(test_line_limits),
		cmocka_unit_test(test_comments_blank_crlf),
		cmocka_unit_test(test_default_root_only),
		cmocka_unit_test(test_shipped_file),
		cmocka_unit_test(test_group_grant),
		cmocka_unit_test(test_user_grant),
		cmocka_unit_test(test_everyone),
		cmocka_unit_test(test_deny_precedence),
		cmocka_unit_test(test_several_groups),
		cmocka_unit_test(test_guest_scoping),
		cmocka_unit_test(test_load_file_checks),
		cmocka_unit_test(test_load_checks_folders),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
