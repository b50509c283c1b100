/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What the allocator needs of the tree, copied under the core lock so
 * that it can read /proc and make its system calls with the lock let go
 * (the kernel's scheduler reads the task groups; cgfused's allocator reads
 * this copy). A copy is memory only: group ids, parents and weights of the
 * weighing hierarchy, the managed threads' ids, groups and cpusets' CPUs.
 * It is taken only when the caller says something changed: a pass that
 * finds nothing changed costs the lock and a catch-up, nothing per thread. */
#ifndef CGFUSED_SCHED_VIEW_H
#define CGFUSED_SCHED_VIEW_H

#include "core/cgroup.h"

struct sched_group {
	uint64_t id;
	int parent;			/* index in groups; -1 for the root */
	double shares;			/* ss->weight */
};

struct sched_task {
	pid_t tid;
	struct task_ident ident;
	int group;			/* index in groups; -1: not weighed */
	int cpus;			/* index in cpus; -1: the root cpuset */
};

struct sched_view {
	GArray *groups;			/* struct sched_group, parents first */
	GArray *tasks;			/* struct sched_task: threads not in init_css_set */
	GArray *cpus;			/* struct cpumask: the cpusets' effective CPUs */
	bool empty;			/* no group but the roots, no task */
};

void sched_view_init(struct sched_view *v);
void sched_view_clear(struct sched_view *v);

/* Takes the core lock, takes in the kernel's reports (whose events may
 * make changed() true), and copies into v if changed(data) says so (it is
 * asked under the lock, after the catch-up); returns whether it copied.
 * weight_ssid, cpus_ssid: the controllers whose weight and cpus methods
 * are read (-1: none). Not called locked. */
bool sched_view_take(struct cg_core *core, int weight_ssid, int cpus_ssid,
		     bool (*changed)(void *data), void *data, struct sched_view *v);

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
