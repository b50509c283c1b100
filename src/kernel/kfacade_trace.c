/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Freezing a thread with ptrace: PTRACE_SEIZE attaches without stopping or
 * signalling it, PTRACE_INTERRUPT stops it (a PTRACE_EVENT_STOP, or the
 * signal-delivery-stop of a signal that was on its way), PTRACE_DETACH lets
 * it go. A ptrace-stop is not a job-control stop: the tracee's parent sees
 * nothing (waitpid WUNTRACED, a shell's job table), and a SIGCONT from
 * anyone does not resume it. When the tracer thread dies, even by SIGKILL,
 * the kernel detaches its tracees (exit_ptrace), so nothing stays frozen.
 * Measured (docs/design.md): SEIZE ~5 us, INTERRUPT ~4 us, a busy thread
 * on another CPU stopped ~90 us later, DETACH ~50 us. */
#include "kernel/kfacade_trace.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

int ktrace_freeze(struct kfacade *kf, pid_t tid)
{
	(void)kf;
	/* No options: no event or syscall stops, and no PTRACE_O_EXITKILL
	 * (the daemon's death must free its tracees, not kill them). */
	if (ptrace(PTRACE_SEIZE, tid, 0, 0) < 0)
		return -errno;
	/* Fails only for a thread exiting meanwhile: it is ours all the
	 * same, and its report says it is gone. */
	(void)ptrace(PTRACE_INTERRUPT, tid, 0, 0);
	return 0;
}

int ktrace_report(struct kfacade *kf, struct trace_report *r)
{
	int status;
	/* __WNOTHREAD: only this thread's tracees (the daemon's other
	 * threads' children are none of its business); __WALL: threads too. */
	pid_t tid = waitpid(-1, &status, __WALL | __WNOTHREAD | WNOHANG);

	(void)kf;
	if (tid < 0)
		return -errno;
	if (tid == 0)
		return 0;
	r->tid = tid;
	if (WIFSTOPPED(status)) {
		r->what = TRACE_STOPPED;
		/* An event stop (PTRACE_EVENT_STOP: our interrupt, or a
		 * group-stop seen by the new tracer) holds no signal; a
		 * signal-delivery-stop holds the signal it took. */
		r->sig = (status >> 16) ? 0 : WSTOPSIG(status);
	} else {
		r->what = TRACE_GONE;
		r->sig = 0;
	}
	return 1;
}

int ktrace_thaw(struct kfacade *kf, pid_t tid, int sig)
{
	(void)kf;
	return ptrace(PTRACE_DETACH, tid, 0, (void *)(long)sig) < 0 ? -errno : 0;
}

/* /proc/TID/status: "State:\tt (tracing stop)" ... "TracerPid:\t123". */
int ktrace_status(struct kfacade *kf, pid_t tid, struct trace_status *st)
{
	char path[64], buf[4096];
	const char *state, *tracer;
	ssize_t len;
	int fd;

	(void)kf;
	snprintf(path, sizeof(path), "/proc/%d/status", tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? -ESRCH : -errno;
	len = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (len < 0)
		return -errno;
	buf[len] = '\0';
	state = strstr(buf, "\nState:\t");
	tracer = strstr(buf, "\nTracerPid:\t");
	if (!state || !tracer || sscanf(tracer + 12, "%d", &st->tracer) != 1)
		return -EPROTO;
	st->stopped = state[8] == 't' || state[8] == 'T';
	return 0;
}

int ktrace_signal(struct kfacade *kf, pid_t tid, int sig)
{
	(void)kf;
	return syscall(SYS_tkill, tid, sig) < 0 ? -errno : 0;
}
