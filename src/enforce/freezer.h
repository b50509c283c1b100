/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The freezer's enforcer: makes freezer.state real. Every thread of a
 * freezing group is stopped with ptrace by ONE thread (the kernel ties a
 * tracee to its tracer thread), and resumed when its group thaws, it moves
 * out, or the daemon stops; a daemon that dies frees them too (the kernel
 * detaches a dead tracer's tracees). See docs/design.md, "The freezer".
 *
 * Under the core lock the enforcer only records that something changed
 * (a subscriber, core/notify.h) and wakes its thread; passes copy the
 * threads to freeze under the read side and make the system calls with no
 * lock. Stopped threads are confirmed to the controller (ctl/freezer.h),
 * whose freezer.state then reads FROZEN. */
#ifndef CGFUSED_ENFORCE_FREEZER_H
#define CGFUSED_ENFORCE_FREEZER_H

#include <stdbool.h>
#include <stdint.h>

#include "core/cgroup.h"

/* While threads are on their way to a stop, passes run this often. */
#define FREEZER_POLL_MS 1
/* Tracees are checked for exits, and threads that could not be traced
 * (another tracer had them) are tried again, this often. */
#define FREEZER_RECHECK_MS 500

struct freezer_stats {
	unsigned frozen;		/* threads stopped now */
	unsigned freezing;		/* traced, not stopped yet */
	unsigned refused;		/* to freeze, but not traceable (gdb, strace...) */
	uint64_t passes, freezes, thaws;
};

struct freezer_enforcer;

/* Subscribes to the core; NULL when no hierarchy has the freezer. */
struct freezer_enforcer *freezer_enforcer_new(struct cg_core *core);
/* Unsubscribes and frees, after freezer_release_all() or the thread's
 * end. NULL-safe. */
void freezer_enforcer_free(struct freezer_enforcer *fe);

/* One pass, on the enforcer's thread: takes in what stopped or exited,
 * stops the threads that are to freeze, resumes the others. recheck: also
 * try the refused ones again. Returns whether another pass is due soon
 * (FREEZER_POLL_MS, then longer): threads are still on their way to a
 * stop, or a traced thread may have exited and be reaped. */
bool freezer_pass(struct freezer_enforcer *fe, bool recheck);
/* Whether any thread is traced now (its exits must be reaped). */
bool freezer_tracing(struct freezer_enforcer *fe);
/* Resumes every thread, waiting up to timeout_ms for those not stopped
 * yet (the kernel resumes the rest when the thread ends). On the thread. */
void freezer_release_all(struct freezer_enforcer *fe, unsigned timeout_ms);

/* The descriptor that becomes readable when a pass is due; clear it
 * before the pass. */
int freezer_kick_fd(struct freezer_enforcer *fe);
void freezer_kick_clear(struct freezer_enforcer *fe);

const struct freezer_stats *freezer_stats(struct freezer_enforcer *fe);

/* The thread: a pass at each kick, and as above; its end releases every
 * thread. NULL-safe. */
struct freezer_thread;
struct freezer_thread *freezer_thread_start(struct freezer_enforcer *fe);
void freezer_thread_stop(struct freezer_thread *th);

#endif
