/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The allocator's own header, for src/alloc/alloc*.c alone: its state
 * (struct allocator), its tunables, and the functions its files share.
 * alloc.c runs the passes; the other files hold one job each. */
#ifndef CGFUSED_ALLOC_INTERNAL_H
#define CGFUSED_ALLOC_INTERNAL_H

#include <glib.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "alloc/alloc.h"
#include "alloc/alloc_cpus.h"
#include "alloc/alloc_nice.h"
#include "alloc/alloc_orig.h"
#include "alloc/alloc_task.h"
#include "alloc/alloc_weight.h"
#include "core/notify.h"
#include "core/sched_view.h"
#include "lib/clock.h"

/* A thread that is runnable now, or was (running or waiting for a CPU) for
 * this much of the last period, counts as runnable. */
#define RUNNABLE_FRACTION 0.2
/* Every this many sampled passes (5 s), the runnable threads' nice values
 * and affinities are read back, to catch changes made behind our back. */
#define RECONCILE_PASSES 50
/* Sleeping threads are checked by process (one clock read) once in this
 * many periods, and at most SLEEPER_BUDGET processes a period: with 10,000
 * sleeping processes each is checked every 10 s (see sample_sleepers). */
#define SLEEPER_PASSES 4
#define SLEEPER_BUDGET 100
/* ... walking at most this many threads a period for them (the heads of
 * the processes' lists): the threads of one process of 10,000 are all
 * walked in 10 periods. */
#define SLEEPER_WALK 1024
/* A thread found with an affinity wider than its cpuset (the kernel knows
 * nothing of our cpusets: it lets a thread widen its own affinity, and says
 * nothing of it) is re-read every pass for WATCH_PASSES sampled passes (5
 * s), doubled at each new escape up to 64 times that (5 min); while watched,
 * one found more than once is also re-read every ALLOC_RECHECK_MS. Others
 * cost a read a sampled pass while runnable in a cpuset (reread_affinity),
 * sleepers none. */
#define WATCH_PASSES 50
#define WATCH_MAX_SHIFT 6
/* A pass gives its CPU up (sched_yield) after this much work, checked at
 * each system call of its loops and every BREATH_STEPS threads of plain
 * computation: the FUSE workers share the
 * daemon's CPUs with it, and a request that wakes while a placing of
 * 10,000 threads runs would otherwise wait for the scheduler's tick (4 ms
 * here), as user space has no cond_resched(). No lock is held there. */
#define BREATH_NS 200000
#define BREATH_STEPS 64
/* Managed threads that left (exited, or back in the root) may leave a
 * session with none: a walk of every thread tells, at most once in this
 * many sampled passes (1 s), so that exits cost no walk each. */
#define DEPART_PASSES 10
/* The sleepers' sweep (sweep_sleepers): slots of the table looked at a
 * pass while a change may have moved sleepers' targets; a round of 10,000
 * threads takes 10 passes. */
#define SWEEP_WALK 1024
/* Pass times kept for cgfused.stat's percentiles. */
#define PASS_RING 256

/* A session autogroup that has managed threads. */
struct autogroup {
	int id;
	pid_t tid;			/* a member, to reach it through /proc */
	int orig_nice, nice;
	int floor;			/* this pass: the highest owner_floor of its threads */
	bool nice_set;
	bool recorded;			/* orig_nice is in the originals file */
	/* Every thread of the session is managed (check_sessions): only then
	 * is its nice, the whole session's, ours to set. */
	bool whole;
	double weight;			/* this pass: its runnable threads' target */
	GArray *buckets;		/* struct nice_bucket */
	double scale;			/* its last mapping's (nice_map_buckets) */
};

/* A non-root cpuset, as the view reports it; its threads reference it. */
struct alloc_cpuset {
	uint64_t id;
	const struct cpumask *cpus;	/* a shared copy (alloc_cpus.h) */
	unsigned refs;			/* its threads, and one while in the tree */
	bool in_tree;
};

/* An event heard under the core lock, taken in by the next pass. */
struct alloc_event {
	bool fork;			/* else an exit */
	pid_t tid, parent;
	struct task_ident ident;
};

/* A thread sampled every period (in active[s->active_index]) and its last
 * sample (at_ns 0: none yet): time on a CPU plus time waiting for one,
 * both counters that only grow, so one sum tells how busy it was since. */
struct active {
	struct task_sched *s;
	uint64_t busy_ns, at_ns;
};

struct allocator {
	struct cg_core *core;
	struct cg_subscriber sub;
	int weight_ssid, cpus_ssid;	/* -1: no such controller mounted */
	bool may_lower;			/* CAP_SYS_NICE */
	/* The lowest nice it may give a thread of its own user (shown in
	 * cgfused.stat): NICE_MIN, or 20 - its own RLIMIT_NICE (NICE_MAX + 1:
	 * only raised from each thread's own). */
	int nice_lowest;
	/* Set by the core's events (any thread, under the core lock). */
	GMutex events_lock;		/* after the core lock; guards events */
	GArray *events;			/* struct alloc_event */
	int kick_fd;
	atomic_bool kicked;		/* the thread has been woken */
	/* Its marks are made by the core's events under the core lock; the
	 * rest is the allocator thread's (core/sched_view.h). */
	struct sched_view view;
	/* The allocator thread's own (alloc_pass, alloc_free). */
	unsigned managed;		/* threads in the table with managed set */
	/* Those sampled every period, with their last samples (a sleeper
	 * keeps none), and the ids of those whose originals are to be read:
	 * a pass need not look at every managed thread. */
	GArray *active;			/* struct active */
	guint active_peak;		/* its largest length since made */
	GArray *unseen;			/* pid_t */
	/* A placing's buckets (a few a leaf group): a placing keeps no
	 * array of its threads, it walks the table twice (place_tasks). */
	GArray *bucket_refs;		/* struct bucket_ref */
	struct tidmap *tasks;		/* struct task_sched, by tid (alloc_task.h) */
	struct alloc_groups groups;	/* the weighing hierarchy (alloc_weight.h) */
	GHashTable *cpusets;		/* id -> struct alloc_cpuset * */
	struct cpus_pool cpus_pool;	/* the threads' masks (alloc_cpus.h) */
	/* A process's managed threads are a list (proc_next) whose head is
	 * its leader when that is managed; the heads that are not, by tgid
	 * (find_head). The sleepers' rotation walks the table (cursor). */
	struct tidmap heads;		/* struct task_sched, by tgid */
	guint cursor;
	GArray *charges;		/* struct sched_sample */
	unsigned rotation;
	GHashTable *autogroups;		/* id -> struct autogroup * */
	GHashTable *watched;		/* tids of threads with watch set */
	struct alloc_orig *orig;	/* the originals file, or NULL */
	unsigned recorded;		/* live records in it */
	bool repeat;			/* one of them escaped more than once */
	struct alloc_stats st;
	uint64_t ring[PASS_RING];	/* the last passes' times, ns */
	uint64_t cpu_ring[PASS_RING];	/* ... and the CPU time they took */
	bool changed;			/* a sample or a new thread changed the picture */
	/* A placing walks the active threads only (every runnable one is
	 * there, and every thread the view reported), unless a cpuset's CPUs
	 * changed (every member's affinity follows) or managed threads left
	 * (their sessions may be left empty: DEPART_PASSES). Sleepers'
	 * targets are then kept within a nice step by a sweep in slices. */
	bool cpus_changed, departed;
	unsigned full_rotation;		/* a departure's walk not before it */
	guint sweep_pos, sweep_left;	/* slots left in the sweep's round */
	unsigned sweep_round;
	bool sessions_stale;		/* check_sessions before weighing sessions */
	bool dithering;			/* the last placing dithers in time */
	bool sessions_weighed;		/* ... and weighs sessions against each other */
	bool empty;			/* no group but the roots, no task */
	uint64_t breath_ns;		/* when this pass last gave its CPU up */
	unsigned steps;			/* of breathe_step() */
	/* What cgfused.stat shows (read under the core lock by on_stat). */
	GMutex shown_lock;		/* after the core lock */
	struct alloc_stats shown;
	uint64_t p50_ns, p99_ns, p99_cpu_ns;
};

/* Buckets: threads of one leaf group (whose list of buckets holds the
 * key), one session, one own nice and one runnability share a target
 * weight and are dithered together. */
struct bucket_key {
	double weight;
	int autogroup, orig_nice;
	bool runnable;
};

struct autogroup;

/* A bucket of this placing, in a list of its leaf group's. */
struct bucket_ref {
	struct bucket_key key;
	struct autogroup *ag;
	guint bucket;			/* in ag's buckets */
	unsigned taken;			/* ranks the second walk gave out */
	int next;			/* the group's next, or -1 */
};

/* alloc_sample.c */
void activate(struct allocator *a, struct task_sched *s);
void deactivate(struct allocator *a, struct task_sched *s);
struct task_sched *find_head(struct allocator *a, pid_t tgid);
void read_clock(struct allocator *a, struct task_sched *head);
void sample_tasks(struct allocator *a);

/* alloc_session.c */
void free_autogroup(gpointer p);
struct autogroup *autogroup_of(struct allocator *a, const struct task_sched *s);
void forget_autogroups(struct allocator *a);
void weigh_autogroups(struct allocator *a, bool full);
void end_autogroup_pass(struct allocator *a, bool full);

/* alloc_place.c */
int floor_nice(const struct allocator *a, const struct task_sched *s);
void place_tasks(struct allocator *a, bool full);
void sweep_sleepers(struct allocator *a);

/* alloc_place_cpus.c */
void free_cpuset(gpointer p);
struct alloc_cpuset *cpuset_get(struct allocator *a, uint64_t id);
void cpuset_put(struct allocator *a, struct alloc_cpuset *cs);
void cpuset_set(struct allocator *a, const struct sched_cpuset *sc);
void cpuset_remove(struct allocator *a, uint64_t id);
bool inside(const struct task_sched *s, const struct cpumask *cpuset);
void recheck_watched(struct allocator *a, bool sampled);
void apply_cpus(struct allocator *a, struct task_sched *s);

/* alloc_originals.c */
bool may_lower_to(const struct allocator *a, const struct task_sched *s, int nice);
bool raise_only(const struct allocator *a, const struct task_sched *s);
void restore_task(struct allocator *a, struct task_sched *s);
void record_task(struct allocator *a, struct task_sched *s);
void forget_task(struct allocator *a, struct task_sched *s);
void say_nice_range(struct allocator *a);
void reread_affinity(struct allocator *a, struct task_sched *s);
void reconcile_task(struct allocator *a, struct task_sched *s);
void give_back_leftovers(struct allocator *a);
void end_originals(struct allocator *a, bool placed);
void see_new(struct allocator *a);

/* alloc_hooks.c: the allocator's subscriber (its callbacks), for
 * alloc_new(). */
struct cg_subscriber alloc_subscriber(struct allocator *a);

/* alloc.c */
void breathe(struct allocator *a);
void breathe_step(struct allocator *a);
void count_call(struct allocator *a, uint64_t *counter, int ret);
void set_nice(struct allocator *a, struct task_sched *s, int nice);
void keep(struct allocator *a, struct task_sched *s, enum cpus_which w,
	  const struct cpumask *m);
void set_cpus(struct allocator *a, struct task_sched *s, const struct cpumask *cpus);
void manage(struct allocator *a, struct task_sched *s);

#endif
