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
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ksym/ksym.h"

void guest_kernel_release(const struct guestsyms_opts *o, const char *name, pid_t pid,
			  char *out, size_t size)
{
	const char *mount = o->mount ? o->mount : GUEST_MOUNT_DEFAULT;
	char path[GUESTSYMS_PATH_MAX];

	out[0] = '\0';
	snprintf(path, sizeof(path), "%s/" GUEST_TREE_BY_PID "/%d/proc/version", mount,
		 (int)pid);
	if (guestsyms_release(path, out, size))
		return;
	if (!name)
		return;
	snprintf(path, sizeof(path), "%s/%s/" GUEST_F_VERSION, mount, name);
	guestsyms_release(path, out, size);
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

	if (symsrc_load_file(path, SYMSRC_MAX_DEFAULT, &st, NULL, &err)) {
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

/*
 * guestfs-mount's answer for a guest it sees running: its info says
 * "running: qemu pid P", "running kernel: K" and "slide: S (from the
 * guest's LSTAR ...)". 1 when it names @pid (and fills @k), 0 when it names
 * another pid or none, -1 when there is no info. While a guest runs, the
 * daemon serves its kallsyms relocated, so the tree cannot give the slide.
 */
static int daemon_running(const struct guestsyms_opts *o, const char *name, pid_t pid,
			  struct guest_kernel *k)
{
	char path[GUESTSYMS_PATH_MAX], line[256], kernel[128] = "", slide[32] = "";
	int running = 0, found = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s/" GUEST_F_INFO,
		 o->mount ? o->mount : GUEST_MOUNT_DEFAULT, name);
	f = fopen(path, "re");
	if (!f)
		return -1;
	for (int lines = 0; lines < 4096 && fgets(line, sizeof(line), f); lines++) {
		/* A line longer than the buffer is a guest's string: skip it whole. */
		if (!strchr(line, '\n') && !feof(f)) {
			int c;

			while ((c = fgetc(f)) != EOF && c != '\n')
				;
			continue;
		}
		if (sscanf(line, "running: qemu pid %d", &running) == 1)
			found = running == (int)pid ? 1 : found;
		else if (running == (int)pid && !kernel[0])
			sscanf(line, "running kernel: %127s", kernel);
		else if (running == (int)pid)
			sscanf(line, "slide: %31[-0-9a-fx]", slide);
	}
	fclose(f);
	if (found != 1 || !kernel[0] || !slide[0])
		return running ? 0 : -1;
	k->slide = (int64_t)strtoll(slide, NULL, 16);
	k->have_slide = true;
	snprintf(k->release, sizeof(k->release), "%s", kernel);
	snprintf(k->symbols, sizeof(k->symbols), "%s", path);
	k->from_daemon = true;
	return 1;
}

void guest_kernel_find(const struct guestsyms_opts *o, const char *name, pid_t pid,
		       struct guest_kernel *k)
{
	struct guestsyms_file files[GUESTSYMS_FILES_MAX];
	char tried[sizeof(k->why)] = "";
	bool relocated = false;
	int n;

	memset(k, 0, sizeof(*k));
	guest_kernel_release(o, name, pid, k->release, sizeof(k->release));
	if (!read_lstar(pid, k))
		return;
	if (name && !o->vmlinux && !o->kallsyms) {
		int d = daemon_running(o, name, pid, k);

		if (d == 1)
			return;
		relocated = d == 0;
	}
	n = guestsyms_kernel_files(o, name, (int)pid, files, GUESTSYMS_FILES_MAX);
	for (int i = 0; i < n; i++) {
		/* A relocated table (by-pid proc/kallsyms) has no slide to find. */
		if (files[i].runtime ||
		    (!files[i].given && (relocated || access(files[i].path, F_OK))))
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
