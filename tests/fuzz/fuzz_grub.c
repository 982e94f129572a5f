// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: the default kernel of a guest's GRUB (guestfs-mount/grub.c).
 * Input: grub.cfg, then optionally a NUL byte and grubenv (none without it),
 * then optionally a NUL byte and one Boot Loader Specification entry, as
 * the daemon gets these files' text from the appliance.
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

/* The next NUL-separated part of [*p, end): its copy and length. */
static char *part(const uint8_t **p, const uint8_t *end, size_t *len)
{
	const uint8_t *nul = memchr(*p, '\0', (size_t)(end - *p));
	char *s;

	*len = nul ? (size_t)(nul - *p) : (size_t)(end - *p);
	s = copy(*p, *len);
	*p = nul ? nul + 1 : end;
	return s;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *p = data, *end = data + size;
	struct gm_bls_file bls = {.name = "fuzz.conf"};
	struct gm_grub_text t = {0};
	char *cfg, *env = NULL, *entry = NULL;
	char ver[128];

	cfg = part(&p, end, &t.cfg_len);
	if (p < end || (size && data[size - 1] == '\0'))
		env = part(&p, end, &t.env_len);
	if (p < end) {
		entry = part(&p, end, &bls.len);
		bls.text = entry;
		t.bls = &bls;
		t.nr_bls = 1;
	}
	t.cfg = cfg;
	t.env = env;
	if (cfg && !gm_grub_default(&t, ver, sizeof(ver)) &&
	    !memchr(ver, '\0', sizeof(ver)))
		__builtin_trap(); /* a found version is a terminated string */
	free(cfg);
	free(env);
	free(entry);
	return 0;
}
