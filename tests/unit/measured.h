/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Run a piece of a test in a child process and measure how much its peak
 * RSS grew: an input that blows up memory goes off there, not in the test,
 * and the growth is the figure SECURITY.md's results table quotes.
 * Include after <cmocka.h>.
 */
#ifndef KVMPROF_TEST_MEASURED_H
#define KVMPROF_TEST_MEASURED_H

#include <stdio.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

struct outcome {
	int ret;     /* what the measured call returned */
	long rss_kb; /* growth of the child's peak RSS during the call */
	char msg[512];
};

static inline long peak_rss_kb(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_maxrss;
}

/* Run @fn in a child; @done names a success in the "# ..." line printed. */
static inline struct outcome measured_run(void (*fn)(struct outcome *), const char *done)
{
	struct outcome o = {0};
	int fds[2], status;
	pid_t pid;

	assert_int_equal(pipe(fds), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		long before = peak_rss_kb();

		fn(&o);
		o.rss_kb = peak_rss_kb() - before;
		_exit(write(fds[1], &o, sizeof(o)) == sizeof(o) ? 0 : 1);
	}
	close(fds[1]);
	assert_int_equal(read(fds[0], &o, sizeof(o)), sizeof(o));
	close(fds[0]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	print_message("# %s, peak RSS +%ld KB: %s\n", o.ret ? "refused" : done, o.rss_kb,
		      o.msg);
	return o;
}

#endif
