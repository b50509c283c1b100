/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The allocator: makes the hierarchy's settings real. It computes every
 * managed thread's group-fair CFS weight (alloc_weight.c), turns weights
 * into nice values (alloc_nice.c), and applies them and the cpusets'
 * effective CPUs to the threads through the kernel facade, only where they
 * changed. A thread is managed while it is in a non-root cgroup; when it
 * leaves (moved to the root, or the daemon stops) its original nice and
 * affinity come back.
 *
 * Passes run on the allocator's thread (alloc_thread.c): after a change
 * (alloc_kick) and every ALLOC_PERIOD_MS, when threads are also sampled for
 * accounting and runnability. */
#ifndef CGFUSED_ALLOC_H
#define CGFUSED_ALLOC_H

#include "core/task.h"

#define ALLOC_PERIOD_MS 100

struct alloc_stats {
	unsigned managed;		/* threads in non-root groups */
	uint64_t passes, placings, samples;	/* placings: passes that weighed */
	/* Placings that walked every thread (else the active ones), threads
	 * placings walked, and sleepers the sweep looked at (alloc.c). */
	uint64_t full_placings, placed, swept;
	uint64_t nice_calls, affinity_calls, autogroup_calls, failed_calls;
	uint64_t last_pass_ns, max_pass_ns;	/* wall clock, yields included */
	uint64_t last_pass_cpu_ns, max_pass_cpu_ns;	/* the allocator thread's CPU time */
	double last_error;		/* worst relative error of a group's weight */
	/* Sessions with managed threads whose autogroup is not cgfused's to
	 * weigh: they hold unmanaged threads too (last placing). */
	unsigned autogroups_left_alone;
	/* Times a member was found with an affinity wider than its cpuset. */
	uint64_t escapes;
	/* What the passes copied under the core lock (groups and cpusets,
	 * threads): what changed, not the tree (core/sched_view.h). */
	uint64_t copied_groups, copied_tasks;
	unsigned weighed_groups;	/* groups in the allocator's own copy */
	uint64_t yields;		/* times a pass gave its CPU up (alloc.c) */
};

struct allocator;

/* Takes the core's controllers with weight/cpus methods and subscribes to
 * the core's events (core/notify.h): they mark its copy of the tree stale
 * (forks and exits are queued for its per-thread table, alloc_task.h) and
 * kick it; a thread moved back to the root of every hierarchy gets its
 * original nice and affinity back at the next pass; cgfused.stat shows its
 * figures. Its events_lock and shown_lock are leaves after the core lock
 * (docs/design.md, "Locks and threads"). */
struct allocator *alloc_new(struct cg_core *core);
/* Unsubscribes and gives every managed thread its original nice and
 * affinity back. Called with the thread stopped; NULL-safe. */
void alloc_free(struct allocator *a);

/* Keeps the originals of what it changes in STATE.orig (alloc_orig.h), and
 * takes in what a daemon killed before it left there: threads and sessions
 * still managed stay managed with those originals, the others get them
 * back after the first pass. Before the thread starts. false and err if
 * the file is refused. */
bool alloc_keep_originals(struct allocator *a, const char *state, const char *boot_id,
			  GError **err);

/* One pass; sample also reads the runnable threads' CPU use (and some
 * sleepers'). Takes the core lock only to copy the tree when it changed
 * and to charge samples (core/sched_view.h); not called locked. */
void alloc_pass(struct allocator *a, bool sample);

/* Something changed: a pass should run soon. Any context. */
void alloc_kick(struct allocator *a);
/* The descriptor that becomes readable after a kick (for the thread). */
int alloc_kick_fd(struct allocator *a);
/* Clears the kick before a pass. */
void alloc_kick_clear(struct allocator *a);

/* Whether threads found widening their affinity more than once are to be
 * re-read every ALLOC_RECHECK_MS between passes (alloc_recheck). */
#define ALLOC_RECHECK_MS 10
bool alloc_rechecking(struct allocator *a);
/* Re-reads those threads' affinity and puts them back inside their
 * cpusets: no pass, no lock, one call per such thread. */
void alloc_recheck(struct allocator *a);

const struct alloc_stats *alloc_stats(struct allocator *a);

#endif
