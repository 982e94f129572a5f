// SPDX-License-Identifier: GPL-2.0
/*
 * perf.data writer. As perf does, the file is written in place: once the
 * events are known, a provisional header (data size 0, no features) is
 * written, the previous perf.data is kept as <name>.old and the new file
 * takes the name. A recording killed outright (SIGKILL, power loss) thus
 * leaves, under the name the user asked for, every record flushed so far,
 * which the reader recovers. The file is created under a fresh name from
 * mkostemp and renamed, never opened by the final name: the output folder
 * may be one others can write. A recording that fails puts the previous
 * file back.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "perfdata.h"

#define WBUF_SIZE  (1 << 20)
#define NAME_ALIGN 64

struct wfeature {
	uint8_t *data;
	size_t len;
};

struct pd_writer {
	char *path;
	char *tmp_path; /* until the file takes its name */
	bool published; /* the file has taken its name */
	bool kept_old;	/* the previous file was renamed to <path>.old */
	int fd;
	struct pd_evsel *evsels;
	size_t nr_evsels;
	struct pd_file_header header;
	uint64_t data_start;
	uint64_t data_size;
	uint8_t *buf;
	size_t buf_len;
	/* Records appended by reference, in order after buf (pd_writer_append_ref()). */
	const uint8_t *ref;
	size_t ref_len;
	struct wfeature feats[PD_FEAT_BITS];
};

/* Referenced records up to this size are copied into the buffer, not written apart. */
#define REF_COPY_MAX (16 * 1024)

/* All of @n pieces, in as many calls as the file takes. */
static int writev_all(int fd, struct iovec *iov, int n)
{
	for (;;) {
		ssize_t done;

		for (; n && !iov->iov_len; iov++, n--)
			; /* nothing to write: no call */
		if (!n)
			return 0;
		done = writev(fd, iov, n);
		if (done < 0 && errno == EINTR)
			continue;
		if (done < 0)
			return -errno;
		for (; n && (size_t)done >= iov->iov_len; iov++, n--)
			done -= (ssize_t)iov->iov_len;
		if (n) {
			iov->iov_base = (uint8_t *)iov->iov_base + done;
			iov->iov_len -= (size_t)done;
		}
	}
}

static int write_all(int fd, const void *buf, size_t len)
{
	struct iovec iov = {(void *)buf, len};

	return writev_all(fd, &iov, 1);
}

int pd_writer_create(const char *path, struct pd_writer **out, struct kp_err *err)
{
	struct pd_writer *w = calloc(1, sizeof(*w));

	*out = NULL;
	if (!w || !(w->path = strdup(path)) ||
	    asprintf(&w->tmp_path, "%s.tmp.XXXXXX", path) < 0 ||
	    !(w->buf = malloc(WBUF_SIZE))) {
		if (w) {
			free(w->path);
			free(w->buf);
		}
		free(w);
		return kp_errorf(err, ENOMEM, "%s: out of memory", path);
	}
	/*
	 * A new name, created exclusively: the output folder may be one others
	 * can write (/tmp, a user's folder), where a name known in advance
	 * could be a symlink waiting for root to write through it.
	 */
	w->fd = mkostemp(w->tmp_path, O_CLOEXEC);
	if (w->fd < 0) {
		int e = errno;

		free(w->path);
		free(w->tmp_path);
		free(w->buf);
		free(w);
		return kp_errorf(err, e, "%s: cannot create: %s", path, strerror(e));
	}
	*out = w;
	return 0;
}

int pd_writer_add_evsel(struct pd_writer *w, const struct perf_event_attr *attr,
			const char *name, const uint64_t *ids, size_t nr_ids)
{
	struct pd_evsel *evsels =
		realloc(w->evsels, (w->nr_evsels + 1) * sizeof(*evsels));
	struct pd_evsel *ev;

	if (!evsels)
		return -ENOMEM;
	w->evsels = evsels;
	ev = &evsels[w->nr_evsels];
	memset(ev, 0, sizeof(*ev));
	ev->attr = *attr;
	ev->attr.size = sizeof(ev->attr);
	snprintf(ev->name, sizeof(ev->name), "%s", name);
	if (nr_ids) {
		ev->ids = malloc(nr_ids * sizeof(*ids));
		if (!ev->ids)
			return -ENOMEM;
		memcpy(ev->ids, ids, nr_ids * sizeof(*ids));
		ev->nr_ids = nr_ids;
	}
	w->nr_evsels++;
	return 0;
}

/*
 * The referenced records out, behind what is buffered: copied into the
 * buffer when few, else written from where they lie, as perf record
 * writes from its rings.
 */
static int flush_ref(struct pd_writer *w, struct kp_err *err)
{
	struct iovec iov[2] = {{w->buf, w->buf_len}, {(void *)w->ref, w->ref_len}};
	int ret;

	if (!w->ref_len)
		return 0;
	if (w->ref_len <= REF_COPY_MAX && w->buf_len + w->ref_len <= WBUF_SIZE) {
		memcpy(w->buf + w->buf_len, w->ref, w->ref_len);
		w->buf_len += w->ref_len;
	} else {
		ret = writev_all(w->fd, iov, 2);
		if (ret)
			return kp_errorf(err, -ret, "%s: write: %s", w->path,
					 strerror(-ret));
		w->buf_len = 0;
	}
	w->ref = NULL;
	w->ref_len = 0;
	return 0;
}

int pd_writer_append_ref(struct pd_writer *w, const void *rec, size_t len,
			 struct kp_err *err)
{
	if (w->ref_len && (const uint8_t *)rec == w->ref + w->ref_len) {
		w->ref_len += len;
	} else {
		if (flush_ref(w, err))
			return -err->code;
		w->ref = rec;
		w->ref_len = len;
	}
	w->data_size += len;
	return 0;
}

int pd_writer_end_refs(struct pd_writer *w, struct kp_err *err)
{
	return flush_ref(w, err) ? -err->code : 0;
}

int pd_writer_flush(struct pd_writer *w, struct kp_err *err)
{
	int ret;

	if (flush_ref(w, err))
		return -err->code;
	ret = write_all(w->fd, w->buf, w->buf_len);

	if (ret)
		return kp_errorf(err, -ret, "%s: write: %s", w->path, strerror(-ret));
	w->buf_len = 0;
	return 0;
}

static int write_header(struct pd_writer *w)
{
	struct pd_file_header h = w->header;

	if (lseek(w->fd, 0, SEEK_SET) < 0)
		return -errno;
	return write_all(w->fd, &h, sizeof(h));
}

static int keep_old_file(struct pd_writer *w, struct kp_err *err)
{
	char old[PATH_MAX];

	if (access(w->path, F_OK))
		return 0;
	snprintf(old, sizeof(old), "%s.old", w->path);
	if (rename(w->path, old))
		return kp_errorf(err, errno,
				 "%s: cannot keep the previous file as %s: %s", w->path,
				 old, strerror(errno));
	w->kept_old = true;
	return 0;
}

/*
 * What a reader finds if the recording dies from here on: a valid header
 * whose data size 0 says "not finished", the attrs, and then the data.
 */
static int publish(struct pd_writer *w, struct kp_err *err)
{
	int ret;

	w->header.magic = PD_MAGIC;
	w->header.size = sizeof(w->header);
	w->header.data = (struct pd_section){w->data_start, 0};
	ret = write_header(w);
	if (!ret && lseek(w->fd, (off_t)w->data_start, SEEK_SET) < 0)
		ret = -errno;
	if (ret)
		return kp_errorf(err, -ret, "%s: write: %s", w->path, strerror(-ret));
	if (keep_old_file(w, err))
		return -err->code;
	if (rename(w->tmp_path, w->path))
		return kp_errorf(err, errno, "%s: %s", w->path, strerror(errno));
	free(w->tmp_path);
	w->tmp_path = NULL;
	w->published = true;
	return 0;
}

/*
 * Attrs (each followed by its id section) and ids after the header's room,
 * then the provisional header, and the file takes its name.
 */
int pd_writer_begin_data(struct pd_writer *w, struct kp_err *err)
{
	uint64_t attr_size = sizeof(struct perf_event_attr) + sizeof(struct pd_section);
	uint64_t ids_off = sizeof(struct pd_file_header) + w->nr_evsels * attr_size;
	uint64_t off = sizeof(struct pd_file_header);
	int ret;

	if (lseek(w->fd, (off_t)off, SEEK_SET) < 0)
		return kp_errorf(err, errno, "%s: seek: %s", w->path, strerror(errno));
	for (size_t i = 0; i < w->nr_evsels; i++) {
		struct pd_section ids = {ids_off, w->evsels[i].nr_ids * 8};

		if ((ret = write_all(w->fd, &w->evsels[i].attr,
				     sizeof(w->evsels[i].attr))) ||
		    (ret = write_all(w->fd, &ids, sizeof(ids))))
			return kp_errorf(err, -ret, "%s: write: %s", w->path,
					 strerror(-ret));
		ids_off += ids.size;
	}
	for (size_t i = 0; i < w->nr_evsels; i++)
		if ((ret = write_all(w->fd, w->evsels[i].ids, w->evsels[i].nr_ids * 8)))
			return kp_errorf(err, -ret, "%s: write: %s", w->path,
					 strerror(-ret));
	w->header.attr_size = attr_size;
	w->header.attrs = (struct pd_section){off, w->nr_evsels * attr_size};
	w->data_start = ids_off;
	return publish(w, err);
}

int pd_writer_append(struct pd_writer *w, const void *rec, size_t len, struct kp_err *err)
{
	if (w->ref_len && flush_ref(w, err))
		return -err->code;
	if (w->buf_len + len > WBUF_SIZE && pd_writer_flush(w, err))
		return -err->code;
	if (len > WBUF_SIZE) {
		int ret = write_all(w->fd, rec, len);

		if (ret)
			return kp_errorf(err, -ret, "%s: write: %s", w->path,
					 strerror(-ret));
	} else {
		memcpy(w->buf + w->buf_len, rec, len);
		w->buf_len += len;
	}
	w->data_size += len;
	return 0;
}

int pd_writer_write_pieces(struct pd_writer *w, const struct iovec *pieces, int n,
			   struct kp_err *err)
{
	struct iovec iov[PD_WRITER_PIECES + 1];
	int nr = 0, ret;

	if (n < 0 || n > PD_WRITER_PIECES)
		return kp_errorf(err, EINVAL, "%s: %d pieces to write at once", w->path,
				 n);
	if (flush_ref(w, err))
		return -err->code;
	if (w->buf_len)
		iov[nr++] = (struct iovec){w->buf, w->buf_len};
	for (int i = 0; i < n; i++) {
		iov[nr++] = pieces[i];
		w->data_size += pieces[i].iov_len;
	}
	ret = writev_all(w->fd, iov, nr);
	if (ret)
		return kp_errorf(err, -ret, "%s: write: %s", w->path, strerror(-ret));
	w->buf_len = 0;
	return 0;
}

uint64_t pd_writer_data_size(const struct pd_writer *w)
{
	return w->data_size;
}

/* Read-back pieces: any record (at most 64 KiB) fits in one. */
#define READ_BACK_SIZE (1 << 20)

/*
 * The whole records at the start of @buf (@len bytes, from data offset
 * @at) to @fn; the bytes they take in *@used. A record cut at the end is
 * left for the next piece, unless @last says there is none.
 */
static int read_back_piece(const struct pd_writer *w, const uint8_t *buf, size_t len,
			   uint64_t at, bool last, pd_record_fn fn, void *ctx,
			   size_t *used, struct kp_err *err)
{
	size_t p = 0;

	while (len - p >= sizeof(struct perf_event_header)) {
		const struct perf_event_header *h = (const void *)(buf + p);
		int ret;

		if (h->size < sizeof(*h))
			return kp_errorf(err, EINVAL,
					 "%s: record at data offset %llu has size %u",
					 w->path, (unsigned long long)(at + p), h->size);
		if (h->size > len - p)
			break;
		ret = fn(ctx, h);
		if (ret)
			return ret;
		p += h->size;
	}
	if (p < len && (last || !p))
		return kp_errorf(err, EINVAL,
				 "%s: record at data offset %llu is cut short", w->path,
				 (unsigned long long)(at + p));
	*used = p;
	return 0;
}

int pd_writer_read_back(struct pd_writer *w, uint64_t from, uint64_t to, pd_record_fn fn,
			void *ctx, struct kp_err *err)
{
	uint8_t *buf;
	int ret;

	if (from > to || to > w->data_size)
		return kp_errorf(err, EINVAL, "%s: no data between %llu and %llu",
				 w->path, (unsigned long long)from,
				 (unsigned long long)to);
	if (from == to)
		return 0;
	if (pd_writer_flush(w, err))
		return -err->code;
	buf = malloc(READ_BACK_SIZE);
	if (!buf)
		return kp_errorf(err, ENOMEM, "out of memory");
	for (ret = 0; !ret && from < to;) {
		size_t len = to - from < READ_BACK_SIZE ? to - from : READ_BACK_SIZE;
		size_t used = 0;
		ssize_t got = pread(w->fd, buf, len, (off_t)(w->data_start + from));

		if (got != (ssize_t)len)
			ret = kp_errorf(err, got < 0 ? errno : EIO,
					"%s: reading back: %s", w->path,
					got < 0 ? strerror(errno) : "short read");
		else
			ret = read_back_piece(w, buf, len, from, from + len == to, fn,
					      ctx, &used, err);
		from += used;
	}
	free(buf);
	return ret;
}

static uint8_t *feat_alloc(struct pd_writer *w, int feat, size_t len)
{
	struct wfeature *f = &w->feats[feat];

	free(f->data);
	f->data = calloc(1, len ? len : 1);
	f->len = f->data ? len : 0;
	return f->data;
}

/* perf's string encoding: u32 padded length, then the string padded with NULs. */
static size_t string_size(const char *s)
{
	return 4 + ((strlen(s) + 1 + NAME_ALIGN - 1) / NAME_ALIGN) * NAME_ALIGN;
}

static uint8_t *put_string(uint8_t *p, const char *s)
{
	uint32_t len = (uint32_t)(string_size(s) - 4);

	memcpy(p, &len, 4);
	memcpy(p + 4, s, strlen(s));
	return p + 4 + len;
}

int pd_writer_set_string(struct pd_writer *w, enum pd_feature feat, const char *s)
{
	uint8_t *p = feat_alloc(w, feat, string_size(s));

	if (!p)
		return -ENOMEM;
	put_string(p, s);
	return 0;
}

void pd_writer_set_nrcpus(struct pd_writer *w, uint32_t avail, uint32_t online)
{
	uint8_t *p = feat_alloc(w, PD_FEAT_NRCPUS, 8);

	if (!p)
		return;
	memcpy(p, &avail, 4);
	memcpy(p + 4, &online, 4);
}

int pd_writer_set_cmdline(struct pd_writer *w, int argc, char **argv)
{
	size_t len = 4;
	uint32_t n = (uint32_t)argc;
	uint8_t *p;

	for (int i = 0; i < argc; i++)
		len += string_size(argv[i]);
	p = feat_alloc(w, PD_FEAT_CMDLINE, len);
	if (!p)
		return -ENOMEM;
	memcpy(p, &n, 4);
	p += 4;
	for (int i = 0; i < argc; i++)
		p = put_string(p, argv[i]);
	return 0;
}

int pd_writer_set_feature(struct pd_writer *w, int feat, const void *data, size_t len)
{
	uint8_t *p;

	if (feat <= 0 || feat >= PD_FEAT_BITS)
		return -EINVAL;
	p = feat_alloc(w, feat, len);
	if (!p)
		return -ENOMEM;
	memcpy(p, data, len);
	return 0;
}

int pd_writer_set_build_ids(struct pd_writer *w, const struct pd_build_id *ids, size_t nr)
{
	size_t len = 0;
	uint8_t *p;

	for (size_t i = 0; i < nr; i++)
		len += 36 + ((strlen(ids[i].filename) + 1 + 7) & ~(size_t)7);
	p = feat_alloc(w, PD_FEAT_BUILD_ID, len);
	if (!p)
		return -ENOMEM;
	for (size_t i = 0; i < nr; i++) {
		size_t name = (strlen(ids[i].filename) + 1 + 7) & ~(size_t)7;
		struct perf_event_header h = {0, (uint16_t)(ids[i].misc | (1 << 15)),
					      (uint16_t)(36 + name)};

		memcpy(p, &h, sizeof(h));
		memcpy(p + 8, &ids[i].pid, 4);
		memcpy(p + 12, ids[i].id, ids[i].size);
		p[32] = ids[i].size;
		memcpy(p + 36, ids[i].filename, strlen(ids[i].filename));
		p += 36 + name;
	}
	return 0;
}

int pd_writer_set_kvmprof(struct pd_writer *w, const void *blob, size_t len)
{
	return pd_writer_set_feature(w, PD_FEAT_KVMPROF, blob, len);
}

static int build_event_desc(struct pd_writer *w)
{
	uint32_t nre = (uint32_t)w->nr_evsels, sz = sizeof(struct perf_event_attr);
	size_t len = 8;
	uint8_t *p;

	for (size_t i = 0; i < w->nr_evsels; i++)
		len += sz + 4 + string_size(w->evsels[i].name) + w->evsels[i].nr_ids * 8;
	p = feat_alloc(w, PD_FEAT_EVENT_DESC, len);
	if (!p)
		return -ENOMEM;
	memcpy(p, &nre, 4);
	memcpy(p + 4, &sz, 4);
	p += 8;
	for (size_t i = 0; i < w->nr_evsels; i++) {
		uint32_t nr_ids = (uint32_t)w->evsels[i].nr_ids;

		memcpy(p, &w->evsels[i].attr, sz);
		memcpy(p + sz, &nr_ids, 4);
		p = put_string(p + sz + 4, w->evsels[i].name);
		memcpy(p, w->evsels[i].ids, nr_ids * 8);
		p += nr_ids * 8;
	}
	return 0;
}

/* Feature table right after the data, then each payload, in bit order. */
static int write_features(struct pd_writer *w, struct kp_err *err)
{
	uint64_t off = w->data_start + w->data_size;
	size_t nr = 0, i = 0;
	struct pd_section *table;
	int ret = 0;

	for (int f = 0; f < PD_FEAT_BITS; f++)
		nr += w->feats[f].data != NULL;
	table = calloc(nr ? nr : 1, sizeof(*table));
	if (!table)
		return kp_errorf(err, ENOMEM, "%s: out of memory", w->path);
	off += nr * sizeof(*table);
	for (int f = 0; f < PD_FEAT_BITS; f++) {
		if (!w->feats[f].data)
			continue;
		w->header.features[f / 64] |= 1ULL << (f % 64);
		table[i++] = (struct pd_section){off, w->feats[f].len};
		off += w->feats[f].len;
	}
	ret = write_all(w->fd, table, nr * sizeof(*table));
	for (int f = 0; !ret && f < PD_FEAT_BITS; f++)
		if (w->feats[f].data)
			ret = write_all(w->fd, w->feats[f].data, w->feats[f].len);
	free(table);
	return ret ? kp_errorf(err, -ret, "%s: write: %s", w->path, strerror(-ret)) : 0;
}

int pd_writer_finish(struct pd_writer *w, struct kp_err *err)
{
	int ret;

	if (pd_writer_flush(w, err) || build_event_desc(w) || write_features(w, err))
		goto fail;
	w->header.magic = PD_MAGIC;
	w->header.size = sizeof(w->header);
	w->header.data = (struct pd_section){w->data_start, w->data_size};
	ret = write_header(w);
	if (ret || fsync(w->fd)) {
		kp_errorf(err, errno ? errno : EIO, "%s: write header: %s", w->path,
			  strerror(errno ? errno : EIO));
		goto fail;
	}
	/* Done: the file stays, whatever happens to the writer. */
	w->kept_old = false;
	w->published = false;
	pd_writer_abort(w);
	return 0;
fail:
	if (!err || !err->code)
		kp_errorf(err, ENOMEM, "%s: out of memory", w->path);
	pd_writer_abort(w);
	return err ? -err->code : -EIO;
}

/* A failed recording leaves the previous file where it was. */
static void restore_old_file(struct pd_writer *w)
{
	char old[PATH_MAX];

	snprintf(old, sizeof(old), "%s.old", w->path);
	if (w->kept_old)
		rename(old, w->path);
	else if (w->published)
		unlink(w->path);
}

void pd_writer_abort(struct pd_writer *w)
{
	if (!w)
		return;
	if (w->fd >= 0)
		close(w->fd);
	if (w->tmp_path)
		unlink(w->tmp_path);
	restore_old_file(w);
	for (size_t i = 0; i < w->nr_evsels; i++)
		free(w->evsels[i].ids);
	for (int f = 0; f < PD_FEAT_BITS; f++)
		free(w->feats[f].data);
	free(w->evsels);
	free(w->tmp_path);
	free(w->path);
	free(w->buf);
	free(w);
}
