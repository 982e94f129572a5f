// SPDX-License-Identifier: GPL-2.0
/*
 * perf.data reader: header, attributes, features and the record stream.
 * Every offset and size read from the file is checked against the mapping
 * before use: a corrupt or truncated file gives an error naming the file and
 * the offset, never a crash.
 */
#include "perfdata.h"
#include "evname.h"
#include "perfdata_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

struct pd_id_entry {
	uint64_t id;
	size_t evsel;
};

/* Sorted (id -> evsel) index, kept after the public struct. */
struct pd_file_priv {
	struct pd_file pub;
	struct pd_id_entry *ids;
	size_t nr_ids;
};

static bool in_file(const struct pd_file *f, uint64_t off, uint64_t len)
{
	return off <= f->size && len <= f->size - off;
}

bool pd_has_feature(const struct pd_file *f, int feat)
{
	return feat >= 0 && feat < PD_FEAT_BITS &&
	       (f->header.features[feat / 64] >> (feat % 64)) & 1;
}

static int map_file(struct pd_file *f, struct kp_err *err)
{
	struct stat sb;
	void *map;

	f->fd = open(f->path, O_RDONLY | O_CLOEXEC);
	if (f->fd < 0)
		return kp_errorf(err, errno, "%s: %s", f->path, strerror(errno));
	if (fstat(f->fd, &sb))
		return kp_errorf(err, errno, "%s: %s", f->path, strerror(errno));
	if (!S_ISREG(sb.st_mode))
		return kp_errorf(err, EINVAL, "%s: not a regular file", f->path);
	if ((uint64_t)sb.st_size < sizeof(struct pd_file_header))
		return kp_errorf(err, EINVAL,
				 "%s: %lld bytes, too short for a perf.data header",
				 f->path, (long long)sb.st_size);
	/*
	 * Headers and features are read through the mapping; the data section,
	 * nearly all of the file, through a pd_stream.
	 */
	map = mmap(NULL, (size_t)sb.st_size, PROT_READ, MAP_PRIVATE, f->fd, 0);
	if (map == MAP_FAILED)
		return kp_errorf(err, errno, "%s: mmap: %s", f->path, strerror(errno));
	f->map = map;
	f->size = (size_t)sb.st_size;
	f->owns_map = true;
	return 0;
}

static int read_header(struct pd_file *f, struct kp_err *err)
{
	struct pd_file_header *h = &f->header;

	memcpy(h, f->map, sizeof(*h));
	if (h->magic == __builtin_bswap64(PD_MAGIC))
		return kp_errorf(err, ENOTSUP,
				 "%s: big-endian perf.data is not supported", f->path);
	if (h->magic != PD_MAGIC)
		return kp_errorf(err, EINVAL,
				 "%s: offset 0: not a perf.data file (bad magic)",
				 f->path);
	if (h->size != sizeof(*h))
		return kp_errorf(err, EINVAL,
				 "%s: offset 8: header size %llu, expected %zu", f->path,
				 (unsigned long long)h->size, sizeof(*h));
	if (!in_file(f, h->data.offset, h->data.size))
		return kp_errorf(
			err, EINVAL,
			"%s: offset 40: data section %#llx+%#llx lies outside the "
			"%zu-byte file (truncated?)",
			f->path, (unsigned long long)h->data.offset,
			(unsigned long long)h->data.size, f->size);
	if (!in_file(f, h->attrs.offset, h->attrs.size))
		return kp_errorf(err, EINVAL,
				 "%s: offset 24: attr section outside the file", f->path);
	return 0;
}

static int read_ids(struct pd_file *f, struct pd_evsel *ev, const struct pd_section *ids,
		    struct kp_err *err)
{
	if (!ids->size)
		return 0;
	if (!in_file(f, ids->offset, ids->size) || ids->size % 8)
		return kp_errorf(err, EINVAL,
				 "%s: offset %#llx: bad id section for event %s", f->path,
				 (unsigned long long)ids->offset, ev->name);
	/* Left in the file: index_ids() reads them once the layout is checked. */
	ev->ids_offset = ids->offset;
	ev->nr_ids = ids->size / 8;
	return 0;
}

static int read_attrs(struct pd_file *f, struct kp_err *err)
{
	const struct pd_file_header *h = &f->header;
	uint64_t attr_size = h->attr_size;

	if (attr_size < PERF_ATTR_SIZE_VER0 + sizeof(struct pd_section) ||
	    attr_size > 4096 || h->attrs.size % attr_size)
		return kp_errorf(err, EINVAL, "%s: offset 16: bad attr size %llu",
				 f->path, (unsigned long long)attr_size);
	f->nr_evsels = h->attrs.size / attr_size;
	if (!f->nr_evsels)
		return kp_errorf(err, EINVAL, "%s: no events in the file", f->path);
	f->evsels = calloc(f->nr_evsels, sizeof(*f->evsels));
	if (!f->evsels)
		return kp_errorf(err, ENOMEM, "%s: out of memory", f->path);
	for (size_t i = 0; i < f->nr_evsels; i++) {
		const uint8_t *p = f->map + h->attrs.offset + i * attr_size;
		size_t asz = attr_size - sizeof(struct pd_section);
		struct pd_evsel *ev = &f->evsels[i];
		struct pd_section ids;

		memcpy(&ev->attr, p, asz < sizeof(ev->attr) ? asz : sizeof(ev->attr));
		ev->attr.size = sizeof(ev->attr);
		memcpy(&ids, p + asz, sizeof(ids));
		snprintf(ev->name, sizeof(ev->name), "%s", evname_of(&ev->attr));
		if (read_ids(f, ev, &ids, err))
			return -err->code;
	}
	return 0;
}

/* perf's string: u32 length (including padding) then the NUL-terminated text. */
static int feat_string(const uint8_t **p, const uint8_t *end, char *out, size_t size)
{
	uint32_t len;

	if (end - *p < 4)
		return -EINVAL;
	memcpy(&len, *p, 4);
	*p += 4;
	if (len > (size_t)(end - *p))
		return -EINVAL;
	snprintf(out, size, "%.*s", (int)strnlen((const char *)*p, len),
		 (const char *)*p);
	*p += len;
	return 0;
}

static int feat_cmdline(struct pd_file *f, const uint8_t *p, const uint8_t *end)
{
	uint32_t n;
	size_t used = 0;

	if (end - p < 4)
		return -EINVAL;
	memcpy(&n, p, 4);
	p += 4;
	for (uint32_t i = 0; i < n && i < 4096; i++) {
		char arg[512];

		if (feat_string(&p, end, arg, sizeof(arg)))
			return -EINVAL;
		used += (size_t)snprintf(f->cmdline + used, sizeof(f->cmdline) - used,
					 "%s%s", i ? " " : "", arg);
		if (used >= sizeof(f->cmdline))
			break;
	}
	return 0;
}

/* EVENT_DESC gives the event names: u32 nr, u32 attr size, then per event. */
static int feat_event_desc(struct pd_file *f, const uint8_t *p, const uint8_t *end)
{
	uint32_t nre, sz;

	if (end - p < 8)
		return -EINVAL;
	memcpy(&nre, p, 4);
	memcpy(&sz, p + 4, 4);
	p += 8;
	for (uint32_t i = 0; i < nre; i++) {
		uint32_t nr_ids;
		char name[64];

		if ((size_t)(end - p) < (size_t)sz + 4)
			return -EINVAL;
		p += sz;
		memcpy(&nr_ids, p, 4);
		p += 4;
		if (feat_string(&p, end, name, sizeof(name)))
			return -EINVAL;
		if ((size_t)(end - p) / 8 < nr_ids)
			return -EINVAL;
		p += (size_t)nr_ids * 8;
		if (i < f->nr_evsels && name[0])
			snprintf(f->evsels[i].name, sizeof(f->evsels[i].name), "%s",
				 name);
	}
	return 0;
}

/*
 * perf_record_header_build_id: header, s32 pid, u8 id[20], u8 size, 3 pad,
 * then the NUL-terminated file name padded to 8 bytes.
 */
#define BUILD_ID_FIXED 36
#define MAX_BUILD_IDS  65536

static int feat_build_ids(struct pd_file *f, const uint8_t *p, const uint8_t *end)
{
	while (end - p >= BUILD_ID_FIXED + 1 && f->nr_build_ids < MAX_BUILD_IDS) {
		struct perf_event_header h;
		struct pd_build_id *b, *grown;
		size_t name_max;

		memcpy(&h, p, sizeof(h));
		if (h.size <= BUILD_ID_FIXED || h.size > (size_t)(end - p))
			return -EINVAL;
		name_max = h.size - BUILD_ID_FIXED;
		if (!memchr(p + BUILD_ID_FIXED, '\0', name_max))
			return -EINVAL;
		grown = realloc(f->build_ids, (f->nr_build_ids + 1) * sizeof(*grown));
		if (!grown)
			return -ENOMEM;
		f->build_ids = grown;
		b = &f->build_ids[f->nr_build_ids++];
		memcpy(&b->pid, p + 8, 4);
		memcpy(b->id, p + 12, 20);
		b->misc = h.misc;
		/* Old files have no size byte: 20 (SHA-1) was the only size then. */
		b->size = h.misc & (1 << 15) ? p[32] : 20;
		if (b->size > 20)
			b->size = 20;
		b->filename = (const char *)p + BUILD_ID_FIXED;
		p += h.size;
	}
	return 0;
}

int pd_read_feature(struct pd_file *f, int feat, const uint8_t *p, size_t size)
{
	const uint8_t *end = p + size;

	switch (feat) {
	case PD_FEAT_HOSTNAME:
		return feat_string(&p, end, f->hostname, sizeof(f->hostname));
	case PD_FEAT_OSRELEASE:
		return feat_string(&p, end, f->osrelease, sizeof(f->osrelease));
	case PD_FEAT_VERSION:
		return feat_string(&p, end, f->version, sizeof(f->version));
	case PD_FEAT_ARCH:
		return feat_string(&p, end, f->arch, sizeof(f->arch));
	case PD_FEAT_CPUDESC:
		return feat_string(&p, end, f->cpudesc, sizeof(f->cpudesc));
	case PD_FEAT_CPUID:
		return feat_string(&p, end, f->cpuid, sizeof(f->cpuid));
	case PD_FEAT_TRACING_DATA:
		f->tracing_data = p;
		f->tracing_data_size = size;
		return 0;
	case PD_FEAT_NRCPUS:
		if (size < 8)
			return -EINVAL;
		memcpy(&f->nr_cpus_avail, p, 4);
		memcpy(&f->nr_cpus_online, p + 4, 4);
		return 0;
	case PD_FEAT_CMDLINE:
		return feat_cmdline(f, p, end);
	case PD_FEAT_BUILD_ID:
		return feat_build_ids(f, p, end);
	case PD_FEAT_EVENT_DESC:
		return feat_event_desc(f, p, end);
	case PD_FEAT_KVMPROF:
		f->kvmprof_feature = p;
		f->kvmprof_feature_size = size;
		return 0;
	case PD_FEAT_KVMPROF_KSYMS:
		f->host_ksyms = p;
		f->host_ksyms_size = size;
		return 0;
	case PD_FEAT_KVMPROF_CTX:
		f->guest_ctx = p;
		f->guest_ctx_size = size;
		return 0;
	default:
		return 0;
	}
}

static int read_features(struct pd_file *f, struct kp_err *err)
{
	uint64_t table = f->header.data.offset + f->header.data.size;
	struct pd_section secs[PD_FEAT_BITS];
	int bits[PD_FEAT_BITS];
	size_t nr = 0, idx = 0, nr_in = 0;
	int ret;

	for (int i = 0; i < PD_FEAT_BITS; i++)
		nr += pd_has_feature(f, i);
	if (nr && !in_file(f, table, nr * sizeof(struct pd_section)))
		return kp_errorf(
			err, EINVAL,
			"%s: offset %#llx: feature table past the end of the file "
			"(truncated?)",
			f->path, (unsigned long long)table);
	for (int feat = 0; feat < PD_FEAT_BITS; feat++) {
		if (!pd_has_feature(f, feat))
			continue;
		memcpy(&secs[nr_in], f->map + table + idx++ * sizeof(secs[0]),
		       sizeof(secs[0]));
		/* A damaged optional feature loses only that feature's information. */
		if (!in_file(f, secs[nr_in].offset, secs[nr_in].size))
			f->damaged_features++;
		else
			bits[nr_in++] = feat;
	}
	/* Before anything is built from the sections: see perfdata_layout.c. */
	ret = pd_check_layout(f, secs, bits, nr_in, err);
	if (ret)
		return ret;
	for (size_t i = 0; i < nr_in; i++)
		if (pd_read_feature(f, bits[i], f->map + secs[i].offset, secs[i].size))
			f->damaged_features++;
	return 0;
}

static int id_cmp(const void *a, const void *b)
{
	const struct pd_id_entry *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

/* The ids of evsel @i: in the file's mapping, or (live) the caller's array. */
static const uint8_t *evsel_ids(const struct pd_file *f, size_t i)
{
	return f->evsels[i].ids ? (const uint8_t *)f->evsels[i].ids
				: f->map + f->evsels[i].ids_offset;
}

static int index_ids(struct pd_file_priv *fp, struct kp_err *err)
{
	struct pd_file *f = &fp->pub;
	size_t n = 0;

	for (size_t i = 0; i < f->nr_evsels; i++)
		n += f->evsels[i].nr_ids;
	fp->ids = calloc(n ? n : 1, sizeof(*fp->ids));
	if (!fp->ids)
		return kp_errorf(err, ENOMEM, "%s: out of memory", f->path);
	for (size_t i = 0; i < f->nr_evsels; i++) {
		const uint8_t *p = evsel_ids(f, i);

		for (size_t j = 0; j < f->evsels[i].nr_ids; j++) {
			struct pd_id_entry *e = &fp->ids[fp->nr_ids++];

			memcpy(&e->id, p + j * 8, 8);
			e->evsel = i;
		}
	}
	qsort(fp->ids, fp->nr_ids, sizeof(*fp->ids), id_cmp);
	return 0;
}

static void compute_id_layout(struct pd_file *f)
{
	uint64_t t = f->evsels[0].attr.sample_type;

	/* Each fixed field is one u64 (TID and CPU pack two u32s). */
	f->fixed_words = f->nr_evsels == 1 && !(t & ~PD_FIXED_FIELDS)
				 ? (unsigned)__builtin_popcountll(t)
				 : 0;

	f->id_layout.sample_pos = -1;
	f->id_layout.trailer_pos = -1;
	if (t & PERF_SAMPLE_IDENTIFIER) {
		f->id_layout.sample_pos = 0;
		f->id_layout.trailer_pos = 1;
	} else if (t & PERF_SAMPLE_ID) {
		f->id_layout.sample_pos =
			!!(t & PERF_SAMPLE_IP) + !!(t & PERF_SAMPLE_TID) +
			!!(t & PERF_SAMPLE_TIME) + !!(t & PERF_SAMPLE_ADDR);
		f->id_layout.trailer_pos =
			1 + !!(t & PERF_SAMPLE_STREAM_ID) + !!(t & PERF_SAMPLE_CPU);
	}
}

static int open_common(const char *path, const void *buf, size_t len,
		       struct pd_file **out, struct kp_err *err)
{
	struct pd_file_priv *fp = calloc(1, sizeof(*fp));
	struct pd_file *f;
	int ret = 0;

	*out = NULL;
	if (!fp)
		return kp_errorf(err, ENOMEM, "%s: out of memory", path);
	f = &fp->pub;
	f->fd = -1;
	f->path = strdup(path);
	if (!f->path) {
		free(fp);
		return kp_errorf(err, ENOMEM, "%s: out of memory", path);
	}
	if (buf) {
		f->map = buf;
		f->size = len;
		if (len < sizeof(struct pd_file_header))
			ret = kp_errorf(err, EINVAL,
					"%s: too short for a perf.data header", path);
	} else {
		ret = map_file(f, err);
	}
	if (!ret)
		ret = read_header(f, err);
	if (!ret)
		pd_recover_unfinished(f);
	if (!ret)
		ret = read_attrs(f, err);
	if (!ret)
		ret = read_features(f, err);
	if (!ret)
		ret = index_ids(fp, err);
	if (ret) {
		pd_close(f);
		return ret;
	}
	compute_id_layout(f);
	*out = f;
	return 0;
}

int pd_open(const char *path, struct pd_file **out, struct kp_err *err)
{
	return open_common(path, NULL, 0, out, err);
}

int pd_open_memory(const void *buf, size_t len, const char *name, struct pd_file **out,
		   struct kp_err *err)
{
	return open_common(name, buf, len, out, err);
}

int pd_open_events(const struct pd_evsel *evsels, size_t nr, const char *name,
		   struct pd_file **out, struct kp_err *err)
{
	struct pd_file_priv *fp = calloc(1, sizeof(*fp));
	struct pd_file *f = fp ? &fp->pub : NULL;
	int ret;

	*out = NULL;
	if (!nr) {
		free(fp);
		return kp_errorf(err, EINVAL, "%s: no events", name);
	}
	if (!fp)
		goto nomem;
	f->fd = -1;
	f->path = strdup(name);
	f->evsels = calloc(nr, sizeof(*f->evsels));
	if (!f->path || !f->evsels)
		goto nomem;
	memcpy(f->evsels, evsels, nr * sizeof(*evsels));
	f->nr_evsels = nr;
	ret = index_ids(fp, err);
	/* The ids were indexed: the caller's arrays are not kept. */
	for (size_t i = 0; i < nr; i++)
		f->evsels[i].ids = NULL;
	if (ret) {
		pd_close(f);
		return ret;
	}
	compute_id_layout(f);
	*out = f;
	return 0;
nomem:
	pd_close(f);
	return kp_errorf(err, ENOMEM, "%s: out of memory", name);
}

void pd_close(struct pd_file *f)
{
	struct pd_file_priv *fp = (struct pd_file_priv *)f;

	if (!f)
		return;
	if (f->map && f->owns_map)
		munmap((void *)f->map, f->size);
	if (f->fd >= 0)
		close(f->fd);
	free(f->evsels);
	free(f->build_ids);
	free(fp->ids);
	free(f->path);
	free(fp);
}

int pd_next(const struct pd_file *f, uint64_t *pos, const struct perf_event_header **ev,
	    struct kp_err *err)
{
	const struct perf_event_header *h;
	uint64_t left = f->header.data.size - *pos;

	if (*pos >= f->header.data.size)
		return 0;
	if (left < sizeof(*h))
		return kp_errorf(err, EINVAL, "%s: offset %#llx: truncated record header",
				 f->path, (unsigned long long)pd_file_offset(f, *pos));
	h = (const void *)(f->map + f->header.data.offset + *pos);
	if (h->size < sizeof(*h) || h->size > left)
		return kp_errorf(err, EINVAL,
				 "%s: offset %#llx: record of type %u has bad size %u "
				 "(%llu bytes left in the data section)",
				 f->path, (unsigned long long)pd_file_offset(f, *pos),
				 h->type, h->size, (unsigned long long)left);
	*ev = h;
	*pos += h->size;
	return 1;
}

const struct pd_evsel *pd_evsel_by_id(const struct pd_file *f, uint64_t id)
{
	const struct pd_file_priv *fp = (const struct pd_file_priv *)f;
	size_t lo = 0, hi = fp->nr_ids;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (fp->ids[mid].id == id)
			return &f->evsels[fp->ids[mid].evsel];
		if (fp->ids[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* Which evsel a record belongs to: the only one, or the one its id names. */
const struct pd_evsel *pd_evsel_for(const struct pd_file *f, const uint64_t *words,
				    size_t nr_words, bool sample)
{
	int pos = sample ? f->id_layout.sample_pos : f->id_layout.trailer_pos;
	size_t idx;

	if (f->nr_evsels == 1 || pos < 0)
		return &f->evsels[0];
	idx = sample ? (size_t)pos : nr_words - (size_t)pos;
	if (idx >= nr_words)
		return NULL;
	return pd_evsel_by_id(f, words[idx]);
}
