/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * clone-parent GROUP_TASKS ROOT_TASKS: a member of a group makes a child
 * with clone(CLONE_PARENT), which gives the child the member's parent. The
 * proc connector names that parent, not the member, in the fork report, so
 * cgfused cannot tell the child was made by a member (cgfused(8),
 * DIFFERENCES FROM THE KERNEL).
 * A process (the member) writes 0 to GROUP_TASKS, makes the child, and
 * prints "PID in group", "PID in root" or "PID nowhere" (PID: the child's)
 * from the two tasks files; the child is then killed and reaped here (its
 * parent). Exits 1 if something could not be done.
 */
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

/* The member: joins the group, makes the child, reports where it is. */
static int member(const char *group, const char *root)
{
	FILE *f = fopen(group, "w");
	long child;
	int in_group, in_root;

	if (!f || fputs("0", f) == EOF || fclose(f) == EOF) {
		perror("joining the group");
		return 1;
	}
	child = syscall(SYS_clone, CLONE_PARENT | SIGCHLD, NULL, NULL, NULL, NULL);
	if (child < 0) {
		perror("clone");
		return 1;
	}
	if (child == 0) {
		pause();
		_exit(0);
	}
	in_group = listed(group, (pid_t)child);
	in_root = listed(root, (pid_t)child);
	if (in_group < 0 || in_root < 0) {
		perror("reading tasks");
		kill((pid_t)child, SIGKILL);
		return 1;
	}
	printf("%ld %s\n", child, in_group ? "in group" : in_root ? "in root" : "nowhere");
	fflush(stdout);
	kill((pid_t)child, SIGKILL);
	return 0;
}

int main(int argc, char **argv)
{
	int status, ret = 0;
	pid_t m, p;

	if (argc != 3) {
		fprintf(stderr, "usage: clone-parent GROUP_TASKS ROOT_TASKS\n");
		return 1;
	}
	m = fork();
	if (m < 0) {
		perror("fork");
		return 1;
	}
	if (m == 0)
		_exit(member(argv[1], argv[2]));
	/* Both the member and its CLONE_PARENT child are ours to reap. */
	while ((p = wait(&status)) > 0)
		if (p == m && (!WIFEXITED(status) || WEXITSTATUS(status) != 0))
			ret = 1;
	return ret;
}
