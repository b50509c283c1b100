/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What the allocator needs of the tree, copied under the core lock so
 * that it can read /proc and make its system calls with the lock let go
 * (the kernel's scheduler reads the task groups; cgfused's allocator reads
 * this copy). A copy is memory only: group ids, parents and weights of the
 * weighing hierarchy, the managed threads' ids and groups, the cpusets'
 * CPUs.
 *
 * The copy is of what changed: the allocator's subscriber callbacks mark
 * the groups and threads they hear of (mkdir, rmdir, a written file, an
 * attach, a fork, an exit) with sched_view_mark_*() under the core lock,
 * and sched_view_take() copies those alone, in time proportional to the
 * marks, not to the tree (a cpuset's mark copies its subtree's CPUs: its
 * children's effective CPUs follow it). A mark made while the allocator
 * works on the last copy without the lock lands in the next one.
 *
 * The marks are guarded by the core lock: made under its write side (the
 * subscriber callbacks), taken and cleared under its read side by the one
 * thread that owns the view (the allocator's), which no other reader
 * touches. The changes a take returns are that thread's alone. */
#ifndef CGFUSED_SCHED_VIEW_H
#define CGFUSED_SCHED_VIEW_H

#include "core/cgroup.h"

/* A non-root group of the weighing hierarchy. */
struct sched_group {
	uint64_t id;
	uint64_t parent;		/* 0: a top-level group (its parent is the root) */
	double shares;			/* ss->weight */
	bool gone;			/* removed: only id is set */
};

/* A non-root cpuset. */
struct sched_cpuset {
	uint64_t id;
	struct cpumask cpus;		/* its effective CPUs */
	bool gone;			/* removed: only id is set */
};

/* A thread that was marked. */
struct sched_task {
	pid_t tid;
	struct task_ident ident;
	uint64_t group;			/* its group of the weighing hierarchy; 0: its root */
	uint64_t cpuset;		/* 0: the root cpuset */
	/* Not managed (any more): gone, or in the root of every hierarchy
	 * (init_css_set); only tid is set. */
	bool gone;
};

struct sched_view {
	/* Marked under the core lock since the last take. */
	GHashTable *dirty_groups;	/* cgroup ids (as pointers), any hierarchy */
	GHashTable *dirty_tasks;	/* tids */
	bool dirty_all;			/* the whole tree: the first copy */
	/* What the last take found, for the owner to take in. */
	GArray *groups;			/* struct sched_group */
	GArray *cpusets;		/* struct sched_cpuset */
	GArray *tasks;			/* struct sched_task */
	bool empty;			/* no group but the roots, no task */
};

/* Starts with everything marked: the first take copies the whole tree
 * (the owner starts from nothing). */
void sched_view_init(struct sched_view *v);
void sched_view_clear(struct sched_view *v);

/* Marks, for the next take (called locked, the write side). A group: its
 * weight, or its CPUs and its subtree's, or its removal (before it is
 * gone, while its id can still be read). A task: where it is now, or that
 * it is gone. */
void sched_view_mark_group(struct sched_view *v, const struct cgroup *cgrp);
void sched_view_mark_task(struct sched_view *v, const struct task *t);
/* Everything: which groups have a controller changed (v2's
 * cgroup.subtree_control), and so every task's group may have. */
void sched_view_mark_all(struct sched_view *v);

/* Takes the core lock, takes in the kernel's reports (whose events mark
 * more), and copies what was marked into v's arrays (emptied first);
 * returns whether anything was. weight_ssid, cpus_ssid: the controllers
 * whose weight and cpus methods are read (-1: none). Not called locked. */
bool sched_view_take(struct cg_core *core, int weight_ssid, int cpus_ssid,
		     struct sched_view *v);

/* Whether controller ssid is mounted on a hierarchy. Takes the core lock. */
bool sched_view_mounted(struct cg_core *core, int ssid);

/* A thread's figures read without the lock, to be charged. */
struct sched_sample {
	pid_t tid;
	struct task_ident ident;
	struct task_cputime now;
};

/* Takes the core lock and charges each sample to the thread's groups (a
 * gone or reused id, or a sample older than a move's charge, is skipped). */
void sched_view_charge(struct cg_core *core, const struct sched_sample *s, unsigned n);

#endif
