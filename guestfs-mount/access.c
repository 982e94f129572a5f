// SPDX-License-Identifier: GPL-2.0
/* The access policy applied to the mount: permission bits and open checks. */
#include "access.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "policy/accesspolicy.h"
#include "fs.h" /* fuse.h at the project's API version */
#include "util.h"

#define MAX_CALLER_GROUPS 1024

static struct {
	pthread_rwlock_t lock;
	struct access_policy *pol;
	char *path;
	bool required;
	volatile sig_atomic_t reload;
} A = {.lock = PTHREAD_RWLOCK_INITIALIZER};

static int load(const char *path, bool required, struct access_policy **out,
		struct kp_err *err)
{
	int ret = access_policy_load(path, out, err);

	if (ret == -ENOENT && !required)
		return access_policy_default(out, err);
	return ret;
}

int gm_access_load(const char *path, bool required, struct kp_err *err)
{
	struct access_policy *pol;
	int ret = load(path, required, &pol, err);

	if (ret)
		return ret;
	A.path = strdup(path);
	if (!A.path) {
		access_policy_free(pol);
		return kp_errorf(err, ENOMEM, "out of memory");
	}
	A.required = required;
	A.pol = pol;
	return 0;
}

void gm_access_request_reload(void)
{
	A.reload = 1;
}

/*
 * Swap in a new policy when SIGHUP asked for one. Loading it looks users
 * and groups up (NSS: LDAP, sssd, a network away), so it happens with no
 * lock held, and only the swap takes the write lock: readers go on with the
 * old policy meanwhile. One caller claims each request.
 */
void gm_access_refresh(void)
{
	struct access_policy *pol, *old;
	struct kp_err err = {0};

	if (!A.reload || !__atomic_exchange_n(&A.reload, 0, __ATOMIC_ACQ_REL))
		return;
	if (load(A.path, A.required, &pol, &err)) {
		gm_log("access policy %s not reloaded, the previous one stays: %s",
		       A.path, err.msg);
		return;
	}
	pthread_rwlock_wrlock(&A.lock);
	old = A.pol;
	A.pol = pol;
	pthread_rwlock_unlock(&A.lock);
	access_policy_free(old);
	gm_log("access policy %s reloaded", A.path);
}

static const struct access_policy *hold(void)
{
	pthread_rwlock_rdlock(&A.lock);
	return A.pol;
}

static void unhold(void)
{
	pthread_rwlock_unlock(&A.lock);
}

void gm_access_release(void)
{
	access_policy_free(A.pol);
	A.pol = NULL;
	free(A.path);
	A.path = NULL;
}

bool gm_access_exposes(const char *guest)
{
	const struct access_policy *p = hold();
	bool yes = p && access_policy_exposes(p, guest);

	unhold();
	return yes;
}

/* The policy's kind of a served file; false for files no rule can name. */
static bool artifact_of(enum gm_kind kind, enum artifact_kind *out)
{
	static const int map[GM_KIND_NR] = {
		[GM_KIND_DEFAULT] = -1,
		[GM_KIND_DIR] = -1,
		[GM_KIND_KALLSYMS] = ARTIFACT_KALLSYMS,
		[GM_KIND_SYSTEM_MAP] = ARTIFACT_SYSTEM_MAP,
		[GM_KIND_VMLINUX] = ARTIFACT_VMLINUX,
		[GM_KIND_VMLINUZ] = ARTIFACT_VMLINUX,
		[GM_KIND_MODULES] = ARTIFACT_MODULES,
		[GM_KIND_MODULE] = ARTIFACT_MODULE_FILES,
		[GM_KIND_CONFIG] = ARTIFACT_CONFIG,
		[GM_KIND_VERSION] = ARTIFACT_VERSION,
		[GM_KIND_BUILD_ID] = ARTIFACT_BUILD_ID,
		[GM_KIND_INFO] = ARTIFACT_INFO,
	};

	if ((unsigned)kind >= GM_KIND_NR || map[kind] < 0)
		return false;
	*out = (enum artifact_kind)map[kind];
	return true;
}

static const struct artifact_perm ROOT_ONLY = {.mode = 0400, .exact = true};

static struct artifact_perm file_perm(const struct access_policy *p,
				      const struct gm_entry *e)
{
	struct artifact_perm perm = ROOT_ONLY;
	enum artifact_kind kind;

	if (!e->guest || !artifact_of(e->kind, &kind) ||
	    access_policy_file_perm(p, e->guest, kind, e->by_pid, &perm))
		return ROOT_ONLY;
	/* Bits cannot say it: let everyone reach open(), which decides. */
	if (!perm.exact)
		perm = (struct artifact_perm){.mode = 0444, .exact = false};
	return perm;
}

static struct artifact_perm dir_perm(const struct access_policy *p,
				     const struct gm_entry *e)
{
	struct artifact_perm perm = ROOT_ONLY;

	if (e->module_tree) {
		struct gm_entry f = *e;

		f.dir = false;
		f.kind = GM_KIND_MODULE;
		perm = file_perm(p, &f);
		perm.mode = access_policy_dir_bits(perm.mode);
		return perm;
	}
	if (access_policy_dir_perm(p, e->guest, e->by_pid, &perm))
		return (struct artifact_perm){.mode = 0500, .exact = true};
	return perm;
}

void gm_access_mode(const struct access_policy *p, const struct gm_entry *e,
		    struct stat *st)
{
	struct artifact_perm perm = ROOT_ONLY;

	if (p)
		perm = e->dir ? dir_perm(p, e) : file_perm(p, e);
	else if (e->dir)
		perm.mode = 0500;
	st->st_mode = (e->dir ? S_IFDIR : S_IFREG) | perm.mode;
	st->st_uid = perm.uid;
	st->st_gid = perm.gid;
}

int gm_access_decide(const struct access_policy *p, const struct gm_entry *e, uid_t uid,
		     const gid_t *gids, size_t n)
{
	enum artifact_kind kind;
	bool yes;

	if (uid == 0)
		return 0;
	if (!p || !e->guest || !artifact_of(e->kind, &kind))
		return -EACCES;
	yes = (e->by_pid ? access_policy_allows_by_pid
			 : access_policy_allows)(p, uid, gids, n, e->guest, kind);
	return yes ? 0 : -EACCES;
}

void gm_access_fill(const struct gm_entry *e, struct stat *st)
{
	gm_access_mode(hold(), e, st);
	unhold();
}

/* The caller's primary and supplementary groups; -1 when unknown. */
static int caller_groups(gid_t *gids, int max)
{
	int n;

	gids[0] = fuse_get_context()->gid;
	n = fuse_getgroups(max - 1, gids + 1);
	if (n < 0 || n > max - 1)
		return -1;
	return n + 1;
}

int gm_access_may_open(const struct gm_entry *e)
{
	uid_t uid = fuse_get_context()->uid;
	gid_t *gids;
	int n, ret;

	if (uid == 0)
		return 0;
	gids = calloc(MAX_CALLER_GROUPS, sizeof(*gids));
	if (!gids)
		return -ENOMEM;
	n = caller_groups(gids, MAX_CALLER_GROUPS);
	if (n < 0) {
		/* A deny on a group could not be checked: fail closed. */
		free(gids);
		return -EACCES;
	}
	ret = gm_access_decide(hold(), e, uid, gids, (size_t)n);
	unhold();
	free(gids);
	return ret;
}
