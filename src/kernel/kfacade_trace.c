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
#include <signal.h>
#include <sys/ptrace.h>
#include <sys/wait.h>

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
