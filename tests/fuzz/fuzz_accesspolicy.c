// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: the access policy (lib/policy/accesspolicy.c), parsed and
 * then asked every question the daemon asks, so that a parsed policy whose
 * rules the evaluation misreads is found too.
 */
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include "policy/accesspolicy.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void ask(const struct access_policy *p, const char *guest)
{
	static const gid_t gids[] = {0, 100, 1000, 65534};
	struct artifact_perm perm;

	access_policy_exposes(p, guest);
	for (int k = 0; k < ARTIFACT_KIND_NR; k++) {
		for (uid_t uid = 0; uid < 3; uid++) {
			access_policy_allows(p, uid * 1000, gids, 4, guest, k);
			access_policy_allows_by_pid(p, uid * 1000, gids + uid, 1, guest,
						    k);
		}
		if (!access_policy_file_perm(p, guest, k, k & 1, &perm) &&
		    (perm.mode & ~(mode_t)0777))
			__builtin_trap(); /* permission bits only */
	}
	access_policy_dir_perm(p, guest, false, &perm);
	access_policy_dir_perm(p, guest, true, &perm);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kp_err err = {0};
	struct access_policy *p;

	if (access_policy_parse((const char *)data, size, "fuzz", &p, &err))
		return 0;
	ask(p, "web1");
	ask(p, "db");
	ask(p, NULL);
	access_policy_free(p);
	return 0;
}
