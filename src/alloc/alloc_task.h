/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What the allocator keeps per thread, in its own table (the core's struct
 * task knows nothing of it), keyed by thread id and owned by the
 * allocator's thread: it is read and changed without the core lock. An
 * entry is made when a pass finds the thread managed (or a fork heard of
 * makes the child's from its parent's), and dropped when a pass finds it no
 * longer managed (its own nice and affinity come back first) or gone. */
#ifndef CGFUSED_ALLOC_TASK_H
#define CGFUSED_ALLOC_TASK_H

#include <stdint.h>

#include "alloc/alloc_cpus.h"
#include "core/task.h"

/* A nice value no thread has: a forked child's until a pass reads it. */
#define NICE_UNKNOWN INT8_MIN
/* escapes stops counting here. */
#define ESCAPES_MAX 511u

struct alloc_group;
struct alloc_cpuset;

/* One of these for every managed thread, so laid out without holes (an
 * 80-byte malloc chunk: `gdb -batch -ex 'ptype /o struct task_sched' src/cgfused`). */
struct task_sched {
	pid_t tid;
	pid_t tgid;			/* its process */
	uint64_t ino;			/* and its identity (struct task_ident) */
	/* In active[active_index] (alloc.c) while sampled every period: not
	 * sampled yet, runnable, or a sleeper that ran. */
	guint active_index;
	uint32_t clock;			/* a process list's head's: alloc.c's read_clock */
	/* Where the view last put it (alloc.c): managed, and in its
	 * process's list of threads (proc_prev NULL: its head, which keeps
	 * the process's clock); its group of the weighing hierarchy (NULL:
	 * the root) and its cpuset (NULL: the root's). */
	struct task_sched *proc_prev, *proc_next;
	struct alloc_group *group;
	struct alloc_cpuset *cs;
	/* Its masks and session autogroup id, a shared set (alloc_cpus.h;
	 * NULL: none known). */
	const struct cpus_set *masks;
	/* Found wider than its cpuset: re-read every pass while watch (sampled
	 * passes left, at most 50 << 6) is not 0; escapes counts the times, up
	 * to ESCAPES_MAX (alloc.c). */
	unsigned watch : 12;
	unsigned escapes : 9;
	bool managed : 1;
	bool active : 1;
	bool exited : 1;		/* its exit was heard of: no more calls */
	bool seen : 1;			/* orig_* and autogroup were read */
	bool nice_set : 1, cpus_set : 1;	/* changed by us: orig_* is what comes back */
	bool recorded : 1;		/* orig_* are in the originals file */
	bool placed_asleep : 1;		/* its nice was set while it slept */
	bool sampled : 1;		/* it was sampled once (its last sample: alloc.c) */
	bool runnable : 1;
	bool clock_known : 1;		/* clock holds a reading */
	/* Nice values (-20..19, or NICE_UNKNOWN); nice: the value it has now;
	 * owner_floor: the lowest its owner could set; own_nice: the one
	 * whose weight is counted in group's sums (alloc_weight.c). */
	int8_t orig_nice, nice, owner_floor, own_nice;
};

/* Its session autogroup id, and its masks (NULL: not known). */
static inline int task_autogroup(const struct task_sched *s)
{
	return cpus_autogroup(s->masks);
}

static inline const struct cpumask *task_orig_cpus(const struct task_sched *s)
{
	return cpus_get(s->masks, CPUS_ORIG);
}

static inline const struct cpumask *task_cpus(const struct task_sched *s)
{
	return cpus_get(s->masks, CPUS_NOW);
}

static inline const struct cpumask *task_applied_cpus(const struct task_sched *s)
{
	return cpus_get(s->masks, CPUS_APPLIED);
}

static inline const struct cpumask *task_cpuset(const struct task_sched *s)
{
	return cpus_get(s->masks, CPUS_CPUSET);
}

/* tid -> struct task_sched (which holds its shared masks). */
struct tidmap *alloc_task_table_new(void);
/* Frees the table and its entries. */
void alloc_task_table_free(struct tidmap *table);

/* The thread's entry, or NULL. */
struct task_sched *alloc_task_lookup(struct tidmap *table, pid_t tid);

/* A new entry for the thread (replacing any other of that id): not seen
 * yet, runnable until a sample says otherwise. */
struct task_sched *alloc_task_add(struct tidmap *table, pid_t tid, const struct task_ident *ident);

/* Takes the entry out and frees it. */
void alloc_task_remove(struct tidmap *table, struct task_sched *s);

/* The entries, one a call from *pos = 0 until NULL (tidmap_next()). */
struct task_sched *alloc_task_next(struct tidmap *table, guint *pos);

/* A child leaves with what its parent would (its orig_* are the parent's),
 * but has no sample, and its present nice and affinity are read again. Does
 * nothing if the parent has no entry or the child has one. */
void alloc_task_fork(struct tidmap *table, struct cpus_pool *pool, pid_t parent, pid_t child,
		     const struct task_ident *ident);

#endif
