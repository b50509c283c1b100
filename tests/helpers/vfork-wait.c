/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vfork-wait PROCS: writes its pid to PROCS (a group's cgroup.procs), then
 * calls vfork(); the child waits for a signal (pause()) and the parent
 * waits in vfork() until the child ends: the kernel's freezer counts such
 * a parent frozen (its wait is freezable), though no ptrace stop can end
 * it. Exits 0 once the child is gone, 1 if something could not be done.
 * The child dies with the parent (a test that kills the parent leaves
 * nothing behind).
 */
#include <signal.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	FILE *f;

	if (argc != 2 || !(f = fopen(argv[1], "w")))
		return 1;
	if (fprintf(f, "%d\n", (int)getpid()) < 0 || fclose(f) != 0)
		return 1;
	switch (vfork()) {
	case -1:
		return 1;
	case 0:
		/* Only what vfork() allows: system calls, then _exit(). */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		pause();
		_exit(0);
	default:
		return 0;
	}
}
