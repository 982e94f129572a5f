// SPDX-License-Identifier: GPL-2.0
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "base/base.h"

static bool use_syslog;
static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;

void gm_log_to_syslog(void)
{
	openlog("guestfs-mount", LOG_PID, LOG_DAEMON);
	use_syslog = true;
}

void gm_log(const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	/* Messages quote guest strings; the log may be a terminal (-f). */
	gm_sanitize(msg, sizeof(msg), msg);
	if (use_syslog) {
		syslog(LOG_INFO, "%s", msg);
		return;
	}
	pthread_mutex_lock(&log_lock);
	fprintf(stderr, "guestfs-mount: %s\n", msg);
	fflush(stderr);
	pthread_mutex_unlock(&log_lock);
}

double gm_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int gm_path(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, size, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= size) {
		if (size)
			buf[0] = '\0';
		return -ENAMETOOLONG;
	}
	return 0;
}

int gm_mkdirs(const char *path, unsigned mode)
{
	char buf[4096];
	size_t len = strlen(path);

	if (len >= sizeof(buf))
		return -ENAMETOOLONG;
	memcpy(buf, path, len + 1);
	for (char *p = buf + 1;; p++) {
		if (*p == '/' || !*p) {
			char c = *p;

			*p = '\0';
			if (mkdir(buf, mode) && errno != EEXIST)
				return -errno;
			if (!c)
				break;
			*p = c;
		}
	}
	return 0;
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if (flag == FTW_DP)
		return rmdir(path) ? -1 : 0;
	return unlink(path) && errno != ENOENT ? -1 : 0;
}

int gm_rm_rf(const char *path)
{
	struct stat st;

	if (lstat(path, &st))
		return errno == ENOENT ? 0 : -errno;
	if (!S_ISDIR(st.st_mode))
		return unlink(path) ? -errno : 0;
	return nftw(path, rm_one, 32, FTW_DEPTH | FTW_PHYS) ? -errno : 0;
}

FILE *gm_create_tmp(const char *path, char *tmp, size_t tmp_size)
{
	int fd;
	FILE *f;

	if (gm_path(tmp, tmp_size, "%s.tmp", path))
		return NULL;
	unlink(tmp);
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return NULL;
	f = fdopen(fd, "w");
	if (!f) {
		close(fd);
		unlink(tmp);
	}
	return f;
}

int gm_commit_tmp(FILE *f, const char *tmp, const char *path)
{
	int bad = ferror(f);

	if (fclose(f) || bad || rename(tmp, path)) {
		int ret = errno ? -errno : -EIO;

		unlink(tmp);
		return ret;
	}
	return 0;
}

int gm_write_file(const char *path, const void *data, size_t len)
{
	char tmp[4096];
	FILE *f = gm_create_tmp(path, tmp, sizeof(tmp));

	if (!f)
		return errno ? -errno : -EIO;
	if (len && fwrite(data, 1, len, f) != len) {
		fclose(f);
		unlink(tmp);
		return -EIO;
	}
	return gm_commit_tmp(f, tmp, path);
}

bool gm_is_file(const char *path, uint64_t *size)
{
	struct stat st;

	if (lstat(path, &st) || !S_ISREG(st.st_mode))
		return false;
	if (size)
		*size = (uint64_t)st.st_size;
	return true;
}

bool gm_is_dir(const char *path)
{
	struct stat st;

	return !lstat(path, &st) && S_ISDIR(st.st_mode);
}

void gm_sanitize(char *dst, size_t size, const char *src)
{
	size_t i = 0;

	if (!size)
		return;
	for (; src && *src && i + 1 < size; src++)
		dst[i++] = (*src >= ' ' && *src < 0x7f) ? *src : '?';
	dst[i] = '\0';
}

static void buf_reserve(struct gm_buf *b, size_t more)
{
	size_t cap;
	char *p;

	if (b->failed || b->len + more + 1 <= b->cap)
		return;
	cap = b->cap ? b->cap : 1024;
	while (cap < b->len + more + 1)
		cap *= 2;
	p = realloc(b->data, cap);
	if (!p) {
		b->failed = true;
		return;
	}
	b->data = p;
	b->cap = cap;
}

void gm_buf_printf(struct gm_buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0) {
		b->failed = true;
		return;
	}
	buf_reserve(b, (size_t)n);
	if (b->failed)
		return;
	va_start(ap, fmt);
	vsnprintf(b->data + b->len, b->cap - b->len, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

void gm_buf_json_string(struct gm_buf *b, const char *s)
{
	if (!s) {
		gm_buf_printf(b, "null");
		return;
	}
	gm_buf_printf(b, "\"");
	while (*s) {
		unsigned char c = (unsigned char)*s;
		size_t len = sanitize_char_len(s);

		if (c == '"' || c == '\\')
			gm_buf_printf(b, "\\%c", c);
		else if (c < ' ' || c == 0x7f)
			gm_buf_printf(b, "\\u%04x", c);
		else if (len)
			gm_buf_printf(b, "%.*s", (int)len, s);
		else /* not \\u00XX: that decodes to a C1 control for 0x80..0x9f */
			gm_buf_printf(b, "?");
		s += len ? len : 1;
	}
	gm_buf_printf(b, "\"");
}

void gm_buf_release(struct gm_buf *b)
{
	free(b->data);
	memset(b, 0, sizeof(*b));
}
