/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Every managed thread's effective CFS weight, from the hierarchy and the
 * threads' runnability, the way CFS group scheduling divides CPU: a group's
 * share of its parent is its cpu.shares over the sum of its runnable
 * siblings' weights (tasks in the parent count as siblings with their own
 * nice weight), divided among its runnable threads and child groups. A
 * top-level group weighs its cpu.shares against the system's other tasks,
 * as a nice-0 task weighs 1024. A sleeping thread (or group) gets what it
 * would get if it woke with every sleeping sibling, so that a group that
 * wakes at once gets no more than its share until the next pass.
 *
 * The allocator keeps its own copy of the weighing hierarchy (what
 * core/sched_view.h reports changed), without the core lock, and each
 * group's sums are kept as threads join, leave, wake and sleep and as
 * groups come, go and change shares: a change costs its group's path to
 * the top, not a walk of the hierarchy; a weight is then worked out along
 * a thread's path. */
#ifndef CGFUSED_ALLOC_WEIGHT_H
#define CGFUSED_ALLOC_WEIGHT_H

#include "alloc/alloc_task.h"
#include "core/sched_view.h"

struct alloc_group {
	uint64_t id;
	struct alloc_group *parent;	/* NULL: a top-level group */
	double shares;
	/* Its threads and child groups, and one while it is in the tree: it
	 * is freed when the last goes. */
	unsigned refs;
	bool in_tree;			/* reported and not removed */
	bool linked;			/* counted in its parent's sums */
	/* Kept up to date: runnable threads in it and busy child groups
	 * (busy: not 0), and the weights of its entities, everyone's and the
	 * runnable ones'. */
	unsigned nr_running;
	double all, runnable;
	/* Worked out once per placing (gen). */
	uint64_t gen;
	double weight;
	/* The placing's buckets of its threads (alloc.c), when stamped with
	 * its gen. */
	uint64_t bucket_gen;
	int first_bucket;
	/* The sleepers' sweep (alloc.c), in its round sweep_round: the weight
	 * the sleepers of one bucket of it were given so far less their
	 * targets. */
	unsigned sweep_round;
	int sweep_autogroup;		/* ... of the bucket of this session */
	int8_t sweep_own_nice;		/* ... and own nice */
	double sweep_debt;
};

/* id -> struct alloc_group *, and the placing's number. */
struct alloc_groups {
	GHashTable *by_id;
	uint64_t gen;
};

void alloc_groups_init(struct alloc_groups *gs);
void alloc_groups_clear(struct alloc_groups *gs);

/* The group of that id, made (with no parent and no shares yet) if it is
 * not known; referenced for the caller, who drops it with
 * alloc_group_put(). */
struct alloc_group *alloc_group_get(struct alloc_groups *gs, uint64_t id);
void alloc_group_put(struct alloc_groups *gs, struct alloc_group *g);

/* A group as the view reports it: made, or its shares changed. */
void alloc_group_set(struct alloc_groups *gs, const struct sched_group *sg);
/* Removed from the tree (the view says it is gone). */
void alloc_group_remove(struct alloc_groups *gs, uint64_t id);

/* The thread's group (NULL: not weighed; references g for itself). */
void alloc_task_set_group(struct alloc_groups *gs, struct task_sched *s,
			  struct alloc_group *g);
/* The thread's runnability, and its own weight (from orig_nice once seen):
 * its group's sums follow. */
void alloc_task_set_runnable(struct task_sched *s, bool runnable);
void alloc_task_reweigh(struct task_sched *s);

/* Starts a placing: each group's weight is worked out once from here on,
 * against the sums as they are (nothing may change them until the placing
 * ends). */
void alloc_weights_begin(struct alloc_groups *gs);

/* A thread's target weight (its group: s->group, not NULL; its
 * runnability: s->runnable), in the placing begun last. */
double alloc_task_weight(struct alloc_groups *gs, const struct task_sched *s);

#endif
