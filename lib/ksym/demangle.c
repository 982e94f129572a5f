// SPDX-License-Identifier: GPL-2.0
#include "demangle.h"

#include <string.h>

/* libiberty's header declares more than we need; only this is used. */
#define DMGL_NO_OPTS 0
char *cplus_demangle(const char *mangled, int options);

char *demangle(const char *name)
{
	if (strncmp(name, "_Z", 2))
		return NULL;
	return cplus_demangle(name, DMGL_NO_OPTS);
}
