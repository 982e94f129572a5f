/* Time N stat() calls of one file: prints calls=N us_per_call=X. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>

int main(int argc, char **argv)
{
	struct timespec a, b;
	struct stat st;
	long n, i;
	double us;

	if (argc != 3 || (n = atol(argv[2])) <= 0) {
		fprintf(stderr, "usage: bench_stat FILE N\n");
		return 2;
	}
	if (stat(argv[1], &st) != 0) {
		perror(argv[1]);
		return 1;
	}
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (i = 0; i < n; i++)
		if (stat(argv[1], &st) != 0) {
			perror(argv[1]);
			return 1;
		}
	clock_gettime(CLOCK_MONOTONIC, &b);
	us = ((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec)) / 1e3 / n;
	printf("calls=%ld us_per_call=%.2f\n", n, us);
	return 0;
}
