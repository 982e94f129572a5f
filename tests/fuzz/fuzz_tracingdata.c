// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: the HEADER_TRACING_DATA reader and the tracepoint
 * format parser behind it, then every field of every event read from a
 * raw record made of the input's tail, as stat exits reads samples.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "perf/tracingdata.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tracingdata td;
	size_t raw = size < 64 ? size : 64;
	uint64_t v;

	if (tracingdata_read(data, size, "fuzz", &td, NULL))
		return 0;
	for (size_t i = 0; i < td.nr_events; i++) {
		const struct tp_format *f = &td.events[i];

		tracingdata_event(&td, f->id);
		for (size_t j = 0; j < f->nr_fields; j++)
			tp_field_value(&f->fields[j], data + size - raw, raw, &v);
	}
	tracingdata_release(&td);
	return 0;
}
