// SPDX-License-Identifier: GPL-2.0
#include "tpformat.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

/* A field line of a real format file is well under this. */
#define LINE_MAX_LEN 512

struct line {
	const char *p;
	size_t len;
};

/* The next line of [*pos, end), without its newline; false at the end. */
static bool next_line(const char **pos, const char *end, struct line *l)
{
	const char *nl;

	if (*pos >= end)
		return false;
	nl = memchr(*pos, '\n', (size_t)(end - *pos));
	l->p = *pos;
	l->len = (size_t)((nl ? nl : end) - *pos);
	*pos = nl ? nl + 1 : end;
	return true;
}

static bool line_starts(const struct line *l, const char *prefix)
{
	size_t n = strlen(prefix);

	return l->len >= n && !memcmp(l->p, prefix, n);
}

/* A plain decimal number ending at @stop; false otherwise or past 2^32-1. */
static bool parse_u32(const char *s, char stop, uint32_t *v)
{
	uint64_t n = 0;

	if (!isdigit((unsigned char)*s))
		return false;
	for (; isdigit((unsigned char)*s); s++) {
		n = n * 10 + (uint64_t)(*s - '0');
		if (n > UINT32_MAX)
			return false;
	}
	*v = (uint32_t)n;
	return *s == stop;
}

/* The number after "@key" in @buf, ending with ';'. */
static bool keyed_u32(const char *buf, const char *key, uint32_t *v)
{
	const char *p = strstr(buf, key);

	return p && parse_u32(p + strlen(key), ';', v);
}

/* "unsigned int exit_reason" or "char comm[16]": the last word, no [...]. */
static bool decl_name(const char *decl, size_t len, char *name)
{
	const char *end = decl + len, *start;
	const char *bracket = memchr(decl, '[', len);

	if (bracket && memchr(bracket, ' ', (size_t)(end - bracket)) == NULL)
		end = bracket; /* "comm[16]"; "char[] name" keeps its name */
	while (end > decl && end[-1] == ' ')
		end--;
	start = end;
	while (start > decl && start[-1] != ' ' && start[-1] != '\t')
		start--;
	if (start == end || (size_t)(end - start) >= TP_NAME_MAX)
		return false;
	for (const char *c = start; c < end; c++)
		if (!isalnum((unsigned char)*c) && *c != '_')
			return false;
	memcpy(name, start, (size_t)(end - start));
	name[end - start] = '\0';
	return true;
}

static int parse_field(const struct line *l, struct tp_format *f, struct kp_err *err)
{
	char buf[LINE_MAX_LEN];
	struct tp_field *fld;
	const char *decl, *semi;
	uint32_t is_signed = 0;

	if (l->len >= sizeof(buf))
		return kp_errorf(err, EINVAL, "%s: field line too long", f->name);
	memcpy(buf, l->p, l->len);
	buf[l->len] = '\0';
	if (f->nr_fields == TP_FIELDS_MAX)
		return kp_errorf(err, E2BIG, "%s: more than %d fields", f->name,
				 TP_FIELDS_MAX);
	fld = &f->fields[f->nr_fields];
	decl = strstr(buf, "field:") + strlen("field:");
	semi = strchr(decl, ';');
	if (!semi || !decl_name(decl, (size_t)(semi - decl), fld->name) ||
	    !keyed_u32(semi, "offset:", &fld->offset) ||
	    !keyed_u32(semi, "size:", &fld->size))
		return kp_errorf(err, EINVAL, "%s: bad field line '%.60s'", f->name, buf);
	/* Old kernels print no "signed:". */
	if (strstr(semi, "signed:") && !keyed_u32(semi, "signed:", &is_signed))
		return kp_errorf(err, EINVAL, "%s: bad signed: in '%.60s'", f->name, buf);
	fld->is_signed = is_signed != 0;
	f->nr_fields++;
	return 0;
}

static int parse_name(const struct line *l, struct tp_format *f, struct kp_err *err)
{
	size_t n = l->len - strlen("name: ");

	if (!n || n >= TP_NAME_MAX)
		return kp_errorf(err, EINVAL, "tracepoint format: bad name line");
	memcpy(f->name, l->p + strlen("name: "), n);
	f->name[n] = '\0';
	for (size_t i = 0; i < n; i++)
		if (!isalnum((unsigned char)f->name[i]) && f->name[i] != '_')
			return kp_errorf(err, EINVAL, "tracepoint format: bad name");
	return 0;
}

static int parse_id(const struct line *l, struct tp_format *f, bool *has_id,
		    struct kp_err *err)
{
	char buf[16];
	size_t n = l->len - strlen("ID: ");

	if (n >= sizeof(buf))
		return kp_errorf(err, EINVAL, "%s: bad ID line", f->name);
	memcpy(buf, l->p + strlen("ID: "), n);
	buf[n] = '\0';
	if (!parse_u32(buf, '\0', &f->id))
		return kp_errorf(err, EINVAL, "%s: bad ID line", f->name);
	*has_id = true;
	return 0;
}

static int parse_line(const struct line *l, struct tp_format *f, bool *has_id,
		      struct kp_err *err)
{
	struct line t = *l;

	if (line_starts(&t, "name: "))
		return parse_name(&t, f, err);
	if (line_starts(&t, "ID: "))
		return parse_id(&t, f, has_id, err);
	while (t.len && (*t.p == '\t' || *t.p == ' ')) {
		t.p++;
		t.len--;
	}
	if (line_starts(&t, "field:"))
		return parse_field(&t, f, err);
	return 0; /* "format:", blank lines, "print fmt: ..." */
}

int tp_format_parse(const char *text, size_t len, const char *system, struct tp_format *f,
		    struct kp_err *err)
{
	const char *pos = text, *end = text + len;
	bool has_id = false;
	struct line l;
	int ret;

	memset(f, 0, sizeof(*f));
	if (system && strlen(system) < TP_NAME_MAX)
		strcpy(f->system, system);
	if (len > TP_FORMAT_TEXT_MAX)
		return kp_errorf(err, E2BIG, "tracepoint format: %zu bytes", len);
	while (next_line(&pos, end, &l)) {
		if (line_starts(&l, "print fmt:"))
			break;
		ret = parse_line(&l, f, &has_id, err);
		if (ret)
			return ret;
	}
	if (!f->name[0] || !has_id || !f->nr_fields)
		return kp_errorf(err, EINVAL, "tracepoint format%s%s: no %s",
				 f->name[0] ? " " : "", f->name,
				 !f->name[0] ? "name"
				 : !has_id   ? "ID"
					     : "fields");
	return 0;
}

const struct tp_field *tp_format_field(const struct tp_format *f, const char *name)
{
	for (size_t i = 0; i < f->nr_fields; i++)
		if (!strcmp(f->fields[i].name, name))
			return &f->fields[i];
	return NULL;
}

static uint64_t sign_extend(uint64_t v, uint32_t bytes)
{
	unsigned shift = 64 - 8 * bytes;

	return shift ? (uint64_t)((int64_t)(v << shift) >> shift) : v;
}

bool tp_field_value(const struct tp_field *fld, const void *raw, size_t size,
		    uint64_t *value)
{
	uint8_t b1;
	uint16_t b2;
	uint32_t b4;
	uint64_t v;

	if (!fld || fld->offset > size || fld->size > size - fld->offset)
		return false;
	switch (fld->size) {
	case 1:
		memcpy(&b1, (const uint8_t *)raw + fld->offset, 1);
		v = b1;
		break;
	case 2:
		memcpy(&b2, (const uint8_t *)raw + fld->offset, 2);
		v = b2;
		break;
	case 4:
		memcpy(&b4, (const uint8_t *)raw + fld->offset, 4);
		v = b4;
		break;
	case 8:
		memcpy(&v, (const uint8_t *)raw + fld->offset, 8);
		break;
	default:
		return false;
	}
	*value = fld->is_signed ? sign_extend(v, fld->size) : v;
	return true;
}

bool tp_format_value(const struct tp_format *f, const char *name, const void *raw,
		     size_t size, uint64_t *value)
{
	return tp_field_value(tp_format_field(f, name), raw, size, value);
}
