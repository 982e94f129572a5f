/* SPDX-License-Identifier: GPL-2.0 */
/*
 * perf.data's HEADER_TRACING_DATA feature (bit 1): the format files of the
 * tracepoints a file recorded, which say where each field of a raw sample
 * is. Laid out as perf's trace-event-info.c writes it, little-endian:
 *
 *   "\027\010\104tracing" "0.6\0" endian:u8 long_size:u8 page_size:u32
 *   "header_page\0" size:u64 text   "header_event\0" size:u64 text
 *   nr_ftrace:u32 { size:u64 format }
 *   nr_systems:u32 { "system\0" nr:u32 { size:u64 format } }
 *   kallsyms_size:u32 data   printk_size:u32 data   [cmdlines_size:u64 data]
 *
 * Read from files others wrote: every size is checked against what is left
 * of the section before anything is read.
 */
#ifndef KVMPROF_TRACINGDATA_H
#define KVMPROF_TRACINGDATA_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "tpformat.h"

#define TRACINGDATA_EVENTS_MAX 1024

struct tracingdata {
	uint8_t long_size;
	uint32_t page_size;
	struct tp_format *events; /* the systems' events, not ftrace's */
	size_t nr_events;
};

/* Parse a feature section of @len bytes; @what names it in errors. */
int tracingdata_read(const void *buf, size_t len, const char *what,
		     struct tracingdata *td, struct kp_err *err);
/* The event whose ID is @id (a tracepoint attr's config), or NULL. */
const struct tp_format *tracingdata_event(const struct tracingdata *td, uint64_t id);
void tracingdata_release(struct tracingdata *td);

/* One format file to write: its system and its text as tracefs gave it. */
struct tracingdata_format {
	const char *system;
	const char *text;
	size_t len;
};

struct tracingdata_input {
	const char *header_page;
	size_t header_page_len;
	const char *header_event;
	size_t header_event_len;
	const struct tracingdata_format *formats;
	size_t nr_formats;
};

/*
 * The feature section for @in, formats grouped by system in order of first
 * appearance, with empty kallsyms, printk formats and saved cmdlines (perf
 * reads each as absent). Free *out with free().
 */
int tracingdata_write(const struct tracingdata_input *in, void **out, size_t *len);

#endif
