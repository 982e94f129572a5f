/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A tracepoint's format file (tracefs events/SYSTEM/NAME/format), as the
 * kernel prints it:
 *
 *   name: kvm_exit
 *   ID: 103
 *   format:
 *   	field:unsigned short common_type;	offset:0;	size:2;	signed:0;
 *   	...
 *   	field:unsigned int exit_reason;	offset:8;	size:4;	signed:0;
 *
 *   print fmt: "..."
 *
 * Field offsets and sizes differ between kernels (6.18 added fields to
 * kvm_exit and kvm_entry), so a raw sample is only read through them. The
 * text may come from a perf.data file: every length is bounded and a field
 * is only read when it lies inside the record.
 */
#ifndef KVMPROF_TPFORMAT_H
#define KVMPROF_TPFORMAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/err.h"

#define TP_NAME_MAX   64
#define TP_FIELDS_MAX 64
/* Longer format files are not tracepoints kvmprof reads. */
#define TP_FORMAT_TEXT_MAX (1 << 20)

struct tp_field {
	char name[TP_NAME_MAX];
	uint32_t offset;
	uint32_t size;
	bool is_signed;
};

struct tp_format {
	char system[TP_NAME_MAX];
	char name[TP_NAME_MAX];
	uint32_t id;
	struct tp_field fields[TP_FIELDS_MAX];
	size_t nr_fields;
};

/*
 * Parse @len bytes of format text of an event of @system (may be NULL).
 * Needs the name, the ID and at least one field; fields past
 * TP_FIELDS_MAX are an error rather than silently missing.
 */
int tp_format_parse(const char *text, size_t len, const char *system, struct tp_format *f,
		    struct kp_err *err);

const struct tp_field *tp_format_field(const struct tp_format *f, const char *name);

/*
 * The value of integer field @fld (1, 2, 4 or 8 bytes, sign-extended when
 * signed) in a raw record of @size bytes. False when @fld is NULL, not an
 * integer size, or not wholly inside the record.
 */
bool tp_field_value(const struct tp_field *fld, const void *raw, size_t size,
		    uint64_t *value);

/* The same, by field name. */
bool tp_format_value(const struct tp_format *f, const char *name, const void *raw,
		     size_t size, uint64_t *value);

#endif
