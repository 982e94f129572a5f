// SPDX-License-Identifier: GPL-2.0
/* libFuzzer target: every decompressor, on the same hostile bytes. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "ksym/ksym.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	for (int c = KP_COMP_GZIP; c <= KP_COMP_LZO; c++) {
		void *out;
		size_t len;

		if (!kp_decompress((enum kp_comp)c, data, size, 64 << 20, &out, &len,
				   NULL))
			free(out);
	}
	kp_comp_detect(data, size);
	return 0;
}
