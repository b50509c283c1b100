/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The allocator's sessions: autogroups, their originals and floors, and
 * how they weigh against each other. */
#include "alloc/alloc_internal.h"

#include <errno.h>

void free_autogroup(gpointer p)
{
	struct autogroup *ag = p;

	if (ag->buckets)
		g_array_unref(ag->buckets);
	g_free(ag);
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

struct autogroup *autogroup_of(struct allocator *a, const struct task_sched *s)
{
	gpointer key = GINT_TO_POINTER(task_autogroup(s));
	struct autogroup *ag = g_hash_table_lookup(a->autogroups, key);

	if (!ag) {
		struct kfacade *kf = cg_core_kf(a->core);
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

/* A session left with no weighed thread gets its autogroup's nice back
 * (through the member last seen; a gone one means the session may be gone
 * too) and is forgotten: it is not tried again every pass, and the table
 * does not keep every session that ever had a managed thread. */
void forget_autogroups(struct allocator *a)
{
	struct kfacade *kf = cg_core_kf(a->core);
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
	struct kfacade *kf = cg_core_kf(a->core);
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
void weigh_autogroups(struct allocator *a, bool full)
{
	struct kfacade *kf = cg_core_kf(a->core);
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

/* A session's floor is the highest of the threads counted since the last
 * walk of them all: an active walk only raises it. */
void end_autogroup_pass(struct allocator *a, bool full)
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
