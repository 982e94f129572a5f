/* SPDX-License-Identifier: GPL-2.0 */
/* Small helpers shared by the unit tests. */
#ifndef KVMPROF_TESTUTIL_H
#define KVMPROF_TESTUTIL_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

/* Run a shell command built printf-style; returns system()'s status. */
static inline int sh(const char *fmt, ...)
{
	char cmd[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	return system(cmd);
}

#endif
