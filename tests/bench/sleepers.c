/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sleepers: many cheap tasks of the benchmark's own, placed in groups
 * through a cgroup v1 tasks file, for the scale benchmark
 * (run-scale-bench): what the allocator costs with thousands of managed
 * threads, and what the daemon's memory does with them.
 *
 *   sleepers --root DIR --groups N [--per-group K] [--procs] [--busy-every B]
 *            [--busy-cpu CPU] [--shares] [--whole]
 *
 * Makes the groups DIR/g0..g(N-1) (mkdir), starts N*K tasks and writes the
 * I-th into DIR/g(I/K)/tasks (open + write + close each), then prints one
 * line
 *   ready groups=N tasks=T mkdir_ms=... place_ms=... pid=PID
 * (mkdir_ms includes the cpu.shares writes of --shares)
 * and waits until its standard input reaches EOF or it gets SIGTERM,
 * SIGINT or SIGHUP.  The tasks are threads of this process (threads are
 * tasks: cheap, a 64 KiB stack each), or with --procs single-threaded
 * child processes (what a machine of many programs looks like to the
 * allocator, which reads one CPU clock per process).  Every B-th task
 * spins on the CPU instead of sleeping in pause() (B=10: 10% busy), on
 * CPU only with --busy-cpu CPU; busy tasks start spinning only once every
 * task is placed, so that they do not slow the placing down.  With
 * --shares, gI's cpu.shares is written right after its mkdir: 512, 1024
 * and 2048 in turn, so that the allocator has different weights to turn
 * into nice values (equal groups of one task each all get nice 0).  With
 * --whole (threads, one group), the process's PID is written once into
 * g0/cgroup.procs instead, which moves every thread in one write.
 *
 * It removes no group: the caller does, once this process has been reaped
 * and the daemon has seen the tasks exit.  On the way out the children of
 * --procs are killed by their recorded pids and reaped; threads end with
 * the process.  This process dies with its parent (PR_SET_PDEATHSIG), and
 * so do its children with it, so a driver killed outright leaves nothing.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define STACK_SIZE (64 * 1024)

static volatile sig_atomic_t stop;

static pid_t *tids;             /* tids[i]: the i-th task, 0 until known */
static atomic_long started;     /* threads that have stored their tid */
static long busy_every;         /* every this many tasks spins; 0: none */
static int busy_cpu = -1;       /* where busy tasks run; -1: anywhere */
static int go_pipe[2];          /* busy tasks wait for EOF on go_pipe[0] */
static const int shares_cycle[] = { 512, 1024, 2048 };
static int use_procs;
static long nprocs;             /* children forked (--procs), to kill */

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int is_busy(long i)
{
	return busy_every && i % busy_every == busy_every - 1;
}

static void run_task(int busy)
{
	volatile unsigned long spins = 0;
	char c;

	if (!busy)
		for (;;)
			pause();
	while (read(go_pipe[0], &c, 1) < 0 && errno == EINTR)
		;
	if (busy_cpu >= 0) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(busy_cpu, &set);
		sched_setaffinity(0, sizeof set, &set);	/* this thread only */
	}
	for (;;)
		spins++;
}

static void *thread_main(void *arg)
{
	long i = (long)arg;

	tids[i] = (pid_t)syscall(SYS_gettid);
	atomic_fetch_add(&started, 1);
	run_task(is_busy(i));
	return NULL;
}

static int start_thread(long i, const pthread_attr_t *attr)
{
	pthread_t thread;
	int err = pthread_create(&thread, attr, thread_main, (void *)i);

	if (err) {
		fprintf(stderr, "sleepers: pthread_create (task %ld): %s\n", i,
			strerror(err));
		return -1;
	}
	pthread_detach(thread);
	return 0;
}

static int start_proc(long i, pid_t self)
{
	pid_t pid = fork();

	if (pid < 0) {
		perror("sleepers: fork");
		return -1;
	}
	if (pid == 0) {
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGHUP, SIG_DFL);
		if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != self)
			_exit(1);
		close(go_pipe[1]);
		run_task(is_busy(i));
	}
	tids[i] = pid;
	nprocs = i + 1;
	atomic_fetch_add(&started, 1);
	return 0;
}

/* Every task started and its tid known; returns -1 on failure or stop. */
static int start_tasks(long ntasks)
{
	pthread_attr_t attr;
	sigset_t block, old;
	pid_t self = getpid();
	int ret = 0;

	/* The tasks start with SIGINT, SIGTERM and SIGHUP blocked, so that
	 * they reach the main thread, whose poll they must interrupt. */
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &block, &old);
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, STACK_SIZE);
	for (long i = 0; i < ntasks && !stop && !ret; i++)
		ret = use_procs ? start_proc(i, self) : start_thread(i, &attr);
	pthread_attr_destroy(&attr);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	while (!ret && !stop && atomic_load(&started) < ntasks)
		usleep(1000);
	return ret || stop ? -1 : 0;
}

/* open + one write of "VALUE\n" + close, as echo VALUE > PATH does. */
static int write_number(const char *path, long value)
{
	char buf[32];
	int len = snprintf(buf, sizeof buf, "%ld\n", value);
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t w;

	if (fd < 0)
		return -1;
	w = write(fd, buf, len);
	if (close(fd) < 0 || w != len)
		return -1;
	return 0;
}

static void kill_procs(void)
{
	for (long i = 0; i < nprocs; i++)
		kill(tids[i], SIGKILL);
	for (long i = 0; i < nprocs; i++)
		while (waitpid(tids[i], NULL, 0) < 0 && errno == EINTR)
			;
	nprocs = 0;
}

static long parse_count(const char *s, const char *what)
{
	char *end;
	long v = strtol(s, &end, 10);

	if (*s == '\0' || *end != '\0' || v < 0) {
		fprintf(stderr, "sleepers: %s wants a number >= 0\n", what);
		exit(2);
	}
	return v;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: sleepers --root DIR --groups N [--per-group K] "
		"[--procs] [--busy-every B] [--busy-cpu CPU] [--shares] "
		"[--whole]\n");
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"root", required_argument, NULL, 'r'},
		{"groups", required_argument, NULL, 'n'},
		{"per-group", required_argument, NULL, 'k'},
		{"procs", no_argument, NULL, 'p'},
		{"busy-every", required_argument, NULL, 'b'},
		{"busy-cpu", required_argument, NULL, 'c'},
		{"shares", no_argument, NULL, 's'},
		{"whole", no_argument, NULL, 'w'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0}
	};
	const char *root = NULL;
	long ngroups = 0, per_group = 1, ntasks;
	double t0, mkdir_ms, place_ms;
	struct sigaction sa;
	pid_t parent = getppid();
	char path[4096];
	int opt, shares = 0, whole = 0;

	while ((opt = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (opt) {
		case 'r': root = optarg; break;
		case 'n': ngroups = parse_count(optarg, "--groups"); break;
		case 'k': per_group = parse_count(optarg, "--per-group"); break;
		case 'p': use_procs = 1; break;
		case 'b': busy_every = parse_count(optarg, "--busy-every"); break;
		case 'c': busy_cpu = (int)parse_count(optarg, "--busy-cpu"); break;
		case 's': shares = 1; break;
		case 'w': whole = 1; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (!root || ngroups < 1 || per_group < 1 || optind != argc ||
	    (whole && (use_procs || ngroups != 1))) {
		usage(stderr);
		return 2;
	}
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != parent)
		return 1;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;	/* no SA_RESTART: poll returns */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);

	if (pipe2(go_pipe, O_CLOEXEC) < 0) {
		perror("sleepers: pipe2");
		return 1;
	}
	ntasks = ngroups * per_group;
	tids = calloc(ntasks, sizeof *tids);
	if (!tids) {
		perror("sleepers: calloc");
		return 1;
	}

	t0 = now_ms();
	for (long g = 0; g < ngroups && !stop; g++) {
		snprintf(path, sizeof path, "%s/g%ld", root, g);
		if (mkdir(path, 0755) < 0) {
			fprintf(stderr, "sleepers: mkdir %s: %s\n", path,
				strerror(errno));
			goto fail;
		}
		snprintf(path, sizeof path, "%s/g%ld/cpu.shares", root, g);
		if (shares && write_number(path, shares_cycle[g % 3]) < 0) {
			fprintf(stderr, "sleepers: write %s: %s\n", path,
				strerror(errno));
			goto fail;
		}
	}
	mkdir_ms = now_ms() - t0;
	if (stop || start_tasks(ntasks) < 0)
		goto fail;
	t0 = now_ms();
	snprintf(path, sizeof path, "%s/g0/cgroup.procs", root);
	if (whole && write_number(path, getpid()) < 0) {
		fprintf(stderr, "sleepers: write %d to %s: %s\n", (int)getpid(),
			path, strerror(errno));
		goto fail;
	}
	for (long i = 0; i < ntasks && !stop && !whole; i++) {
		snprintf(path, sizeof path, "%s/g%ld/tasks", root, i / per_group);
		if (write_number(path, tids[i]) < 0) {
			fprintf(stderr, "sleepers: write %d to %s: %s\n",
				(int)tids[i], path, strerror(errno));
			goto fail;
		}
	}
	place_ms = now_ms() - t0;
	if (stop)
		goto fail;
	close(go_pipe[1]);	/* the busy tasks start */
	printf("ready groups=%ld tasks=%ld mkdir_ms=%.1f place_ms=%.1f pid=%d\n",
	       ngroups, ntasks, mkdir_ms, place_ms, (int)getpid());
	fflush(stdout);

	/* until EOF on stdin or a signal */
	while (!stop) {
		struct pollfd pfd = { .fd = 0, .events = POLLIN };
		char buf[256];

		if (poll(&pfd, 1, -1) > 0 && read(0, buf, sizeof buf) <= 0)
			break;
	}
	kill_procs();
	return 0;

fail:
	if (stop)
		fprintf(stderr, "sleepers: interrupted\n");
	kill_procs();
	return 1;
}
