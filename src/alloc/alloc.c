/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The allocator's passes: copy, sample, weigh, map, apply. Only the copy
 * (core/sched_view.h) and the charging of samples take the core lock; the
 * /proc reads and the system calls are made without it. */
#include "alloc/alloc.h"

#include <errno.h>
#include <malloc.h>
#include <math.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

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

/* In a loop over threads: yields if BREATH_NS of work went by since the
 * last time. A clock read (vDSO): for loops that make system calls. */
static void breathe(struct allocator *a)
{
	uint64_t now = mono_ns();

	if (now - a->breath_ns < BREATH_NS)
		return;
	sched_yield();
	a->st.yields++;
	a->breath_ns = mono_ns();
}

/* The same, looking at the clock every BREATH_STEPS steps: for loops of
 * plain computation. */
static void breathe_step(struct allocator *a)
{
	if (++a->steps % BREATH_STEPS == 0)
		breathe(a);
}

static void free_autogroup(gpointer p)
{
	struct autogroup *ag = p;

	if (ag->buckets)
		g_array_unref(ag->buckets);
	g_free(ag);
}

int alloc_kick_fd(struct allocator *a)
{
	return a->kick_fd;
}

void alloc_kick(struct allocator *a)
{
	uint64_t one = 1;

	if (atomic_exchange(&a->kicked, true))
		return;
	if (write(a->kick_fd, &one, sizeof(one)) < 0)
		g_warning("allocator: cannot wake: %s", g_strerror(errno));
}

void alloc_kick_clear(struct allocator *a)
{
	uint64_t n;

	atomic_store(&a->kicked, false);
	if (read(a->kick_fd, &n, sizeof(n)) < 0 && errno != EAGAIN)
		g_warning("allocator: %s", g_strerror(errno));
}

static void count_call(struct allocator *a, uint64_t *counter, int ret)
{
	(*counter)++;
	if (ret < 0 && ret != -ESRCH)
		a->st.failed_calls++;
}

static void set_nice(struct allocator *a, struct task_sched *s, int nice)
{
	struct kfacade *kf = a->core->kf;
	int ret = kf->ops->set_nice(kf, s->tid, nice);

	count_call(a, &a->st.nice_calls, ret);
	if (ret == 0)
		s->nice = nice;
}

/* One of the thread's masks made a shared copy of m. */
static void keep(struct allocator *a, struct task_sched *s, enum cpus_which w,
		 const struct cpumask *m)
{
	cpus_set_keep(&a->cpus_pool, &s->masks, w, m);
}

static void set_cpus(struct allocator *a, struct task_sched *s, const struct cpumask *cpus)
{
	struct kfacade *kf = a->core->kf;
	int ret = kf->ops->set_affinity(kf, s->tid, cpus);

	count_call(a, &a->st.affinity_calls, ret);
	if (ret == 0) {
		keep(a, s, CPUS_NOW, cpus);
		keep(a, s, CPUS_APPLIED, cpus);
	}
}

/* Whether the daemon may give the thread nice back although it is lower
 * than what it has now. */
static bool may_lower_to(const struct allocator *a, const struct task_sched *s, int nice)
{
	return a->may_lower || nice >= s->owner_floor;
}

/* Whether its nice can go down again to its floor (floor_nice): if not,
 * every raise is for good, and its bucket is not dithered in time. */
static bool raise_only(const struct allocator *a, const struct task_sched *s)
{
	return !may_lower_to(a, s, s->orig_nice);
}

/* A thread leaves management while alive: its original nice and affinity
 * come back (a gone one has nothing to give back, and its id may be
 * another thread's by now). */
static void restore_task(struct allocator *a, struct task_sched *s)
{
	if (!s->exited && s->nice_set && may_lower_to(a, s, s->orig_nice))
		set_nice(a, s, s->orig_nice);
	if (!s->exited && s->cpus_set)
		set_cpus(a, s, task_orig_cpus(s));
	s->nice_set = s->cpus_set = false;
	s->watch = 0;
}

/* The thread's originals into the file (written before any change). */
static void record_task(struct allocator *a, struct task_sched *s)
{
	struct orig_task t = { s->tid, s->ino, s->orig_nice, { { 0 } } };

	if (!a->orig || s->recorded || !task_orig_cpus(s))
		return;
	t.cpus = *task_orig_cpus(s);
	alloc_orig_add_task(a->orig, &t);
	s->recorded = true;
	a->recorded++;
}

/* Given back or gone: the file forgets it. */
static void forget_task(struct allocator *a, struct task_sched *s)
{
	if (!s->recorded)
		return;
	alloc_orig_drop_task(a->orig, s->tid, s->ino);
	s->recorded = false;
	a->recorded--;
}

/* A thread the last daemon managed (a kill -9 left its originals in the
 * file): its originals are those, and what it has now is ours to change
 * and give back. */
static bool adopt_task(struct allocator *a, struct task_sched *s)
{
	struct orig_task t;

	if (!a->orig || !alloc_orig_take_task(a->orig, s->tid, s->ino, &t))
		return false;
	s->orig_nice = t.nice;
	keep(a, s, CPUS_ORIG, &t.cpus);
	keep(a, s, CPUS_APPLIED, task_cpus(s));
	s->nice_set = s->cpus_set = true;
	s->recorded = true;
	a->recorded++;
	return true;
}

/* The lowest nice the thread may be given: any for root's, else
 * 20 - RLIMIT_NICE (the kernel's can_nice()): cgfused lends no user more
 * priority than the user could take. A daemon without
 * CAP_SYS_NICE can itself lower a nice only that far, whoever owns the
 * thread (a user namespace's root too); NICE_MAX + 1 (RLIMIT_NICE 0):
 * not at all. Unknown: NICE_MAX (only what it has, with floor_nice). */
static int owner_floor(const struct allocator *a, pid_t tid)
{
	struct kfacade *kf = a->core->kf;
	struct task_uids uids;
	int rlim;

	if (kf->ops->task_uids(kf, tid, &uids) < 0 || kf->ops->nice_rlimit(kf, tid, &rlim) < 0)
		return NICE_MAX;
	if (!a->may_lower)
		return CLAMP(20 - rlim, NICE_MIN, NICE_MAX + 1);
	if (uids.uid == 0 || uids.euid == 0)
		return NICE_MIN;
	return CLAMP(20 - rlim, NICE_MIN, NICE_MAX);
}

static void activate(struct allocator *a, struct task_sched *s);

/* Without CAP_SYS_NICE: the range the kernel leaves it (the daemon's own
 * RLIMIT_NICE stands for its user's threads', which decide for each). */
static void say_nice_range(struct allocator *a)
{
	struct kfacade *kf = a->core->kf;
	int rlim = 0;

	if (kf->ops->nice_rlimit(kf, getpid(), &rlim) < 0)
		rlim = 0;
	a->nice_lowest = CLAMP(20 - rlim, NICE_MIN, NICE_MAX + 1);
	if (a->nice_lowest > NICE_MAX)
		g_message("no CAP_SYS_NICE and RLIMIT_NICE 0: nice values can only be raised "
			  "from each thread's own, never lowered or restored, and sessions are "
			  "weighed only downwards; RLIMIT_NICE 20 gives nice 0 to 19 both ways; "
			  "see cgfused(8)");
	else
		g_message("no CAP_SYS_NICE: nice values %d to 19 (RLIMIT_NICE %d), a thread's "
			  "own RLIMIT_NICE decides for it; see cgfused(8)", a->nice_lowest, rlim);
}

/* Reads what the thread has before we change anything. */
static void see_task(struct allocator *a, struct task_sched *s)
{
	struct kfacade *kf = a->core->kf;
	int nice = 0, ag = 0, ag_nice = 0;
	struct cpumask cpus;

	if (kf->ops->get_nice(kf, s->tid, &nice) < 0)
		return;
	if (kf->ops->get_affinity(kf, s->tid, &cpus) < 0)
		return;
	keep(a, s, CPUS_ORIG, &cpus);
	kf->ops->get_autogroup(kf, s->tid, &ag, &ag_nice);
	s->owner_floor = (int8_t)owner_floor(a, s->tid);
	s->orig_nice = s->nice = nice;
	keep(a, s, CPUS_NOW, task_orig_cpus(s));
	cpus_set_autogroup(&a->cpus_pool, &s->masks, ag);
	s->seen = true;
	a->changed = true;
	activate(a, s);		/* placed by the next placing */
	if (!adopt_task(a, s))
		record_task(a, s);
	alloc_task_reweigh(s);	/* its own nice is known now */
}

/* An affinity the thread set itself (outside its cpuset, the kernel lets
 * it): what it has now is compared with, a difference calls for a placing.
 * One system call: every sampled pass does it for the runnable members of
 * a cpuset, so that an escape lasts a pass (100 ms), not a reconcile's 5 s. */
static void reread_affinity(struct allocator *a, struct task_sched *s)
{
	struct kfacade *kf = a->core->kf;
	struct cpumask cpus;

	if (s->cpus_set && kf->ops->get_affinity(kf, s->tid, &cpus) == 0 &&
	    (!task_cpus(s) || !cpumask_equal(&cpus, task_cpus(s)))) {
		keep(a, s, CPUS_NOW, &cpus);
		a->changed = true;
	}
}

/* Catches changes made by others (a renice, an affinity the task set
 * itself outside its cpuset, a new session): what it has now is what we
 * compare with, and a difference calls for a placing. Runnable threads
 * only: a sleeper's nice matters when it wakes, and a wake-up places it
 * again. */
static void reconcile_task(struct allocator *a, struct task_sched *s)
{
	struct kfacade *kf = a->core->kf;
	int nice, ag, ag_nice;

	if (kf->ops->get_autogroup(kf, s->tid, &ag, &ag_nice) == 0 && ag != task_autogroup(s)) {
		cpus_set_autogroup(&a->cpus_pool, &s->masks, ag);
		a->sessions_stale = a->changed = true;
	}
	if (s->nice_set && kf->ops->get_nice(kf, s->tid, &nice) == 0 && nice != s->nice) {
		s->nice = nice;
		a->changed = true;
	}
	reread_affinity(a, s);
}

/* Takes in the forks and exits heard of since the last pass. */
static void take_events(struct allocator *a)
{
	GArray *ev;

	g_mutex_lock(&a->events_lock);
	ev = a->events;
	a->events = g_array_new(FALSE, FALSE, sizeof(struct alloc_event));
	g_mutex_unlock(&a->events_lock);
	for (guint i = 0; i < ev->len; i++) {
		const struct alloc_event *e = &g_array_index(ev, struct alloc_event, i);
		struct task_sched *s;

		if (e->fork) {
			alloc_task_fork(a->tasks, &a->cpus_pool, e->parent, e->tid, &e->ident);
			s = alloc_task_lookup(a->tasks, e->tid);
			if (s && s->seen)
				record_task(a, s);
			/* Born with the affinity of a parent that widens its own. */
			if (s && s->watch)
				g_hash_table_add(a->watched, GINT_TO_POINTER(e->tid));
		}
		else if ((s = alloc_task_lookup(a->tasks, e->tid)) && s->ino == e->ident.ino)
			s->exited = true;
	}
	g_array_unref(ev);
}

static void free_cpuset(gpointer p)
{
	struct alloc_cpuset *cs = p;

	cpus_unref(cs->cpus);
	g_free(cs);
}

static struct alloc_cpuset *cpuset_get(struct allocator *a, uint64_t id)
{
	struct alloc_cpuset *cs = g_hash_table_lookup(a->cpusets, &id);

	if (!cs) {
		cs = g_new0(struct alloc_cpuset, 1);
		cs->id = id;
		g_hash_table_insert(a->cpusets, &cs->id, cs);
	}
	cs->refs++;
	return cs;
}

static void cpuset_put(struct allocator *a, struct alloc_cpuset *cs)
{
	if (cs && --cs->refs == 0)
		g_hash_table_remove(a->cpusets, &cs->id);
}

static void cpuset_set(struct allocator *a, const struct sched_cpuset *sc)
{
	struct alloc_cpuset *cs = cpuset_get(a, sc->id);

	const struct cpumask *was = cs->cpus;

	if (!cs->in_tree) {
		cs->in_tree = true;
		cs->refs++;
	}
	cpus_keep(&a->cpus_pool, &cs->cpus, &sc->cpus);
	/* Shared copies: another mask is another pointer. A new cpuset has
	 * no member yet (they come as reported threads). */
	a->cpus_changed |= was && cs->cpus != was;
	cpuset_put(a, cs);
}

static void cpuset_remove(struct allocator *a, uint64_t id)
{
	struct alloc_cpuset *cs = g_hash_table_lookup(a->cpusets, &id);

	if (cs && cs->in_tree) {
		cs->in_tree = false;
		cpuset_put(a, cs);
	}
}

/* The thread is sampled every period from now on (no sample yet). */
static void activate(struct allocator *a, struct task_sched *s)
{
	struct active e = { s, 0, 0 };

	if (s->active)
		return;
	s->active = true;
	s->active_index = a->active->len;
	g_array_append_val(a->active, e);
	a->active_peak = MAX(a->active_peak, a->active->len);
}

/* ... no longer: its sample goes (the last entry takes its place). */
static void deactivate(struct allocator *a, struct task_sched *s)
{
	struct active *last;

	if (!s->active)
		return;
	s->active = false;
	last = &g_array_index(a->active, struct active, a->active->len - 1);
	if (last->s != s) {
		g_array_index(a->active, struct active, s->active_index) = *last;
		last->s->active_index = s->active_index;
	}
	g_array_set_size(a->active, a->active->len - 1);
}

/* After many threads were sampled every period (a write of a large
 * process's id, placing its threads at once), few are: the array is made
 * anew, not kept at its largest. */
static void shrink_active(struct allocator *a)
{
	GArray *arr = a->active;

	if (a->active_peak <= 1024 || arr->len * 8 >= a->active_peak)
		return;
	a->active = g_array_sized_new(FALSE, FALSE, sizeof(struct active), arr->len);
	g_array_append_vals(a->active, arr->data, arr->len);
	a->active_peak = arr->len;
	g_array_unref(arr);
}

/* The head of the managed threads of process tgid, or NULL. */
static struct task_sched *find_head(struct allocator *a, pid_t tgid)
{
	struct task_sched *leader = alloc_task_lookup(a->tasks, tgid);

	if (leader && leader->managed)
		return leader;
	return tidmap_lookup(&a->heads, tgid);
}

/* The process's CPU clock at the last look: its low 32 bits (a clock
 * that moved by exactly a multiple of 2^32 ns between two looks is missed
 * once). */
static void read_clock(struct allocator *a, struct task_sched *head)
{
	struct kfacade *kf = a->core->kf;
	uint64_t now = 0;

	head->clock_known = kf->ops->process_cputime(kf, head->tgid, &now) == 0;
	head->clock = (uint32_t)now;
}

/* The thread is managed: counted, and in its process's threads (no entry
 * of its own for a process: a thread alone heads its list). */
static void manage(struct allocator *a, struct task_sched *s)
{
	struct task_sched *head = find_head(a, s->tgid);

	if (s->managed)
		return;
	s->managed = true;
	a->managed++;
	s->proc_prev = s->proc_next = NULL;
	if (head && s->tid == s->tgid) {
		/* The leader heads the list from now on. */
		tidmap_remove(&a->heads, s->tgid);
		s->proc_next = head;
		head->proc_prev = s;
		s->clock = head->clock;
		s->clock_known = head->clock_known;
	} else if (head) {
		s->proc_prev = head;
		s->proc_next = head->proc_next;
		if (head->proc_next)
			head->proc_next->proc_prev = s;
		head->proc_next = s;
	} else {
		if (s->tid != s->tgid)
			tidmap_insert(&a->heads, s);
		/* From now on: its first check finds that it ran only if it
		 * did (one clock read, not a /proc read per thread). */
		read_clock(a, s);
	}
	/* Not sampled yet: runnable until a sample says otherwise. */
	activate(a, s);
	if (!s->seen)
		g_array_append_val(a->unseen, s->tid);
}

/* Out of its process's list: the next thread heads it if it headed it. */
static void unlink_proc(struct allocator *a, struct task_sched *s)
{
	struct task_sched *next = s->proc_next;

	if (next)
		next->proc_prev = s->proc_prev;
	if (s->proc_prev) {
		s->proc_prev->proc_next = next;
	} else {
		if (s->tid != s->tgid)
			tidmap_remove(&a->heads, s->tgid);
		if (next) {
			next->clock = s->clock;
			next->clock_known = s->clock_known;
			tidmap_insert(&a->heads, next);	/* not the leader: s was */
		}
	}
	s->proc_prev = s->proc_next = NULL;
}

/* The thread is no longer managed (or no longer the same thread): its
 * entry leaves every list and the table. */
static void drop_task(struct allocator *a, struct task_sched *s)
{
	if (s->managed) {
		s->managed = false;
		a->managed--;
		deactivate(a, s);
		unlink_proc(a, s);
	}
	alloc_task_set_group(&a->groups, s, NULL);
	cpuset_put(a, s->cs);
	alloc_task_remove(a->tasks, s);
}

/* A thread the view reports: where it is now, or that it is no longer
 * managed (its own nice and affinity come back). */
static void take_task(struct allocator *a, const struct sched_task *t)
{
	struct task_sched *s = alloc_task_lookup(a->tasks, t->tid);
	struct alloc_group *g;
	struct alloc_cpuset *cs;

	if (t->gone) {
		if (s) {
			a->departed |= s->group != NULL;
			restore_task(a, s);
			forget_task(a, s);
			drop_task(a, s);
		}
		return;
	}
	/* Another thread of the same id: the old one is gone. */
	if (s && (s->ino != t->ident.ino || s->exited)) {
		forget_task(a, s);
		drop_task(a, s);
		s = NULL;
	}
	if (!s)
		s = alloc_task_add(a->tasks, t->tid, &t->ident);
	manage(a, s);
	/* Moved, forked or placed: placed by the next placing, which walks
	 * the active threads (a sample then tells whether it sleeps). */
	activate(a, s);
	g = t->group ? alloc_group_get(&a->groups, t->group) : NULL;
	a->departed |= s->group && !g;
	alloc_task_set_group(&a->groups, s, g);
	alloc_group_put(&a->groups, g);
	cs = t->cpuset ? cpuset_get(a, t->cpuset) : NULL;
	cpuset_put(a, s->cs);
	s->cs = cs;
}

/* What the view found changed: groups and cpusets first (a thread's new
 * group may be new), then the threads (those that left a group before it
 * was removed), then the removals. */
static void take_view(struct allocator *a)
{
	const struct sched_view *v = &a->view;

	for (guint i = 0; i < v->groups->len; i++) {
		const struct sched_group *g = &g_array_index(v->groups, struct sched_group, i);

		if (!g->gone)
			alloc_group_set(&a->groups, g);
	}
	for (guint i = 0; i < v->cpusets->len; i++) {
		const struct sched_cpuset *cs = &g_array_index(v->cpusets, struct sched_cpuset, i);

		if (!cs->gone)
			cpuset_set(a, cs);
	}
	for (guint i = 0; i < v->tasks->len; i++) {
		take_task(a, &g_array_index(v->tasks, struct sched_task, i));
		breathe(a);
	}
	for (guint i = 0; i < v->groups->len; i++) {
		const struct sched_group *g = &g_array_index(v->groups, struct sched_group, i);

		if (g->gone)
			alloc_group_remove(&a->groups, g->id);
	}
	for (guint i = 0; i < v->cpusets->len; i++) {
		const struct sched_cpuset *cs = &g_array_index(v->cpusets, struct sched_cpuset, i);

		if (cs->gone)
			cpuset_remove(a, cs->id);
	}
	a->changed = true;
	a->sessions_stale = true;
}

/* Reads one thread's CPU figures (an active one: its sample is kept in
 * active), tells whether it is runnable, and keeps the sample to charge. A
 * first sample tells little: a new thread counts as runnable, a sleeper
 * that ran (sample_sleepers) as runnable if it is now; each is sampled
 * again next period, and one found asleep then leaves active. */
static void sample_task(struct allocator *a, struct task_sched *s)
{
	struct kfacade *kf = a->core->kf;
	struct sched_sample sample = { s->tid, { s->ino, s->tgid }, { 0 } };
	struct active *e = &g_array_index(a->active, struct active, s->active_index);
	uint64_t at = mono_ns(), now_busy;
	bool runnable;

	if (s->exited || kf->ops->task_cputime(kf, s->tgid, s->tid, &sample.now) < 0)
		return;
	a->st.samples++;
	now_busy = sample.now.run_ns + sample.now.wait_ns;
	if (e->at_ns)
		runnable = sample.now.runnable ||
			   now_busy - MIN(now_busy, e->busy_ns) >=
				   RUNNABLE_FRACTION * (double)(at - e->at_ns);
	else
		runnable = !s->sampled || sample.now.runnable;
	a->changed |= s->sampled && runnable != s->runnable;
	alloc_task_set_runnable(s, runnable);
	g_array_append_val(a->charges, sample);
	if (e->at_ns && !runnable) {
		deactivate(a, s);
	} else {
		e->busy_ns = now_busy;
		e->at_ns = at;
	}
	s->sampled = true;
}

/* Sleepers are checked by process: while its CPU clock has not moved none
 * of its threads ran, so none woke. The heads of the processes' lists in
 * turn, walking a quarter of the table a period (at most SLEEPER_WALK
 * threads) and reading at most SLEEPER_BUDGET clocks. */
static void sample_sleepers(struct allocator *a)
{
	struct kfacade *kf = a->core->kf;
	guint end = a->cursor + MAX(tidmap_slots(a->tasks) / SLEEPER_PASSES, 1u), read = 0;
	struct task_sched *head;

	for (guint walked = 0; read < SLEEPER_BUDGET && walked < SLEEPER_WALK && a->cursor < end;
	     walked++) {
		uint64_t now = 0;
		bool ran;

		if (!(head = tidmap_next(a->tasks, &a->cursor))) {
			end -= MIN(end, a->cursor);
			a->cursor = 0;	/* round again */
			if (!tidmap_size(a->tasks))
				break;
			continue;
		}
		if (!head->managed || head->proc_prev)
			continue;
		read++;
		ran = kf->ops->process_cputime(kf, head->tgid, &now) < 0 || !head->clock_known ||
		      (uint32_t)now != head->clock;
		head->clock_known = true;
		head->clock = (uint32_t)now;
		breathe(a);
		if (!ran)
			continue;
		for (struct task_sched *s = head; s; s = s->proc_next)
			if (!s->active) {
				activate(a, s);
				sample_task(a, s);
			}
	}
}

/* Reads the runnable threads' CPU figures every period (one that waits
 * for a CPU all period long does not run, but is still runnable), the
 * sleepers' now and then (sample_sleepers), and charges them: reading is
 * what the allocator's time goes to (a /proc read costs 6-14 us on this
 * kind of machine). */
static void sample_tasks(struct allocator *a)
{
	/* Backwards: one that leaves active is replaced by one seen already. */
	for (guint i = a->active->len; i-- > 0;) {
		sample_task(a, g_array_index(a->active, struct active, i).s);
		breathe(a);
	}
	sample_sleepers(a);
	shrink_active(a);
	sched_view_charge(a->core, (const struct sched_sample *)a->charges->data, a->charges->len);
	/* Many (the first samples of many new threads): not kept for good. */
	if (a->charges->len > 1024) {
		g_array_unref(a->charges);
		a->charges = g_array_new(FALSE, FALSE, sizeof(struct sched_sample));
	}
	g_array_set_size(a->charges, 0);
}

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

static bool bucket_key_equal(const struct bucket_key *x, const struct bucket_key *y)
{
	return x->weight == y->weight && x->autogroup == y->autogroup &&
	       x->orig_nice == y->orig_nice && x->runnable == y->runnable;
}

/* A session's original nice into the file, or, if the last daemon changed
 * it, taken from there. */
static void record_autogroup(struct allocator *a, struct autogroup *ag,
			     const struct task_sched *s)
{
	struct orig_autogroup rec = { ag->id, s->tid, s->ino, ag->orig_nice };

	if (!a->orig || ag->id == AUTOGROUP_ROOT)	/* never changed */
		return;
	if (alloc_orig_take_autogroup(a->orig, ag->id, &rec)) {
		ag->orig_nice = rec.nice;
		ag->nice_set = ag->nice != ag->orig_nice;
	} else {
		alloc_orig_add_autogroup(a->orig, &rec);
	}
	ag->recorded = true;
	a->recorded++;
}

static struct autogroup *autogroup_of(struct allocator *a, const struct task_sched *s)
{
	gpointer key = GINT_TO_POINTER(task_autogroup(s));
	struct autogroup *ag = g_hash_table_lookup(a->autogroups, key);

	if (!ag) {
		struct kfacade *kf = a->core->kf;
		int id;

		ag = g_new0(struct autogroup, 1);
		ag->floor = NICE_MIN;
		ag->id = task_autogroup(s);
		ag->tid = s->tid;
		kf->ops->get_autogroup(kf, s->tid, &id, &ag->orig_nice);
		ag->nice = ag->orig_nice;
		record_autogroup(a, ag, s);
		g_hash_table_insert(a->autogroups, key, ag);
	}
	if (!ag->buckets)
		ag->buckets = g_array_new(FALSE, TRUE, sizeof(struct nice_bucket));
	ag->tid = s->tid;
	return ag;
}

/* The lowest nice the mapping may give a thread: what its owner could set
 * (unprivileged: what the daemon can set), or its own if lower. Where
 * that is its own and RLIMIT_NICE does not reach it, its nice only goes
 * up (raise_only): the nice it has now, which cannot come down, bounds
 * the mapping, so that the others are raised to keep the ratios (a group
 * whose threads were raised while another had few must not stay behind
 * when the other grows). */
static int floor_nice(const struct allocator *a, const struct task_sched *s)
{
	if (raise_only(a, s) && s->nice != NICE_UNKNOWN)
		return MAX(s->orig_nice, s->nice);
	return MIN(s->orig_nice, s->owner_floor);
}

/* The bucket of key in its leaf group g (the few of a group are listed
 * from it, stamped with the placing's number gen): its index in refs, or
 * -1. */
static int find_bucket(GArray *refs, struct alloc_group *g, uint64_t gen,
		       const struct bucket_key *key)
{
	if (g->bucket_gen != gen) {
		g->bucket_gen = gen;
		g->first_bucket = -1;
	}
	for (int r = g->first_bucket; r >= 0; r = g_array_index(refs, struct bucket_ref, r).next)
		if (bucket_key_equal(&g_array_index(refs, struct bucket_ref, r).key, key))
			return r;
	return -1;
}

/* A weighed thread's key: its target weight, session, own nice and
 * runnability. */
static struct bucket_key key_of(struct allocator *a, const struct task_sched *s)
{
	return (struct bucket_key){ alloc_task_weight(&a->groups, s), task_autogroup(s), s->orig_nice,
				    s->runnable };
}

/* The threads a placing walks, one a call from *pos = 0 until NULL: the
 * whole table, or the active threads only. */
static struct task_sched *placing_next(struct allocator *a, bool full, guint *pos)
{
	if (full)
		return alloc_task_next(a->tasks, pos);
	return *pos < a->active->len ? g_array_index(a->active, struct active, (*pos)++).s : NULL;
}

/* A placing's first walk: every weighed thread counted in its bucket (by
 * session, leaf group, own nice and runnability). The second walk
 * (place_nice) finds the same bucket again and takes the next rank in it:
 * neither the table nor the active threads change in between, so both
 * walk them in one order. */
static void bucket_tasks(struct allocator *a, bool full)
{
	GArray *refs = a->bucket_refs;
	uint64_t gen = a->groups.gen;	/* this placing's (alloc_weights_begin) */
	struct task_sched *s;

	g_array_set_size(refs, 0);
	for (guint pos = 0; (s = placing_next(a, full, &pos));) {
		struct alloc_group *g = s->group;
		struct autogroup *ag;
		struct bucket_key k;
		struct bucket_ref *ref;
		struct nice_bucket *b;
		int r;

		if (!s->managed || !g)
			continue;
		breathe_step(a);
		ag = autogroup_of(a, s);
		k = key_of(a, s);
		if ((r = find_bucket(refs, g, gen, &k)) < 0) {
			struct nice_bucket nb = { .weight = k.weight, .counted = k.runnable,
						  .min_nice = NICE_MIN };
			struct bucket_ref nr = { k, ag, ag->buckets->len, 0, g->first_bucket };

			g_array_append_val(ag->buckets, nb);
			r = g->first_bucket = (int)refs->len;
			g_array_append_val(refs, nr);
		}
		ref = &g_array_index(refs, struct bucket_ref, r);
		b = &g_array_index(ag->buckets, struct nice_bucket, ref->bucket);
		b->nr++;
		b->min_nice = MAX(b->min_nice, floor_nice(a, s));
		b->raise_only |= raise_only(a, s);
		if (k.runnable)
			ag->weight += k.weight;
		a->st.placed++;
		ag->floor = MAX(ag->floor, s->owner_floor);
	}
}

/* A session left with no weighed thread gets its autogroup's nice back
 * (through the member last seen; a gone one means the session may be gone
 * too) and is forgotten: it is not tried again every pass, and the table
 * does not keep every session that ever had a managed thread. */
static void forget_autogroups(struct allocator *a)
{
	struct kfacade *kf = a->core->kf;
	GHashTableIter iter;
	struct autogroup *ag;

	g_hash_table_iter_init(&iter, a->autogroups);
	while (g_hash_table_iter_next(&iter, NULL, (gpointer *)&ag)) {
		if (ag->buckets && ag->buckets->len)
			continue;
		if (ag->nice != ag->orig_nice)
			count_call(a, &a->st.autogroup_calls,
				   kf->ops->set_autogroup_nice(kf, ag->tid, ag->orig_nice));
		if (ag->recorded) {
			alloc_orig_drop_autogroup(a->orig, ag->id);
			a->recorded--;
		}
		g_hash_table_iter_remove(&iter);
	}
}

/* Which sessions have only managed threads. A session's autogroup nice
 * weighs every thread of the session, and one that also holds threads
 * cgfused does not manage (a user's process in root's login session, the
 * shell that started it) is not cgfused's to change: those are
 * left alone, as is the root autogroup of init's session (kernel threads
 * and every process never moved to a session of its own; its nice cannot
 * be set). One /proc read per process of the system, so only when
 * sessions are to be weighed, after a new copy of the tree or a reconcile. */
static void check_sessions(struct allocator *a)
{
	struct kfacade *kf = a->core->kf;
	GArray *procs = g_array_new(FALSE, FALSE, sizeof(pid_t));
	GArray *tids = g_array_new(FALSE, FALSE, sizeof(pid_t));
	bool listed = kf->ops->all_tasks(kf, procs, true) == 0;
	GHashTableIter iter;
	struct autogroup *ag;

	g_hash_table_iter_init(&iter, a->autogroups);
	while (g_hash_table_iter_next(&iter, NULL, (gpointer *)&ag))
		ag->whole = listed && ag->id != AUTOGROUP_ROOT;	/* init's is never */
	for (guint i = 0; listed && i < procs->len; i++) {
		pid_t pid = g_array_index(procs, pid_t, i);
		int id, nice;

		breathe(a);
		if (kf->ops->get_autogroup(kf, pid, &id, &nice) < 0)
			continue;
		ag = g_hash_table_lookup(a->autogroups, GINT_TO_POINTER(id));
		if (!ag || !ag->whole)
			continue;
		g_array_set_size(tids, 0);
		if (kf->ops->thread_ids(kf, pid, tids) < 0)
			continue;
		for (guint k = 0; k < tids->len && ag->whole; k++) {
			const struct task_sched *s =
				alloc_task_lookup(a->tasks, g_array_index(tids, pid_t, k));

			ag->whole = s && !s->exited;
		}
	}
	g_array_unref(procs);
	g_array_unref(tids);
	a->sessions_stale = false;
}

/* Sessions weigh against each other by their autogroup's nice alone. When
 * managed threads run in more than one, each session's nice is set from its
 * runnable threads' total target weight (unprivileged: only upwards from
 * the heaviest, which stays as it is). One session: left as it was. */
static void weigh_autogroups(struct allocator *a, bool full)
{
	struct kfacade *kf = a->core->kf;
	GHashTableIter iter;
	struct autogroup *ag;
	unsigned busy = 0;
	double heaviest = 0;

	g_hash_table_iter_init(&iter, a->autogroups);
	while (g_hash_table_iter_next(&iter, NULL, (gpointer *)&ag)) {
		if (ag->weight > 0)
			busy++;
		heaviest = MAX(heaviest, ag->weight);
	}
	a->sessions_weighed = busy > 1;
	if (busy > 1 && a->sessions_stale)
		check_sessions(a);
	a->st.autogroups_left_alone = 0;
	g_hash_table_iter_init(&iter, a->autogroups);
	while (g_hash_table_iter_next(&iter, NULL, (gpointer *)&ag)) {
		int want = ag->orig_nice;

		/* No thread of it walked (an active walk): it sleeps, or
		 * is left with none, which only a full walk can tell. */
		if (!full && !(ag->buckets && ag->buckets->len))
			continue;
		if (busy > 1 && !ag->whole)
			a->st.autogroups_left_alone++;	/* not ours: as it was */
		else if (busy > 1 && ag->weight > 0)
			want = a->may_lower ? MAX(weight_to_nice(ag->weight), MIN(ag->orig_nice, ag->floor))
					    : MAX(ag->orig_nice, weight_to_nice(ag->weight * 1024 / heaviest));
		if (want == ag->nice || (busy > 1 && ag->weight == 0 && ag->whole))
			continue;
		int ret = kf->ops->set_autogroup_nice(kf, ag->tid, want);

		/* Without CAP_SYS_ADMIN the kernel takes one autogroup write
		 * in 100 ms, system-wide: not a failure, the next pass tries
		 * again. */
		if (ret == -EAGAIN) {
			a->st.autogroup_calls++;
			a->changed = true;
			continue;
		}
		count_call(a, &a->st.autogroup_calls, ret);
		if (ret == 0) {
			ag->nice = want;
			ag->nice_set = want != ag->orig_nice;
		}
	}
}

/* A sleeping thread's nice matters only when it runs: once placed asleep,
 * it is left alone while it is within a nice step of its target (a placing
 * when a sibling comes or goes does not re-nice every sleeper), and placed
 * exactly again when a sample finds it awake. */
static bool near_enough(struct task_sched *s, int want)
{
	if (s->runnable) {
		s->placed_asleep = false;
		return false;
	}
	if (s->placed_asleep && abs(want - s->nice) <= 1)
		return true;
	s->placed_asleep = true;
	return false;
}

/* Whether a bucket's nice values move from pass to pass: a fractional
 * count of heavy threads is dithered in time, and with a whole count of
 * runnable ones that is not all of them the heavier nice goes round, or
 * equal threads would keep unequal shares for good. */
static bool rotates(const struct nice_bucket *b)
{
	return b->nr_heavy != floor(b->nr_heavy) ||
	       (b->counted && b->nr_heavy > 0 && b->nr_heavy < b->nr);
}

/* Maps every session's buckets to nice values. */
static void map_buckets(struct allocator *a)
{
	GHashTableIter iter;
	struct autogroup *ag;
	double worst = 0;

	g_hash_table_iter_init(&iter, a->autogroups);
	while (g_hash_table_iter_next(&iter, NULL, (gpointer *)&ag)) {
		ag->scale = 1;	/* no runnable thread: what a mapping gives */
		if (ag->buckets && ag->buckets->len)
			worst = MAX(worst, nice_map_buckets((struct nice_bucket *)ag->buckets->data,
							    ag->buckets->len, true, &ag->scale));
	}
	a->st.last_error = worst;
	a->dithering = false;
}

static void apply_nice(struct allocator *a, struct task_sched *s, int want);

/* A weighed thread's nice: its rank in its bucket (bucket_tasks). */
static void place_nice(struct allocator *a, struct task_sched *s)
{
	struct bucket_key k = key_of(a, s);
	int r = find_bucket(a->bucket_refs, s->group, a->groups.gen, &k);
	struct bucket_ref *ref;
	const struct nice_bucket *b;
	int want;

	g_assert(r >= 0);
	ref = &g_array_index(a->bucket_refs, struct bucket_ref, r);
	b = &g_array_index(ref->ag->buckets, struct nice_bucket, ref->bucket);
	a->dithering |= !b->raise_only && rotates(b);
	/* Where nice only goes up, dithering would ratchet it up to 19. */
	want = nice_bucket_pick(b, ref->taken++, b->raise_only ? 0 : a->rotation);
	apply_nice(a, s, want);
}

/* Gives the thread nice want (a sleeper: within a step of it). */
static void apply_nice(struct allocator *a, struct task_sched *s, int want)
{
	if (!s->seen || s->exited)
		return;
	/* A forked child's is unknown (alloc_task_fork). */
	if (s->nice == NICE_UNKNOWN) {
		int nice;

		if (a->core->kf->ops->get_nice(a->core->kf, s->tid, &nice) < 0)
			return;
		s->nice = (int8_t)nice;
	}
	if (want < s->nice && !may_lower_to(a, s, want))
		want = s->nice;
	if (near_enough(s, want) || want == s->nice)
		return;
	s->nice_set = true;
	set_nice(a, s, want);
}

static bool inside(const struct task_sched *s, const struct cpumask *cpuset)
{
	const struct cpumask *cpus = task_cpus(s);

	return cpus && cpuset && !cpumask_empty(cpus) && cpumask_subset(cpus, cpuset);
}

static void watch_task(struct allocator *a, struct task_sched *s)
{
	s->escapes = MIN(s->escapes + 1u, ESCAPES_MAX);
	s->watch = WATCH_PASSES << MIN(s->escapes - 1, WATCH_MAX_SHIFT);
	g_hash_table_add(a->watched, GINT_TO_POINTER(s->tid));
	a->repeat |= s->escapes > 1;
	a->st.escapes++;
}

/* Gives the thread its cpuset's CPUs. An affinity that is not what we gave
 * it was set by the thread (or its owner), who may narrow it, not widen it:
 * it keeps the part inside the cpuset (what sched_setaffinity gives inside
 * a kernel cpuset), or the cpuset if none. What we gave it follows the
 * cpuset, also when the cpuset grows. */
static void place_cpus(struct allocator *a, struct task_sched *s, const struct cpumask *want)
{
	struct cpumask to = *want;

	/* Shared copies: the same mask is the same pointer. */
	if (s->cpus_set && task_cpus(s) && task_cpus(s) != task_applied_cpus(s)) {
		if (!inside(s, task_cpuset(s)))
			watch_task(a, s);
		cpumask_and(&to, task_cpus(s), want);
		if (cpumask_empty(&to))
			to = *want;
	}
	keep(a, s, CPUS_CPUSET, want);
	if (!s->cpus_set || !task_cpus(s) || !cpumask_equal(task_cpus(s), &to)) {
		s->cpus_set = true;
		set_cpus(a, s, &to);
	}
}

/* Re-reads the watched threads' affinity and puts a widened one back; a
 * sampled pass counts their watch down. */
static void recheck_watched(struct allocator *a, bool sampled)
{
	struct kfacade *kf = a->core->kf;
	GHashTableIter iter;
	gpointer key;

	a->repeat = false;
	g_hash_table_iter_init(&iter, a->watched);
	while (g_hash_table_iter_next(&iter, &key, NULL)) {
		struct task_sched *s = alloc_task_lookup(a->tasks, GPOINTER_TO_INT(key));

		if (!s || s->exited || !s->cpus_set || !s->watch) {
			if (s)
				s->watch = 0;
			g_hash_table_iter_remove(&iter);
			continue;
		}
		struct cpumask cpus;

		if (kf->ops->get_affinity(kf, s->tid, &cpus) == 0) {
			keep(a, s, CPUS_NOW, &cpus);
			if (!inside(s, task_cpuset(s)))
				place_cpus(a, s, task_cpuset(s));
		}
		s->watch -= sampled;
		a->repeat |= s->escapes > 1;
	}
}

bool alloc_rechecking(struct allocator *a)
{
	return a->repeat;
}

void alloc_recheck(struct allocator *a)
{
	recheck_watched(a, false);
}

static void apply_cpus(struct allocator *a, struct task_sched *s)
{
	const struct cpumask *want = s->cs ? s->cs->cpus : NULL;

	if (!want) {
		if (s->cpus_set) {
			set_cpus(a, s, task_orig_cpus(s));
			s->cpus_set = false;
			s->watch = 0;
		}
		return;
	}
	/* A forked child's is unknown (alloc_task_fork): what it was born
	 * with may be its parent's own narrower choice, which it keeps. */
	if (!task_cpus(s)) {
		struct cpumask cpus;

		if (a->core->kf->ops->get_affinity(a->core->kf, s->tid, &cpus) < 0)
			return;
		keep(a, s, CPUS_NOW, &cpus);
	}
	/* Shared copies: the same mask is the same pointer, and what we gave
	 * it is inside the cpuset it was placed in. */
	if (s->cpus_set && task_cpuset(s) == want &&
	    (task_cpus(s) == task_applied_cpus(s) || inside(s, want)))
		return;
	place_cpus(a, s, want);
}

/* A session's floor is the highest of the threads counted since the last
 * walk of them all: an active walk only raises it. */
static void end_autogroup_pass(struct allocator *a, bool full)
{
	GHashTableIter iter;
	struct autogroup *ag;

	g_hash_table_iter_init(&iter, a->autogroups);
	while (g_hash_table_iter_next(&iter, NULL, (gpointer *)&ag)) {
		if (ag->buckets)
			g_array_set_size(ag->buckets, 0);
		ag->weight = 0;
		if (full)
			ag->floor = NICE_MIN;
	}
}

static void new_work_arrays(struct allocator *a)
{
	a->active = g_array_new(FALSE, FALSE, sizeof(struct active));
	a->active_peak = 0;
	a->bucket_refs = g_array_new(FALSE, FALSE, sizeof(struct bucket_ref));
}

static void free_work_arrays(struct allocator *a)
{
	g_array_unref(a->active);
	g_array_unref(a->bucket_refs);
}

/* What a placing gives any managed thread besides its nice: its own nice
 * back if it left its groups, its cpuset's CPUs. */
static void place_rest(struct allocator *a, struct task_sched *s)
{
	if (!s->seen || s->exited)
		return;
	if (!s->group && s->nice_set) {
		if (may_lower_to(a, s, s->orig_nice))
			set_nice(a, s, s->orig_nice);
		s->nice_set = false;
	}
	apply_cpus(a, s);
}

/* Weighs the managed threads and applies nice values and affinities: two
 * walks, the first to count the buckets, the second to pick and apply (no
 * array of the threads is made: the per-task memory goal). Of the whole
 * table (full), or of the active threads: every runnable thread is active,
 * so every runnable bucket is whole and the weights come out the same; the
 * sleepers are left to sweep_sleepers. Only a full walk knows which
 * sessions are left with no thread, to forget them. */
static void place_tasks(struct allocator *a, bool full)
{
	struct task_sched *s;

	/* Weighed against the same sums all along: nothing changes them
	 * until the placing ends, breathing included. */
	alloc_weights_begin(&a->groups);
	bucket_tasks(a, full);
	if (full)
		forget_autogroups(a);
	/* The originals on file before anything is changed. */
	if (a->orig)
		alloc_orig_flush(a->orig);
	weigh_autogroups(a, full);
	map_buckets(a);
	for (guint pos = 0; (s = placing_next(a, full, &pos));) {
		if (!s->managed)
			continue;
		breathe_step(a);
		if (s->group)
			place_nice(a, s);
		place_rest(a, s);
	}
	end_autogroup_pass(a, full);
}

/* A sleeper weighed alone (the sweep), at the scale its session's last
 * mapping chose: what the sleepers of its bucket (its group, session and
 * own nice: a placing's bucket) were given in this round so far beyond
 * their targets is taken off its own (error diffusion), so that the
 * bucket's total comes out as a placing's would (three threads at nice 6
 * and one at 7 for four of weight 256, not four at 6). The group keeps
 * one bucket's debt: a sleeper of another starts it afresh (a nice-10
 * thread's rounding is not a nice-0 sibling's to make up). */
static void sweep_nice(struct allocator *a, struct task_sched *s)
{
	struct autogroup *ag = g_hash_table_lookup(a->autogroups,
						   GINT_TO_POINTER(task_autogroup(s)));
	double scale = ag ? ag->scale : 1, aim;
	struct alloc_group *g = s->group;

	if (g->sweep_round != a->sweep_round || g->sweep_autogroup != task_autogroup(s) ||
	    g->sweep_own_nice != s->orig_nice) {
		g->sweep_round = a->sweep_round;
		g->sweep_autogroup = task_autogroup(s);
		g->sweep_own_nice = s->orig_nice;
		g->sweep_debt = 0;
	}
	aim = MAX(alloc_task_weight(&a->groups, s) - g->sweep_debt, 1e-9);
	apply_nice(a, s, nice_map_one(aim, floor_nice(a, s), scale));
	if (s->nice != NICE_UNKNOWN)
		g->sweep_debt = nice_to_weight(s->nice) / scale - aim;
}

/* Keeps the sleepers that no placing walked within a nice step of their
 * targets, and their affinities in their cpusets, after a change that
 * may have moved them (a group made, removed or given other shares, a
 * thread moved in or out of theirs): SWEEP_WALK slots of the table a
 * pass, until a whole round went by with no new change. */
static void sweep_sleepers(struct allocator *a)
{
	guint slots = tidmap_slots(a->tasks), pos, end;
	struct task_sched *s;

	if (!a->sweep_left || !slots)
		return;
	pos = a->sweep_pos < slots ? a->sweep_pos : 0;
	end = MIN(slots, pos + MIN(a->sweep_left, SWEEP_WALK));
	a->sweep_left -= MIN(a->sweep_left, end - pos);
	a->sweep_pos = end;
	alloc_weights_begin(&a->groups);
	/* pos is one past the slot of the thread found. */
	while ((s = tidmap_next(a->tasks, &pos)) && pos <= end) {
		if (!s->managed || s->active)
			continue;
		breathe_step(a);
		a->st.swept++;
		if (s->group && s->seen && !s->exited)
			sweep_nice(a, s);
		place_rest(a, s);
	}
}

static int cmp_u64(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;

	return a < b ? -1 : a > b;
}

/* The last n entries of a ring, sorted into sorted. */
static void sort_ring(const uint64_t *ring, unsigned n, uint64_t *sorted)
{
	memcpy(sorted, ring, n * sizeof(sorted[0]));
	qsort(sorted, n, sizeof(sorted[0]), cmp_u64);
}

/* The pass's time (wall clock: with the times it gave its CPU up) and CPU
 * time into the rings, and the figures cgfused.stat shows. */
static void publish(struct allocator *a, uint64_t pass_ns, uint64_t cpu_ns)
{
	uint64_t sorted[PASS_RING], p50, p99, p99_cpu;
	unsigned n = (unsigned)MIN(a->st.passes, PASS_RING);

	a->st.last_pass_ns = pass_ns;
	a->st.max_pass_ns = MAX(a->st.max_pass_ns, pass_ns);
	a->st.last_pass_cpu_ns = cpu_ns;
	a->st.max_pass_cpu_ns = MAX(a->st.max_pass_cpu_ns, cpu_ns);
	a->ring[(a->st.passes - 1) % PASS_RING] = pass_ns;
	a->cpu_ring[(a->st.passes - 1) % PASS_RING] = cpu_ns;
	sort_ring(a->ring, n, sorted);
	p50 = sorted[(n - 1) / 2];
	p99 = sorted[(n - 1) * 99 / 100];
	sort_ring(a->cpu_ring, n, sorted);
	p99_cpu = sorted[(n - 1) * 99 / 100];
	g_mutex_lock(&a->shown_lock);
	a->shown = a->st;
	a->p50_ns = p50;
	a->p99_ns = p99;
	a->p99_cpu_ns = p99_cpu;
	g_mutex_unlock(&a->shown_lock);
}

/* What the last daemon changed on threads and sessions that are not
 * managed now (their group is gone, or they left it): given back if they
 * are still there (the same thread: its pidfs inode). */
static void give_back_leftovers(struct allocator *a)
{
	struct kfacade *kf = a->core->kf;
	GArray *tasks = g_array_new(FALSE, FALSE, sizeof(struct orig_task));
	GArray *ags = g_array_new(FALSE, FALSE, sizeof(struct orig_autogroup));

	alloc_orig_leftovers(a->orig, tasks, ags);
	for (guint i = 0; i < tasks->len; i++) {
		const struct orig_task *t = &g_array_index(tasks, struct orig_task, i);
		struct task_ident id = { t->ino, 0 };

		if (!kf->ops->task_alive(kf, t->tid, &id))
			continue;
		if (a->may_lower)
			count_call(a, &a->st.nice_calls, kf->ops->set_nice(kf, t->tid, t->nice));
		count_call(a, &a->st.affinity_calls, kf->ops->set_affinity(kf, t->tid, &t->cpus));
	}
	for (guint i = 0; i < ags->len; i++) {
		const struct orig_autogroup *ag = &g_array_index(ags, struct orig_autogroup, i);
		struct task_ident id = { ag->ino, 0 };
		int now, nice;

		if (kf->ops->task_alive(kf, ag->tid, &id) &&
		    kf->ops->get_autogroup(kf, ag->tid, &now, &nice) == 0 && now == ag->id &&
		    nice != ag->nice)
			count_call(a, &a->st.autogroup_calls,
				   kf->ops->set_autogroup_nice(kf, ag->tid, ag->nice));
	}
	g_array_unref(tasks);
	g_array_unref(ags);
}

/* The originals file written anew when it holds mostly forgotten lines. */
static void rewrite_originals(struct allocator *a)
{
	GHashTableIter iter;
	struct task_sched *s;
	struct autogroup *ag;

	if (!alloc_orig_wants_rewrite(a->orig, a->recorded))
		return;
	alloc_orig_rewrite_begin(a->orig);
	for (guint pos = 0; (s = alloc_task_next(a->tasks, &pos));)
		if (s->recorded) {
			struct orig_task t = { s->tid, s->ino, s->orig_nice, *task_orig_cpus(s) };

			alloc_orig_add_task(a->orig, &t);
		}
	g_hash_table_iter_init(&iter, a->autogroups);
	while (g_hash_table_iter_next(&iter, NULL, (gpointer *)&ag))
		if (ag->recorded) {
			const struct task_sched *m = alloc_task_lookup(a->tasks, ag->tid);
			struct orig_autogroup rec = { ag->id, ag->tid, m ? m->ino : 0,
						      ag->orig_nice };

			alloc_orig_add_autogroup(a->orig, &rec);
		}
	alloc_orig_rewrite_commit(a->orig);
}

/* After a pass: what the last daemon left and this one did not take is
 * given back once the tree has been placed; records are written. */
static void end_originals(struct allocator *a, bool placed)
{
	if (!a->orig)
		return;
	if (placed && alloc_orig_has_leftovers(a->orig))
		give_back_leftovers(a);
	rewrite_originals(a);
	alloc_orig_flush(a->orig);
}

bool alloc_keep_originals(struct allocator *a, const char *state, const char *boot_id,
			  GError **err)
{
	a->orig = alloc_orig_open(state, boot_id, err);
	return a->orig != NULL;
}

/* Reads the originals of the threads managed since the last pass (one
 * that cannot be read yet is tried again next pass). */
static void see_new(struct allocator *a)
{
	guint kept = 0;

	for (guint i = 0; i < a->unseen->len; i++) {
		pid_t tid = g_array_index(a->unseen, pid_t, i);
		struct task_sched *s = alloc_task_lookup(a->tasks, tid);

		breathe(a);
		if (!s || !s->managed || s->exited || s->seen)
			continue;
		see_task(a, s);
		if (!s->seen)
			g_array_index(a->unseen, pid_t, kept++) = tid;
	}
	/* Many (a large process placed at once): not kept at its largest. */
	if (!kept && a->unseen->len > 1024) {
		g_array_unref(a->unseen);
		a->unseen = g_array_new(FALSE, FALSE, sizeof(pid_t));
	}
	g_array_set_size(a->unseen, kept);
}

void alloc_pass(struct allocator *a, bool sample)
{
	uint64_t start = mono_ns(), cpu = thread_cpu_ns();
	bool reconcile = sample && a->rotation % RECONCILE_PASSES == 0, placing;

	a->breath_ns = start;

	/* A copy of what changed, if anything: a quiet pass costs no walk. */
	placing = sched_view_take(a->core, a->weight_ssid, a->cpus_ssid, &a->view);
	take_events(a);
	if (placing) {
		a->st.copied_groups += a->view.groups->len + a->view.cpusets->len;
		a->st.copied_tasks += a->view.tasks->len;
		take_view(a);
		a->st.weighed_groups = g_hash_table_size(a->groups.by_id);
	}
	a->st.managed = a->managed;
	if (sample) {
		sample_tasks(a);
		a->rotation++;
	}
	recheck_watched(a, sample);
	see_new(a);
	for (guint i = 0; sample && i < a->active->len; i++) {
		struct task_sched *s = g_array_index(a->active, struct active, i).s;

		if (!s->seen || !s->runnable || (!reconcile && (!s->cpus_set || s->watch)))
			continue;	/* a watched one was just read again */
		breathe(a);
		if (reconcile)
			reconcile_task(a, s);
		else
			reread_affinity(a, s);
	}
	/* Placing costs a walk of the active threads: only when something
	 * changed (or a time dither moves on, or sessions are to be weighed
	 * again: a process may have joined one); of every thread when a
	 * cpuset's CPUs changed, or after threads left (at most once in
	 * DEPART_PASSES sampled passes). */
	a->sessions_stale |= reconcile;
	if (placing || a->changed) {
		a->sweep_left = tidmap_slots(a->tasks);	/* a new round */
		a->sweep_round++;
	}
	bool full = a->cpus_changed || (a->departed && a->rotation >= a->full_rotation);

	if (placing || a->changed || a->dithering || (reconcile && a->sessions_weighed) || full) {
		a->changed = false;
		place_tasks(a, full);
		a->st.placings++;
		if (full) {
			a->cpus_changed = a->departed = false;
			a->full_rotation = a->rotation + DEPART_PASSES;
			a->st.full_placings++;
		}
	}
	sweep_sleepers(a);
	end_originals(a, placing);
	a->st.passes++;
	publish(a, mono_ns() - start, thread_cpu_ns() - cpu);
	/* The hierarchy just emptied: give back the whole pages malloc keeps
	 * free inside its arenas (it trims only an arena's top by itself);
	 * measured in docs/soak.md. */
	if (a->view.empty && !a->empty) {
		if (!a->managed) {
			free_work_arrays(a);
			new_work_arrays(a);
		}
		malloc_trim(0);
	}
	a->empty = a->view.empty;
}

static void on_stat(void *data, GString *out);

/* The core's events (core/notify.h), under the core lock: mark what
 * changed for the next copy (core/sched_view.h), record, kick. */

/* Tasks moved: one back in the root of every hierarchy gets its own nice
 * and affinity back at the next pass. */
static void on_attach(void *data, struct task *const *tasks, unsigned n,
		      const struct cg_root *root)
{
	struct allocator *a = data;

	(void)root;
	for (unsigned i = 0; i < n; i++)
		sched_view_mark_task(&a->view, tasks[i]);
	alloc_kick(a);
}

static void record(struct allocator *a, bool fork, struct task *parent, struct task *t)
{
	struct alloc_event e = { fork, t->tid, parent ? parent->tid : 0, t->ident };

	g_mutex_lock(&a->events_lock);
	g_array_append_val(a->events, e);
	g_mutex_unlock(&a->events_lock);
	sched_view_mark_task(&a->view, t);
	alloc_kick(a);
}

static void on_fork(void *data, struct task *parent, struct task *child)
{
	record(data, true, parent, child);
}

/* The thread is gone: nothing to give back. */
static void on_task_exit(void *data, struct task *t)
{
	record(data, false, NULL, t);
}

/* Shares, cpus: applied soon. Other files change nothing of ours. */
static void on_changed(void *data, struct cgroup *cgrp, unsigned file)
{
	struct allocator *a = data;
	const struct cg_file *f = g_ptr_array_index(cgrp->root->files, file);

	/* v2: a group's CPUs are its descendants' too (an empty cpuset.cpus
	 * is the parent's), and a partition takes CPUs from its siblings. */
	if ((f->cft->flags & CFTYPE_CSS_MAP) ||
	    (f->ssid >= 0 && f->ssid == a->cpus_ssid && cgrp->root->dfl)) {
		sched_view_mark_all(&a->view);
		alloc_kick(a);
		return;
	}
	if (f->ssid < 0 || (f->ssid != a->weight_ssid && f->ssid != a->cpus_ssid))
		return;
	sched_view_mark_group(&a->view, cgrp);
	alloc_kick(a);
}

/* A group made or about to be removed: its parent's sums change. */
static void on_group(void *data, struct cgroup *cgrp)
{
	struct allocator *a = data;

	sched_view_mark_group(&a->view, cgrp);
	alloc_kick(a);
}

struct allocator *alloc_new(struct cg_core *core)
{
	struct allocator *a = g_new0(struct allocator, 1);
	struct kfacade *kf = core->kf;

	a->core = core;
	a->weight_ssid = a->cpus_ssid = -1;
	for (unsigned i = 0; i < core->nr_subsys; i++) {
		if (core->subsys[i]->weight && sched_view_mounted(core, (int)i))
			a->weight_ssid = (int)i;
		if (core->subsys[i]->cpus && sched_view_mounted(core, (int)i))
			a->cpus_ssid = (int)i;
	}
	a->may_lower = kf->ops->may_lower_nice(kf);
	a->nice_lowest = NICE_MIN;
	if (!a->may_lower)
		say_nice_range(a);
	a->autogroups = g_hash_table_new_full(NULL, NULL, NULL, free_autogroup);
	a->watched = g_hash_table_new(NULL, NULL);
	a->kick_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	a->tasks = alloc_task_table_new();
	tidmap_init(&a->heads, a->tasks->pool, offsetof(struct task_sched, tgid));
	a->unseen = g_array_new(FALSE, FALSE, sizeof(pid_t));
	new_work_arrays(a);
	a->charges = g_array_new(FALSE, FALSE, sizeof(struct sched_sample));
	a->events = g_array_new(FALSE, FALSE, sizeof(struct alloc_event));
	g_mutex_init(&a->events_lock);
	g_mutex_init(&a->shown_lock);
	sched_view_init(&a->view);	/* the tree as it is now */
	alloc_groups_init(&a->groups);
	a->cpusets = g_hash_table_new_full(g_int64_hash, g_int64_equal, NULL, free_cpuset);
	cpus_pool_init(&a->cpus_pool);
	a->sub = (struct cg_subscriber){
		.data = a, .attach = on_attach, .fork = on_fork, .exit = on_task_exit,
		.changed = on_changed, .mkdir = on_group, .removing = on_group, .stat = on_stat,
	};
	cg_subscribe(core, &a->sub);
	return a;
}

void alloc_free(struct allocator *a)
{
	struct kfacade *kf;
	GHashTableIter iter;
	struct task_sched *s;
	struct autogroup *ag;

	if (!a)
		return;
	kf = a->core->kf;
	/* The exits up to now, so that no gone thread's id is touched. */
	sched_view_take(a->core, a->weight_ssid, a->cpus_ssid, &a->view);
	take_events(a);
	cg_unsubscribe(a->core, &a->sub);
	for (guint pos = 0; (s = alloc_task_next(a->tasks, &pos));)
		restore_task(a, s);
	g_hash_table_iter_init(&iter, a->autogroups);
	while (g_hash_table_iter_next(&iter, NULL, (gpointer *)&ag))
		if (ag->nice_set)
			kf->ops->set_autogroup_nice(kf, ag->tid, ag->orig_nice);
	/* A stop before the first pass gives back what the last daemon left. */
	if (a->orig && alloc_orig_has_leftovers(a->orig))
		give_back_leftovers(a);
	alloc_orig_close(a->orig, true);
	alloc_task_table_free(a->tasks);
	tidmap_clear(&a->heads);
	g_array_unref(a->unseen);
	free_work_arrays(a);
	g_array_unref(a->charges);
	g_array_unref(a->events);
	g_hash_table_destroy(a->autogroups);
	g_hash_table_destroy(a->watched);
	alloc_groups_clear(&a->groups);
	g_hash_table_destroy(a->cpusets);
	cpus_pool_clear(&a->cpus_pool);	/* emptied with a->tasks */
	sched_view_clear(&a->view);
	g_mutex_clear(&a->events_lock);
	g_mutex_clear(&a->shown_lock);
	close(a->kick_fd);
	g_free(a);
}

const struct alloc_stats *alloc_stats(struct allocator *a)
{
	return &a->st;
}

/* What cgfused.stat shows after the core's lines. */
static void on_stat(void *data, GString *out)
{
	struct allocator *a = data;
	struct alloc_stats st;
	uint64_t p50, p99, p99_cpu;
	char lowest[8] = "own";	/* only raised from each thread's own */

	if (a->nice_lowest <= NICE_MAX)
		g_snprintf(lowest, sizeof(lowest), "%d", a->nice_lowest);
	g_mutex_lock(&a->shown_lock);
	st = a->shown;
	p50 = a->p50_ns;
	p99 = a->p99_ns;
	p99_cpu = a->p99_cpu_ns;
	g_mutex_unlock(&a->shown_lock);
	g_string_append_printf(out,
		"managed_threads %u\n"
		"passes %" G_GUINT64_FORMAT "\n"
		"placings %" G_GUINT64_FORMAT "\n"
		"full_placings %" G_GUINT64_FORMAT "\n"
		"placed_threads %" G_GUINT64_FORMAT "\n"
		"swept_threads %" G_GUINT64_FORMAT "\n"
		"samples %" G_GUINT64_FORMAT "\n"
		"nice_calls %" G_GUINT64_FORMAT "\n"
		"affinity_calls %" G_GUINT64_FORMAT "\n"
		"autogroup_calls %" G_GUINT64_FORMAT "\n"
		"failed_calls %" G_GUINT64_FORMAT "\n"
		"last_pass_us %" G_GUINT64_FORMAT "\n"
		"max_pass_us %" G_GUINT64_FORMAT "\n"
		"p50_pass_us %" G_GUINT64_FORMAT "\n"
		"p99_pass_us %" G_GUINT64_FORMAT "\n"
		"last_pass_cpu_us %" G_GUINT64_FORMAT "\n"
		"p99_pass_cpu_us %" G_GUINT64_FORMAT "\n"
		"max_pass_cpu_us %" G_GUINT64_FORMAT "\n"
		"weight_error_ppm %.0f\n"
		"autogroups_left_alone %u\n"
		"affinity_escapes %" G_GUINT64_FORMAT "\n"
		"view_copied_groups %" G_GUINT64_FORMAT "\n"
		"view_copied_tasks %" G_GUINT64_FORMAT "\n"
		"weighed_groups %u\n"
		"yields %" G_GUINT64_FORMAT "\n"
		"privileged %d\n"
		"nice_range %s 19\n",
		st.managed, st.passes, st.placings, st.full_placings, st.placed, st.swept,
		st.samples, st.nice_calls, st.affinity_calls,
		st.autogroup_calls, st.failed_calls, st.last_pass_ns / 1000,
		st.max_pass_ns / 1000, p50 / 1000, p99 / 1000, st.last_pass_cpu_ns / 1000,
		p99_cpu / 1000,
		st.max_pass_cpu_ns / 1000, st.last_error * 1e6,
		st.autogroups_left_alone, st.escapes, st.copied_groups, st.copied_tasks,
		st.weighed_groups, st.yields, a->may_lower, lowest);
}
