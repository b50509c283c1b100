/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The table of tracked tasks and their exits. */
#include "core/task.h"

#include <errno.h>
#include <stdatomic.h>

#include "core/internal.h"
#include "core/notify.h"
#include "core/task_exec.h"
#include "core/task_proc.h"
#include "core/task_queue.h"

/* One a tracked task: what the per-task memory goal counts (task.h);
 * growing it is a decision, not an accident. */
G_STATIC_ASSERT(sizeof(struct task) <= 80);

struct task *task_lookup(struct cg_core *core, pid_t tid)
{
	return tidmap_lookup(&core->tasks, tid);
}

struct task *task_next(struct cg_core *core, guint *pos)
{
	return tidmap_next(&core->tasks, pos);
}

GPtrArray *task_table_copy(struct cg_core *core)
{
	GPtrArray *all = g_ptr_array_sized_new(tidmap_size(&core->tasks));
	struct task *t;

	for (guint pos = 0; (t = task_next(core, &pos));)
		g_ptr_array_add(all, t);
	return all;
}

struct css_set *task_css_set(struct cg_core *core, pid_t tid)
{
	struct task *t = task_lookup(core, tid);

	return t ? t->cset : core->init_css_set;
}

/* Tells the controllers that t leaves css_set from for to (NULL: none). */
/* The groups of css and their ancestors have other members now. */
static void bump_members(struct css *css)
{
	for (struct cgroup *c = css ? css->cgroup : NULL; c; c = c->parent)
		c->members_gen++;
}

static void task_migrate(struct cg_core *core, const struct task *t, struct css_set *from,
			 struct css_set *to)
{
	for (unsigned i = 0; i < core->nr_subsys; i++) {
		struct css *a = from ? from->subsys[i] : NULL;
		struct css *b = to ? to->subsys[i] : NULL;

		if (core->subsys[i]->migrate && a != b)
			core->subsys[i]->migrate(t, a, b);
		bump_members(a);
		bump_members(b);
	}
}

struct task *task_new(struct cg_core *core, pid_t tid, const struct task_ident *ident,
		      uint64_t proc_ns, const struct task_cputime *charged)
{
	struct task *t = slab_alloc(&core->task_pool);

	cg_assert_write_held(&core->lock);

	t->tid = tid;
	t->ident = *ident;
	t->charged_proc_ns = proc_ns;
	t->charged = (struct task_charged){ charged->run_ns, (uint32_t)charged->utime,
					    (uint32_t)charged->stime };
	t->charged_cpu = (int16_t)charged->cpu;
	t->joined_ns = core->kf->ops->boottime_ns(core->kf);
	get_css_set(core->init_css_set);
	t->cset = core->init_css_set;
	list_add_tail(&t->cg_list, &t->cset->tasks);
	task_migrate(core, t, NULL, t->cset);
	tidmap_insert(&core->tasks, t);
	task_proc_link(core, t);
	return t;
}

/* What a new task starts with, of a thread whose identity was read. */
static void read_figures(struct kfacade *kf, pid_t tid, const struct task_ident *ident,
			 uint64_t *proc_ns, struct task_cputime *now)
{
	/* What it ran until now was in the root, which counts the system. */
	if (kf->ops->process_cputime(kf, ident->tgid, proc_ns) < 0)
		*proc_ns = UINT64_MAX;
	*now = (struct task_cputime){ 0 };
	kf->ops->task_cputime(kf, ident->tgid, tid, now);
}

int task_read_new(struct kfacade *kf, pid_t tid, struct task_ident *ident, uint64_t *proc_ns,
		  struct task_cputime *now)
{
	int ret = kf->ops->task_open(kf, tid, ident);

	if (ret == 0)
		read_figures(kf, tid, ident, proc_ns, now);
	return ret;
}

int task_read_unheld(struct kfacade *kf, pid_t tid, struct task_ident *ident, uint64_t *proc_ns,
		     struct task_cputime *now)
{
	int ret = kf->ops->task_ident(kf, tid, ident);

	if (ret == 0)
		read_figures(kf, tid, ident, proc_ns, now);
	return ret;
}

int task_get(struct cg_core *core, pid_t tid, struct task **out, bool *created)
{
	struct task *t = task_lookup(core, tid);
	struct task_ident ident;
	struct task_cputime now;
	uint64_t proc_ns;
	int ret;

	*created = false;
	if (t) {
		*out = t;
		return 0;
	}
	ret = task_read_new(core->kf, tid, &ident, &proc_ns, &now);
	if (ret < 0)
		return ret;
	*out = task_new(core, tid, &ident, proc_ns, &now);
	*created = true;
	return 0;
}

struct task_close {
	struct kfacade *kf;
	struct task_ident ident;
};

/* Deferred to the unlock: a close is a system call, and with the ptrace
 * source a release that waits for the tracer thread. */
static void task_close(void *data)
{
	struct task_close *c = data;

	c->kf->ops->task_close(c->kf, &c->ident);
	g_free(c);
}

static void task_close_later(struct cg_core *core, const struct task *t)
{
	struct task_close *c = g_new(struct task_close, 1);

	*c = (struct task_close){ core->kf, t->ident };
	cg_write_defer(&core->lock, task_close, c);
}

void task_drop(struct cg_core *core, struct task *t)
{
	cg_assert_write_held(&core->lock);
	cg_notify(core, exit, t);
	tidmap_remove(&core->tasks, t->tid);
	task_proc_unlink(core, t);
	list_del(&t->cg_list);
	task_migrate(core, t, t->cset, NULL);
	put_css_set(core, t->cset);
	if (!t->unwatched)
		task_close_later(core, t);
	slab_free(&core->task_pool, t);
}

/* A group's member as task_members_copy() found it. */
struct member {
	pid_t tid;
	struct task_ident ident;
};

GArray *task_members_copy(struct cg_core *core, uint64_t parent_id, const char *name)
{
	unsigned slot = cg_read_lock(&core->lock);
	struct cgroup *parent = cgroup_by_id(core, parent_id);
	struct cgroup *cgrp = parent ? cgroup_child(parent, name) : NULL;
	GArray *members = NULL;

	for (GList *l = cgrp ? cgrp->csets.head : NULL; l; l = l->next) {
		struct task *t;

		css_set_for_each_task(t, (struct css_set *)l->data) {
			struct member m = { t->tid, t->ident };

			if (!members)
				members = g_array_new(FALSE, FALSE, sizeof(m));
			g_array_append_val(members, m);
		}
	}
	cg_read_unlock(&core->lock, slot);
	return members;
}

void task_members_keep_gone(struct cg_core *core, GArray *members)
{
	guint kept = 0;

	for (guint i = 0; members && i < members->len; i++) {
		struct member *m = &g_array_index(members, struct member, i);

		if (!core->kf->ops->task_alive(core->kf, m->tid, &m->ident))
			g_array_index(members, struct member, kept++) = *m;
	}
	if (members)
		g_array_set_size(members, kept);
}

void task_members_drop(struct cg_core *core, GArray *members)
{
	cg_assert_write_held(&core->lock);
	for (guint i = 0; members && i < members->len; i++) {
		struct member *m = &g_array_index(members, struct member, i);
		struct task *t = task_lookup(core, m->tid);

		if (t && t->ident.ino == m->ident.ino)
			task_drop(core, t);
	}
	if (members)
		g_array_unref(members);
}

/* Ticks since then, of which only the low 32 bits are kept; 0 if now
 * is older (a sample taken before the last charge). */
static uint32_t delta(uint64_t now, uint32_t then)
{
	int32_t d = (int32_t)((uint32_t)now - then);

	return d > 0 ? (uint32_t)d : 0;
}

void task_charge(struct cg_core *core, struct task *t, const struct task_cputime *now)
{
	struct task_cputime d;

	cg_assert_write_held(&core->lock);

	if (now->run_ns < t->charged.run_ns)
		return;		/* taken before the last charge */
	d = (struct task_cputime){
		.run_ns = now->run_ns - t->charged.run_ns,
		.utime = delta(now->utime, t->charged.utime),
		.stime = delta(now->stime, t->charged.stime),
		/* Unknown (an exit record): where it ran last. */
		.cpu = now->cpu >= 0 ? now->cpu : t->charged_cpu,
	};
	if (t->cset != core->init_css_set) {
		for (unsigned i = 0; i < core->nr_subsys; i++) {
			struct css *css = t->cset->subsys[i];

			if (core->subsys[i]->charge && css && css->parent)
				core->subsys[i]->charge(css, &d);
		}
		cgroup_charge_cputime(core, t->cset, &d);
	}
	t->charged.run_ns = now->run_ns;
	t->charged_cpu = (int16_t)d.cpu;
	t->charged.utime += d.utime;
	t->charged.stime += d.stime;
}

bool task_account(struct cg_core *core, struct task *t)
{
	struct kfacade *kf = core->kf;
	struct task_cputime now;
	uint64_t clock;

	/* One clock read (not two /proc files) when the process did not run:
	 * the common case of moving a sleeping task. */
	if (kf->ops->process_cputime(kf, t->ident.tgid, &clock) < 0)
		clock = UINT64_MAX;
	else if (clock == t->charged_proc_ns)
		return true;
	if (kf->ops->task_cputime(kf, t->ident.tgid, t->tid, &now) < 0)
		return false;
	task_charge(core, t, &now);
	t->charged_proc_ns = clock;
	return true;
}

void task_set_css_set(struct cg_core *core, struct task *t, struct css_set *cset)
{
	struct css_set *old = t->cset;

	cg_assert_write_held(&core->lock);

	if (old == cset)
		return;
	t->joined_ns = core->kf->ops->boottime_ns(core->kf);
	get_css_set(cset);
	list_move_tail(&t->cg_list, &cset->tasks);
	t->cset = cset;
	task_migrate(core, t, old, cset);
	put_css_set(core, old);
}

/* Whether the controllers let a member of cset fork (the kernel's
 * cgroup_can_fork()); if not, *kill_as says who may kill the child. */
static bool task_can_fork(struct cg_core *core, struct css_set *cset, uid_t *kill_as)
{
	for (unsigned i = 0; i < core->nr_subsys; i++) {
		const struct cgroup_subsys *ss = core->subsys[i];

		if (ss->can_fork && cset->subsys[i] && ss->can_fork(cset->subsys[i], kill_as) < 0)
			return false;
	}
	return true;
}

struct task_kill {
	struct kfacade *kf;
	pid_t tid;
	struct task_ident ident;
};

/* Deferred to the unlock: a system call. */
static void task_kill(void *data)
{
	struct task_kill *k = data;

	k->kf->ops->task_kill(k->kf, k->tid, &k->ident);
	g_free(k);
}

void task_kill_later(struct cg_core *core, const struct task *t)
{
	struct task_kill *k = g_new(struct task_kill, 1);

	*k = (struct task_kill){ core->kf, t->tid, t->ident };
	cg_write_defer(&core->lock, task_kill, k);
}

struct task_kill_as {
	struct cg_core *core;
	struct task_kill k;
	uid_t as;
};

/* Deferred to the unlock: the child's ids are read, and it is killed only
 * if user as could kill it (kill_ok_by_cred(): as is the sender's real
 * and effective uid, matched against the target's real and saved uid). A
 * child spared stays a member, counted, as one forked before the limit. */
static void task_kill_as(void *data)
{
	struct task_kill_as *ka = data;
	struct kfacade *kf = ka->k.kf;
	struct task_uids u;

	if (ka->as != CG_KILL_AS_NONE && kf->ops->task_uids(kf, ka->k.tid, &u) == 0 &&
	    (u.uid == ka->as || u.suid == ka->as)) {
		kf->ops->task_kill(kf, ka->k.tid, &ka->k.ident);
	} else if (atomic_fetch_add(&ka->core->nr_fork_kills_spared, 1) == 0) {
		g_message("pids: thread %d forked over a limit that its writers may not "
			  "kill it for: left alive (pids_kills_spared in cgfused.stat)",
			  (int)ka->k.tid);
	}
	g_free(ka);
}

/* Kills t once the lock is let go if user as may (see task_kill_as). */
static void task_kill_as_later(struct cg_core *core, const struct task *t, uid_t as)
{
	struct task_kill_as *ka = g_new(struct task_kill_as, 1);

	*ka = (struct task_kill_as){ core, { core->kf, t->tid, t->ident }, as };
	cg_write_defer(&core->lock, task_kill_as, ka);
}

/* A child joins its parent's groups. All it ever ran was in them; it was
 * born with its parent's nice and affinity, and leaves with what the parent
 * would. ident: its identity, opened before the lock was taken (the item's,
 * taken from it). born_ns: when it started, if known (it has been a member
 * since). A child the kernel just reported (forked) must pass the
 * controllers' can_fork; one that fails it, or whose parent is dying, is
 * killed. */
static void task_adopt(struct cg_core *core, struct task *parent, pid_t tid,
		       const struct task_ident *ident, uint64_t born_ns, bool forked)
{
	static const struct task_cputime none;
	/* Its figures need no reading: all of them are its groups'. */
	struct task *child = task_new(core, tid, ident, UINT64_MAX, &none);
	uid_t kill_as = CG_KILL_AS_ROOT;
	/* A dying parent's child is killed with it, and asks no controller
	 * (its fork would not have happened). */
	bool refused = !parent->dying && forked && !task_can_fork(core, parent->cset, &kill_as);

	child->dying = parent->dying || (refused && kill_as == CG_KILL_AS_ROOT) ||
		       cgroup_kill_pending(core, parent->cset);
	task_set_css_set(core, child, parent->cset);
	if (child->dying)
		task_kill_later(core, child);
	else if (refused)
		task_kill_as_later(core, child, kill_as);
	if (born_ns)
		child->joined_ns = born_ns;
	cg_notify(core, fork, parent, child);
}

/* A child starts in its parent's groups. The proc connector names the
 * forking thread for a new process, but for a new thread only the process's
 * own parent: a thread joins its process leader's groups. Without an
 * identity (its parent was not tracked in a group when the report was
 * read, so it forked before it joined one; or the child is gone already,
 * its exit ours to ignore) it stays where it is. */
static void task_fork(struct cg_core *core, struct task_item *it)
{
	const struct task_event *ev = &it->ev;
	pid_t from = ev->tid == ev->tgid ? ev->parent : ev->tgid;
	struct task *parent = task_lookup(core, from);

	if (!it->opened || !parent || parent->cset == core->init_css_set ||
	    task_lookup(core, ev->tid))
		return;
	task_adopt(core, parent, ev->tid, &it->ident, 0, true);
	it->opened = false;	/* the task's now */
}

/* /proc's start times have the granularity of a clock tick. */
#define START_TIME_SLACK_NS 10000000ULL

/* Reports were lost, or no daemon ran: the tracked threads found gone
 * (if checked) are dropped unless their id is another thread's by now, and
 * an untracked thread whose parent (its process leader, for a thread) is in
 * a group and which started after the parent joined it was forked there,
 * and joins it (oldest first, so that grandchildren find their parents
 * placed). */
static void task_apply_resync(struct cg_core *core, struct task_item *it)
{
	if (it->gone) {
		core->nr_resyncs++;
		for (guint i = 0; i < it->gone->len; i++) {
			const struct task_seen *s = &g_array_index(it->gone, struct task_seen, i);
			struct task *t = task_lookup(core, s->tid);

			if (t && t->ident.ino == s->ident.ino)
				task_drop(core, t);
		}
	}
	for (guint i = 0; i < it->orphans->len; i++) {
		struct task_orphan *o = &g_array_index(it->orphans, struct task_orphan, i);
		pid_t from = o->tid == o->origin.tgid ? o->origin.ppid : o->origin.tgid;
		struct task *parent = task_lookup(core, from);

		if (parent && parent->cset != core->init_css_set && !task_lookup(core, o->tid) &&
		    o->origin.start_ns + START_TIME_SLACK_NS >= parent->joined_ns) {
			task_adopt(core, parent, o->tid, &o->ident, o->origin.start_ns, false);
			o->opened = false;
		}
	}
}

static void task_apply(struct cg_core *core, struct task_item *it)
{
	struct task *t;

	if (it->kind == TASK_ITEM_RESYNC)
		task_apply_resync(core, it);
	else if (it->ev.what == TASK_EVENT_FORK)
		task_fork(core, it);
	else if (it->ev.what == TASK_EVENT_EXEC)
		task_exec(core, it);
	else if ((t = task_lookup(core, it->ev.tid)) &&
		 (!it->ev.ino || t->ident.ino == it->ev.ino)) {
		if (it->ev.final_valid)
			task_charge(core, t, &it->ev.final);
		task_drop(core, t);
	}
}

bool task_catch_up_batch(struct cg_core *core, unsigned max)
{
	cg_assert_write_held(&core->lock);
	for (unsigned i = 0; i < max; i++) {
		struct task_item *it = task_queue_pop(core);

		if (!it)
			return false;
		task_apply(core, it);
		task_item_free(core, it);
	}
	return task_queue_pending(core);
}

void task_catch_up(struct cg_core *core)
{
	cg_assert_write_held(&core->lock);
	while (task_catch_up_batch(core, TASK_CATCH_UP_BATCH))
		;
}

void task_table_free(struct cg_core *core)
{
	GPtrArray *all = task_table_copy(core);

	for (guint i = 0; i < all->len; i++)
		task_drop(core, g_ptr_array_index(all, i));
	g_ptr_array_unref(all);
}
