// SPDX-License-Identifier: GPL-2.0
/*
 * The walk goes one component at a time through file descriptors opened
 * with O_NOFOLLOW, so what is checked is what the walk stands on: a
 * component swapped for a symlink between two steps is seen as a symlink,
 * and its folder, already checked, says who could have swapped it.
 */
#include "pathtrust.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define MAX_LINKS 40 /* as many as the kernel follows in one path */

struct walk {
	const char *path; /* as the caller named it, for messages */
	uid_t uid;
	char todo[PATH_MAX]; /* the components still to walk */
	char at[PATH_MAX];   /* where the walk stands, "" for / */
	int dirfd;	     /* the folder the walk stands in */
	unsigned links;
	struct stat st; /* of the object last reached */
	struct kp_err *err;
};

/* "" when the object at fault is @path itself, else "folder X is " or "X is ". */
static void who(const struct walk *w, bool last, char *buf, size_t size)
{
	const char *node = w->at[0] ? w->at : "/";

	if (last && !strcmp(node, w->path))
		buf[0] = '\0';
	else
		snprintf(buf, size, "%s%s is ", last ? "" : "folder ", node);
}

static int refuse_owner(const struct walk *w, bool last)
{
	const char *node = w->at[0] ? w->at : "/";
	char prefix[PATH_MAX + 16], also[32] = "";

	who(w, last, prefix, sizeof(prefix));
	if (w->uid)
		snprintf(also, sizeof(also), " or uid %u", (unsigned)w->uid);
	return kp_errorf(w->err, EPERM,
			 "%s: %sowned by uid %u, not by root%s; fix with chown root %s",
			 w->path, prefix, (unsigned)w->st.st_uid, also, node);
}

static int refuse_mode(const struct walk *w, bool last, mode_t bits)
{
	const char *node = w->at[0] ? w->at : "/";
	char prefix[PATH_MAX + 16];
	const char *what = "group-writable", *fix = "g-w";

	if (bits == S_IWOTH) {
		what = "writable by others";
		fix = "o-w";
	} else if (bits != S_IWGRP) {
		what = "writable by its group and by others";
		fix = "go-w";
	}
	who(w, last, prefix, sizeof(prefix));
	return kp_errorf(w->err, EPERM, "%s: %s%s (mode %04o); fix with chmod %s %s",
			 w->path, prefix, what, (unsigned)(w->st.st_mode & 07777), fix,
			 node);
}

/* The object just reached: a trusted owner, and no one else may write it. */
static int check_node(const struct walk *w, bool last)
{
	const struct stat *st = &w->st;
	mode_t bits = st->st_mode & (S_IWGRP | S_IWOTH);

	if (st->st_uid != 0 && st->st_uid != w->uid)
		return refuse_owner(w, last);
	/* Sticky: others may add entries, but not replace ours (see pathtrust.h). */
	if (!bits || (!last && S_ISDIR(st->st_mode) && (st->st_mode & S_ISVTX)))
		return 0;
	return refuse_mode(w, last, bits);
}

static int walk_failed(const struct walk *w, int code)
{
	return kp_errorf(w->err, code, "%s: %s", w->path, strerror(code));
}

/* Start at /, which every absolute symlink also goes back to. */
static int at_root(struct walk *w)
{
	int fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0)
		return walk_failed(w, errno);
	if (w->dirfd >= 0)
		close(w->dirfd);
	w->dirfd = fd;
	w->at[0] = '\0';
	return fstat(fd, &w->st) ? walk_failed(w, errno) : 0;
}

/* Take the next component off w->todo into @comp: 1, 0 when none is left, or -errno. */
static int next_component(struct walk *w, char *comp, size_t size)
{
	char *p = w->todo + strspn(w->todo, "/");
	size_t n = strcspn(p, "/");

	if (!n)
		return 0;
	if (n >= size)
		return walk_failed(w, ENAMETOOLONG);
	memcpy(comp, p, n);
	comp[n] = '\0';
	memmove(w->todo, p + n, strlen(p + n) + 1);
	return 1;
}

static bool nothing_left(const struct walk *w)
{
	return !w->todo[strspn(w->todo, "/")];
}

/* The link's target goes before what is left; an absolute one restarts at /. */
static int follow(struct walk *w, int fd)
{
	char target[PATH_MAX], joined[PATH_MAX];
	ssize_t n;
	int ret;

	if (++w->links > MAX_LINKS)
		return walk_failed(w, ELOOP);
	n = readlinkat(fd, "", target, sizeof(target) - 1);
	if (n < 0)
		return walk_failed(w, errno);
	target[n] = '\0';
	if ((size_t)snprintf(joined, sizeof(joined), "%s/%s", target, w->todo) >=
	    sizeof(joined))
		return walk_failed(w, ENAMETOOLONG);
	memcpy(w->todo, joined, sizeof(joined));
	if (target[0] != '/')
		return 0;
	ret = at_root(w);
	/* A link to / alone makes / the object checked last. */
	return ret ? ret : check_node(w, nothing_left(w));
}

/* Where the walk stands after @comp, for messages. */
static int enter(struct walk *w, const char *comp)
{
	size_t len = strlen(w->at);

	if (!strcmp(comp, "."))
		return 0;
	if (!strcmp(comp, "..")) {
		char *slash = strrchr(w->at, '/');

		if (slash)
			*slash = '\0';
		return 0;
	}
	if (len + 1 + strlen(comp) >= sizeof(w->at))
		return walk_failed(w, ENAMETOOLONG);
	w->at[len] = '/';
	strcpy(w->at + len + 1, comp);
	return 0;
}

/* One component: follow it if a symlink, else check it and stand on it. */
static int step(struct walk *w, const char *comp)
{
	bool last = nothing_left(w);
	int fd, ret;

	fd = openat(w->dirfd, comp, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return walk_failed(w, errno);
	if (fstat(fd, &w->st)) {
		ret = walk_failed(w, errno);
	} else if (S_ISLNK(w->st.st_mode)) {
		ret = follow(w, fd);
	} else {
		ret = enter(w, comp);
		if (!ret)
			ret = check_node(w, last);
		if (!ret && !last && !S_ISDIR(w->st.st_mode))
			ret = walk_failed(w, ENOTDIR);
		if (!ret) {
			close(w->dirfd);
			w->dirfd = fd;
			return 0;
		}
	}
	close(fd);
	return ret;
}

/* A relative path starts from the current folder, whose own path is walked too. */
static int set_start(struct walk *w, const char *path)
{
	char cwd[PATH_MAX];
	int n;

	if (!path[0])
		return walk_failed(w, ENOENT);
	if (path[0] == '/')
		n = snprintf(w->todo, sizeof(w->todo), "%s", path);
	else if (getcwd(cwd, sizeof(cwd)))
		n = snprintf(w->todo, sizeof(w->todo), "%s/%s", cwd, path);
	else
		return walk_failed(w, errno);
	return (size_t)n >= sizeof(w->todo) ? walk_failed(w, ENAMETOOLONG) : 0;
}

int kp_path_trusted(const char *path, uid_t uid, struct stat *st, struct kp_err *err)
{
	struct walk w = {.path = path, .uid = uid, .dirfd = -1, .err = err};
	char comp[NAME_MAX + 1];
	int ret;

	ret = set_start(&w, path);
	if (!ret)
		ret = at_root(&w);
	if (!ret)
		ret = check_node(&w, nothing_left(&w));
	while (!ret && (ret = next_component(&w, comp, sizeof(comp))) > 0)
		ret = step(&w, comp);
	if (w.dirfd >= 0)
		close(w.dirfd);
	if (!ret && st)
		*st = w.st;
	return ret;
}
