/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Between the two halves of an inspection: inspect.c launches the
 * appliance and finds each guest's OS, extract.c copies one guest's
 * kernels out of it. Only those two files include this.
 */
#ifndef GM_EXTRACT_H
#define GM_EXTRACT_H

#include <guestfs.h>
#include <stdbool.h>
#include <stdlib.h>

#include "inspect.h"

/*
 * Inspect the OS at @root for @job, mount it read-only, copy its kernels
 * out into job->dir and unmount it. Ends @job, one way or the other.
 */
void gm_extract(guestfs_h *g, struct gm_job *job, const char *root);

/*
 * End @job with errno @code (the meanings are in inspect.h) and a message.
 * @retry: the cause may be the other guests sharing this launch, so the
 * guest is worth inspecting again alone. Returns job->ret.
 */
int gm_job_fail(struct gm_job *job, bool retry, int code, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/*
 * A conclusion about the guest's content, not about this launch: kept in
 * the meta too (meta.error, meta.error_code), so that it is cached and
 * served until the disks change. Returns job->ret.
 */
int gm_job_conclude(struct gm_job *job, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* libguestfs's last error, never NULL. */
static inline const char *gm_gerr(guestfs_h *g)
{
	const char *e = guestfs_last_error(g);

	return e ? e : "unknown libguestfs error";
}

/* Free a NULL-terminated list of strings as libguestfs returns them. */
static inline void gm_free_strings(char **v)
{
	if (!v)
		return;
	for (char **p = v; *p; p++)
		free(*p);
	free(v);
}

static inline size_t gm_count_strings(char **v)
{
	size_t n = 0;

	while (v && v[n])
		n++;
	return n;
}

#endif
