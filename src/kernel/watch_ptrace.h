/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The ptrace task-watch source (kernel/watch.h): every held thread is
 * seized with PTRACE_O_TRACEFORK/VFORK/CLONE/EXEC/EXIT, so its children are
 * traced from their first instruction and every fork, exec and exit is an
 * event stop, in any PID or user namespace where this process may trace its
 * tasks. One tracer thread owns every ptrace of the daemon (the kernel
 * ties a tracee to its tracer thread): holds, releases and the freezer's
 * trace_freeze/trace_thaw are handed to it and waited for.
 *
 * Never PTRACE_O_EXITKILL: when the daemon dies, even by SIGKILL, the kernel
 * detaches its tracees and they run on (a group-stopped one stays stopped,
 * as job control wants). A thread another tracer has (gdb, strace) cannot
 * be held: hold() fails with -EBUSY, and the facade's task_open with it. */
#ifndef CGFUSED_WATCH_PTRACE_H
#define CGFUSED_WATCH_PTRACE_H

#include "kernel/watch.h"

/* The source, its tracer thread started at its first use (and again in a
 * child after a fork, such as daemonizing: the held threads are seized
 * again there). Blocks SIGCHLD in
 * the calling thread, which every thread started after it inherits: the
 * tracer thread reads it from a signalfd. NULL, with why appended, when
 * this process may not trace (watch_sources.h's watch_source_new_fn). */
struct watch_source *watch_ptrace_new(GString *why);

#endif
