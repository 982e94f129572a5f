/*
 * Run a command and write what it cost to RESULT: its CPU seconds and its
 * peak RSS in KB, from one run.
 *
 *   bench_rusage RESULT CMD [ARGS...]
 *
 * The CPU time is counted as perf stat -e task-clock counts it: a task-clock
 * counter on the command, enabled at its exec and inherited by its children,
 * so the fork and exec that start it are not the command's. The peak RSS is
 * wait4()'s, as time(1) prints it. The command's output goes where this
 * program's does; its exit status is this program's.
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

/* The child waits for @go to close, so that its exec is the counter's start. */
static pid_t start_child(char **argv, int go[2])
{
	pid_t pid = fork();
	char c;

	if (pid)
		return pid;
	close(go[1]);
	if (read(go[0], &c, 1) < 0)
		_exit(127);
	close(go[0]);
	execvp(argv[0], argv);
	fprintf(stderr, "bench_rusage: %s: %s\n", argv[0], strerror(errno));
	_exit(127);
}

static int open_task_clock(pid_t pid)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_TASK_CLOCK,
		.disabled = 1,
		.enable_on_exec = 1,
		.inherit = 1,
	};

	return (int)syscall(SYS_perf_event_open, &attr, pid, -1, -1, 0);
}

static int wait_child(pid_t pid, int *status, struct rusage *ru)
{
	while (wait4(pid, status, 0, ru) < 0)
		if (errno != EINTR)
			return -1;
	return 0;
}

int main(int argc, char **argv)
{
	struct rusage ru;
	uint64_t ns = 0;
	int go[2], fd, status;
	FILE *out;
	pid_t pid;

	if (argc < 3) {
		fprintf(stderr, "usage: bench_rusage RESULT CMD [ARGS...]\n");
		return 2;
	}
	if (pipe(go) || (pid = start_child(argv + 2, go)) < 0) {
		perror("bench_rusage");
		return 2;
	}
	close(go[0]);
	fd = open_task_clock(pid);
	if (fd < 0)
		perror("bench_rusage: perf_event_open");
	close(go[1]);
	if (wait_child(pid, &status, &ru)) {
		perror("bench_rusage: wait4");
		return 2;
	}
	if (fd < 0 || read(fd, &ns, sizeof(ns)) != (ssize_t)sizeof(ns))
		return 2;
	out = fopen(argv[1], "w");
	if (!out || fprintf(out, "%.6f %ld\n", (double)ns / 1e9, ru.ru_maxrss) < 0 ||
	    fclose(out)) {
		fprintf(stderr, "bench_rusage: %s: cannot write\n", argv[1]);
		return 2;
	}
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
