// SPDX-License-Identifier: GPL-2.0
/* Which QEMU processes run guests now: a walk of /proc. */
#include "vmproc.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>

#include "match.h"

static int by_pid(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;

	return (x > y) - (x < y);
}

int vmproc_list_qemus(pid_t *pids, size_t max, size_t *appliances)
{
	DIR *d = opendir("/proc");
	struct dirent *de;
	size_t n = 0;

	if (!d)
		return -errno;
	while ((de = readdir(d)) && n < max) {
		pid_t pid = guest_parse_pid(de->d_name);

		if (pid <= 0 || !guest_is_qemu(pid))
			continue;
		if (vmproc_is_appliance(pid))
			(*appliances)++;
		else
			pids[n++] = pid;
	}
	closedir(d);
	qsort(pids, n, sizeof(*pids), by_pid);
	return (int)n;
}
