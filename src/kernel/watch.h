/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Where the kernel facade learns of forks, execs and exits: one task-watch
 * source, chosen at start by probing what this process may use, named in the
 * start-up line and in cgfused.stat. The core sees only the facade's
 * task_events()/event_fd(); the facade asks its source.
 *
 *   connector  the kernel's proc connector: every task, cheapest; only for
 *              root in the initial user and PID namespaces (elsewhere the
 *              subscription is refused, or accepted and never delivers:
 *              hence the fork probe at start).
 *   ptrace     PTRACE_O_TRACEFORK/VFORK/CLONE/EXEC/EXIT on every held
 *              thread: exact (it names a child's real creator), anywhere
 *              this process may trace its tasks; costs a stop per event and
 *              excludes debuggers from those threads.
 *   scan       a bounded /proc scan of the held threads' processes and
 *              children: anywhere, approximate (a child that exits, or whose
 *              parent exits, between two scans is not seen).
 */
#ifndef CGFUSED_WATCH_H
#define CGFUSED_WATCH_H

#include "kernel/kfacade.h"

struct watch_source;

struct watch_source_ops {
	/* "connector", "ptrace" or "scan". */
	const char *name;
	/* Reports come late: a child after it ran (forked, or exited), an
	 * exit after the id may have been reused (the scan). */
	bool late;
	/* As kfacade_ops.task_events() and event_fd(). */
	int (*events)(struct watch_source *ws, struct task_event *ev, unsigned max);
	int (*event_fd)(struct watch_source *ws);
	/* The facade's task_open() of thread tid succeeded with identity id,
	 * and its task_close() of that identity: counted, so a thread opened
	 * twice is let go at its second close. A source that needs to know
	 * which threads to follow (ptrace, scan) follows the held ones and
	 * their children. May be NULL. hold() returns 0 or -errno, which
	 * task_open() then returns: -EBUSY for a thread another tracer has
	 * (a debugger), which the ptrace source cannot follow. */
	int (*hold)(struct watch_source *ws, pid_t tid, const struct task_ident *id);
	void (*release)(struct watch_source *ws, const struct task_ident *id);
	/* As kfacade_ops.watch_start: holds before it are only noted (a
	 * source that traces them does so from then on, in this process).
	 * May be NULL. */
	void (*start)(struct watch_source *ws);
	/* The freezer's ptrace lever, for a source that itself traces threads
	 * (a thread has one tracer, so every ptrace of the daemon must then go
	 * through it): the semantics of kfacade_ops.trace_freeze, trace_report
	 * and trace_thaw. NULL: the facade's own (kfacade_trace.c). */
	int (*trace_freeze)(struct watch_source *ws, pid_t tid);
	int (*trace_report)(struct watch_source *ws, struct trace_report *r);
	int (*trace_thaw)(struct watch_source *ws, pid_t tid, int sig);
	/* Its figures for cgfused.stat, as "key value\n" lines appended to
	 * out (events seen, lost, scans, stops ...). May be NULL. */
	void (*stat)(struct watch_source *ws, GString *out);
	void (*free)(struct watch_source *ws);
};

struct watch_source {
	const struct watch_source_ops *ops;
};

#endif
