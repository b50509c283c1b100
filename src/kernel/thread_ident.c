/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Thread identities from pidfds, or from start times before Linux 6.9. */
#include "kernel/thread_ident.h"

#include "kernel/task_cputime.h"

#include <errno.h>
#include <fcntl.h>
#include <glib.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Newer than the installed 6.1 headers. */
#ifndef PIDFD_THREAD
#define PIDFD_THREAD O_EXCL	/* a pidfd for one thread, not its process */
#endif

/* pid_max is at most 2^22 (PID_MAX_LIMIT): a start-time identity is the
 * start time above the id. */
#define TID_BITS 22

bool thread_ident_exact(void)
{
	static gsize probed;
	static bool exact;

	if (g_once_init_enter(&probed)) {
		int fd = (int)syscall(SYS_pidfd_open, getpid(), PIDFD_THREAD);

		/* EINVAL: an unknown flag (before 6.9). */
		exact = fd >= 0 || errno != EINVAL;
		if (fd >= 0)
			close(fd);
		g_once_init_leave(&probed, 1);
	}
	return exact;
}

bool pidfd_exited(int fd)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };

	return poll(&pfd, 1, 0) != 0;
}

/* Tgid and whether it is a kernel thread, from /proc/TID/status. */
static int read_status(pid_t tid, pid_t *tgid, bool *kthread)
{
	char path[64], *data = NULL, *line;
	int ret = -ESRCH;

	snprintf(path, sizeof(path), "/proc/%d/status", tid);
	if (!g_file_get_contents(path, &data, NULL, NULL))
		return ret;
	*kthread = false;
	if ((line = strstr(data, "\nTgid:")) && sscanf(line + 6, "%d", tgid) == 1)
		ret = 0;
	if ((line = strstr(data, "\nKthread:")))
		*kthread = atoi(line + 9) == 1;
	g_free(data);
	return ret;
}

/* From /proc/TGID/task/TID/stat; TGID may be TID itself (its /proc
 * directory's task/ lists its process's threads). -ESRCH for a thread that
 * exited (a zombie), as its pidfd would poll readable. */
static int start_ident(pid_t tgid, pid_t tid, uint64_t *ino)
{
	struct proc_task_cputime ct;
	int ret = task_stat_read(tgid, tid, &ct);

	if (ret == 0 && (ct.state == 'Z' || ct.state == 'X'))
		ret = -ESRCH;
	if (ret == 0)
		*ino = ct.starttime << TID_BITS | (uint64_t)tid;
	return ret;
}

int thread_pidfd(pid_t tid, pid_t tgid)
{
	int fd;

	if (tid <= 0 || tgid <= 0)
		return -ESRCH;
	fd = thread_ident_exact() ? (int)syscall(SYS_pidfd_open, tid, PIDFD_THREAD)
				  : (int)syscall(SYS_pidfd_open, tgid, 0);
	if (fd < 0)
		return errno == EINVAL ? -ESRCH : -errno;
	return fd;
}

int thread_ident(pid_t tid, uint64_t *ino, pid_t *tgid)
{
	struct stat st;
	bool kthread = false;
	int fd, ret = 0;

	if (tid <= 0)
		return -ESRCH;
	if (!thread_ident_exact()) {
		/* The start time read twice around the status: the same
		 * thread throughout. */
		uint64_t again = 0;

		ret = start_ident(tid, tid, ino);
		if (ret == 0 && tgid) {
			ret = read_status(tid, tgid, &kthread);
			if (ret == 0 && kthread)
				ret = -EINVAL;
		}
		if (ret == 0 && (start_ident(tid, tid, &again) < 0 || again != *ino))
			ret = -ESRCH;
		return ret;
	}
	fd = (int)syscall(SYS_pidfd_open, tid, PIDFD_THREAD);
	if (fd < 0)
		return errno == EINVAL ? -ESRCH : -errno;
	if (tgid) {
		ret = read_status(tid, tgid, &kthread);
		if (ret == 0 && kthread)
			ret = -EINVAL;
	}
	/* Still alive now means what we read was this thread's. */
	if (ret == 0 && pidfd_exited(fd))
		ret = -ESRCH;
	if (ret == 0 && fstat(fd, &st) < 0)
		ret = -errno;
	if (ret == 0)
		*ino = st.st_ino;
	close(fd);
	return ret;
}

bool thread_ident_alive(pid_t tid, const struct task_ident *id)
{
	uint64_t ino;

	return thread_ident(tid, &ino, NULL) == 0 && ino == id->ino;
}

/* The pidfd pins the thread's (or its process's) struct pid: once the
 * identity matches with it open, the signal cannot reach a task that took
 * over the id meanwhile. */
int thread_ident_kill(pid_t tid, const struct task_ident *id)
{
	uint64_t ino = 0;
	pid_t tgid;
	int fd, ret = 0;

	if (tid <= 0)
		return -ESRCH;
	if (thread_ident_exact()) {
		struct stat st;

		fd = (int)syscall(SYS_pidfd_open, tid, PIDFD_THREAD);
		if (fd < 0)
			return errno == EINVAL ? -ESRCH : -errno;
		if (fstat(fd, &st) < 0)
			ret = -errno;
		else if (st.st_ino != id->ino)
			ret = -ESRCH;
	} else {
		bool kthread;

		if (read_status(tid, &tgid, &kthread) < 0)
			return -ESRCH;
		fd = (int)syscall(SYS_pidfd_open, tgid, 0);
		if (fd < 0)
			return errno == EINVAL ? -ESRCH : -errno;
		/* With the process pinned: is the thread still in it? */
		if (start_ident(tgid, tid, &ino) < 0 || ino != id->ino || pidfd_exited(fd))
			ret = -ESRCH;
	}
	if (ret == 0 && syscall(SYS_pidfd_send_signal, fd, SIGKILL, NULL, 0) < 0)
		ret = -errno;
	close(fd);
	return ret;
}
