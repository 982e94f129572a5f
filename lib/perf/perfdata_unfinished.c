// SPDX-License-Identifier: GPL-2.0
/*
 * A perf.data file whose writer was killed. perf and kvmprof write a header
 * before the data whose data size stays 0 until the recording finishes, and
 * the feature table only at the end; killed, the file holds that header,
 * the attrs and whatever records reached the disk, the last perhaps cut.
 * Those records are worth reading, as far as the last complete one.
 */
#include <string.h>

#include "perfdata_internal.h"

static bool has_features(const struct pd_file *f)
{
	for (size_t i = 0; i < sizeof(f->header.features) / 8; i++)
		if (f->header.features[i])
			return true;
	return false;
}

/* The length of the record at @off, 0 when none fits in the file. */
static uint64_t record_at(const struct pd_file *f, uint64_t off)
{
	struct perf_event_header h;

	if (off > f->size || f->size - off < sizeof(h))
		return 0;
	memcpy(&h, f->map + off, sizeof(h));
	return h.size >= sizeof(h) && h.size <= f->size - off ? h.size : 0;
}

/*
 * Not finished: data size 0 and the data after the attrs. perf's header
 * already announces its features, kvmprof's announces none. A finished file
 * with no data has its feature table at the data offset, whose first word
 * (an offset below 2^48) never reads as a record's size: that tells them
 * apart.
 */
static bool unfinished(const struct pd_file *f)
{
	const struct pd_file_header *h = &f->header;

	if (h->data.size || h->data.offset < sizeof(*h) ||
	    h->data.offset < h->attrs.offset + h->attrs.size)
		return false;
	return !has_features(f) || record_at(f, h->data.offset);
}

void pd_recover_unfinished(struct pd_file *f)
{
	uint64_t start = f->header.data.offset, pos = start, len;

	if (!unfinished(f))
		return;
	while ((len = record_at(f, pos))) {
		pos += len;
		f->unfinished_records++;
	}
	f->header.data.size = pos - start;
	/* Announced, never written: the table would have followed the data. */
	memset(f->header.features, 0, sizeof(f->header.features));
	f->unfinished = true;
	f->unfinished_end = pos;
}
