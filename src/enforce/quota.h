/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The quota enforcer: makes cpu.cfs_quota_us / cpu.cfs_period_us (and
 * cpu.cfs_burst_us) real, and counts cpu.stat's throttling figures. See
 * docs/design.md, "CPU bandwidth".
 *
 * Per period, a capped group's CPU use is the core's own accounting (the
 * cpu controller's charge, fed by task_sample_subtree_within()), sampled
 * every tenth of a period or so and at the moment the group's rate says
 * its quota runs out. A group over its quota is throttled: every thread of
 * its subtree is held stopped for the reason TRACEE_THROTTLED in the
 * tracees shared with the freezer (enforce/tracees.h: ptrace SEIZE and
 * INTERRUPT, DETACH at the period's end unless frozen), by ONE thread. A
 * parent's quota holds its whole subtree. What a group ran over its quota
 * (the stop is never instant) is its debt: the next period's quota is
 * smaller by that much, so the share over many periods is the quota's.
 *
 * Under the core lock the enforcer only records that something changed (a
 * subscriber) and wakes its thread; passes copy the capped groups and their
 * threads under the read side and make the system calls with no lock. */
#ifndef CGFUSED_ENFORCE_QUOTA_H
#define CGFUSED_ENFORCE_QUOTA_H

#include <stdbool.h>
#include <stdint.h>

#include "core/cgroup.h"
#include "enforce/tracees.h"

#define QUOTA_NO_PASS UINT64_MAX

struct quota_stats {
	unsigned capped;		/* groups with a quota */
	unsigned throttled;		/* of those, throttled now */
	unsigned stopped;		/* threads stopped now */
	unsigned refused;		/* to stop, not traceable (frozen, debugged) */
	uint64_t passes, throttles;
};

struct quota_enforcer;

/* Subscribes to the core; NULL when no hierarchy has the cpu controller.
 * Its threads are held in tr. */
struct quota_enforcer *quota_enforcer_new(struct cg_core *core, struct tracees *tr);
/* Unsubscribes and frees, after the thread's end. NULL-safe. */
void quota_enforcer_free(struct quota_enforcer *qe);

/* One pass at now (CLOCK_MONOTONIC, ns), on the enforcer's thread: takes in
 * what stopped or exited, samples the capped groups, ends periods,
 * throttles and unthrottles. Returns when the next pass is due (ns, same
 * clock), or QUOTA_NO_PASS when nothing is capped or stopped. */
uint64_t quota_pass(struct quota_enforcer *qe, uint64_t now);

/* The descriptor that becomes readable when a pass is due at once; clear
 * it before the pass. */
int quota_kick_fd(struct quota_enforcer *qe);
void quota_kick_clear(struct quota_enforcer *qe);

const struct quota_stats *quota_stats(struct quota_enforcer *qe);

#endif
