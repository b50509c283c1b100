/* SPDX-License-Identifier: GPL-2.0-or-later */
/* track-bench: what following forks and execs costs a managed process, for
 * run-tracking-bench.
 *
 *   track-bench fork|exec|thread N [TASKS_FILE...]
 *   track-bench storm N THREADS LIFE_MS [TASKS_FILE...]
 *
 * Writes its PID to each TASKS_FILE first (the groups it runs in), then:
 *   fork   N times fork(), the child _exit(0)s, waitpid(): prints the
 *          times (us), one a line;
 *   exec   the same with the child exec'ing /bin/true;
 *   thread N times pthread_create() of a thread that returns at once,
 *          pthread_join(): the times likewise;
 *   storm  forks N children and starts THREADS threads as fast as it can;
 *          each lives LIFE_MS then ends. Prints "pid ID" / "tid ID" lines as
 *          soon as each is made (unbuffered), then "done" once all ended.
 * Exit status 0, or 2 on bad arguments or a group it could not join. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static int join(const char *tasks)
{
	char pid[32];
	int fd = open(tasks, O_WRONLY | O_NOFOLLOW | O_CLOEXEC);
	int len = snprintf(pid, sizeof(pid), "%d", getpid());
	int ok = fd >= 0 && write(fd, pid, (size_t)len) == len;

	if (fd >= 0)
		close(fd);
	if (!ok)
		fprintf(stderr, "track-bench: joining %s: %s\n", tasks, strerror(errno));
	return ok ? 0 : -1;
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

static long life_ms;

static void *thread_main(void *arg)
{
	(void)arg;
	printf("tid %ld\n", (long)syscall(SYS_gettid));
	sleep_ms(life_ms);
	return NULL;
}

static void *thread_return(void *arg)
{
	return arg;
}

static int thread_loop(int n)
{
	for (int i = 0; i < n; i++) {
		long long t0 = now_ns();
		pthread_t t;

		if (pthread_create(&t, NULL, thread_return, NULL) != 0)
			return 2;
		pthread_join(t, NULL);
		printf("%lld\n", (now_ns() - t0) / 1000);
	}
	return 0;
}

static int loop(int n, int exec)
{
	for (int i = 0; i < n; i++) {
		long long t0 = now_ns();
		pid_t pid = fork();

		if (pid < 0)
			return 2;
		if (pid == 0) {
			if (exec)
				execl("/bin/true", "true", (char *)NULL);
			_exit(0);
		}
		waitpid(pid, NULL, 0);
		printf("%lld\n", (now_ns() - t0) / 1000);
	}
	return 0;
}

static int storm(int n, int nthreads)
{
	pthread_t *threads = calloc((size_t)nthreads + 1, sizeof(*threads));

	setvbuf(stdout, NULL, _IOLBF, 0);
	for (int i = 0; i < nthreads; i++)
		if (pthread_create(&threads[i], NULL, thread_main, NULL) != 0)
			return 2;
	for (int i = 0; i < n; i++) {
		pid_t pid = fork();

		if (pid < 0)
			return 2;
		if (pid == 0) {
			sleep_ms(life_ms);
			_exit(0);
		}
		printf("pid %d\n", pid);
	}
	while (wait(NULL) > 0)
		;
	for (int i = 0; i < nthreads; i++)
		pthread_join(threads[i], NULL);
	free(threads);
	printf("done\n");
	return 0;
}

int main(int argc, char **argv)
{
	int first = 3;

	if (argc < 3 || (strcmp(argv[1], "storm") == 0 && argc < 5)) {
		fprintf(stderr, "usage: track-bench fork|exec|thread N [TASKS_FILE...]\n"
			"       track-bench storm N THREADS LIFE_MS [TASKS_FILE...]\n");
		return 2;
	}
	if (strcmp(argv[1], "storm") == 0) {
		first = 5;
		life_ms = atol(argv[4]);
	}
	for (int i = first; i < argc; i++)
		if (join(argv[i]) < 0)
			return 2;
	if (strcmp(argv[1], "fork") == 0 || strcmp(argv[1], "exec") == 0)
		return loop(atoi(argv[2]), strcmp(argv[1], "exec") == 0);
	if (strcmp(argv[1], "thread") == 0)
		return thread_loop(atoi(argv[2]));
	if (strcmp(argv[1], "storm") == 0)
		return storm(atoi(argv[2]), atoi(argv[3]));
	return 2;
}
