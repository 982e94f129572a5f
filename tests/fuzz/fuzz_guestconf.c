// SPDX-License-Identifier: GPL-2.0
/* libFuzzer target: the guests.conf parser (lib/guest/guestconf.c). */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "guest/guest.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kp_err err = {0};
	struct gm_config cfg;

	if (gm_config_init(&cfg))
		return 0;
	/* A refused file may leave a half-filled config: release must cope. */
	gm_config_parse((const char *)data, size, "fuzz", &cfg, &err);
	for (int k = 0; k < GM_KIND_NR; k++)
		if (!gm_config_label(&cfg, (enum gm_kind)k))
			__builtin_trap();
	for (size_t i = 0; i < cfg.nr_guests; i++)
		for (size_t d = 0; d < cfg.guests[i].nr_disks; d++)
			if (cfg.guests[i].disks[d].path[0] != '/')
				__builtin_trap(); /* the parser promises absolute paths */
	gm_config_release(&cfg);
	return 0;
}
