// SPDX-License-Identifier: GPL-2.0
#include "stat_counter.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "perf/perf.h"

/* Why perf_event_open() said no, in terms a user can act on. */
static void explain(int e, char *buf, size_t size)
{
	char paranoid[16] = "?";
	FILE *f;

	switch (e) {
	case EACCES:
	case EPERM:
		f = fopen("/proc/sys/kernel/perf_event_paranoid", "re");
		if (f && fgets(paranoid, sizeof(paranoid), f))
			paranoid[strcspn(paranoid, "\n")] = '\0';
		if (f)
			fclose(f);
		snprintf(buf, size,
			 "%s (perf_event_paranoid is %s: run as root, with "
			 "CAP_PERFMON, or lower it)",
			 strerror(e), paranoid);
		break;
	case ESRCH:
		snprintf(buf, size, "no such process");
		break;
	case EMFILE:
	case ENFILE:
		snprintf(buf, size,
			 "%s (one descriptor per CPU or thread and event: "
			 "raise ulimit -n)",
			 strerror(e));
		break;
	default:
		snprintf(buf, size, "%s", strerror(e));
	}
}

static int open_error(const struct stat_counter *c, const struct stat_target *t, int e,
		      struct kp_err *err)
{
	char why[192];

	explain(e, why, sizeof(why));
	if (t->cpu >= 0)
		return kp_errorf(err, e, "cannot count %s (%s) on CPU %d: %s",
				 c->event->name, stat_split_name(c->split), t->cpu, why);
	return kp_errorf(err, e, "cannot count %s (%s) in pid %d: %s", c->event->name,
			 stat_split_name(c->split), (int)t->pid, why);
}

static bool is_unsupported(int e)
{
	return e == ENOENT || e == EOPNOTSUPP || e == ENODEV;
}

int stat_counter_open(struct stat_counter *c, const struct stat_event *ev,
		      enum stat_split split, const struct stat_target *targets, size_t nr,
		      unsigned flags, struct kp_err *err)
{
	struct perf_event_attr attr;

	memset(c, 0, sizeof(*c));
	c->event = ev;
	c->split = split;
	stat_event_attr(ev, split, &attr);
	attr.inherit = !!(flags & (STAT_OPEN_ON_EXEC | STAT_OPEN_INHERIT));
	attr.enable_on_exec = !!(flags & STAT_OPEN_ON_EXEC);
	c->fds = calloc(nr ? nr : 1, sizeof(*c->fds));
	if (!c->fds)
		return kp_errorf(err, ENOMEM, "out of memory");
	for (size_t i = 0; i < nr; i++) {
		int fd = sys_perf_event_open(&attr, targets[i].pid, targets[i].cpu, -1,
					     PERF_FLAG_FD_CLOEXEC);

		if (fd >= 0) {
			c->fds[c->nr_fds++] = fd;
			continue;
		}
		if (is_unsupported(errno)) {
			stat_counter_close(c);
			c->unsupported = true;
			return 0;
		}
		if (errno == ESRCH && (flags & STAT_OPEN_SKIP_GONE))
			continue;
		return open_error(c, &targets[i], errno, err);
	}
	return 0;
}

int stat_counter_read(const struct stat_counter *c, struct stat_reading *sum)
{
	memset(sum, 0, sizeof(*sum));
	for (size_t i = 0; i < c->nr_fds; i++) {
		struct stat_reading r;
		ssize_t n = read(c->fds[i], &r, sizeof(r));

		if (n < 0)
			return -errno;
		if (n != (ssize_t)sizeof(r))
			return -EIO;
		stat_reading_add(sum, &r);
	}
	return 0;
}

int stat_counter_take(struct stat_counter *c, bool since_last, struct stat_reading *out)
{
	struct stat_reading now;
	int ret = stat_counter_read(c, &now);

	if (ret)
		return ret;
	*out = since_last ? stat_reading_delta(&now, &c->last) : now;
	c->last = now;
	return 0;
}

static void ioctl_each(const struct stat_counter *c, unsigned long req)
{
	for (size_t i = 0; i < c->nr_fds; i++)
		ioctl(c->fds[i], req, 0);
}

void stat_counter_enable(const struct stat_counter *c)
{
	ioctl_each(c, PERF_EVENT_IOC_ENABLE);
}

void stat_counter_disable(const struct stat_counter *c)
{
	ioctl_each(c, PERF_EVENT_IOC_DISABLE);
}

void stat_counter_close(struct stat_counter *c)
{
	for (size_t i = 0; i < c->nr_fds; i++)
		close(c->fds[i]);
	free(c->fds);
	c->fds = NULL;
	c->nr_fds = 0;
}
