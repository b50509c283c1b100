/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * traceme [--pass]: a member that escapes ptrace from others by having
 * its own parent trace it. Forks a child that asks for it (PTRACE_TRACEME,
 * no privilege needed) and then spins on the CPU; prints the child's PID.
 * The parent is a hostile tracer: at every stop of the child it resumes it
 * at once, swallowing the signal, or with --pass giving it on (as strace
 * and gdb do for SIGSTOP: the child would then stop for good). The child
 * dies with the parent (PR_SET_PDEATHSIG).
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int pass = argc > 1 && strcmp(argv[1], "--pass") == 0;
	pid_t child = fork();

	if (child < 0)
		return 1;
	if (child == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (ptrace(PTRACE_TRACEME, 0, 0, 0) < 0) {
			perror("traceme: PTRACE_TRACEME");
			_exit(1);
		}
		for (;;)
			;
	}
	printf("%d\n", child);
	fflush(stdout);
	for (;;) {
		int status;

		if (waitpid(child, &status, __WALL) < 0) {
			if (errno == EINTR)
				continue;
			return 1;
		}
		if (!WIFSTOPPED(status))
			return 0;
		ptrace(PTRACE_CONT, child, 0, (void *)(long)(pass ? WSTOPSIG(status) : 0));
	}
}
