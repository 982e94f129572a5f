// SPDX-License-Identifier: GPL-2.0
#include "disks.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "backing.h"
#include "util.h"

extern char **environ;

/* --- QEMU's format probes, by the bytes they look at -------------------------------- */

/*
 * vmdk text descriptors, as QEMU's vmdk_probe() reads them: comment lines
 * and blank lines made of spaces, then "version=1|2|3" ending the line.
 */
static bool vmdk_text(const unsigned char *buf, size_t len)
{
	const char *p = (const char *)buf, *end = p + len;

	while (p < end) {
		if (*p == '#') {
			while (p < end && *p != '\n')
				p++;
			p++;
			continue;
		}
		if (*p == ' ') {
			while (p < end && *p == ' ')
				p++;
			if (p < end && *p == '\r')
				p++;
			if (p == end || *p != '\n')
				return false;
			p++;
			continue;
		}
		/* The first other line must be "version=1", "=2" or "=3", alone. */
		if (end - p < 10 || strncmp(p, "version=", 8) || p[8] < '1' || p[8] > '3')
			return false;
		return p[9] == '\n' || (end - p >= 11 && p[9] == '\r' && p[10] == '\n');
	}
	return false;
}

const char *gm_probe_magic(const unsigned char *b, size_t len)
{
	static const struct {
		const char *fmt;
		size_t off;
		const char *magic;
		size_t mlen;
	} magics[] = {
		{"qcow2", 0, "QFI\xfb", 4},
		{"qed", 0, "QED\0", 4},
		{"vhdx", 0, "vhdxfile", 8},
		{"vpc", 0, "conectix", 8},
		{"vmdk", 0, "KDMV", 4},
		{"vmdk", 0, "COWD", 4},
		{"parallels", 0, "WithoutFreeSpace", 16},
		{"parallels", 0, "WithouFreSpacExt", 16},
		{"bochs", 0, "Bochs Virtual HD Image", 22},
		{"cloop", 0, "#!/bin/sh\n#V2.0 Format\n", 23},
		{"vdi", 0x40, "\x7f\x10\xda\xbe", 4},
		{"luks", 0, "LUKS\xba\xbe", 6},
	};

	for (size_t i = 0; i < sizeof(magics) / sizeof(magics[0]); i++)
		if (len >= magics[i].off + magics[i].mlen &&
		    !memcmp(b + magics[i].off, magics[i].magic, magics[i].mlen))
			return magics[i].fmt;
	return vmdk_text(b, len) ? "vmdk" : NULL;
}

/* --- running qemu-img --------------------------------------------------------------- */

/*
 * Run argv, collecting stdout and stderr (at most @size - 1 bytes). Returns
 * the exit status.
 */
static int run(char *const argv[], char *out, size_t size)
{
	posix_spawn_file_actions_t fa;
	int pfd[2], status = -1;
	size_t len = 0;
	pid_t pid;

	out[0] = '\0';
	if (pipe2(pfd, O_CLOEXEC)) {
		snprintf(out, size, "cannot run %s: %s", argv[0], strerror(errno));
		return -1;
	}
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, pfd[1], 1);
	posix_spawn_file_actions_adddup2(&fa, pfd[1], 2);
	if (posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ)) {
		posix_spawn_file_actions_destroy(&fa);
		close(pfd[0]);
		close(pfd[1]);
		snprintf(out, size, "cannot run %s", argv[0]);
		return -1;
	}
	posix_spawn_file_actions_destroy(&fa);
	close(pfd[1]);
	for (;;) {
		char sink[4096];
		ssize_t n = len + 1 < size ? read(pfd[0], out + len, size - 1 - len)
					   : read(pfd[0], sink, sizeof(sink));

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		if (len + 1 < size)
			len += (size_t)n;
	}
	out[len] = '\0';
	close(pfd[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/*
 * Run qemu-img with the arguments up to NULL, as run() does. One variadic
 * call per use keeps each command line readable where it is built.
 */
static int qemu_img(char *out, size_t size, ...) __attribute__((sentinel));

static int qemu_img(char *out, size_t size, ...)
{
	char *argv[16] = {"qemu-img"};
	const char *arg;
	size_t n = 1;
	va_list ap;

	va_start(ap, size);
	while ((arg = va_arg(ap, const char *)) && n < sizeof(argv) / sizeof(argv[0]) - 1)
		argv[n++] = (char *)arg; /* posix_spawn's argv is not const */
	va_end(ap);
	if (arg) {
		/* A caller's bug: argv[] above is too short. */
		snprintf(out, size, "qemu-img: too many arguments");
		return -E2BIG;
	}
	return run(argv, out, size);
}

static void first_line(char *s)
{
	s[strcspn(s, "\n")] = '\0';
}

/*
 * The JSON string value of "key" in @json, unescaped into @out. Only \" \\
 * and \/ are taken: any other escape stands for a character no file name
 * we accept has, and the value is refused rather than misread.
 */
static bool json_string(const char *json, const char *key, char *out, size_t size)
{
	char pat[64];
	const char *p;
	size_t n = 0;

	snprintf(pat, sizeof(pat), "\"%s\": \"", key);
	p = strstr(json, pat);
	if (!p)
		return false;
	for (p += strlen(pat); *p && *p != '"'; p++) {
		if (*p == '\\' && (!*++p || !strchr("\"\\/", *p)))
			return false;
		if (n + 1 >= size)
			return false;
		out[n++] = *p;
	}
	out[n] = '\0';
	return *p == '"';
}

#define CHAIN_PATH_MAX 4096 /* a backing file's name, as qemu-img info prints it */

/* A qemu-img run that failed, with the first line it printed. */
static int qemu_img_failed(struct kp_err *err, const char *path, const char *what,
			   char *out)
{
	first_line(out);
	return kp_errorf(err, EIO, "disk %s: %s: %s", path, what,
			 out[0] ? out : "failed");
}

#define INFO_MAX (1 << 16) /* qemu-img info of one image; more is refused */

/* An external data file: QEMU opens it as the image's data, so it is checked. */
static int check_data_file(const struct gm_config *cfg, const struct gm_layer *l,
			   const char *out, char *name, struct kp_err *err)
{
	if (!strstr(out, "\"data-file\":"))
		return 0;
	if (!json_string(out, "data-file", name, CHAIN_PATH_MAX))
		return kp_errorf(err, EIO,
				 "disk %s: layer %d (%s): cannot read its data file",
				 l->disk, l->depth, l->image);
	return gm_backing_check(cfg, l, "data file", name, err);
}

/*
 * One step down a qcow2 backing chain: 1 with @cur and @fmt set to the next
 * qcow2 image, 0 at the end of the chain, or a negative errno. The backing
 * file is checked before anything opens it: qemu-img info (without
 * --backing-chain) reads only the image it is given.
 */
static int qcow2_next(const struct gm_config *cfg, const struct gm_layer *l,
		      const char *out, char *cur, char *fmt, size_t fmt_size,
		      struct kp_err *err)
{
	const char *path = l->disk;
	int ret;

	if (!strstr(out, "\"backing-filename\":"))
		return 0;
	if (!json_string(out, "backing-filename-format", fmt, fmt_size))
		return kp_errorf(err, EPERM,
				 "disk %s: a backing file has no recorded format, so "
				 "QEMU would probe it; "
				 "record it (qemu-img rebase -u -F FORMAT)",
				 path);
	/* Others name files of their own (vmdk extents) or are no files (vvfat). */
	if (strcmp(fmt, "qcow2") && strcmp(fmt, "raw"))
		return kp_errorf(err, EPERM,
				 "disk %s: layer %d (%s): backing format %s is not raw "
				 "or qcow2",
				 path, l->depth, l->image, fmt);
	/* As QEMU resolves it: relative to the image that names it. */
	if (!json_string(out, "full-backing-filename", cur, CHAIN_PATH_MAX))
		return kp_errorf(err, EIO, "disk %s: cannot follow its backing chain",
				 path);
	ret = gm_backing_check(cfg, l, "backing file", cur, err);
	if (ret)
		return ret;
	return strcmp(fmt, "qcow2") ? 0 : 1; /* a raw backing file ends the chain */
}

/* qemu-img info of one image of the chain, read whole. */
static int layer_info(const struct gm_layer *l, const char *fmt, char *out,
		      struct kp_err *err)
{
	if (qemu_img(out, INFO_MAX, "info", "-U", "--output=json", "-f", fmt, l->image,
		     NULL))
		return qemu_img_failed(err, l->disk, "qemu-img info", out);
	/* Cut short, a missing "backing-filename" would end the chain early. */
	if (strlen(out) >= INFO_MAX - 1)
		return kp_errorf(err, EIO,
				 "disk %s: layer %d (%s): qemu-img info printed more "
				 "than %d bytes",
				 l->disk, l->depth, l->image, INFO_MAX - 1);
	return 0;
}

/*
 * qemu-img info of a qcow2 disk, one image at a time down its backing chain,
 * each opened with its recorded format: a backing file without one would be
 * probed (and its content is the guest's), so it is refused. Every backing
 * and data file is checked (gm_backing_check()) before any qemu-img opens it.
 */
static int qcow2_info(const struct gm_config *cfg, const char *path, uint64_t *vsize,
		      struct kp_err *err)
{
	char *out = malloc(INFO_MAX), *cur = malloc(CHAIN_PATH_MAX), fmt[16] = "qcow2";
	char *data = malloc(CHAIN_PATH_MAX), *image = malloc(CHAIN_PATH_MAX);
	int ret = 1;

	if (!out || !cur || !data || !image) {
		ret = kp_errorf(err, ENOMEM, "disk %s: out of memory", path);
		goto done;
	}
	snprintf(cur, CHAIN_PATH_MAX, "%s", path);
	for (int depth = 0; depth < GM_CHAIN_MAX && ret > 0; depth++) {
		struct gm_layer l = {.disk = path, .image = image, .depth = depth};

		memcpy(image, cur, CHAIN_PATH_MAX);
		ret = layer_info(&l, fmt, out, err);
		if (ret)
			goto done;
		if (!depth) {
			const char *v = strstr(out, "\"virtual-size\":");

			*vsize = v ? strtoull(v + 15, NULL, 10) : 0;
		}
		ret = check_data_file(cfg, &l, out, data, err);
		if (!ret)
			ret = qcow2_next(cfg, &l, out, cur, fmt, sizeof(fmt), err);
	}
	if (ret > 0)
		ret = kp_errorf(err, ELOOP,
				"disk %s: backing chain deeper than %d images", path,
				GM_CHAIN_MAX);
done:
	free(out);
	free(cur);
	free(data);
	free(image);
	return ret;
}

/*
 * A fresh folder for one qemu-img output, in @parent (the cache, which only
 * root may enter). qemu-img creates its output by name: in a shared folder
 * such as /tmp another user could have a symlink waiting at that name and
 * have guest bytes written wherever it points. mkdtemp() makes the folder
 * with a new name and mode 0700, checked here, so no one else can enter it.
 */
static int private_dir(const char *parent, char *dir, size_t size, const char *disk,
		       struct kp_err *err)
{
	struct stat st;

	if (gm_path(dir, size, "%s/.tmp-head-XXXXXX", parent))
		return kp_errorf(err, ENAMETOOLONG, "disk %s: cache %s: path too long",
				 disk, parent);
	if (!mkdtemp(dir))
		return kp_errorf(err, errno, "disk %s: a private folder in %s: %s", disk,
				 parent, strerror(errno));
	if (lstat(dir, &st) || !S_ISDIR(st.st_mode) || st.st_uid != geteuid() ||
	    (st.st_mode & 07777) != 0700) {
		gm_rm_rf(dir);
		return kp_errorf(err, EPERM, "disk %s: %s is not a private folder", disk,
				 dir);
	}
	return 0;
}

/* What qemu-img dd wrote to @file, at most @len bytes, the rest zero. */
static int read_head(const char *file, unsigned char *buf, size_t len, const char *disk,
		     struct kp_err *err)
{
	int fd = open(file, O_RDONLY | O_CLOEXEC | O_NOFOLLOW), ret;

	if (fd < 0)
		return kp_errorf(err, errno, "disk %s: what qemu-img dd wrote: %s", disk,
				 strerror(errno));
	memset(buf, 0, len);
	ret = read(fd, buf, len) < 0 ? -errno : 0;
	close(fd);
	if (ret)
		return kp_errorf(err, ret, "disk %s: reading what qemu-img dd wrote: %s",
				 disk, strerror(-ret));
	return 0;
}

/*
 * The first bytes of a qcow2 disk's content, read by qemu-img with the
 * format given, into a private folder in @work_dir that is removed after.
 */
static int qcow2_head(const char *path, const char *work_dir, unsigned char *buf,
		      size_t len, struct kp_err *err)
{
	char dir[4096], of[4200], ifarg[4200], out[512], bs[32];
	int ret;

	ret = private_dir(work_dir, dir, sizeof(dir), path, err);
	if (ret)
		return ret;
	snprintf(bs, sizeof(bs), "bs=%zu", len);
	if (gm_path(of, sizeof(of), "of=%s/head", dir) ||
	    gm_path(ifarg, sizeof(ifarg), "if=%s", path))
		ret = kp_errorf(err, ENAMETOOLONG, "disk %s: path too long", path);
	else if (qemu_img(out, sizeof(out), "dd", "-U", "-f", "qcow2", "-O", "raw", bs,
			  "count=1", ifarg, of, NULL))
		ret = qemu_img_failed(err, path, "qemu-img dd", out);
	else
		ret = read_head(of + 3, buf, len, path, err);
	gm_rm_rf(dir);
	return ret;
}

/*
 * A disk whose guest-visible start looks like an image format, where
 * libguestfs's own overlay would let QEMU probe it.
 */
static int refuse_probe(struct kp_err *err, const char *path, const char *like)
{
	return kp_errorf(err, EPERM,
			 "disk %s: its content starts like a %s image, which "
			 "libguestfs's read-only overlay would let QEMU probe: "
			 "refused (use 'overlay private')",
			 path, like);
}

/* stat() and the first GM_PROBE_BYTES of the disk, into @info and @head. */
static int read_start(const struct gm_disk *d, struct gm_disk_info *info,
		      unsigned char *head, size_t *len, struct kp_err *err)
{
	struct stat st;
	ssize_t n;
	int fd, ret;

	/* The path is the administrator's: host symlinks to images are fine. */
	fd = open(d->path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return kp_errorf(err, errno, "disk %s: %s", d->path, strerror(errno));
	if (fstat(fd, &st)) {
		ret = -errno;
		close(fd);
		return kp_errorf(err, ret, "disk %s: %s", d->path, strerror(-ret));
	}
	if (!S_ISREG(st.st_mode) && !S_ISBLK(st.st_mode)) {
		close(fd);
		return kp_errorf(err, EINVAL,
				 "disk %s: not a regular file or block device", d->path);
	}
	info->dev = st.st_dev;
	info->ino = st.st_ino;
	info->rdev = st.st_rdev;
	info->mtime = st.st_mtim;
	info->size = (uint64_t)st.st_size;
	if (S_ISBLK(st.st_mode) && ioctl(fd, BLKGETSIZE64, &info->size))
		info->size = 0;
	n = pread(fd, head, GM_PROBE_BYTES, 0);
	ret = n < 0 ? -errno : 0;
	close(fd);
	if (ret)
		return kp_errorf(err, ret, "disk %s: %s", d->path, strerror(-ret));
	*len = (size_t)n;
	if (!info->size)
		return kp_errorf(err, EINVAL, "disk %s: empty", d->path);
	return 0;
}

static int check_qcow2(const struct gm_disk *d, const struct gm_config *cfg,
		       struct gm_disk_info *info, unsigned char *head, size_t len,
		       struct kp_err *err)
{
	int ret;

	/* qcow2 headers are written by QEMU, not by the guest: checking one is safe. */
	if (len < 4 || memcmp(head, "QFI\xfb", 4))
		return kp_errorf(err, EMEDIUMTYPE,
				 "disk %s: configured as qcow2 but has no qcow2 header "
				 "(is it raw?)",
				 d->path);
	ret = qcow2_info(cfg, d->path, &info->virtual_size, err);
	if (ret || !cfg->libguestfs_overlay)
		return ret;
	ret = qcow2_head(d->path, cfg->cache_dir, head, GM_PROBE_BYTES, err);
	if (ret)
		return ret;
	info->looks_like = gm_probe_magic(head, GM_PROBE_BYTES);
	return info->looks_like ? refuse_probe(err, d->path, info->looks_like) : 0;
}

int gm_disk_identify(const struct gm_disk *d, const struct gm_config *cfg,
		     struct gm_disk_info *info, struct kp_err *err)
{
	unsigned char head[GM_PROBE_BYTES] = {0};
	size_t len = 0;
	int ret;

	memset(info, 0, sizeof(*info));
	ret = read_start(d, info, head, &len, err);
	if (ret)
		return ret;
	if (d->format != GM_FMT_RAW)
		return check_qcow2(d, cfg, info, head, len, err);
	info->virtual_size = (info->size + 511) & ~511ULL;
	info->looks_like = gm_probe_magic(head, len);
	if (cfg->libguestfs_overlay && info->looks_like)
		return refuse_probe(err, d->path, info->looks_like);
	return 0;
}

/* JSON string body: quotes and backslashes escaped (paths hold no control characters). */
static int json_escape(char *dst, size_t size, const char *src)
{
	size_t n = 0;

	for (; *src; src++) {
		if (n + 3 >= size)
			return -ENAMETOOLONG;
		if (*src == '"' || *src == '\\')
			dst[n++] = '\\';
		dst[n++] = *src;
	}
	dst[n] = '\0';
	return 0;
}

int gm_overlay_create(const struct gm_disk *d, const char *ovl, struct kp_err *err)
{
	char esc[8400], backing[9000], out[1024];
	const char *fmt = gm_format_name(d->format), *driver = "file";
	struct stat st;
	int ret;

	if (!stat(d->path, &st) && S_ISBLK(st.st_mode))
		driver = "host_device";
	ret = json_escape(esc, sizeof(esc), d->path);
	if (!ret)
		ret = gm_path(backing, sizeof(backing),
			      "json:{\"driver\":\"%s\",\"file\":{\"driver\":\"%s\","
			      "\"filename\":\"%s\",\"locking\":\"off\"}}",
			      fmt, driver, esc);
	if (ret)
		return kp_errorf(err, ret, "disk %s: path too long", d->path);
	if (qemu_img(out, sizeof(out), "create", "-q", "-f", "qcow2", "-F", fmt, "-b",
		     backing, ovl, NULL)) {
		first_line(out);
		return kp_errorf(err, EIO, "disk %s: creating the overlay: %s", d->path,
				 out[0] ? out : "qemu-img failed");
	}
	return 0;
}
