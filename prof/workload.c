// SPDX-License-Identifier: GPL-2.0
#include "workload.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/*
 * In the child: wait for the go, exec, and report a failed exec's errno.
 * Only the parent may hold the go pipe's write end, or a parent that gives
 * up would leave the child waiting for ever; the caller's signal handlers
 * are the parent's business too.
 */
_Noreturn static void run_child(char **argv, int go[2], int ex[2])
{
	char c;
	int e;

	close(go[1]);
	close(ex[0]);
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	if (read(go[0], &c, 1) != 1)
		_exit(127);
	execvp(argv[0], argv);
	e = errno;
	if (write(ex[1], &e, sizeof(e)) != sizeof(e))
		_exit(126);
	_exit(127);
}

int workload_prepare(char **argv, struct workload *w, struct kp_err *err)
{
	int go[2], ex[2];

	w->pid = -1;
	w->go_fd = w->err_fd = -1;
	w->name = argv[0];
	if (pipe2(go, O_CLOEXEC))
		return kp_errorf(err, errno, "cannot start %s: %s", argv[0],
				 strerror(errno));
	if (pipe2(ex, O_CLOEXEC)) {
		close(go[0]);
		close(go[1]);
		return kp_errorf(err, errno, "cannot start %s: %s", argv[0],
				 strerror(errno));
	}
	w->pid = fork();
	if (w->pid == 0)
		run_child(argv, go, ex);
	close(go[0]);
	close(ex[1]);
	w->go_fd = go[1];
	w->err_fd = ex[0];
	if (w->pid < 0) {
		int e = errno;

		workload_release(w);
		return kp_errorf(err, e, "cannot start %s: %s", argv[0], strerror(e));
	}
	return 0;
}

int workload_start(struct workload *w, struct kp_err *err)
{
	ssize_t n;
	int e = 0;

	if (write(w->go_fd, "g", 1) != 1)
		e = errno;
	close_fd(&w->go_fd);
	/* End of file: the exec closed the pipe, the command runs. */
	do
		n = e ? 0 : read(w->err_fd, &e, sizeof(e));
	while (n < 0 && errno == EINTR);
	close_fd(&w->err_fd);
	if (n == (ssize_t)sizeof(e) || e)
		return kp_errorf(err, e ? e : EIO, "cannot run %s: %s", w->name,
				 strerror(e ? e : EIO));
	return 0;
}

void workload_release(struct workload *w)
{
	close_fd(&w->go_fd);
	close_fd(&w->err_fd);
}
