/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The threads the enforcers hold stopped, for every reason at once. The
 * kernel lets a thread have one tracer, and ties it to the tracer THREAD:
 * the freezer and the CPU quota share this table and run on one thread
 * (enforce/enforce_thread.c), so a thread frozen while throttled (or
 * throttled while frozen) is seized once and held by a bitmask of
 * reasons; it runs again only when no reason holds it. The ptrace calls
 * are the facade's (trace_freeze, trace_report, trace_thaw).
 *
 * A pass of one reason: tracees_begin(reason), tracees_hold() for every
 * thread it wants held, tracees_end(reason): a thread held for the reason
 * and not named since begin loses it, and one left with no reason is
 * resumed once stopped (one still on its way to a stop, at a later
 * settle). Everything runs on the enforcement thread, except
 * tracees_nr_held(), which the subscribers call under the core lock. */
#ifndef CGFUSED_ENFORCE_TRACEES_H
#define CGFUSED_ENFORCE_TRACEES_H

#include <stdbool.h>

#include "kernel/kfacade.h"

enum tracee_reason {
	TRACEE_FROZEN = 1u << 0,
	TRACEE_THROTTLED = 1u << 1,
};
#define TRACEE_NR_REASONS 2

struct tracees;

struct tracees *tracees_new(struct kfacade *kf);
/* Any still traced are set free by the kernel when the thread ends. */
void tracees_free(struct tracees *tr);

/* Takes in every stop and exit the kernel reports. */
void tracees_take_reports(struct tracees *tr);

void tracees_begin(struct tracees *tr, unsigned reason);
/* Thread tid (identity id) is to be held for reason: seized and stopped if
 * it is not yet. A thread that could not be traced (a debugger has it) is
 * remembered and tried again only with retry. */
void tracees_hold(struct tracees *tr, pid_t tid, const struct task_ident *id,
		  unsigned reason, bool retry);
void tracees_end(struct tracees *tr, unsigned reason);

/* Resumes the stopped threads that no reason holds; forgets refusals that
 * no reason wants. Called by tracees_end(). */
void tracees_settle(struct tracees *tr);

/* Resumes every thread, waiting up to timeout_ms for those not stopped
 * yet (the kernel resumes the rest when the thread ends). */
void tracees_release_all(struct tracees *tr, unsigned timeout_ms);

struct tracees_count {
	unsigned stopped;		/* held for the reason and stopped */
	unsigned stopping;		/* held, on its way to a stop */
	unsigned refused;		/* wanted, not traceable */
};
void tracees_count(struct tracees *tr, unsigned reason, struct tracees_count *c);

/* fn(data, tid, ino) for every thread held for reason and stopped. */
void tracees_for_each_stopped(struct tracees *tr, unsigned reason,
			      void (*fn)(void *data, pid_t tid, uint64_t ino), void *data);

/* Whether any thread is traced (its exits must be reaped), and whether
 * any is on its way to a stop (a pass is due soon). */
bool tracees_tracing(struct tracees *tr);
bool tracees_stopping(struct tracees *tr);
/* Any context: how many threads are held for reason (or traced on their
 * way out of it), as of the last change on the thread. */
unsigned tracees_nr_held(struct tracees *tr, unsigned reason);

#endif
