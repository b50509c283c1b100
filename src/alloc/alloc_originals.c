/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What the allocator's threads had before it changed them: seen,
 * recorded in the originals file (alloc_orig.h), adopted from the last
 * daemon, given back. */
#include "alloc/alloc_internal.h"

#include <unistd.h>

/* Whether the daemon may give the thread nice back although it is lower
 * than what it has now. */
bool may_lower_to(const struct allocator *a, const struct task_sched *s, int nice)
{
	return a->may_lower || nice >= s->owner_floor;
}

/* Whether its nice can go down again to its floor (floor_nice): if not,
 * every raise is for good, and its bucket is not dithered in time. */
bool raise_only(const struct allocator *a, const struct task_sched *s)
{
	return !may_lower_to(a, s, s->orig_nice);
}

/* A thread leaves management while alive: its original nice and affinity
 * come back (a gone one has nothing to give back, and its id may be
 * another thread's by now). */
void restore_task(struct allocator *a, struct task_sched *s)
{
	if (!s->exited && s->nice_set && may_lower_to(a, s, s->orig_nice))
		set_nice(a, s, s->orig_nice);
	if (!s->exited && s->cpus_set)
		set_cpus(a, s, task_orig_cpus(s));
	s->nice_set = s->cpus_set = false;
	s->watch = 0;
}

/* The thread's originals into the file (written before any change). */
void record_task(struct allocator *a, struct task_sched *s)
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
void forget_task(struct allocator *a, struct task_sched *s)
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
	struct kfacade *kf = cg_core_kf(a->core);
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

/* Without CAP_SYS_NICE: the range the kernel leaves it (the daemon's own
 * RLIMIT_NICE stands for its user's threads', which decide for each). */
void say_nice_range(struct allocator *a)
{
	struct kfacade *kf = cg_core_kf(a->core);
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
	struct kfacade *kf = cg_core_kf(a->core);
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
void reread_affinity(struct allocator *a, struct task_sched *s)
{
	struct kfacade *kf = cg_core_kf(a->core);
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
void reconcile_task(struct allocator *a, struct task_sched *s)
{
	struct kfacade *kf = cg_core_kf(a->core);
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

/* What the last daemon changed on threads and sessions that are not
 * managed now (their group is gone, or they left it): given back if they
 * are still there (the same thread: its pidfs inode). */
void give_back_leftovers(struct allocator *a)
{
	struct kfacade *kf = cg_core_kf(a->core);
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
void end_originals(struct allocator *a, bool placed)
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
void see_new(struct allocator *a)
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
