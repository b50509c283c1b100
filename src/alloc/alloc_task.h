/* What the allocator keeps per thread, in its own table (the core's struct
 * task knows nothing of it): an entry is made when a thread enters a group
 * (an attach or a fork heard of, or the first pass that finds it managed)
 * and dropped when the core drops the task (its exit event). Keyed by the
 * core's struct task, which lives until that event. Used under the core
 * lock. */
#ifndef CGFUSED_ALLOC_TASK_H
#define CGFUSED_ALLOC_TASK_H

#include "core/task.h"

struct task_sched {
	bool seen;			/* orig_* and autogroup were read */
	bool nice_set, cpus_set;	/* changed by us: orig_* is what comes back */
	int orig_nice, nice;		/* nice: the value it has now */
	struct cpumask orig_cpus, cpus;	/* cpus: the affinity it has now */
	struct cpumask applied_cpus;	/* what we last gave it */
	int autogroup;			/* session autogroup id */
	bool sampled;			/* run_ns/wait_ns/at_ns hold a sample */
	bool runnable;
	uint64_t run_ns, wait_ns, at_ns;
};

/* struct task * -> struct task_sched *. */
GHashTable *alloc_task_table_new(void);

/* The thread's entry, or NULL. */
struct task_sched *alloc_task_lookup(GHashTable *table, const struct task *t);

/* The thread's entry, made if it has none: not seen yet, runnable until a
 * sample says otherwise. */
struct task_sched *alloc_task_get(GHashTable *table, const struct task *t);

/* A child starts with its parent's nice and affinity (it was born with
 * them, and leaves with what the parent would), but with no sample. */
void alloc_task_fork(GHashTable *table, const struct task *parent, const struct task *child);

#endif
