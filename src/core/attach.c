/* Attaching tasks and listing them. */
#include "core/attach.h"

#include <errno.h>
#include <stdlib.h>

#include "core/css_set.h"
#include "core/notify.h"
#include "core/task.h"

/* Tasks made for this attach that are still in init_css_set (the attach
 * failed, or it was to the root) are forgotten again. */
static void drop_untracked(struct cg_core *core, GPtrArray *created)
{
	for (guint i = 0; i < created->len; i++) {
		struct task *t = g_ptr_array_index(created, i);

		if (t->cset == core->init_css_set)
			task_drop(core, t);
	}
}

/* __cgroup1_procs_write(): the writer is root, or the target's real or
 * saved uid is its own. The target is the thread or, for a whole process,
 * its leader, checked once for all its threads. Its ids are read by tid:
 * the thread found there must still be the one tracked. */
static int may_move(struct cg_core *core, GPtrArray *tasks, pid_t target,
		    const struct cg_cred *cred)
{
	struct kfacade *kf = core->kf;
	const struct task *t = NULL;
	struct task_uids ids;
	int ret;

	if (cred->uid == 0)
		return 0;
	for (guint i = 0; i < tasks->len; i++)
		if (((const struct task *)g_ptr_array_index(tasks, i))->tid == target)
			t = g_ptr_array_index(tasks, i);
	ret = kf->ops->task_uids(kf, target, &ids);
	if (ret == 0 && t && !kf->ops->task_alive(kf, t->tid, &t->ident))
		ret = -ESRCH;
	if (ret)
		return ret;
	return cred->uid == ids.uid || cred->uid == ids.suid ? 0 : -EACCES;
}

static void move_task(struct cg_core *core, struct task *t, struct cgroup *dst)
{
	struct css_set *cset = css_set_for_move(core, t->cset, dst);

	/* What it ran so far stays with the groups it ran in (in the root: is
	 * charged to no group). */
	task_account(core, t);
	task_set_css_set(core, t, cset);
	put_css_set(core, cset);
}

/* Whether every controller of dst's hierarchy takes n tasks in, and then
 * every subscriber. */
static int can_attach(struct cgroup *dst, unsigned n)
{
	struct cg_core *core = dst->root->core;
	int ret = 0;

	for (unsigned i = 0; ret == 0 && i < core->nr_subsys; i++) {
		const struct cgroup_subsys *ss = core->subsys[i];

		if ((dst->root->subsys_mask & (1u << i)) && ss->can_attach)
			ret = ss->can_attach(dst->subsys[i]);
	}
	if (ret == 0)
		ret = cg_notify_prepare(core, &(struct cg_change){
			.kind = CG_CHANGE_ATTACH, .cgrp = dst, .nr_tasks = n });
	return ret;
}

int cgroup_attach_restore(struct cgroup *dst, pid_t tid, uint64_t ino, uint64_t joined_ns)
{
	struct cg_core *core = dst->root->core;
	struct task *t;
	bool created;
	int ret = task_get(core, tid, &t, &created);

	if (ret < 0)
		return ret;
	if (t->ident.ino != ino)
		ret = -ESRCH;		/* the id now names another thread */
	else if ((ret = can_attach(dst, 1)) == 0)
		ret = core->kf->ops->may_manage(core->kf, tid);
	if (ret == 0) {
		move_task(core, t, dst);
		t->joined_ns = joined_ns;	/* children born since then are its */
		cg_notify(core, attach, &t, 1, dst->root);
	}
	/* Nothing to remember of a task back in the root (or not moved). */
	if (t->cset == core->init_css_set)
		task_drop(core, t);
	return ret;
}

int cgroup_attach(struct cgroup *dst, pid_t pid, bool threadgroup, const struct cg_cred *cred)
{
	struct cg_core *core = dst->root->core;
	GArray *tids = g_array_new(FALSE, FALSE, sizeof(pid_t));
	GPtrArray *tasks = g_ptr_array_new(), *created = g_ptr_array_new();
	int ret = 0;

	if (threadgroup)
		ret = core->kf->ops->thread_ids(core->kf, pid, tids);
	else
		g_array_append_val(tids, pid);

	for (guint i = 0; ret == 0 && i < tids->len; i++) {
		struct task *t;
		bool is_new;
		int err = task_get(core, g_array_index(tids, pid_t, i), &t, &is_new);

		if (err == 0) {
			g_ptr_array_add(tasks, t);
			if (is_new)
				g_ptr_array_add(created, t);
		} else if (!threadgroup || err != -ESRCH) {
			/* A thread of a group may exit while we gather them. */
			ret = err;
		}
	}
	if (ret == 0 && tasks->len == 0)
		ret = -ESRCH;
	if (ret == 0) {
		const struct task *first = g_ptr_array_index(tasks, 0);

		ret = may_move(core, tasks, threadgroup ? first->ident.tgid : pid, cred);
		/* A task the daemon may not reschedule is refused, not ignored
		 * (the kernel checks the leader once for a whole thread group). */
		if (ret == 0)
			ret = core->kf->ops->may_manage(core->kf, first->tid);
	}

	if (ret == 0)
		ret = can_attach(dst, tasks->len);

	if (ret == 0) {
		for (guint i = 0; i < tasks->len; i++)
			move_task(core, g_ptr_array_index(tasks, i), dst);
		cg_notify(core, attach, (struct task *const *)tasks->pdata, tasks->len, dst->root);
	}
	drop_untracked(core, created);
	g_ptr_array_unref(created);
	g_ptr_array_unref(tasks);
	g_array_unref(tids);
	return ret;
}

static int cmp_pid(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;

	return (x > y) - (x < y);
}

/* Sorts ids[start..] and drops repeats. */
static void sort_unique(GArray *ids, guint start)
{
	guint n = start;

	if (ids->len - start < 2)
		return;		/* and an empty GArray's data may be NULL */
	qsort(&g_array_index(ids, pid_t, start), ids->len - start, sizeof(pid_t), cmp_pid);
	for (guint i = start; i < ids->len; i++)
		if (n == start || g_array_index(ids, pid_t, i) != g_array_index(ids, pid_t, n - 1))
			g_array_index(ids, pid_t, n++) = g_array_index(ids, pid_t, i);
	g_array_set_size(ids, n);
}

/* The root holds every thread of the system that no child group holds; its
 * cgroup.procs lists every process with a thread there. */
static int list_root(struct cgroup *top, bool procs, GArray *ids)
{
	struct cg_core *core = top->root->core;
	GArray *all = g_array_new(FALSE, FALSE, sizeof(pid_t));
	GHashTable *tracked = g_hash_table_new(NULL, NULL);
	GHashTableIter iter;
	struct task *t;
	int ret = core->kf->ops->all_tasks(core->kf, all, procs);

	/* Processes some of whose threads we track need a closer look. */
	g_hash_table_iter_init(&iter, core->tasks);
	while (procs && g_hash_table_iter_next(&iter, NULL, (gpointer *)&t))
		g_hash_table_add(tracked, GINT_TO_POINTER(t->ident.tgid));

	for (guint i = 0; ret == 0 && i < all->len; i++) {
		pid_t id = g_array_index(all, pid_t, i);
		GArray *threads;

		if (!procs || !g_hash_table_contains(tracked, GINT_TO_POINTER(id))) {
			if (css_set_cgroup(task_css_set(core, id), top->root) == top)
				g_array_append_val(ids, id);
			continue;
		}
		threads = g_array_new(FALSE, FALSE, sizeof(pid_t));
		core->kf->ops->thread_ids(core->kf, id, threads);
		for (guint j = 0; j < threads->len; j++) {
			pid_t tid = g_array_index(threads, pid_t, j);

			if (css_set_cgroup(task_css_set(core, tid), top->root) == top) {
				g_array_append_val(ids, id);
				break;
			}
		}
		g_array_unref(threads);
	}
	g_hash_table_unref(tracked);
	g_array_unref(all);
	return ret;
}

int cgroup_list_tasks(struct cgroup *cgrp, bool procs, GArray *ids)
{
	guint start = ids->len;

	if (!cgrp->parent) {
		int ret = list_root(cgrp, procs, ids);

		if (ret < 0)
			return ret;
	} else {
		for (GList *l = cgrp->csets.head; l; l = l->next) {
			struct css_set *cset = l->data;

			for (GList *n = cset->tasks.head; n; n = n->next) {
				struct task *task = n->data;
				pid_t id = procs ? task->ident.tgid : task->tid;

				g_array_append_val(ids, id);
			}
		}
	}
	sort_unique(ids, start);
	return 0;
}
