/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fork-latency TASKS MODE N: joins the group whose tasks file is TASKS ("-":
 * stays where it is), then times N rounds of MODE and prints the median,
 * p99 and max in microseconds, one line:
 *   fork    fork(), the child _exits at once, waitpid()
 *   exec    fork(), the child execs /bin/true, waitpid()
 *   thread  pthread_create() of a thread that returns at once, join
 * fork-latency TASKS storm N: makes N children and N threads at once, each
 * blocked on a pipe, prints their ids on one line, waits for a line on
 * stdin, then lets them all go and reaps them.
 * The task-watch benchmark's client (run-tracking-bench).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int gate[2];

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void *quit(void *arg)
{
	return arg;
}

static void *blocked(void *arg)
{
	char c;

	*(pid_t *)arg = (pid_t)syscall(SYS_gettid);
	if (read(gate[0], &c, 1) < 0)
		perror("read");
	return NULL;
}

static int cmp(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;

	return (x > y) - (x < y);
}

static int one_round(const char *mode)
{
	pid_t pid;
	int status;

	if (strcmp(mode, "thread") == 0) {
		pthread_t t;

		return pthread_create(&t, NULL, quit, NULL) || pthread_join(t, NULL);
	}
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		if (strcmp(mode, "exec") == 0)
			execl("/bin/true", "true", (char *)NULL);
		_exit(0);
	}
	return waitpid(pid, &status, 0) == pid ? 0 : -1;
}

static int storm(int n)
{
	pthread_t *threads = calloc((size_t)n, sizeof(*threads));
	pid_t *tids = calloc((size_t)n, sizeof(*tids)), *pids = calloc((size_t)n, sizeof(*pids));
	char line[16];

	if (!threads || !tids || !pids || pipe(gate) < 0)
		return 1;
	for (int i = 0; i < n; i++) {
		pids[i] = fork();
		if (pids[i] == 0) {
			char c;

			close(gate[1]);
			_exit(read(gate[0], &c, 1) < 0);
		}
		if (pids[i] < 0 || pthread_create(&threads[i], NULL, blocked, &tids[i]))
			return 1;
	}
	for (int i = 0; i < n; i++) {
		while (!__atomic_load_n(&tids[i], __ATOMIC_SEQ_CST))
			usleep(100);
		printf("%d %d ", pids[i], tids[i]);
	}
	printf("\n");
	fflush(stdout);
	if (!fgets(line, sizeof(line), stdin))
		line[0] = 0;
	close(gate[1]);
	for (int i = 0; i < n; i++) {
		pthread_join(threads[i], NULL);
		waitpid(pids[i], NULL, 0);
	}
	return 0;
}

int main(int argc, char **argv)
{
	long long *ns;
	int n;

	if (argc != 4 || (n = atoi(argv[3])) <= 0) {
		fprintf(stderr, "usage: fork-latency TASKS fork|exec|thread|storm N\n");
		return 2;
	}
	if (strcmp(argv[1], "-") != 0) {
		FILE *f = fopen(argv[1], "w");

		if (!f || fputs("0", f) == EOF || fclose(f) == EOF) {
			perror(argv[1]);
			return 1;
		}
	}
	if (strcmp(argv[2], "storm") == 0)
		return storm(n);
	ns = calloc((size_t)n, sizeof(*ns));
	for (int i = 0; i < n; i++) {
		long long t0 = now_ns();

		if (one_round(argv[2]) < 0) {
			perror(argv[2]);
			return 1;
		}
		ns[i] = now_ns() - t0;
	}
	qsort(ns, (size_t)n, sizeof(*ns), cmp);
	printf("%.1f %.1f %.1f\n", ns[n / 2] / 1e3, ns[(n * 99 + 99) / 100 - 1] / 1e3,
	       ns[n - 1] / 1e3);
	return 0;
}
