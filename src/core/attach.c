/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Attaching tasks and listing them. */
#include "core/attach.h"

#include <errno.h>
#include <stdlib.h>

#include "core/css_set.h"
#include "core/internal.h"
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

/* A thread as found before the lock was taken. */
struct prep_thread {
	pid_t tid;
	int ret;			/* of opening it (task_read_unheld, task_hold) */
	bool own;			/* ident was opened here, and is no task's yet */
	struct task_ident ident;	/* the one opened, or the tracked task's */
	uint64_t proc_ns;		/* its process's CPU time; UINT64_MAX: unknown */
	uint64_t charged_proc_ns;	/* a tracked task's, when copied */
	bool read;			/* now holds its figures */
	struct task_cputime now;
	/* A tracked thread whose identity is closed (task->unwatched),
	 * opened again here for a move into a group; and one whose identity
	 * the move to the root closes once the lock is let go. */
	bool unwatched, reopened, to_close;
	struct task_ident reopen;
};

/* What cgroup_attach_prepare() found. cgroup_attach() checks that it still
 * holds and otherwise asks again under the lock (as before there was a
 * prepare), so that its answers are the same. */
struct cg_attach_prep {
	struct kfacade *kf;
	pid_t pid;
	bool threadgroup;
	int ret;			/* of listing the threads */
	GArray *threads;		/* struct prep_thread */
	/* may_move()'s answers for thread target, whose identity was
	 * target_ino (0: not among the threads), and may_manage()'s for
	 * manage_tid. */
	pid_t target;
	uint64_t target_ino;
	int uids_ret;
	struct task_uids uids;
	bool target_alive;
	pid_t manage_tid;
	int manage_ret;
};

/* Copies what the table knows of the threads (read-locked): those tracked
 * need no identity opened, and their figures only if their process ran. */
static void prep_copy_tracked(struct cg_core *core, struct cg_attach_prep *p)
{
	unsigned slot = cg_read_lock(&core->lock);

	for (guint i = 0; i < p->threads->len; i++) {
		struct prep_thread *th = &g_array_index(p->threads, struct prep_thread, i);
		const struct task *t = task_lookup(core, th->tid);

		if (t) {
			th->ident = t->ident;
			th->charged_proc_ns = t->charged_proc_ns;
			th->unwatched = t->unwatched;
		}
	}
	cg_read_unlock(&core->lock, slot);
}

/* The prepared thread with this id, if it was found. */
static struct prep_thread *prep_find(struct cg_attach_prep *p, pid_t tid)
{
	for (guint i = 0; i < p->threads->len; i++) {
		struct prep_thread *th = &g_array_index(p->threads, struct prep_thread, i);

		if (th->tid == tid && th->ret == 0)
			return th;
	}
	return NULL;
}

/* may_move()'s and may_manage()'s answer from what the prepare read: the
 * first refusal of the commit, unless a thread was adopted meanwhile. */
static int prep_refusal(const struct cg_attach_prep *p, const struct cg_cred *cred)
{
	if (cred->uid != 0) {
		if (p->uids_ret)
			return p->uids_ret;
		if (p->target_ino && !p->target_alive)
			return -ESRCH;
		if (cred->uid != p->uids.uid && cred->uid != p->uids.suid)
			return -EACCES;
	}
	return p->manage_ret;
}

/* The last step: the identities read are held (the task-watch source
 * follows them from now on; a debugger's: -EBUSY), unless the commit is
 * going to refuse the move anyway, which then holds nothing: with
 * -o tracking=ptrace a hold traces the thread, and a writer must not have
 * the daemon trace a task it may not move. */
static void prep_hold(struct kfacade *kf, struct cg_attach_prep *p, int refused)
{
	for (guint i = 0; i < p->threads->len; i++) {
		struct prep_thread *th = &g_array_index(p->threads, struct prep_thread, i);

		if (th->own) {
			th->ret = refused ? refused : kf->ops->task_hold(kf, th->tid, &th->ident);
			th->own = th->ret == 0;
		} else if (th->unwatched && !refused) {
			th->reopened = kf->ops->task_open(kf, th->tid, &th->reopen) == 0;
		}
	}
}

struct cg_attach_prep *cgroup_attach_prepare(struct cg_core *core, pid_t pid, bool threadgroup,
					     const struct cg_cred *cred)
{
	struct kfacade *kf = core->kf;
	struct cg_attach_prep *p = g_new0(struct cg_attach_prep, 1);
	GArray *tids = g_array_new(FALSE, FALSE, sizeof(pid_t));
	struct prep_thread *first = NULL, *target;

	p->kf = kf;
	p->pid = pid;
	p->threadgroup = threadgroup;
	p->threads = g_array_new(FALSE, TRUE, sizeof(struct prep_thread));
	if (threadgroup)
		p->ret = kf->ops->thread_ids(kf, pid, tids);
	else
		g_array_append_val(tids, pid);
	g_array_set_size(p->threads, tids->len);
	for (guint i = 0; i < tids->len; i++)
		g_array_index(p->threads, struct prep_thread, i).tid = g_array_index(tids, pid_t, i);
	g_array_unref(tids);
	prep_copy_tracked(core, p);

	for (guint i = 0; p->ret == 0 && i < p->threads->len; i++) {
		struct prep_thread *th = &g_array_index(p->threads, struct prep_thread, i);

		/* A tracked thread gone, its id another's by now: a source that
		 * reports late (kernel/watch.h) has not told its exit yet. */
		if (kf->late_exits && th->ident.ino &&
		    !kf->ops->task_alive(kf, th->tid, &th->ident))
			th->ident = (struct task_ident){ 0 };
		if (!th->ident.ino) {		/* not tracked: as task_get() */
			th->ret = task_read_unheld(kf, th->tid, &th->ident, &th->proc_ns, &th->now);
			th->own = th->read = th->ret == 0;
		} else {			/* tracked: as task_account() */
			if (kf->ops->process_cputime(kf, th->ident.tgid, &th->proc_ns) < 0)
				th->proc_ns = UINT64_MAX;
			if (th->proc_ns == UINT64_MAX || th->proc_ns != th->charged_proc_ns)
				th->read = kf->ops->task_cputime(kf, th->ident.tgid, th->tid,
								 &th->now) == 0;
		}
		if (th->ret == 0 && !first)
			first = th;
	}
	if (!first)
		return p;
	/* may_move() and may_manage(), about the threads they will ask about. */
	p->target = threadgroup ? first->ident.tgid : pid;
	if (cred->uid != 0) {
		target = prep_find(p, p->target);
		p->target_ino = target ? target->ident.ino : 0;
		p->uids_ret = kf->ops->task_uids(kf, p->target, &p->uids);
		p->target_alive = target && kf->ops->task_alive(kf, target->tid, &target->ident);
	}
	p->manage_tid = first->tid;
	p->manage_ret = kf->ops->may_manage(kf, first->tid);
	prep_hold(kf, p, prep_refusal(p, cred));
	return p;
}

void cgroup_attach_prep_free(struct cg_attach_prep *p)
{
	if (!p)
		return;
	for (guint i = 0; i < p->threads->len; i++) {
		struct prep_thread *th = &g_array_index(p->threads, struct prep_thread, i);

		if (th->own)
			p->kf->ops->task_close(p->kf, &th->ident);
		if (th->reopened)
			p->kf->ops->task_close(p->kf, &th->reopen);
		if (th->to_close)
			p->kf->ops->task_close(p->kf, &th->ident);
	}
	g_array_unref(p->threads);
	g_free(p);
}

/* __cgroup1_procs_write(): the writer is root, or the target's real or
 * saved uid is its own. The target is the thread or, for a whole process,
 * its leader, checked once for all its threads. Its ids are read by tid:
 * the thread found there must still be the one tracked. What the prepare
 * read is used if it asked about the same thread. */
static int may_move(struct cg_core *core, GPtrArray *tasks, pid_t target,
		    const struct cg_cred *cred, const struct cg_attach_prep *p)
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
	if (target == p->target && (t ? t->ident.ino : 0) == p->target_ino) {
		ret = p->uids_ret;
		ids = p->uids;
		if (ret == 0 && t && !p->target_alive)
			ret = -ESRCH;
	} else {
		ret = kf->ops->task_uids(kf, target, &ids);
		if (ret == 0 && t && !kf->ops->task_alive(kf, t->tid, &t->ident))
			ret = -ESRCH;
	}
	if (ret)
		return ret;
	return cred->uid == ids.uid || cred->uid == ids.suid ? 0 : -EACCES;
}

/* What it ran so far stays with the groups it ran in (in the root: is
 * charged to no group): from the prepared figures th if they are of this
 * thread, else read now. */
static void account(struct cg_core *core, struct task *t, const struct prep_thread *th)
{
	if (!th || th->ident.ino != t->ident.ino) {
		task_account(core, t);
		return;
	}
	if (th->proc_ns != UINT64_MAX && th->proc_ns == t->charged_proc_ns)
		return;		/* it did not run since it was charged */
	/* Figures older than a charge made since (a sample) are ignored. */
	if (th->read && th->now.run_ns >= t->charged.run_ns) {
		task_charge(core, t, &th->now);
		t->charged_proc_ns = th->proc_ns;
	}
}

static void move_task(struct cg_core *core, struct task *t, struct cgroup *dst,
		      struct prep_thread *th)
{
	struct css_set *cset = css_set_for_move(core, t->cset, dst);

	account(core, t, th);
	task_set_css_set(core, t, cset);
	put_css_set(core, cset);
	/* Back in the root: closed after the unlock (th's identity is t's),
	 * for a source that follows what is held (kfacade.h). */
	if (cset == core->init_css_set && core->kf->holds_threads && !t->unwatched && th &&
	    th->ident.ino == t->ident.ino) {
		t->unwatched = th->to_close = true;
	}
}

/* A task in the root whose identity is closed, about to move into a group:
 * opened again, by the prepare (th) or, if it moved to the root since,
 * here (as commit_get's task_get). */
static int rewatch(struct cg_core *core, struct task *t, struct prep_thread *th)
{
	struct task_ident id;
	int ret;

	if (th && th->reopened && th->reopen.ino == t->ident.ino) {
		th->reopened = false;	/* the task's now */
		t->unwatched = false;
		return 0;
	}
	ret = core->kf->ops->task_open(core->kf, t->tid, &id);
	if (ret == 0 && id.ino != t->ident.ino) {
		core->kf->ops->task_close(core->kf, &id);
		ret = -ESRCH;
	}
	if (ret == 0)
		t->unwatched = false;
	return ret;
}

/* Whether every controller of dst's hierarchy takes n tasks in (the css
 * that will govern them: on v2, maybe an ancestor's), and then every
 * subscriber. */
static int can_attach(struct cgroup *dst, unsigned n)
{
	struct cg_core *core = dst->root->core;
	int ret = 0;

	for (unsigned i = 0; ret == 0 && i < core->nr_subsys; i++) {
		const struct cgroup_subsys *ss = core->subsys[i];

		if ((dst->root->subsys_mask & (1u << i)) && ss->can_attach)
			ret = ss->can_attach(cgroup_e_css(dst, (int)i));
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
		move_task(core, t, dst, NULL);
		t->joined_ns = joined_ns;	/* children born since then are its */
		cg_notify(core, attach, &t, 1, dst->root);
	}
	/* Nothing to remember of a task back in the root (or not moved). */
	if (t->cset == core->init_css_set)
		task_drop(core, t);
	return ret;
}

/* The thread as prepared: tracked now (it may have been adopted since),
 * made from what the prepare opened, or, if the prepare saw a tracked task
 * that is gone since, looked up again as task_get() does. */
static int commit_get(struct cg_core *core, struct prep_thread *th, struct task **t,
		      bool *created)
{
	*created = false;
	if ((*t = task_lookup(core, th->tid)) && (!th->own || (*t)->ident.ino == th->ident.ino))
		return 0;
	if (*t)
		task_drop(core, *t);	/* the gone one the prepare saw */
	if (th->ret)
		return th->ret;
	if (!th->own)
		return task_get(core, th->tid, t, created);
	*t = task_new(core, th->tid, &th->ident, th->proc_ns, &th->now);
	th->own = false;	/* the task's now */
	*created = true;
	return 0;
}

int cgroup_attach(struct cgroup *dst, struct cg_attach_prep *p, const struct cg_cred *cred)
{
	struct cg_core *core = dst->root->core;
	GPtrArray *tasks = g_ptr_array_new(), *created = g_ptr_array_new();
	GPtrArray *preps = g_ptr_array_new();	/* each task's prep_thread */
	int ret = p->ret;

	for (guint i = 0; ret == 0 && i < p->threads->len; i++) {
		struct prep_thread *th = &g_array_index(p->threads, struct prep_thread, i);
		struct task *t;
		bool is_new;
		int err = commit_get(core, th, &t, &is_new);

		if (err == 0) {
			g_ptr_array_add(tasks, t);
			g_ptr_array_add(preps, th);
			if (is_new)
				g_ptr_array_add(created, t);
		} else if (!p->threadgroup || err != -ESRCH) {
			/* A thread of a group may exit while we gather them. */
			ret = err;
		}
	}
	if (ret == 0 && tasks->len == 0)
		ret = -ESRCH;
	if (ret == 0) {
		const struct task *first = g_ptr_array_index(tasks, 0);

		ret = may_move(core, tasks, p->threadgroup ? first->ident.tgid : p->pid, cred, p);
		/* A task the daemon may not reschedule is refused, not ignored
		 * (the kernel checks the leader once for a whole thread group). */
		if (ret == 0)
			ret = first->tid == p->manage_tid ? p->manage_ret
							  : core->kf->ops->may_manage(core->kf, first->tid);
	}

	if (ret == 0)
		ret = can_attach(dst, tasks->len);
	/* Into a group: every task there is watched (a debugger's: -EBUSY). */
	for (guint i = 0; ret == 0 && dst->parent && i < tasks->len; i++) {
		struct task *t = g_ptr_array_index(tasks, i);

		if (t->unwatched)
			ret = rewatch(core, t, g_ptr_array_index(preps, i));
	}

	if (ret == 0) {
		for (guint i = 0; i < tasks->len; i++)
			move_task(core, g_ptr_array_index(tasks, i), dst,
				  g_ptr_array_index(preps, i));
		cg_notify(core, attach, (struct task *const *)tasks->pdata, tasks->len, dst->root);
	}
	drop_untracked(core, created);
	g_ptr_array_unref(preps);
	g_ptr_array_unref(created);
	g_ptr_array_unref(tasks);
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

/* A process's threads that the core tracks outside the root (a closer
 * look: the process is in the root if it has a thread more). */
struct outside {
	pid_t tgid;
	GHashTable *tids;
};

/* The root holds every thread of the system that no child group holds; its
 * cgroup.procs lists every process with a thread there. Without the core
 * lock: every id from /proc first; under the read side, the threads and
 * processes some child group holds dropped (processes with a tracked
 * thread in the root kept; those whose tracked threads are all elsewhere
 * noted); last, outside again, those noted kept if they have a thread
 * the core does not track. */
static int list_root(struct cgroup *top, bool procs, GArray *ids)
{
	struct cg_core *core = top->root->core;
	GArray *all = g_array_new(FALSE, FALSE, sizeof(pid_t));
	GArray *look = g_array_new(FALSE, FALSE, sizeof(struct outside));
	/* tgid -> its struct outside's index + 1 in look, or 0 if in the root */
	GHashTable *tracked = g_hash_table_new(NULL, NULL);
	struct task *t;
	guint pos = 0;
	unsigned slot;
	int ret = core->kf->ops->all_tasks(core->kf, all, procs);

	slot = cg_read_lock(&core->lock);
	while (ret == 0 && procs && (t = tidmap_next(&core->tasks, &pos))) {
		gpointer key = GINT_TO_POINTER(t->ident.tgid), val;
		bool known = g_hash_table_lookup_extended(tracked, key, NULL, &val);
		struct outside *o;

		if (css_set_cgroup(t->cset, top->root) == top) {
			g_hash_table_insert(tracked, key, GUINT_TO_POINTER(0));
			continue;
		}
		if (known && !val)
			continue;	/* already in the root */
		if (!known) {
			g_array_append_val(look, ((struct outside){ t->ident.tgid,
								    g_hash_table_new(NULL, NULL) }));
			val = GUINT_TO_POINTER(look->len);
			g_hash_table_insert(tracked, key, val);
		}
		o = &g_array_index(look, struct outside, GPOINTER_TO_UINT(val) - 1);
		g_hash_table_add(o->tids, GINT_TO_POINTER(t->tid));
	}
	for (guint i = 0; ret == 0 && i < all->len; i++) {
		pid_t id = g_array_index(all, pid_t, i);
		gpointer val;

		if (!procs ? css_set_cgroup(task_css_set(core, id), top->root) == top
			   : !g_hash_table_lookup_extended(tracked, GINT_TO_POINTER(id), NULL, &val) ||
			     !val)
			g_array_append_val(ids, id);
	}
	cg_read_unlock(&core->lock, slot);

	for (guint i = 0; ret == 0 && i < look->len; i++) {
		struct outside *o = &g_array_index(look, struct outside, i);
		GArray *threads;

		if (!g_hash_table_lookup(tracked, GINT_TO_POINTER(o->tgid)))
			continue;	/* a thread of it was found in the root after all */
		threads = g_array_new(FALSE, FALSE, sizeof(pid_t));
		core->kf->ops->thread_ids(core->kf, o->tgid, threads);
		for (guint j = 0; j < threads->len; j++) {
			if (!g_hash_table_contains(o->tids,
						   GINT_TO_POINTER(g_array_index(threads, pid_t, j)))) {
				g_array_append_val(ids, o->tgid);
				break;
			}
		}
		g_array_unref(threads);
	}
	for (guint i = 0; i < look->len; i++)
		g_hash_table_unref(g_array_index(look, struct outside, i).tids);
	g_array_unref(look);
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
			struct task *task;

			css_set_for_each_task(task, (struct css_set *)l->data) {
				pid_t id = procs ? task->ident.tgid : task->tid;

				g_array_append_val(ids, id);
			}
		}
	}
	sort_unique(ids, start);
	return 0;
}
