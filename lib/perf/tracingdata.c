// SPDX-License-Identifier: GPL-2.0
#include "tracingdata.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char magic[10] = "\027\010\104tracing";
#define VERSION		"0.6"
#define SYSTEM_NAME_MAX TP_NAME_MAX

struct reader {
	const uint8_t *p;
	const uint8_t *end;
	const char *what;
	struct kp_err *err;
};

static size_t left(const struct reader *r)
{
	return (size_t)(r->end - r->p);
}

static int truncated(struct reader *r, const char *field)
{
	return kp_errorf(r->err, EINVAL, "%s: tracing data truncated at %s", r->what,
			 field);
}

static int take(struct reader *r, void *out, size_t n, const char *field)
{
	if (left(r) < n)
		return truncated(r, field);
	memcpy(out, r->p, n);
	r->p += n;
	return 0;
}

/* A u32 or u64 length, then that many bytes: *data points at them. */
static int take_blob(struct reader *r, size_t len_size, const uint8_t **data, size_t *len,
		     const char *field)
{
	uint64_t n = 0;

	if (take(r, &n, len_size, field))
		return -EINVAL;
	if (n > left(r))
		return kp_errorf(r->err, EINVAL,
				 "%s: tracing data: %s of %llu bytes past the end",
				 r->what, field, (unsigned long long)n);
	*data = r->p;
	*len = (size_t)n;
	r->p += n;
	return 0;
}

/* A NUL-terminated string of at most @max bytes with its NUL. */
static int take_string(struct reader *r, char *out, size_t max, const char *field)
{
	const uint8_t *nul = memchr(r->p, '\0', left(r) < max ? left(r) : max);

	if (!nul)
		return kp_errorf(r->err, EINVAL, "%s: tracing data: bad %s", r->what,
				 field);
	memcpy(out, r->p, (size_t)(nul - r->p) + 1);
	r->p = nul + 1;
	return 0;
}

/* @n bytes of @tag, which need not end in a NUL: @name is what errors say. */
static int expect(struct reader *r, const void *tag, size_t n, const char *name)
{
	if (left(r) < n || memcmp(r->p, tag, n))
		return kp_errorf(r->err, EINVAL, "%s: tracing data: no %s", r->what,
				 name);
	r->p += n;
	return 0;
}

static int read_preamble(struct reader *r, struct tracingdata *td, char *version)
{
	uint8_t endian = 0;

	if (expect(r, magic, sizeof(magic), "tracing magic") ||
	    take_string(r, version, 16, "version") || take(r, &endian, 1, "endianness") ||
	    take(r, &td->long_size, 1, "long size") ||
	    take(r, &td->page_size, 4, "page size"))
		return -EINVAL;
	if (endian)
		return kp_errorf(r->err, ENOTSUP, "%s: big-endian tracing data", r->what);
	return 0;
}

static int skip_headers(struct reader *r)
{
	const uint8_t *data;
	size_t len;

	if (expect(r, "header_page", 12, "header_page") ||
	    take_blob(r, 8, &data, &len, "header_page") ||
	    expect(r, "header_event", 13, "header_event") ||
	    take_blob(r, 8, &data, &len, "header_event"))
		return -EINVAL;
	return 0;
}

static int read_count(struct reader *r, uint32_t *n, const char *field)
{
	if (take(r, n, 4, field))
		return -EINVAL;
	if (*n > TRACINGDATA_EVENTS_MAX)
		return kp_errorf(r->err, E2BIG, "%s: tracing data: %u %s", r->what, *n,
				 field);
	return 0;
}

static int skip_ftrace(struct reader *r)
{
	const uint8_t *data;
	uint32_t n;
	size_t len;

	if (read_count(r, &n, "ftrace formats"))
		return -EINVAL;
	for (uint32_t i = 0; i < n; i++)
		if (take_blob(r, 8, &data, &len, "ftrace format"))
			return -EINVAL;
	return 0;
}

static int add_event(struct reader *r, struct tracingdata *td, const char *system)
{
	struct tp_format *ev;
	const uint8_t *text;
	size_t len;

	if (take_blob(r, 8, &text, &len, "event format"))
		return -EINVAL;
	if (td->nr_events == TRACINGDATA_EVENTS_MAX)
		return kp_errorf(r->err, E2BIG, "%s: tracing data: over %d events",
				 r->what, TRACINGDATA_EVENTS_MAX);
	ev = realloc(td->events, (td->nr_events + 1) * sizeof(*ev));
	if (!ev)
		return kp_errorf(r->err, ENOMEM, "out of memory");
	td->events = ev;
	if (tp_format_parse((const char *)text, len, system, &td->events[td->nr_events],
			    r->err)) {
		kp_err_prefix(r->err, "%s: %s", r->what, system);
		return -EINVAL;
	}
	td->nr_events++;
	return 0;
}

static int read_systems(struct reader *r, struct tracingdata *td)
{
	char system[SYSTEM_NAME_MAX];
	uint32_t nr_systems, n;

	if (read_count(r, &nr_systems, "systems"))
		return -EINVAL;
	for (uint32_t s = 0; s < nr_systems; s++) {
		if (take_string(r, system, sizeof(system), "system name") ||
		    read_count(r, &n, "events"))
			return -EINVAL;
		for (uint32_t i = 0; i < n; i++)
			if (add_event(r, td, system))
				return -EINVAL;
	}
	return 0;
}

/* kallsyms, printk formats and saved cmdlines: only checked to fit. */
static int skip_tail(struct reader *r, const char *version)
{
	const uint8_t *data;
	size_t len;

	if (take_blob(r, 4, &data, &len, "kallsyms") ||
	    take_blob(r, 4, &data, &len, "printk formats"))
		return -EINVAL;
	if (strcmp(version, VERSION) >= 0 && left(r) &&
	    take_blob(r, 8, &data, &len, "saved cmdlines"))
		return -EINVAL;
	return 0;
}

int tracingdata_read(const void *buf, size_t len, const char *what,
		     struct tracingdata *td, struct kp_err *err)
{
	struct kp_err local = {0};
	struct reader r = {buf, (const uint8_t *)buf + len, what, err ? err : &local};
	char version[16];

	memset(td, 0, sizeof(*td));
	if (read_preamble(&r, td, version) || skip_headers(&r) || skip_ftrace(&r) ||
	    read_systems(&r, td) || skip_tail(&r, version)) {
		tracingdata_release(td);
		return r.err->code ? -r.err->code : -EINVAL;
	}
	return 0;
}

const struct tp_format *tracingdata_event(const struct tracingdata *td, uint64_t id)
{
	for (size_t i = 0; i < td->nr_events; i++)
		if (td->events[i].id == id)
			return &td->events[i];
	return NULL;
}

void tracingdata_release(struct tracingdata *td)
{
	free(td->events);
	memset(td, 0, sizeof(*td));
}

struct writer {
	uint8_t *buf;
	size_t len;
	size_t alloc;
	bool failed;
};

static void put(struct writer *w, const void *p, size_t n)
{
	if (w->failed)
		return;
	if (w->len + n > w->alloc) {
		size_t alloc = (w->len + n) * 2;
		uint8_t *b = realloc(w->buf, alloc);

		if (!b) {
			w->failed = true;
			return;
		}
		w->buf = b;
		w->alloc = alloc;
	}
	memcpy(w->buf + w->len, p, n);
	w->len += n;
}

static void put_u32(struct writer *w, uint32_t v)
{
	put(w, &v, 4);
}

static void put_blob(struct writer *w, const void *p, size_t n)
{
	uint64_t v = n;

	put(w, &v, 8);
	put(w, p, n);
}

static void put_preamble(struct writer *w, const struct tracingdata_input *in)
{
	uint8_t endian = 0, long_size = sizeof(long);

	put(w, magic, sizeof(magic));
	put(w, VERSION, sizeof(VERSION));
	put(w, &endian, 1);
	put(w, &long_size, 1);
	put_u32(w, (uint32_t)sysconf(_SC_PAGESIZE));
	put(w, "header_page", 12);
	put_blob(w, in->header_page, in->header_page_len);
	put(w, "header_event", 13);
	put_blob(w, in->header_event, in->header_event_len);
	put_u32(w, 0); /* no ftrace formats */
}

/* Has a format before @i the same system as format @i? */
static bool system_seen(const struct tracingdata_input *in, size_t i)
{
	for (size_t j = 0; j < i; j++)
		if (!strcmp(in->formats[j].system, in->formats[i].system))
			return true;
	return false;
}

static void put_system(struct writer *w, const struct tracingdata_input *in,
		       const char *system)
{
	uint32_t n = 0;

	put(w, system, strlen(system) + 1);
	for (size_t i = 0; i < in->nr_formats; i++)
		n += !strcmp(in->formats[i].system, system);
	put_u32(w, n);
	for (size_t i = 0; i < in->nr_formats; i++)
		if (!strcmp(in->formats[i].system, system))
			put_blob(w, in->formats[i].text, in->formats[i].len);
}

int tracingdata_write(const struct tracingdata_input *in, void **out, size_t *len)
{
	struct writer w = {0};
	uint32_t systems = 0;
	uint64_t no_cmdlines = 0;

	put_preamble(&w, in);
	for (size_t i = 0; i < in->nr_formats; i++)
		systems += !system_seen(in, i);
	put_u32(&w, systems);
	for (size_t i = 0; i < in->nr_formats; i++)
		if (!system_seen(in, i))
			put_system(&w, in, in->formats[i].system);
	put_u32(&w, 0); /* kallsyms */
	put_u32(&w, 0); /* printk formats */
	put(&w, &no_cmdlines, 8);
	if (w.failed) {
		free(w.buf);
		return -ENOMEM;
	}
	*out = w.buf;
	*len = w.len;
	return 0;
}
