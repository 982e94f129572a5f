// SPDX-License-Identifier: GPL-2.0
#include "guestid.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool guest_name_valid(const char *name)
{
	size_t len = strnlen(name, GUEST_NAME_MAX);

	if (!len || len >= GUEST_NAME_MAX || !strcmp(name, ".") || !strcmp(name, ".."))
		return false;
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)name[i];

		if (c <= ' ' || c == 0x7f || c == '/' || c >= 0x80)
			return false;
	}
	return true;
}

/* "guest=NAME,debug-threads=on" or "NAME" (QEMU's ",," escapes a comma). */
static int parse_name_option(const char *opt, char *name, size_t size)
{
	const char *p = opt, *val = opt;
	size_t n = 0;

	if (!strncmp(p, "guest=", 6))
		val = p + 6;
	for (p = val; *p; p++) {
		if (*p == ',' && p[1] == ',') {
			p++;
		} else if (*p == ',') {
			break;
		}
		if (n + 1 >= size)
			return -EINVAL;
		name[n++] = *p;
	}
	name[n] = '\0';
	return guest_name_valid(name) ? 0 : -EINVAL;
}

int guest_name_from_argv(const char *cmdline, size_t len, char *name, size_t size)
{
	const char *p = cmdline, *end = cmdline + len;

	while (p < end) {
		size_t n = strnlen(p, (size_t)(end - p));
		const char *next = p + n + 1;

		if ((!strcmp(p, "-name") || !strcmp(p, "--name")) && next < end)
			return parse_name_option(next, name, size);
		if (!strncmp(p, "-name=", 6))
			return parse_name_option(p + 6, name, size);
		p = next;
	}
	return -ENOENT;
}
