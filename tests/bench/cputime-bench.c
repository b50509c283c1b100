/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What reading CPU figures costs: each reader of src/kernel/task_cputime.c and the
 * taskstats query (as root), timed call by call; prints the median, 90th and
 * 99th percentile in microseconds. Usage: cputime-bench [READS] (10000). The
 * threads read are this program's own (running) and a child's (sleeping). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <glib.h>

#include "kernel/task_cputime.h"
#include "kernel/taskstats.h"

struct target {
	pid_t tgid, tid;
	struct taskstats_listener *ts;
};

static int rd_schedstat(const struct target *t)
{
	struct proc_task_cputime ct;

	return task_schedstat_read(t->tgid, t->tid, &ct);
}

static int rd_stat(const struct target *t)
{
	struct proc_task_cputime ct;

	return task_stat_read(t->tgid, t->tid, &ct);
}

static int rd_both(const struct target *t)
{
	struct proc_task_cputime ct;

	return task_cputime_read(t->tgid, t->tid, &ct);
}

static int rd_cpu_times(const struct target *t)
{
	struct cpu_times cpus[64];
	bool exact;

	(void)t;
	return cpu_times_read(cpus, G_N_ELEMENTS(cpus), &exact);
}

static int rd_query(const struct target *t)
{
	struct taskstats_record rec;

	return taskstats_query(t->ts, t->tid, &rec);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static void bench(const char *what, int (*fn)(const struct target *), const struct target *t,
		  unsigned n)
{
	double *us = g_new(double, n);

	for (unsigned i = 0; i < n; i++) {
		struct timespec a, b;
		int ret;

		clock_gettime(CLOCK_MONOTONIC, &a);
		ret = fn(t);
		clock_gettime(CLOCK_MONOTONIC, &b);
		if (ret < 0) {
			printf("%-44s failed: %s\n", what, g_strerror(-ret));
			g_free(us);
			return;
		}
		us[i] = (double)(b.tv_sec - a.tv_sec) * 1e6 + (double)(b.tv_nsec - a.tv_nsec) / 1e3;
	}
	qsort(us, n, sizeof(*us), cmp_double);
	printf("%-44s %8.2f %8.2f %8.2f\n", what, us[n / 2], us[n * 9 / 10], us[n * 99 / 100]);
	g_free(us);
}

int main(int argc, char **argv)
{
	unsigned n = argc > 1 ? (unsigned)atoi(argv[1]) : 10000;
	struct target self = { getpid(), gettid(), NULL };
	struct target sleeper;
	int fds[2];
	pid_t child;
	char c;

	if (n == 0 || pipe(fds) < 0)
		return 2;
	child = fork();
	if (child < 0)
		return 2;
	if (child == 0) {
		close(fds[1]);
		_exit(read(fds[0], &c, 1) == 1 ? 0 : 1);
	}
	close(fds[0]);
	sleeper = (struct target){ child, child, NULL };
	self.ts = sleeper.ts = taskstats_listener_open();

	printf("%u reads each; microseconds\n", n);
	printf("%-44s %8s %8s %8s\n", "read", "median", "p90", "p99");
	bench("thread schedstat (own, running)", rd_schedstat, &self, n);
	bench("thread stat (own, running)", rd_stat, &self, n);
	bench("thread schedstat + stat (own, running)", rd_both, &self, n);
	bench("thread schedstat (other process, sleeping)", rd_schedstat, &sleeper, n);
	bench("thread stat (other process, sleeping)", rd_stat, &sleeper, n);
	bench("thread schedstat + stat (other, sleeping)", rd_both, &sleeper, n);
	bench(g_file_test("/proc/schedstat", G_FILE_TEST_EXISTS) ?
	      "/proc/stat + /proc/schedstat, per CPU" :
	      "/proc/stat (+ /proc/schedstat: ENOENT)", rd_cpu_times, &self, n);
	if (self.ts) {
		bench("taskstats query (own, running)", rd_query, &self, n);
		bench("taskstats query (other, sleeping)", rd_query, &sleeper, n);
		taskstats_listener_free(self.ts);
	} else {
		printf("%-44s %s\n", "taskstats query", g_strerror(errno));
	}

	if (write(fds[1], "x", 1) != 1)
		return 2;
	close(fds[1]);
	waitpid(child, NULL, 0);
	return 0;
}
