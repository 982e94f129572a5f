/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The perf.data file format (version 2, "PERFILE2"), read and written so that
 * perf and kvmprof can open each other's files.
 *
 * Layout written by kvmprof: header | attrs | ids | data | feature table |
 * feature payloads. perf finds the feature table right after the data section.
 * kvmprof's own data (guest identities, per-sample guest context) lives in a
 * feature at bit PD_FEAT_KVMPROF, above every feature perf knows: perf reads
 * feature sections in bit order and stops at the last one it knows, so it
 * never looks at ours.
 */
#ifndef KVMPROF_PERFDATA_H
#define KVMPROF_PERFDATA_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#include "base/err.h"

#define PD_MAGIC 0x32454c4946524550ULL /* "PERFILE2" */

enum pd_feature {
	PD_FEAT_TRACING_DATA = 1, /* tracepoint formats, see tracingdata.h */
	PD_FEAT_BUILD_ID = 2,
	PD_FEAT_HOSTNAME = 3,
	PD_FEAT_OSRELEASE = 4,
	PD_FEAT_VERSION = 5,
	PD_FEAT_ARCH = 6,
	PD_FEAT_NRCPUS = 7,
	PD_FEAT_CPUDESC = 8,
	PD_FEAT_CPUID = 9,
	PD_FEAT_TOTAL_MEM = 10,
	PD_FEAT_CMDLINE = 11,
	PD_FEAT_EVENT_DESC = 12,
	PD_FEAT_BITS = 256,
	PD_FEAT_KVMPROF = 255,
	PD_FEAT_KVMPROF_KSYMS = 254, /* the host kernel's symbols, see ksymblob.h */
	PD_FEAT_KVMPROF_CTX = 253,   /* per-sample guest context, see guestctx.h */
};

/* Record types perf itself writes into files (user types start at 64). */
enum pd_user_record {
	PD_RECORD_HEADER_ATTR = 64,
	PD_RECORD_BUILD_ID = 67,
	PD_RECORD_FINISHED_ROUND = 68,
};

struct pd_section {
	uint64_t offset;
	uint64_t size;
};

struct pd_file_header {
	uint64_t magic;
	uint64_t size;
	uint64_t attr_size;
	struct pd_section attrs;
	struct pd_section data;
	struct pd_section event_types;
	uint64_t features[PD_FEAT_BITS / 64];
};

struct pd_evsel {
	struct perf_event_attr attr; /* zero-extended to this build's size */
	uint64_t *ids;		     /* the writer's; the reader leaves it NULL */
	uint64_t ids_offset;	     /* the reader's: where its nr_ids ids are */
	size_t nr_ids;
	char name[64];
};

/* Where PERF_SAMPLE_ID / IDENTIFIER sits, so samples map to their evsel. */
struct pd_id_layout {
	int sample_pos;	 /* u64 index in a sample, -1 when absent */
	int trailer_pos; /* u64 index from the end of a non-sample record, -1 absent */
};

/* One entry of the BUILD_ID feature: which file had which build-id. */
struct pd_build_id {
	int32_t pid;   /* -1: the host */
	uint16_t misc; /* cpumode: user or kernel, host or guest */
	uint8_t id[20];
	uint8_t size;
	const char *filename; /* into the mapping, NUL-terminated within the record */
};

struct pd_stream;

struct pd_file {
	char *path;
	int fd;
	const uint8_t *map;
	size_t size;
	bool owns_map;
	struct pd_file_header header;
	struct pd_evsel *evsels;
	size_t nr_evsels;
	struct pd_id_layout id_layout;
	unsigned fixed_words; /* u64 words of a fixed-field-only sample, 0 if not such */

	/* Header features perf writes that reports show. */
	char hostname[128];
	char osrelease[128];
	char version[64];
	char arch[32];
	char cpudesc[128];
	uint32_t nr_cpus_avail;
	uint32_t nr_cpus_online;
	char cmdline[1024];

	const uint8_t *kvmprof_feature; /* into map, NULL when absent */
	uint64_t kvmprof_feature_size;
	struct pd_build_id *build_ids;
	size_t nr_build_ids;
	unsigned damaged_features; /* features whose section lies outside the file */
	const uint8_t *host_ksyms; /* PD_FEAT_KVMPROF_KSYMS blob, NULL when absent */
	uint64_t host_ksyms_size;
	const uint8_t *guest_ctx; /* PD_FEAT_KVMPROF_CTX blob, NULL when absent */
	uint64_t guest_ctx_size;
	const uint8_t *tracing_data; /* PD_FEAT_TRACING_DATA section, NULL when absent */
	uint64_t tracing_data_size;
	char cpuid[128]; /* "GenuineIntel,6,85,4": says VMX or SVM */

	/*
	 * The recording was killed before it finished: the data is the
	 * unfinished_records complete records up to byte unfinished_end, and
	 * there are no header features.
	 */
	bool unfinished;
	/* The stream reading the data section, if any: for records' offsets. */
	const struct pd_stream *stream;
	uint64_t unfinished_records;
	uint64_t unfinished_end;
};

struct pd_sample {
	const struct pd_evsel *evsel;
	uint16_t misc; /* header.misc: cpumode in PERF_RECORD_MISC_CPUMODE_MASK */
	uint64_t ip;
	uint32_t pid;
	uint32_t tid;
	uint64_t time;
	uint64_t addr;
	uint64_t id;
	uint32_t cpu;
	uint64_t period;
	uint64_t nr_callchain;	   /* within the record: pd_parse_sample() checks */
	const uint64_t *callchain; /* leaf first; PERF_CONTEXT_* markers included */
	const void *raw; /* PERF_SAMPLE_RAW: a tracepoint's record, inside the sample */
	uint32_t raw_size;
};

/* Was a record with header.misc @misc taken in a guest (kernel or user)? */
static inline bool pd_misc_is_guest(uint16_t misc)
{
	uint16_t mode = misc & PERF_RECORD_MISC_CPUMODE_MASK;

	return mode == PERF_RECORD_MISC_GUEST_KERNEL ||
	       mode == PERF_RECORD_MISC_GUEST_USER;
}

/*
 * Is call-chain entry @entry a PERF_CONTEXT_* marker rather than an
 * address? Then *cpumode is the mode of the frames after it: the kernel
 * puts PERF_CONTEXT_KERNEL before kernel frames, PERF_CONTEXT_USER before
 * user frames, and the guest markers before a guest's. An unknown marker
 * gives PERF_RECORD_MISC_CPUMODE_UNKNOWN: its frames stay unresolved.
 */
bool pd_callchain_marker(uint64_t entry, uint16_t *cpumode);

/* Open and validate a perf.data file (mapped read-only; the data section is read with
 * pd_stream). */
int pd_open(const char *path, struct pd_file **out, struct kp_err *err);
/* Same, over a caller's buffer that must outlive the returned file (fuzzing, tests). */
int pd_open_memory(const void *buf, size_t len, const char *name, struct pd_file **out,
		   struct kp_err *err);
/*
 * A file with no data, only the events @evsels (attr, name, ids and nr_ids
 * each), as a live session sees them: records read from their rings then
 * decode with pd_parse_sample() and pd_parse_id_trailer() as a recording's
 * would. @name stands for the path in messages.
 */
int pd_open_events(const struct pd_evsel *evsels, size_t nr, const char *name,
		   struct pd_file **out, struct kp_err *err);
void pd_close(struct pd_file *f);

bool pd_has_feature(const struct pd_file *f, int feat);

/*
 * Step through the data section: *pos starts at 0 and is advanced past each
 * record. Returns 1 and sets *ev, 0 at the end, or a negative errno with a
 * message naming the file and offset of a malformed record.
 */
int pd_next(const struct pd_file *f, uint64_t *pos, const struct perf_event_header **ev,
	    struct kp_err *err);

/*
 * The data section read front to back through a buffer that pread() fills,
 * instead of through the file's mapping: on machines with shadow paging
 * each first touch of a mapped 4 KiB page costs a fault into the
 * hypervisor (53 ms for a 133 MB recording here, against 20 ms to read
 * it), and a mapping read to the end keeps the whole file resident.
 *
 * Records stay where they are until pd_stream_release(), which the caller
 * calls once it holds none of them (after each flush of ordered events).
 * Reading on while records are held may move them, by *moved bytes, for
 * the caller to rebase its pointers. A file opened from memory is copied
 * from memory the same way.
 */
struct pd_stream {
	struct pd_file *f;
	uint8_t *buf;
	size_t cap;
	size_t len;    /* bytes read into buf */
	size_t next;   /* the next record's place in buf */
	size_t keep;   /* records from here on are still held */
	uint64_t base; /* data-section offset of buf[0] */
};

/* @buf_size: the buffer to start with, 0 for the default (4 MiB). */
int pd_stream_open(struct pd_stream *st, struct pd_file *f, size_t buf_size,
		   struct kp_err *err);
/*
 * 1 and the next record in *ev, 0 at the end, or a negative errno with a
 * message naming the file and offset of a malformed or missing record.
 * *moved: how far held records moved (added to their addresses), or 0.
 */
int pd_stream_next(struct pd_stream *st, const struct perf_event_header **ev,
		   intptr_t *moved, struct kp_err *err);
/* None of the records returned so far is held any more. */
void pd_stream_release(struct pd_stream *st);
void pd_stream_close(struct pd_stream *st);
/* The file offset of record @ev, read through @f's stream or mapping; false if neither.
 */
bool pd_record_offset(const struct pd_file *f, const void *ev, uint64_t *off);

/* File offset of the record at data position @pos (for error messages). */
static inline uint64_t pd_file_offset(const struct pd_file *f, uint64_t pos)
{
	return f->header.data.offset + pos;
}

/* Decode a PERF_RECORD_SAMPLE according to its evsel's sample_type. */
int pd_parse_sample(const struct pd_file *f, const struct perf_event_header *ev,
		    struct pd_sample *s, struct kp_err *err);

/*
 * Decode the sample_id_all trailer of a non-sample record (pid, tid, time,
 * id, cpu). Leaves @s zeroed when the file has no trailers.
 */
int pd_parse_id_trailer(const struct pd_file *f, const struct perf_event_header *ev,
			struct pd_sample *s, struct kp_err *err);

const struct pd_evsel *pd_evsel_by_id(const struct pd_file *f, uint64_t id);

/*
 * Writer. The output takes its name at pd_writer_begin_data(), with a header
 * that says "not finished" (data size 0) until pd_writer_finish() completes
 * it; what pd_writer_flush() wrote survives the writer being killed.
 * pd_writer_abort() before finishing removes it and puts back the previous
 * file.
 */
struct pd_writer;

int pd_writer_create(const char *path, struct pd_writer **out, struct kp_err *err);
int pd_writer_add_evsel(struct pd_writer *w, const struct perf_event_attr *attr,
			const char *name, const uint64_t *ids, size_t nr_ids);
/* Call after every evsel is added and before the first pd_writer_append(). */
int pd_writer_begin_data(struct pd_writer *w, struct kp_err *err);
int pd_writer_append(struct pd_writer *w, const void *rec, size_t len,
		     struct kp_err *err);
/*
 * Append a record that stays where it is, unchanged, until
 * pd_writer_end_refs() (a ring's records until the ring is released):
 * records that follow one another in memory are written in one piece,
 * without a copy each. Other appends keep the order.
 */
int pd_writer_append_ref(struct pd_writer *w, const void *rec, size_t len,
			 struct kp_err *err);
/* Done with what pd_writer_append_ref() was given: copied or written now. */
int pd_writer_end_refs(struct pd_writer *w, struct kp_err *err);
/* Write the buffered records to the file: they are readable from then on. */
int pd_writer_flush(struct pd_writer *w, struct kp_err *err);
int pd_writer_set_string(struct pd_writer *w, enum pd_feature feat, const char *s);
void pd_writer_set_nrcpus(struct pd_writer *w, uint32_t avail, uint32_t online);
int pd_writer_set_cmdline(struct pd_writer *w, int argc, char **argv);
int pd_writer_set_kvmprof(struct pd_writer *w, const void *blob, size_t len);
int pd_writer_set_feature(struct pd_writer *w, int feat, const void *data, size_t len);
/* The BUILD_ID feature, in perf's record layout. */
int pd_writer_set_build_ids(struct pd_writer *w, const struct pd_build_id *ids,
			    size_t nr);

/* The most pieces pd_writer_write_pieces() takes at once. */
#define PD_WRITER_PIECES 64

/*
 * Write what is buffered, then @n pieces of whole records from where they
 * lie (a recorder's rings, the marker that ends their round), in one call
 * where the file takes it all.
 */
int pd_writer_write_pieces(struct pd_writer *w, const struct iovec *pieces, int n,
			   struct kp_err *err);
uint64_t pd_writer_data_size(const struct pd_writer *w);

typedef int (*pd_record_fn)(void *ctx, const struct perf_event_header *ev);

/*
 * Hand @fn each record of the data section from offset @from to @to (both
 * at record boundaries, @to at most pd_writer_data_size()), read back from
 * the file after a flush: for records written unread. A record whose size
 * is impossible, or that runs past @to, is an error naming its offset.
 * @fn returning nonzero stops the read, which returns that value.
 */
int pd_writer_read_back(struct pd_writer *w, uint64_t from, uint64_t to, pd_record_fn fn,
			void *ctx, struct kp_err *err);
/*
 * Write features and the final header, then move the file into place. An
 * existing file at @path is kept as @path.old, as perf does.
 */
int pd_writer_finish(struct pd_writer *w, struct kp_err *err);
void pd_writer_abort(struct pd_writer *w);

#endif
