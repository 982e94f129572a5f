// SPDX-License-Identifier: GPL-2.0
/*
 * Reading the data section through a buffer (see struct pd_stream): records
 * are checked as pd_next() checks them, and a refill keeps the held ones,
 * moving them to the front or into a bigger buffer.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/hugepages.h"
#include "perfdata_internal.h"

/* Two huge pages: rounds of a busy system-wide recording are a few hundred KiB. */
#define STREAM_BUF (4UL << 20)

int pd_stream_open(struct pd_stream *st, struct pd_file *f, size_t buf_size,
		   struct kp_err *err)
{
	memset(st, 0, sizeof(*st));
	st->f = f;
	f->stream = st;
	st->cap = buf_size ? buf_size : STREAM_BUF;
	/* A small file needs no more: 4 MiB of huge pages is a cost to clear. */
	if (!buf_size && f->header.data.size < st->cap)
		st->cap = f->header.data.size > 8 ? (size_t)f->header.data.size : 8;
	st->buf = kp_alloc_huge(st->cap);
	if (!st->buf)
		return kp_errorf(err, ENOMEM, "%s: out of memory", f->path);
	if (f->fd >= 0)
		posix_fadvise(f->fd, (off_t)f->header.data.offset,
			      (off_t)f->header.data.size, POSIX_FADV_SEQUENTIAL);
	return 0;
}

void pd_stream_close(struct pd_stream *st)
{
	if (st->f && st->f->stream == st)
		st->f->stream = NULL;
	free(st->buf);
	memset(st, 0, sizeof(*st));
}

void pd_stream_release(struct pd_stream *st)
{
	st->keep = st->next;
}

bool pd_record_offset(const struct pd_file *f, const void *ev, uint64_t *off)
{
	const struct pd_stream *st = f->stream;
	uintptr_t p = (uintptr_t)ev;

	if (st && st->buf && p >= (uintptr_t)st->buf &&
	    p < (uintptr_t)st->buf + st->len) {
		*off = f->header.data.offset + st->base + (p - (uintptr_t)st->buf);
		return true;
	}
	if (f->map && p >= (uintptr_t)f->map && p < (uintptr_t)f->map + f->size) {
		*off = p - (uintptr_t)f->map;
		return true;
	}
	return false;
}

/*
 * Drop the released records and make room for @need bytes from the next
 * record on, and for a good read after what is held: the held records go
 * to the front, or into a bigger buffer when they fill half of this one.
 */
static int make_room(struct pd_stream *st, size_t need, intptr_t *moved,
		     struct kp_err *err)
{
	size_t held = st->len - st->keep, next = st->next - st->keep, cap = st->cap;
	uint8_t *buf = st->buf;

	while (cap < next + need || cap - held < cap / 2)
		cap *= 2;
	if (cap != st->cap) {
		buf = kp_alloc_huge(cap);
		if (!buf)
			return kp_errorf(err, ENOMEM, "%s: out of memory", st->f->path);
	}
	memmove(buf, st->buf + st->keep, held);
	*moved += (intptr_t)((uintptr_t)buf - (uintptr_t)(st->buf + st->keep));
	if (buf != st->buf)
		free(st->buf);
	st->buf = buf;
	st->cap = cap;
	st->base += st->keep;
	st->next = next;
	st->len = held;
	st->keep = 0;
	return 0;
}

/* pread(), or a copy for a file opened from memory (tests and fuzzing take this path
 * too). */
static ssize_t read_at(const struct pd_file *f, uint8_t *to, size_t len, uint64_t off)
{
	if (f->fd >= 0)
		return pread(f->fd, to, len, (off_t)off);
	if (off >= f->size)
		return 0;
	if (len > f->size - off)
		len = (size_t)(f->size - off);
	memcpy(to, f->map + off, len);
	return (ssize_t)len;
}

/* Read until @need bytes follow st->next (the caller checked the section holds them). */
static int fill(struct pd_stream *st, size_t need, intptr_t *moved, struct kp_err *err)
{
	const struct pd_file *f = st->f;
	uint64_t end = f->header.data.size;
	int ret;

	if (st->len - st->next >= need)
		return 0;
	if (st->keep || st->cap - st->next < need) {
		ret = make_room(st, need, moved, err);
		if (ret)
			return ret;
	}
	while (st->len - st->next < need) {
		uint64_t want = end - st->base - st->len;
		ssize_t n;

		if (want > st->cap - st->len)
			want = st->cap - st->len;
		n = want ? read_at(f, st->buf + st->len, (size_t)want,
				   f->header.data.offset + st->base + st->len)
			 : 0;
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return kp_errorf(err, errno, "%s: read: %s", f->path,
					 strerror(errno));
		if (!n)
			return kp_errorf(
				err, EIO,
				"%s: the file ends at %#llx, inside its data section "
				"(changed since it was opened?)",
				f->path,
				(unsigned long long)(f->header.data.offset + st->base +
						     st->len));
		st->len += (size_t)n;
	}
	return 0;
}

int pd_stream_next(struct pd_stream *st, const struct perf_event_header **ev,
		   intptr_t *moved, struct kp_err *err)
{
	const struct pd_file *f = st->f;
	uint64_t at = st->base + st->next, left = f->header.data.size - at;
	const struct perf_event_header *h;
	int ret;

	*moved = 0;
	if (at >= f->header.data.size)
		return 0;
	if (left < sizeof(*h))
		return kp_errorf(err, EINVAL, "%s: offset %#llx: truncated record header",
				 f->path, (unsigned long long)pd_file_offset(f, at));
	ret = fill(st, sizeof(*h), moved, err);
	if (ret)
		return ret;
	h = (const void *)(st->buf + st->next);
	if (h->size < sizeof(*h) || h->size > left)
		return kp_errorf(err, EINVAL,
				 "%s: offset %#llx: record of type %u has bad size %u "
				 "(%llu bytes left in the data section)",
				 f->path, (unsigned long long)pd_file_offset(f, at),
				 h->type, h->size, (unsigned long long)left);
	ret = fill(st, h->size, moved, err);
	if (ret)
		return ret;
	*ev = (const void *)(st->buf + st->next);
	st->next += (*ev)->size;
	return 1;
}
