// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: the default kernel of a guest's GRUB (guestfs-mount/grub.c).
 * Input: grub.cfg, then optionally a NUL byte and grubenv (none without it),
 * as the daemon gets both files' text from the appliance.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "grub.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* An exactly sized copy, so that reading past the end is an ASan report. */
static char *copy(const uint8_t *p, size_t len)
{
	char *s = malloc(len ? len : 1);

	if (s && len)
		memcpy(s, p, len);
	return s;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *nul = memchr(data, '\0', size);
	size_t cfg_len = nul ? (size_t)(nul - data) : size;
	size_t env_len = nul ? size - cfg_len - 1 : 0;
	char *cfg = copy(data, cfg_len), *env = nul ? copy(nul + 1, env_len) : NULL;
	char ver[128];

	if (cfg && (!nul || env) &&
	    !gm_grub_default(cfg, cfg_len, env, env_len, ver, sizeof(ver)) &&
	    !memchr(ver, '\0', sizeof(ver)))
		__builtin_trap(); /* a found version is a terminated string */
	free(cfg);
	free(env);
	return 0;
}
