/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Reading the kernel's reports outside the core lock: see task_queue.h. */
#include "core/task_queue.h"

#include "core/internal.h"
#include "core/task.h"
#include "core/task_proc.h"

/* A child (or exec'd leader) an item in the queue will make tracked. */
struct born {
	pid_t tgid;
	unsigned refs;		/* items that will track it */
	bool opened;		/* ident is known (prepared) */
	struct task_ident ident;
};

struct task_queue {
	GMutex pull_lock;	/* one puller at a time */
	GMutex lock;		/* items and born */
	GQueue items;		/* struct task_item *, in the kernel's order */
	GHashTable *born;	/* tid -> struct born * */
};

struct task_queue *task_queue_new(void)
{
	struct task_queue *q = g_new0(struct task_queue, 1);

	g_mutex_init(&q->pull_lock);
	g_mutex_init(&q->lock);
	g_queue_init(&q->items);
	q->born = g_hash_table_new_full(NULL, NULL, NULL, g_free);
	return q;
}

void task_item_free(struct cg_core *core, struct task_item *it)
{
	struct kfacade *kf = core->kf;

	if (it->opened)
		kf->ops->task_close(kf, &it->ident);
	if (it->gone)
		g_array_unref(it->gone);
	for (guint i = 0; it->orphans && i < it->orphans->len; i++) {
		struct task_orphan *o = &g_array_index(it->orphans, struct task_orphan, i);

		if (o->opened)
			kf->ops->task_close(kf, &o->ident);
	}
	if (it->orphans)
		g_array_unref(it->orphans);
	g_free(it);
}

void task_queue_free(struct cg_core *core, struct task_queue *q)
{
	struct task_item *it;

	while ((it = g_queue_pop_head(&q->items)))
		task_item_free(core, it);
	g_hash_table_unref(q->born);
	g_mutex_clear(&q->lock);
	g_mutex_clear(&q->pull_lock);
	g_free(q);
}

/* Called with q->lock held. */
static struct born *born_get(struct task_queue *q, pid_t tid, pid_t tgid)
{
	struct born *b = g_hash_table_lookup(q->born, GINT_TO_POINTER(tid));

	if (!b) {
		b = g_new0(struct born, 1);
		b->tgid = tgid;
		g_hash_table_insert(q->born, GINT_TO_POINTER(tid), b);
	}
	return b;
}

static void born_put(struct task_queue *q, pid_t tid)
{
	struct born *b = g_hash_table_lookup(q->born, GINT_TO_POINTER(tid));

	if (b && --b->refs == 0)
		g_hash_table_remove(q->born, GINT_TO_POINTER(tid));
}

struct task_item *task_queue_pop(struct cg_core *core)
{
	struct task_queue *q = core->taskq;
	struct task_item *it;

	cg_assert_write_held(&core->lock);
	g_mutex_lock(&q->lock);
	it = g_queue_pop_head(&q->items);
	if (it && it->born)
		born_put(q, it->born);
	g_mutex_unlock(&q->lock);
	return it;
}

bool task_queue_pending(struct cg_core *core)
{
	struct task_queue *q = core->taskq;
	bool pending;

	g_mutex_lock(&q->lock);
	pending = !g_queue_is_empty(&q->items);
	g_mutex_unlock(&q->lock);
	return pending;
}

/* Called read-locked with q->lock held: whether tid is, or will be once
 * the queue is applied, a tracked thread (in a group, for a tracked one). */
static bool will_track(struct cg_core *core, struct task_queue *q, pid_t tid, bool in_group)
{
	struct task *t = task_lookup(core, tid);

	if (t)
		return !in_group || t->cset != core->init_css_set;
	return g_hash_table_contains(q->born, GINT_TO_POINTER(tid));
}

static void seen_append(GArray *a, pid_t tid, const struct task_ident *ident)
{
	struct task_seen s = { tid, *ident };

	g_array_append_val(a, s);
}

/* Read-locked with q->lock held: what an exec's report needs looked at,
 * the threads of its process tracked now or to be (born ones first: the
 * newest, as task_proc_link() orders a process's threads; ino 0 while
 * the born one's identity is not known yet). A tracked leader may be gone
 * by the time the report is applied (its exit report, queued, comes
 * first), so its threads are looked at too. */
static void mark_exec(struct cg_core *core, struct task_queue *q, struct task_item *it)
{
	GHashTableIter iter;
	gpointer key;
	struct born *b;
	struct task *t;

	it->gone = g_array_new(FALSE, FALSE, sizeof(struct task_seen));
	g_hash_table_iter_init(&iter, q->born);
	while (g_hash_table_iter_next(&iter, &key, (gpointer *)&b))
		if (b->tgid == it->ev.tgid && GPOINTER_TO_INT(key) != it->ev.tgid)
			seen_append(it->gone, GPOINTER_TO_INT(key),
				    b->opened ? &b->ident : &(struct task_ident){ 0 });
	for (guint pos = 0; (t = task_proc_next(core, it->ev.tgid, &pos));)
		seen_append(it->gone, t->tid, &t->ident);
	if (!it->gone->len) {
		g_array_unref(it->gone);
		it->gone = NULL;
		return;
	}
	it->born = it->ev.tgid;
	born_get(q, it->born, it->ev.tgid)->refs++;
}

/* Read-locked: which reports need a system call before they can be
 * applied. A fork is worth an identity when its parent is, or will be,
 * tracked in a group: made born, so that its own children are worth one
 * too. */
static void mark(struct cg_core *core, struct task_item **items, int n)
{
	struct task_queue *q = core->taskq;

	g_mutex_lock(&q->lock);
	for (int i = 0; i < n; i++) {
		const struct task_event *ev = &items[i]->ev;
		pid_t from = ev->tid == ev->tgid ? ev->parent : ev->tgid;

		/* A tracked ev->tid may be an old thread whose exit report
		 * is queued: the apply tells. */
		if (ev->what == TASK_EVENT_FORK && will_track(core, q, from, true)) {
			items[i]->born = ev->tid;
			born_get(q, ev->tid, ev->tgid)->refs++;
		} else if (ev->what == TASK_EVENT_EXEC) {
			mark_exec(core, q, items[i]);
		}
	}
	g_mutex_unlock(&q->lock);
}

/* The identity of a born thread once its fork was prepared. */
static void born_opened(struct task_queue *q, pid_t tid, const struct task_ident *ident)
{
	struct born *b;

	g_mutex_lock(&q->lock);
	b = g_hash_table_lookup(q->born, GINT_TO_POINTER(tid));
	if (b) {
		b->opened = true;
		b->ident = *ident;
	}
	g_mutex_unlock(&q->lock);
}

/* Unlocked: the exec's threads that are gone, then the new leader. */
static void prepare_exec(struct cg_core *core, struct task_item *it)
{
	struct task_queue *q = core->taskq;
	struct kfacade *kf = core->kf;
	guint kept = 0;

	for (guint i = 0; i < it->gone->len; i++) {
		struct task_seen s = g_array_index(it->gone, struct task_seen, i);

		if (!s.ident.ino) {
			struct born *b;

			g_mutex_lock(&q->lock);
			b = g_hash_table_lookup(q->born, GINT_TO_POINTER(s.tid));
			if (b && b->opened)
				s.ident = b->ident;
			g_mutex_unlock(&q->lock);
			if (!s.ident.ino)
				continue;
		}
		if (!kf->ops->task_alive(kf, s.tid, &s.ident))
			g_array_index(it->gone, struct task_seen, kept++) = s;
	}
	g_array_set_size(it->gone, kept);
	if (kept && task_read_new(kf, it->ev.tgid, &it->ident, &it->proc_ns, &it->now) == 0) {
		it->opened = true;
		born_opened(q, it->ev.tgid, &it->ident);
	}
}

/* Unlocked, in the kernel's order (a grandchild's exec finds its parent's
 * identity): the system calls marked. */
static void prepare(struct cg_core *core, struct task_item *it)
{
	struct kfacade *kf = core->kf;

	if (it->ev.what == TASK_EVENT_FORK && it->born) {
		it->opened = kf->ops->task_open(kf, it->ev.tid, &it->ident) == 0;
		if (it->opened)
			born_opened(core->taskq, it->ev.tid, &it->ident);
	} else if (it->ev.what == TASK_EVENT_EXEC && it->gone) {
		prepare_exec(core, it);
	}
}

static void push(struct task_queue *q, struct task_item *it)
{
	g_mutex_lock(&q->lock);
	g_queue_push_tail(&q->items, it);
	g_mutex_unlock(&q->lock);
}

/* Every tracked thread, and every born one whose identity is known. */
static GArray *copy_tracked(struct cg_core *core)
{
	struct task_queue *q = core->taskq;
	GArray *all = g_array_new(FALSE, FALSE, sizeof(struct task_seen));
	GHashTableIter iter;
	gpointer key;
	struct born *b;
	struct task *t;
	unsigned slot = cg_read_lock(&core->lock);

	for (guint pos = 0; (t = tidmap_next(&core->tasks, &pos));)
		seen_append(all, t->tid, &t->ident);
	g_mutex_lock(&q->lock);
	g_hash_table_iter_init(&iter, q->born);
	while (g_hash_table_iter_next(&iter, &key, (gpointer *)&b))
		if (b->opened)
			seen_append(all, GPOINTER_TO_INT(key), &b->ident);
	g_mutex_unlock(&q->lock);
	cg_read_unlock(&core->lock, slot);
	return all;
}

static int cmp_start(const void *a, const void *b)
{
	const struct task_orphan *x = a, *y = b;

	return (x->origin.start_ns > y->origin.start_ns) - (x->origin.start_ns < y->origin.start_ns);
}

/* Read-locked: keeps the orphans whose parent is tracked in a group, or
 * will be (born, or an older orphan kept); oldest first. */
static void keep_orphans(struct cg_core *core, GArray *orphans)
{
	struct task_queue *q = core->taskq;
	GHashTable *kept = g_hash_table_new(NULL, NULL);
	guint n = 0;

	g_mutex_lock(&q->lock);
	for (guint i = 0; i < orphans->len; i++) {
		struct task_orphan o = g_array_index(orphans, struct task_orphan, i);
		pid_t from = o.tid == o.origin.tgid ? o.origin.ppid : o.origin.tgid;

		if (will_track(core, q, from, true) ||
		    g_hash_table_contains(kept, GINT_TO_POINTER(from))) {
			g_hash_table_add(kept, GINT_TO_POINTER(o.tid));
			g_array_index(orphans, struct task_orphan, n++) = o;
		}
	}
	g_mutex_unlock(&q->lock);
	g_array_set_size(orphans, n);
	g_hash_table_unref(kept);
}

/* Unlocked but for two short looks: the untracked threads of the system
 * that may have been forked in a group, their identities opened. None
 * when nothing is tracked: no /proc walk. */
static GArray *find_orphans(struct cg_core *core)
{
	struct kfacade *kf = core->kf;
	GArray *orphans = g_array_new(FALSE, FALSE, sizeof(struct task_orphan));
	GArray *ids = g_array_new(FALSE, FALSE, sizeof(pid_t));
	unsigned slot = cg_read_lock(&core->lock);
	bool none = !tidmap_size(&core->tasks);
	guint n = 0;

	cg_read_unlock(&core->lock, slot);
	if (none && !task_queue_pending(core))
		goto out;
	kf->ops->all_tasks(kf, ids, false);
	for (guint i = 0; i < ids->len; i++) {
		struct task_orphan o = { .tid = g_array_index(ids, pid_t, i) };

		if (kf->ops->task_origin(kf, o.tid, &o.origin) == 0)
			g_array_append_val(orphans, o);
	}
	g_array_sort(orphans, cmp_start);
	slot = cg_read_lock(&core->lock);
	for (guint i = 0; i < orphans->len; i++) {
		struct task_orphan o = g_array_index(orphans, struct task_orphan, i);

		if (!task_lookup(core, o.tid))
			g_array_index(orphans, struct task_orphan, n++) = o;
	}
	g_array_set_size(orphans, n);
	keep_orphans(core, orphans);
	cg_read_unlock(&core->lock, slot);
	n = 0;
	for (guint i = 0; i < orphans->len; i++) {
		struct task_orphan o = g_array_index(orphans, struct task_orphan, i);

		o.opened = kf->ops->task_open(kf, o.tid, &o.ident) == 0;
		if (o.opened)
			g_array_index(orphans, struct task_orphan, n++) = o;
	}
	g_array_set_size(orphans, n);
out:
	g_array_unref(ids);
	return orphans;
}

/* Called with pull_lock held. The liveness checks run on a copy; the
 * drops are applied later, to the threads that still have the identity
 * checked. */
static void resync(struct cg_core *core, bool all)
{
	struct task_item *it = g_new0(struct task_item, 1);

	it->kind = TASK_ITEM_RESYNC;
	if (all) {
		GArray *seen = copy_tracked(core);
		guint n = 0;

		for (guint i = 0; i < seen->len; i++) {
			struct task_seen s = g_array_index(seen, struct task_seen, i);

			if (!core->kf->ops->task_alive(core->kf, s.tid, &s.ident))
				g_array_index(seen, struct task_seen, n++) = s;
		}
		g_array_set_size(seen, n);
		it->gone = seen;
	}
	it->orphans = find_orphans(core);
	push(core->taskq, it);
}

void task_pull_resync(struct cg_core *core, bool all)
{
	g_mutex_lock(&core->taskq->pull_lock);
	resync(core, all);
	g_mutex_unlock(&core->taskq->pull_lock);
}

bool task_pull_batch(struct cg_core *core)
{
	struct task_queue *q = core->taskq;
	struct kfacade *kf = core->kf;
	struct task_event ev[TASK_CATCH_UP_BATCH];
	struct task_item *items[TASK_CATCH_UP_BATCH];
	unsigned slot;
	int n;

	g_mutex_lock(&q->pull_lock);
	n = kf->ops->task_events(kf, ev, G_N_ELEMENTS(ev));
	if (n < 0) {
		resync(core, true);
		g_mutex_unlock(&q->pull_lock);
		return true;	/* and read on */
	}
	for (int i = 0; i < n; i++) {
		items[i] = g_new0(struct task_item, 1);
		items[i]->ev = ev[i];
	}
	slot = cg_read_lock(&core->lock);
	mark(core, items, n);
	cg_read_unlock(&core->lock, slot);
	for (int i = 0; i < n; i++)
		prepare(core, items[i]);
	/* Queued together: until then the batch's born keep their identities
	 * for its execs. */
	g_mutex_lock(&q->lock);
	for (int i = 0; i < n; i++)
		g_queue_push_tail(&q->items, items[i]);
	g_mutex_unlock(&q->lock);
	g_mutex_unlock(&q->pull_lock);
	return n == (int)G_N_ELEMENTS(ev);
}

void task_pull_wait(struct cg_core *core)
{
	g_mutex_lock(&core->taskq->pull_lock);
	g_mutex_unlock(&core->taskq->pull_lock);
}

void task_pull(struct cg_core *core)
{
	while (task_pull_batch(core))
		;
}
