/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The freezer's enforcer: makes freezer.state real. Every thread of a
 * freezing group is held stopped for the reason TRACEE_FROZEN in the
 * tracees shared with the CPU quota (enforce/tracees.h: ptrace, by the ONE
 * enforcement thread), and let go when its group thaws, it moves out, or
 * the daemon stops; it runs again when no reason holds it. A daemon that
 * dies frees them too (the kernel detaches a dead tracer's tracees). See
 * docs/design.md, "The freezer".
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
#include "enforce/tracees.h"

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

/* Subscribes to the core; NULL when no hierarchy has the freezer. Its
 * threads are held in tr. */
struct freezer_enforcer *freezer_enforcer_new(struct cg_core *core, struct tracees *tr);
/* Unsubscribes and frees, after the thread's end. NULL-safe. */
void freezer_enforcer_free(struct freezer_enforcer *fe);

/* One pass, on the enforcer's thread: takes in what stopped or exited,
 * stops the threads that are to freeze, resumes the others. recheck: also
 * try the refused ones again. Returns whether another pass is due soon
 * (FREEZER_POLL_MS, then longer): threads are still on their way to a
 * stop, or a traced thread may have exited and be reaped. */
bool freezer_pass(struct freezer_enforcer *fe, bool recheck);
/* Whether some thread to freeze could not be traced (a recheck is due). */
bool freezer_refusing(struct freezer_enforcer *fe);

/* The descriptor that becomes readable when a pass is due; clear it
 * before the pass. */
int freezer_kick_fd(struct freezer_enforcer *fe);
void freezer_kick_clear(struct freezer_enforcer *fe);

const struct freezer_stats *freezer_stats(struct freezer_enforcer *fe);

#endif
