// SPDX-License-Identifier: GPL-2.0
#include "fileio.h"

#include <errno.h>
#include <stdint.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static int grow(char **buf, size_t *cap, size_t need)
{
	size_t cap2 = *cap ? *cap : 65536;
	char *p;

	while (cap2 < need)
		cap2 *= 2;
	if (cap2 == *cap)
		return 0;
	p = realloc(*buf, cap2);
	if (!p)
		return -ENOMEM;
	*buf = p;
	*cap = cap2;
	return 0;
}

static int read_all(int fd, const char *path, size_t max, size_t hint, char **out,
		    size_t *out_len, struct kp_err *err)
{
	char *buf = NULL;
	size_t cap = 0, len = 0;

	for (;;) {
		ssize_t n;

		if (grow(&buf, &cap, (hint > len ? hint : len + 65536) + 1))
			goto nomem;
		n = read(fd, buf + len, cap - len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			free(buf);
			return kp_errorf(err, errno, "%s: read: %s", path,
					 strerror(errno));
		}
		if (n == 0)
			break;
		len += (size_t)n;
		if (len > max) {
			free(buf);
			return kp_errorf(err, EFBIG, "%s: larger than the %zu-byte limit",
					 path, max);
		}
	}
	buf[len] = '\0';
	*out = buf;
	*out_len = len;
	return 0;
nomem:
	free(buf);
	return kp_errorf(err, ENOMEM, "%s: out of memory", path);
}

int kp_read_file(const char *path, size_t max, char **buf, size_t *len,
		 struct kp_err *err)
{
	struct stat sb;
	int fd, ret;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return kp_errorf(err, errno, "%s: %s", path, strerror(errno));
	if (fstat(fd, &sb) == 0 && S_ISDIR(sb.st_mode)) {
		close(fd);
		return kp_errorf(err, EISDIR, "%s: is a directory", path);
	}
	if (S_ISREG(sb.st_mode) && (uint64_t)sb.st_size > max) {
		close(fd);
		return kp_errorf(err, EFBIG,
				 "%s: %lld bytes, larger than the %zu-byte limit", path,
				 (long long)sb.st_size, max);
	}
	ret = read_all(fd, path, max, S_ISREG(sb.st_mode) ? (size_t)sb.st_size : 0, buf,
		       len, err);
	close(fd);
	return ret;
}

int kp_map_file_open(const char *path, size_t max, struct kp_mapping *m, int *fd_out,
		     struct kp_err *err)
{
	struct stat sb;
	char *buf;
	void *p;
	int fd;

	memset(m, 0, sizeof(*m));
	*fd_out = -1;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return kp_errorf(err, errno, "%s: %s", path, strerror(errno));
	if (fstat(fd, &sb) || !S_ISREG(sb.st_mode) || !sb.st_size) {
		close(fd);
		if (kp_read_file(path, max, &buf, &m->len, err))
			return -err->code;
		m->data = buf;
		return 0;
	}
	if ((uint64_t)sb.st_size > max) {
		close(fd);
		return kp_errorf(err, EFBIG,
				 "%s: %lld bytes, larger than the %zu-byte limit", path,
				 (long long)sb.st_size, max);
	}
	p = mmap(NULL, (size_t)sb.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (p == MAP_FAILED) {
		int ret = kp_errorf(err, errno, "%s: mmap: %s", path, strerror(errno));

		close(fd);
		return ret;
	}
	m->data = p;
	m->len = (size_t)sb.st_size;
	m->mapped = true;
	m->st = sb;
	*fd_out = fd;
	return 0;
}

int kp_map_file(const char *path, size_t max, struct kp_mapping *m, struct kp_err *err)
{
	int fd, ret = kp_map_file_open(path, max, m, &fd, err);

	if (fd >= 0)
		close(fd);
	return ret;
}

void kp_unmap_file(struct kp_mapping *m)
{
	if (m->mapped)
		munmap((void *)m->data, m->len);
	else
		free((void *)m->data);
	memset(m, 0, sizeof(*m));
}
