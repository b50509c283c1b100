/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Every managed thread's effective CFS weight, from the hierarchy and the
 * threads' runnability, the way CFS group scheduling divides CPU: a group's
 * share of its parent is its cpu.shares over the sum of its runnable
 * siblings' weights (tasks in the parent count as siblings with their own
 * nice weight), divided among its runnable threads and child groups. A
 * top-level group weighs its cpu.shares against the system's other tasks,
 * as a nice-0 task weighs 1024. A sleeping thread (or group) gets what it
 * would get if it woke with every sleeping sibling, so that a group that
 * wakes at once gets no more than its share until the next pass. Works on
 * the allocator's copy of the tree (core/sched_view.h), without the core
 * lock, in time linear in groups and threads. */
#ifndef CGFUSED_ALLOC_WEIGHT_H
#define CGFUSED_ALLOC_WEIGHT_H

#include "alloc/alloc_task.h"
#include "core/sched_view.h"

struct alloc_target {
	struct task_sched *s;		/* its entry in the allocator's table */
	uint64_t leaf;			/* its cgroup's id in the weighing hierarchy */
	double weight;
	bool runnable;
};

/* Appends a target for every thread of the view in a non-root group of
 * the weighing hierarchy; sched[i] is the entry of view->tasks[i]. */
void alloc_weights(const struct sched_view *v, struct task_sched *const *sched,
		   GArray *targets);

#endif
