/* SPDX-License-Identifier: GPL-2.0 */
/* Reading the tracepoint format fixtures (tests/unit/fixtures/tracepoints). */
#ifndef KVMPROF_TRACEPOINT_FIXTURE_H
#define KVMPROF_TRACEPOINT_FIXTURE_H

#include <stdio.h>

#include "base/base.h"

#define TRACEPOINT_FIXTURES "tests/unit/fixtures/tracepoints"

/* The text of fixture @kernel/@file (tests run from the repository root). */
static inline char *fixture_text(const char *kernel, const char *file, size_t *len)
{
	char path[256];
	char *buf = NULL;

	snprintf(path, sizeof(path), TRACEPOINT_FIXTURES "/%s/%s", kernel, file);
	if (kp_read_file(path, 1 << 20, &buf, len, NULL))
		return NULL;
	return buf;
}

#endif
