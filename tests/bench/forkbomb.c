/* SPDX-License-Identifier: GPL-2.0-or-later */
/* forkbomb: a bounded fork bomb, for run-pids-bench.
 *
 *   forkbomb FORKS SECONDS [PROCS_FILE...]
 *
 * Writes its PID to each PROCS_FILE (a group's cgroup.procs: the groups it
 * starts in), then every process of the bomb, children included, forks as
 * fast as it can until FORKS children have been made in all (a shared
 * count, taken before each fork, so never more), then sleeps; every one
 * exits SECONDS after the start, at the latest. A failed fork (EAGAIN from
 * the kernel's pids.max) is retried at once, as a bomb does. SIGCHLD is
 * ignored, so the kernel reaps the children. Start it as the leader of a
 * process group of its own: what is left of it is one killpg away. The
 * first process dies with its parent (PR_SET_PDEATHSIG); the others end
 * at the deadline whatever happens.
 *
 * At the end the first process prints one line:
 *   forks=N eagain=N other_errors=N budget_s=S
 * budget_s: when the last fork was made, or -1 if the budget was not used
 * up. Exit status 0, or 2 on bad arguments or a group it could not join. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

struct shared {
	atomic_long reserved;		/* forks taken from the budget */
	atomic_long forks, eagain, other;
	atomic_long budget_ns;		/* when the budget ran out, 0 before */
};

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static int join(const char *procs)
{
	char pid[32];
	int fd = open(procs, O_WRONLY | O_NOFOLLOW | O_CLOEXEC);
	int len = snprintf(pid, sizeof(pid), "%d", (int)getpid());
	int ok = fd >= 0 && write(fd, pid, (size_t)len) == len;

	if (!ok)
		fprintf(stderr, "forkbomb: cannot join %s: %s\n", procs, strerror(errno));
	if (fd >= 0)
		close(fd);
	return ok ? 0 : -1;
}

/* Every process of the bomb runs this until the deadline. */
static void bomb(struct shared *s, long budget, long long start, long long deadline)
{
	struct timespec until = { deadline / 1000000000LL, deadline % 1000000000LL };

	while (now_ns() < deadline) {
		pid_t pid;

		if (atomic_fetch_add(&s->reserved, 1) >= budget) {
			long expected = 0;

			atomic_compare_exchange_strong(&s->budget_ns, &expected,
						       (long)(now_ns() - start));
			break;
		}
		pid = fork();
		if (pid > 0) {
			atomic_fetch_add(&s->forks, 1);
			continue;
		}
		if (pid == 0)
			continue;	/* the child bombs too */
		atomic_fetch_sub(&s->reserved, 1);
		atomic_fetch_add(errno == EAGAIN ? &s->eagain : &s->other, 1);
	}
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &until, NULL) == EINTR)
		;
}

int main(int argc, char **argv)
{
	struct shared *s;
	long budget;
	double seconds;
	long long start;
	pid_t leader = getpid();

	if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() == 1) {
		fprintf(stderr, "forkbomb: no parent to die with\n");
		return 2;
	}
	if (argc < 3 || (budget = atol(argv[1])) <= 0 || (seconds = atof(argv[2])) <= 0) {
		fprintf(stderr, "usage: forkbomb FORKS SECONDS [PROCS_FILE...]\n");
		return 2;
	}
	for (int i = 3; i < argc; i++)
		if (join(argv[i]) < 0)
			return 2;
	s = mmap(NULL, sizeof(*s), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (s == MAP_FAILED) {
		perror("forkbomb: mmap");
		return 2;
	}
	memset(s, 0, sizeof(*s));
	signal(SIGCHLD, SIG_IGN);
	setvbuf(stdout, NULL, _IOLBF, 0);
	start = now_ns();
	bomb(s, budget, start, start + (long long)(seconds * 1e9));
	if (getpid() != leader)
		_exit(0);
	printf("forks=%ld eagain=%ld other_errors=%ld budget_s=%.3f\n", atomic_load(&s->forks),
	       atomic_load(&s->eagain), atomic_load(&s->other),
	       atomic_load(&s->budget_ns) ? atomic_load(&s->budget_ns) / 1e9 : -1.0);
	return 0;
}
