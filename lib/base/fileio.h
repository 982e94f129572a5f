/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KVMPROF_FILEIO_H
#define KVMPROF_FILEIO_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>

#include "err.h"

/* Files larger than this are refused: inputs may come from untrusted guests. */
#define KP_FILE_MAX (1ULL << 30)

/*
 * Read a whole file into a malloc'ed, NUL-terminated buffer. Works on files
 * whose size is not known in advance (/proc, FUSE). Fails with -EFBIG past
 * @max bytes.
 */
int kp_read_file(const char *path, size_t max, char **buf, size_t *len,
		 struct kp_err *err);

/*
 * Map a regular file read-only (parsers touch only the parts they need, and
 * no copy is made); anything else (/proc, pipes) is read as above. Release
 * with kp_unmap_file().
 */
struct kp_mapping {
	const void *data;
	size_t len;
	bool mapped;
	struct stat st; /* the mapped file's, from its descriptor (when mapped) */
};

int kp_map_file(const char *path, size_t max, struct kp_mapping *m, struct kp_err *err);
/*
 * The same, and the mapped file's descriptor stays open in *fd (close it),
 * for reading it instead where that is cheaper; -1 when nothing was mapped.
 */
int kp_map_file_open(const char *path, size_t max, struct kp_mapping *m, int *fd,
		     struct kp_err *err);
void kp_unmap_file(struct kp_mapping *m);

#endif
