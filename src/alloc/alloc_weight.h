/* Every managed thread's effective CFS weight, from the hierarchy and the
 * threads' runnability, the way CFS group scheduling divides CPU: a group's
 * share of its parent is its cpu.shares over the sum of its runnable
 * siblings' weights (tasks in the parent count as siblings with their own
 * nice weight), divided among its runnable threads and child groups. A
 * top-level group weighs its cpu.shares against the system's other tasks,
 * as a nice-0 task weighs 1024. A sleeping thread (or group) gets what it
 * would get if it woke with every sleeping sibling, so that a group that
 * wakes at once gets no more than its share until the next pass. Called
 * locked. */
#ifndef CGFUSED_ALLOC_WEIGHT_H
#define CGFUSED_ALLOC_WEIGHT_H

#include "alloc/alloc_task.h"

struct alloc_target {
	struct task *t;
	struct task_sched *s;		/* its entry in the allocator's table */
	struct cgroup *leaf;		/* its cgroup in the weighing hierarchy */
	double weight;
	bool runnable;
};

/* The hierarchy whose controller number ssid has a weight method. */
struct cg_root *alloc_weight_root(struct cg_core *core, int ssid);

/* Appends a target for every thread in a non-root cgroup of that
 * hierarchy; sched is the allocator's per-thread table (alloc_task.h),
 * which has an entry for each. */
void alloc_weights(struct cg_core *core, int ssid, GHashTable *sched, GArray *targets);

#endif
