// SPDX-License-Identifier: GPL-2.0
/*
 * Whether the running kernel can report per-sample guest context, and if
 * not, why: the user's fix differs (boot a kernel with the series, use a
 * host with KVM, or get the permission), so the message must say which.
 */
#include "guestctx.h"

#include <errno.h>
#include <limits.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "evlist.h"

static int try_open(struct perf_event_attr *attr)
{
	int fd = sys_perf_event_open(attr, -1, 0, -1, PERF_FLAG_FD_CLOEXEC);

	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

int guestctx_probe(const struct perf_event_attr *tmpl)
{
	struct perf_event_attr attr = *tmpl;
	int with, without;

	attr.size = sizeof(attr);
	attr.disabled = 1;
	attr.sample_type |= PERF_SAMPLE_GUEST_CTX;
	with = try_open(&attr);
	if (!with)
		return 1;
	/* The error may be about the event itself: only the bit's counts. */
	attr.sample_type &= ~PERF_SAMPLE_GUEST_CTX;
	without = try_open(&attr);
	return without ? without : with;
}

/* Does @path, a modules.dep or modules.builtin, list kvm.ko? */
static bool lists_kvm(const char *path)
{
	char line[512];
	bool found = false;
	FILE *f = fopen(path, "re");

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f))
		found = strstr(line, "/kvm.ko") != NULL;
	fclose(f);
	return found;
}

static bool kernel_has_kvm(void)
{
	static const char *const files[] = {"modules.builtin", "modules.dep"};
	struct utsname u;
	char path[PATH_MAX];

	if (!access("/dev/kvm", F_OK) || !access("/sys/module/kvm", F_OK))
		return true;
	if (uname(&u))
		return false;
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		snprintf(path, sizeof(path), "/lib/modules/%s/%s", u.release, files[i]);
		if (lists_kvm(path))
			return true;
	}
	return false;
}

void guestctx_host_probe(struct guestctx_host *h)
{
	FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "re");

	h->has_kvm = kernel_has_kvm();
	if (!f || fscanf(f, "%d", &h->paranoid) != 1)
		h->paranoid = INT_MIN;
	if (f)
		fclose(f);
}

void guestctx_explain(int probe, const struct guestctx_host *h, char *buf, size_t len)
{
	if (probe == -EINVAL && h->has_kvm)
		snprintf(buf, len,
			 "not supported by this kernel: it has KVM but not "
			 "PERF_SAMPLE_GUEST_CTX (boot a kernel with kernel/patches)");
	else if (probe == -EINVAL)
		snprintf(buf, len,
			 "not supported by this kernel: it has no KVM "
			 "(CONFIG_GUEST_PERF_EVENTS), so nothing can report it");
	else if (probe == -EACCES && h->paranoid != INT_MIN)
		snprintf(buf, len,
			 "not permitted: perf_event_paranoid is %d; it needs "
			 "CAP_PERFMON or perf_event_paranoid <= 1",
			 h->paranoid);
	else if (probe == -EACCES)
		snprintf(buf, len, "not permitted: it needs CAP_PERFMON");
	else
		snprintf(buf, len, "unavailable: %s", strerror(-probe));
}
