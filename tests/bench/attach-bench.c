/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * attach-bench: what moving a task between cgroups costs through the cgroup
 * v1 file interface, on any directory that speaks it: the kernel's cgroupfs
 * (/sys/fs/cgroup/cpu/SOMEGROUP), a cgfused mount, or a fuse-floor mount (the
 * bare FUSE transport).  Running the same client on all three separates what
 * FUSE itself costs from what cgfused adds, and shows how the cost grows
 * with the number of groups N.
 *
 * Modes (DIR is --root):
 *   default         mkdir N groups DIR/g0..g(N-1), fork N sleepers and place
 *                   one in each group, then move one more sleeper (the mover)
 *                   M times.  Reports op=mkdir, op=place (first write of a
 *                   fresh task into gI), op=move and op=rmdir.
 *   --mkdir-only    mkdir N groups, rmdir them: op=mkdir, op=rmdir.
 *   --read-tasks K  one group g0 holding K sleepers; R times open + read to
 *                   EOF + close of g0/tasks (or g0/FILE with --read-file
 *                   FILE, e.g. cpu.shares): op=read (lines= is what the
 *                   last read returned; fuse-floor reads empty).
 *
 * Move scheme: the mover is first put in DIR/tasks (untimed), then cycles
 * over N+1 targets g0, g1, ..., g(N-1), DIR, g0, ...  Consecutive targets
 * always differ, so every move changes the mover's group, even for N=1.
 * Exactly M moves are made (with N >= M, the mover visits only the first M
 * groups).  Every gI holds a sleeper and one more sleeper (the anchor) stays
 * in DIR/tasks, so each move lands in a populated group: the kernel reuses
 * an existing css_set instead of building and freeing one per move, which
 * is the steady state of a real system.  After the moves, the last target's
 * tasks file is read to check the mover is listed there (check=ok, missing,
 * or empty for a target that lists nothing).
 *
 * A move is open(O_WRONLY) + one write("PID\n") + close, as `echo PID >
 * tasks` does, timed with CLOCK_MONOTONIC around the three calls.
 *
 * Output: one key=value line per measurement on stdout, e.g.
 *   target=kernel n=1000 op=move count=10000 median_us=2.51 mean_us=2.70 p99_us=5.10 max_us=80.20 total_ms=27.00 t0_us=... t1_us=... check=ok
 * total_ms is the sum of the timed calls (for op=mkdir and op=place: what
 * making N groups and placing N sleepers took).  The move and read lines
 * also give t0_us and t1_us, CLOCK_MONOTONIC at the start and the end of
 * the loop, and cpu_us, this process's CPU time (user + system) in the
 * loop.  With --sync, the setup done, "ready" is printed and one byte read
 * from standard input before the loop starts: a driver running several
 * clients at once starts their loops together and takes the throughput
 * over the span where they all ran.
 * --procs-file FILE moves through FILE instead of tasks (cgroup.procs on a
 * cgroup v2 directory: the kernel's /sys/fs/cgroup/unified or a cgfused
 * -o unified mount; every child is a process of one thread, so both files
 * move the same).
 * Errors go to stderr and make the exit status 1.
 *
 * Cleanup on every path (errors, SIGINT, SIGTERM, SIGHUP): children are
 * written back to DIR/tasks, killed with SIGKILL by their recorded pids and
 * reaped, then the groups are removed.  Children also set
 * PR_SET_PDEATHSIG(SIGKILL), so they die with this process even if it is
 * killed outright.  No file descriptor is held across operations, so
 * RLIMIT_NOFILE does not matter.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t stop;

static const char *root = NULL;
static const char *label = "dir";
static const char *procs_file = "tasks";
static const char *read_file;	/* NULL: procs_file */
static pid_t self;

static pid_t *kids;             /* every child forked and not yet reaped */
static long nkids;
static long ngroups_made;       /* DIR/g0..g(ngroups_made-1) exist */

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

/* This process's user + system CPU time, µs. */
static double cpu_us(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e6 +
	       ru.ru_utime.tv_usec + ru.ru_stime.tv_usec;
}

/* --sync: says it is ready and waits for the go (a byte, or EOF). */
static int wait_go(void)
{
	char c;

	printf("ready\n");
	fflush(stdout);
	while (read(0, &c, 1) < 0)
		if (errno != EINTR || stop)
			return -1;
	return stop ? -1 : 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Sorts samples in place and prints one result line. */
static void report(long n, const char *op, double *s, long count,
		   const char *extra)
{
	double sum = 0;
	long i, p99;

	if (count == 0)
		return;
	qsort(s, count, sizeof *s, cmp_double);
	for (i = 0; i < count; i++)
		sum += s[i];
	p99 = (count * 99 + 99) / 100 - 1;	/* ceil(0.99 count) - 1 */
	printf("target=%s n=%ld op=%s count=%ld median_us=%.2f mean_us=%.2f "
	       "p99_us=%.2f max_us=%.2f total_ms=%.2f%s\n", label, n, op, count,
	       count % 2 ? s[count / 2] : (s[count / 2 - 1] + s[count / 2]) / 2,
	       sum / count, s[p99], s[count - 1], sum / 1e3, extra);
	fflush(stdout);
}

static void group_path(char *buf, size_t size, long g)
{
	snprintf(buf, size, "%s/g%ld", root, g);
}

/* Tasks file (--procs-file) of group g; g < 0 is DIR's own. */
static void tasks_path(char *buf, size_t size, long g)
{
	if (g < 0)
		snprintf(buf, size, "%s/%s", root, procs_file);
	else
		snprintf(buf, size, "%s/g%ld/%s", root, g, procs_file);
}

static void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size);

	if (!p) {
		perror("attach-bench: calloc");
		exit(1);
	}
	return p;
}

/* Forks a sleeper and records its pid; returns it, or -1. */
static pid_t spawn_sleeper(void)
{
	pid_t pid = fork();

	if (pid < 0) {
		perror("attach-bench: fork");
		return -1;
	}
	if (pid == 0) {
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGHUP, SIG_DFL);
		if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != self)
			_exit(1);
		for (;;)
			pause();
	}
	kids[nkids++] = pid;
	return pid;
}

/* open + one write + close; returns 0 or -1 with errno set. */
static int write_tasks(const char *path, const char *buf, size_t len)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t w;
	int err;

	if (fd < 0)
		return -1;
	w = write(fd, buf, len);
	err = errno;
	if (close(fd) < 0 && w == (ssize_t)len)
		return -1;
	if (w != (ssize_t)len) {
		errno = w < 0 ? err : EIO;
		return -1;
	}
	return 0;
}

/* Writes pid into group g's tasks file (g < 0: DIR/tasks), timing the
 * open + write + close into *us when us is not NULL. */
static int attach(pid_t pid, long g, double *us)
{
	char path[4096], buf[32];
	int len = snprintf(buf, sizeof buf, "%d\n", (int)pid);
	double t0;
	int ret;

	tasks_path(path, sizeof path, g);
	t0 = now_us();
	ret = write_tasks(path, buf, len);
	if (us)
		*us = now_us() - t0;
	if (ret < 0)
		fprintf(stderr, "attach-bench: write %d to %s: %s\n", (int)pid,
			path, strerror(errno));
	return ret;
}

/* open + read to EOF + close; counts newlines into *lines. */
static int read_tasks(const char *path, long *lines)
{
	static char buf[65536];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t r;
	long n = 0;

	if (fd < 0)
		return -1;
	while ((r = read(fd, buf, sizeof buf)) > 0)
		for (ssize_t i = 0; i < r; i++)
			n += buf[i] == '\n';
	if (close(fd) < 0 || r < 0)
		return -1;
	*lines = n;
	return 0;
}

/* Is pid listed in group g's tasks file?  Returns " check=ok|missing|empty". */
static const char *check_listed(pid_t pid, long g)
{
	char path[4096];
	FILE *f;
	int t, seen = 0, found = 0;

	tasks_path(path, sizeof path, g);
	f = fopen(path, "re");
	if (!f) {
		fprintf(stderr, "attach-bench: open %s: %s\n", path,
			strerror(errno));
		return " check=unreadable";
	}
	while (fscanf(f, "%d", &t) == 1) {
		seen = 1;
		found |= t == pid;
	}
	fclose(f);
	return found ? " check=ok" : seen ? " check=missing" : " check=empty";
}

/* Group of the k-th move (0-based) among N groups: g0..g(N-1), then DIR. */
static long move_target(long k, long ngroups)
{
	long g = k % (ngroups + 1);

	return g == ngroups ? -1 : g;
}

static int make_groups(long n, double *us)
{
	char path[4096];
	double t0;

	for (long g = 0; g < n && !stop; g++) {
		group_path(path, sizeof path, g);
		t0 = now_us();
		if (mkdir(path, 0755) < 0) {
			fprintf(stderr, "attach-bench: mkdir %s: %s\n", path,
				strerror(errno));
			return -1;
		}
		us[g] = now_us() - t0;
		ngroups_made = g + 1;
	}
	return stop ? -1 : 0;
}

/* Puts the children back into DIR/tasks, kills and reaps them, then
 * removes the groups, timing each rmdir into rmdir_us.  Returns 0 when
 * everything went. */
static int cleanup(double *rmdir_us)
{
	char path[4096];
	long moved_back_failed = 0, left = 0;
	int ret = 0;
	double t0;

	for (long i = 0; i < nkids && !stop; i++) {
		char buf[32];
		int len = snprintf(buf, sizeof buf, "%d\n", (int)kids[i]);

		tasks_path(path, sizeof path, -1);
		moved_back_failed += write_tasks(path, buf, len) < 0;
	}
	if (moved_back_failed) {
		fprintf(stderr, "attach-bench: %ld children could not be "
			"written back to %s/%s\n", moved_back_failed, root, procs_file);
		ret = -1;
	}
	for (long i = 0; i < nkids; i++)
		kill(kids[i], SIGKILL);
	for (long i = 0; i < nkids; i++)
		while (waitpid(kids[i], NULL, 0) < 0 && errno == EINTR)
			;
	nkids = 0;
	for (long g = ngroups_made - 1; g >= 0; g--) {
		group_path(path, sizeof path, g);
		t0 = now_us();
		if (rmdir(path) < 0) {
			if (!left++)
				fprintf(stderr, "attach-bench: rmdir %s: %s\n",
					path, strerror(errno));
			continue;
		}
		rmdir_us[ngroups_made - 1 - g] = now_us() - t0;
	}
	if (left) {
		fprintf(stderr, "attach-bench: %ld groups left under %s\n",
			left, root);
		ret = -1;
	}
	ngroups_made = 0;
	return ret;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: attach-bench --root DIR [--label NAME] [--groups N] [--moves M]\n"
		"       attach-bench --root DIR [--label NAME] --mkdir-only --groups N\n"
		"       attach-bench --root DIR [--label NAME] --read-tasks K [--reads R]\n"
		"                    [--read-file FILE]\n"
		"--sync: print \"ready\" after the setup and wait for a byte on stdin.\n"
		"--procs-file FILE: move through FILE (cgroup.procs on v2), not tasks.\n"
		"DIR is a cgroup directory (kernel, cgfused or fuse-floor).\n"
		"Defaults: N=1, M=10000, R=1000, NAME=dir.\n");
}

static long parse_count(const char *s, const char *what)
{
	char *end;
	long v = strtol(s, &end, 10);

	if (*s == '\0' || *end != '\0' || v < 1) {
		fprintf(stderr, "attach-bench: %s must be a positive integer\n",
			what);
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"root", required_argument, NULL, 'r'},
		{"label", required_argument, NULL, 'l'},
		{"groups", required_argument, NULL, 'n'},
		{"moves", required_argument, NULL, 'm'},
		{"mkdir-only", no_argument, NULL, 'k'},
		{"read-tasks", required_argument, NULL, 't'},
		{"reads", required_argument, NULL, 'R'},
		{"read-file", required_argument, NULL, 'f'},
		{"procs-file", required_argument, NULL, 'p'},
		{"sync", no_argument, NULL, 's'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0}
	};
	long ngroups = 1, nmoves = 10000, read_tasks_n = 0, nreads = 1000;
	long nsamples, done = 0, lines = 0;
	double loop_t0 = 0, loop_t1 = 0, loop_cpu = 0;
	int mkdir_only = 0, sync_start = 0, opt;
	double *mkdir_us, *place_us, *rmdir_us, *op_us;
	const char *check = "";
	struct sigaction sa;
	pid_t mover = 0;

	while ((opt = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (opt) {
		case 'r': root = optarg; break;
		case 'l': label = optarg; break;
		case 'n': ngroups = parse_count(optarg, "--groups"); break;
		case 'm': nmoves = parse_count(optarg, "--moves"); break;
		case 'k': mkdir_only = 1; break;
		case 't': read_tasks_n = parse_count(optarg, "--read-tasks"); break;
		case 'R': nreads = parse_count(optarg, "--reads"); break;
		case 'f': read_file = optarg; break;
		case 'p': procs_file = optarg; break;
		case 's': sync_start = 1; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (!root || optind != argc || (mkdir_only && read_tasks_n)) {
		usage(stderr);
		return 2;
	}
	if (read_tasks_n)
		ngroups = 1;
	if (!read_file)
		read_file = procs_file;

	self = getpid();
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;	/* no SA_RESTART: blocked calls fail */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);

	/* children: one per group, the anchor and the mover; or the K tasks */
	kids = xcalloc(read_tasks_n ? read_tasks_n : ngroups + 2, sizeof *kids);
	mkdir_us = xcalloc(ngroups, sizeof *mkdir_us);
	rmdir_us = xcalloc(ngroups, sizeof *rmdir_us);
	place_us = xcalloc(read_tasks_n ? read_tasks_n : ngroups,
			   sizeof *place_us);
	nsamples = read_tasks_n ? nreads : nmoves;
	op_us = xcalloc(nsamples, sizeof *op_us);

	if (make_groups(ngroups, mkdir_us) < 0)
		goto fail;
	if (mkdir_only)
		goto done;

	if (read_tasks_n) {
		char path[4096];

		for (long i = 0; i < read_tasks_n && !stop; i++)
			if (spawn_sleeper() < 0)
				goto fail;
		for (long i = 0; i < read_tasks_n && !stop; i++)
			if (attach(kids[i], 0, &place_us[i]) < 0)
				goto fail;
		snprintf(path, sizeof path, "%s/g0/%s", root, read_file);
		if (sync_start && wait_go() < 0)
			goto fail;
		loop_cpu = cpu_us();
		loop_t0 = now_us();
		for (; done < nreads && !stop; done++) {
			double t0 = now_us();

			if (read_tasks(path, &lines) < 0) {
				fprintf(stderr, "attach-bench: read %s: %s\n",
					path, strerror(errno));
				goto fail;
			}
			op_us[done] = now_us() - t0;
		}
		loop_t1 = now_us();
		loop_cpu = cpu_us() - loop_cpu;
		goto done;
	}

	/* the anchor keeps DIR populated; the mover starts there */
	if (spawn_sleeper() < 0 || attach(kids[0], -1, NULL) < 0 ||
	    (mover = spawn_sleeper()) < 0 || attach(mover, -1, NULL) < 0)
		goto fail;
	for (long g = 0; g < ngroups && !stop; g++)
		if (spawn_sleeper() < 0)
			goto fail;
	for (long g = 0; g < ngroups && !stop; g++)
		if (attach(kids[g + 2], g, &place_us[g]) < 0)
			goto fail;
	if (sync_start && wait_go() < 0)
		goto fail;
	loop_cpu = cpu_us();
	loop_t0 = now_us();
	for (; done < nmoves && !stop; done++)
		if (attach(mover, move_target(done, ngroups), &op_us[done]) < 0)
			goto fail;
	loop_t1 = now_us();
	loop_cpu = cpu_us() - loop_cpu;
	if (!stop)
		check = check_listed(mover, move_target(nmoves - 1, ngroups));

done:
	if (stop)
		goto fail;
	report(ngroups, "mkdir", mkdir_us, ngroups, "");
	if (read_tasks_n) {
		char extra[256];

		snprintf(extra, sizeof extra, " t0_us=%.0f t1_us=%.0f cpu_us=%.0f "
			 "file=%s tasks=%ld lines=%ld", loop_t0, loop_t1,
			 loop_cpu, read_file, read_tasks_n, lines);
		report(ngroups, "place", place_us, read_tasks_n, "");
		report(ngroups, "read", op_us, done, extra);
	} else if (!mkdir_only) {
		char extra[256];

		snprintf(extra, sizeof extra, " t0_us=%.0f t1_us=%.0f cpu_us=%.0f%s",
			 loop_t0, loop_t1, loop_cpu, check);
		report(ngroups, "place", place_us, ngroups, "");
		report(ngroups, "move", op_us, done, extra);
	}
	if (cleanup(rmdir_us) < 0)
		return 1;
	report(ngroups, "rmdir", rmdir_us, ngroups, "");
	return 0;

fail:
	if (stop)
		fprintf(stderr, "attach-bench: interrupted, cleaning up\n");
	cleanup(rmdir_us);
	return 1;
}
