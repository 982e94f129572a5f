// SPDX-License-Identifier: GPL-2.0
/*
 * Which kernel a running guest runs and at which slide, as report would
 * find them: the LSTAR from KVM's debugfs (the kernel series), the symbol
 * files from the usual places (lib/guest/guestsyms.h), the slide from both
 * (lib/ksym/kaslr.h). When either is missing, says why in one line.
 */
#include "guest_kernel.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "ksym/ksym.h"

static void release_of(const struct guestsyms_opts *o, const char *name, pid_t pid,
		       struct guest_kernel *k)
{
	const char *mount = o->mount ? o->mount : GUEST_MOUNT_DEFAULT;
	char path[GUESTSYMS_PATH_MAX];

	snprintf(path, sizeof(path), "%s/" GUEST_TREE_BY_PID "/%d/proc/version", mount,
		 (int)pid);
	if (guestsyms_release(path, k->release, sizeof(k->release)))
		return;
	if (!name)
		return;
	snprintf(path, sizeof(path), "%s/%s/" GUEST_F_VERSION, mount, name);
	guestsyms_release(path, k->release, sizeof(k->release));
}

static bool read_lstar(pid_t pid, struct guest_kernel *k)
{
	struct kvm_guest_regs regs;
	struct kp_err err = {0};
	int ret = kvm_debugfs_guest_regs(NULL, pid, &regs, &err);

	if (!ret) {
		k->lstar = regs.lstar;
		return true;
	}
	if (ret == -ENOENT)
		snprintf(
			k->why, sizeof(k->why),
			"no LSTAR: KVM debugfs has no guest_lstar for this VM "
			"(a host kernel without kernel/patches, or debugfs not mounted)");
	else if (ret == -EAGAIN)
		snprintf(k->why, sizeof(k->why),
			 "no LSTAR yet: the guest has not entered its kernel");
	else
		snprintf(k->why, sizeof(k->why), "no LSTAR: %s", err.msg);
	return false;
}

/* Does link-time table @path explain the LSTAR? Sets the slide if so. */
static bool try_file(const char *path, struct guest_kernel *k, char *tried, size_t size)
{
	struct kp_err err = {0};
	struct symtab *st = NULL;
	int64_t slide;
	bool fits;

	if (symsrc_load_file(path, &st, NULL, &err)) {
		snprintf(tried, size, "%s", err.msg);
		return false;
	}
	fits = !kaslr_slide_from_lstar(st, k->lstar, &slide, &err);
	symtab_free(st);
	if (!fits) {
		snprintf(tried, size,
			 "LSTAR %#" PRIx64 " fits no valid slide of %.511s (%s)",
			 k->lstar, path, err.msg);
		return false;
	}
	k->slide = slide;
	k->have_slide = true;
	snprintf(k->symbols, sizeof(k->symbols), "%.*s", (int)sizeof(k->symbols) - 1,
		 path);
	return true;
}

void guest_kernel_find(const struct guestsyms_opts *o, const char *name, pid_t pid,
		       struct guest_kernel *k)
{
	struct guestsyms_file files[GUESTSYMS_FILES_MAX];
	char tried[sizeof(k->why)] = "";
	int n;

	memset(k, 0, sizeof(*k));
	release_of(o, name, pid, k);
	if (!read_lstar(pid, k))
		return;
	n = guestsyms_kernel_files(o, name, (int)pid, files, GUESTSYMS_FILES_MAX);
	for (int i = 0; i < n; i++) {
		/* A relocated table (by-pid proc/kallsyms) has no slide to find. */
		if (files[i].runtime || (!files[i].given && access(files[i].path, F_OK)))
			continue;
		if (try_file(files[i].path, k, tried, sizeof(tried)))
			return;
		if (files[i].given)
			break;
	}
	if (tried[0])
		snprintf(k->why, sizeof(k->why), "%s", tried);
	else
		snprintf(k->why, sizeof(k->why),
			 "no kernel symbols: %s/%s is not served "
			 "(start guestfs-mount, or give --guestkallsyms or "
			 "--guestvmlinux)",
			 o->mount ? o->mount : GUEST_MOUNT_DEFAULT,
			 name ? name : "<name>");
}
