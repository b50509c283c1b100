/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What the allocator keeps per thread, in its own table (the core's struct
 * task knows nothing of it), keyed by thread id and owned by the
 * allocator's thread: it is read and changed without the core lock. An
 * entry is made when a pass finds the thread managed (or a fork heard of
 * makes the child's from its parent's), and dropped when a pass finds it no
 * longer managed (its own nice and affinity come back first) or gone. */
#ifndef CGFUSED_ALLOC_TASK_H
#define CGFUSED_ALLOC_TASK_H

#include <limits.h>

#include "core/task.h"

/* A nice value no thread has: a forked child's until a pass reads it. */
#define NICE_UNKNOWN INT_MIN

struct alloc_group;
struct alloc_cpuset;

struct task_sched {
	pid_t tid;
	struct task_ident ident;
	/* Where the view last put it (alloc.c): managed, in order[order_index]
	 * and in its process's list of threads; its group of the weighing
	 * hierarchy (NULL: the root) and its cpuset (NULL: the root's). */
	bool managed;
	guint order_index;
	/* In active[active_index]: sampled every period (not sampled yet, or
	 * runnable). */
	bool active;
	guint active_index;
	struct task_sched *proc_prev, *proc_next;
	struct alloc_group *group;
	struct alloc_cpuset *cs;
	double own;			/* its own weight, as counted in group's sums */
	bool exited;			/* its exit was heard of: no more calls */
	bool seen;			/* orig_* and autogroup were read */
	bool nice_set, cpus_set;	/* changed by us: orig_* is what comes back */
	bool recorded;			/* orig_* are in the originals file */
	bool placed_asleep;		/* its nice was set while it slept */
	int orig_nice, nice;		/* nice: the value it has now */
	int owner_floor;		/* the lowest nice its owner could set */
	/* Shared copies (alloc_cpus.h; NULL: not known). cpus: the affinity
	 * it has now; applied_cpus: what we last gave it; cpuset: its
	 * cpuset's CPUs when last placed. */
	const struct cpumask *orig_cpus, *cpus, *applied_cpus, *cpuset;
	/* Found wider than its cpuset: re-read every pass while watch (sampled
	 * passes left) is not 0; escapes counts the times (alloc.c). */
	unsigned watch, escapes;
	int autogroup;			/* session autogroup id */
	bool sampled;			/* run_ns/wait_ns/at_ns hold a sample */
	bool runnable;
	uint64_t run_ns, wait_ns, at_ns;
};

/* tid -> struct task_sched * (which holds its shared masks). */
GHashTable *alloc_task_table_new(void);

/* The thread's entry, or NULL. */
struct task_sched *alloc_task_lookup(GHashTable *table, pid_t tid);

/* A new entry for the thread (replacing any other of that id): not seen
 * yet, runnable until a sample says otherwise. */
struct task_sched *alloc_task_add(GHashTable *table, pid_t tid, const struct task_ident *ident);

/* A child leaves with what its parent would (its orig_* are the parent's),
 * but has no sample, and its present nice and affinity are read again. Does
 * nothing if the parent has no entry or the child has one. */
void alloc_task_fork(GHashTable *table, pid_t parent, pid_t child,
		     const struct task_ident *ident);

#endif
