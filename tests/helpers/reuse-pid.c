/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * reuse-pid TASKS: puts a child into a cgroup through the tasks file TASKS,
 * kills and reaps it, at once makes a new process with the same PID
 * (clone3 with set_tid; root only) and prints "PID listed" or "PID not
 * listed": whether TASKS lists the new process. A reused PID must never
 * inherit the old process's membership. Prints "no reuse" and exits 2 if
 * the kernel would not give the PID again.
 *
 * reuse-pid --signal TASKS: the same in two steps, for a test that stops
 * the daemon in between: puts the child in, prints "PID", waits for
 * SIGUSR1, then kills it and makes the new process with its PID, prints
 * "PID reused" (or "no reuse", exit 2) and waits to be killed; the new
 * process dies with it.
 */
#include <linux/sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static int listed(const char *tasks, pid_t pid)
{
	FILE *f = fopen(tasks, "r");
	int id, found = 0;

	if (!f)
		return -1;
	while (fscanf(f, "%d", &id) == 1)
		found |= id == pid;
	fclose(f);
	return found;
}

int main(int argc, char **argv)
{
	struct clone_args args = { .exit_signal = SIGCHLD, .set_tid_size = 1 };
	pid_t first, second, set_tid[1];
	FILE *f;

	bool two_steps = argc == 3 && strcmp(argv[1], "--signal") == 0;
	const char *tasks = argv[argc - 1];
	sigset_t usr1;

	if (argc != 2 && !two_steps) {
		fprintf(stderr, "usage: reuse-pid [--signal] TASKS\n");
		return 2;
	}
	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	sigprocmask(SIG_BLOCK, &usr1, NULL);
	first = fork();
	if (first == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		pause();
		_exit(0);
	}
	f = fopen(tasks, "w");
	if (!f || fprintf(f, "%d\n", first) < 0 || fclose(f) != 0) {
		perror("attach");
		kill(first, SIGKILL);
		return 2;
	}
	if (listed(tasks, first) != 1) {
		fprintf(stderr, "%d was not attached\n", first);
		kill(first, SIGKILL);
		return 2;
	}
	if (two_steps) {
		int sig;

		printf("%d\n", first);
		fflush(stdout);
		sigwait(&usr1, &sig);
	}
	kill(first, SIGKILL);
	waitpid(first, NULL, 0);

	set_tid[0] = first;
	args.set_tid = (uint64_t)(uintptr_t)set_tid;
	second = (pid_t)syscall(SYS_clone3, &args, sizeof(args));
	if (second == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		pause();
		_exit(0);
	}
	if (second != first) {
		printf("no reuse\n");
		if (second > 0)
			kill(second, SIGKILL);
		return 2;
	}
	if (two_steps) {
		printf("%d reused\n", second);
		fflush(stdout);
		for (;;)
			pause();
	}
	printf("%d %s\n", second, listed(tasks, second) ? "listed" : "not listed");
	kill(second, SIGKILL);
	waitpid(second, NULL, 0);
	return 0;
}
