/* The table of tracked tasks and their exits. */
#include "task.h"

#include <errno.h>

struct task *task_lookup(struct cg_core *core, pid_t tid)
{
	return g_hash_table_lookup(core->tasks, GINT_TO_POINTER(tid));
}

struct css_set *task_css_set(struct cg_core *core, pid_t tid)
{
	struct task *t = task_lookup(core, tid);

	return t ? t->cset : core->init_css_set;
}

int task_get(struct cg_core *core, pid_t tid, struct task **out, bool *created)
{
	struct task *t = task_lookup(core, tid);
	int ret;

	*created = false;
	if (t) {
		*out = t;
		return 0;
	}
	t = g_new0(struct task, 1);
	t->tid = tid;
	ret = core->kf->ops->task_open(core->kf, tid, &t->ident);
	if (ret < 0) {
		g_free(t);
		return ret;
	}
	get_css_set(core->init_css_set);
	t->cset = core->init_css_set;
	g_queue_push_tail(&t->cset->tasks, t);
	t->cset_node = t->cset->tasks.tail;
	g_hash_table_insert(core->tasks, GINT_TO_POINTER(tid), t);
	*out = t;
	*created = true;
	return 0;
}

void task_drop(struct cg_core *core, struct task *t)
{
	g_hash_table_remove(core->tasks, GINT_TO_POINTER(t->tid));
	g_queue_delete_link(&t->cset->tasks, t->cset_node);
	put_css_set(core, t->cset);
	core->kf->ops->task_close(core->kf, &t->ident);
	g_free(t);
}

void task_set_css_set(struct cg_core *core, struct task *t, struct css_set *cset)
{
	struct css_set *old = t->cset;

	if (old == cset)
		return;
	get_css_set(cset);
	g_queue_unlink(&old->tasks, t->cset_node);
	g_queue_push_tail_link(&cset->tasks, t->cset_node);
	t->cset = cset;
	put_css_set(core, old);
}

/* Exit reports were lost: ask about every tracked task. */
static void task_resync(struct cg_core *core)
{
	GList *all = g_hash_table_get_values(core->tasks);

	for (GList *l = all; l; l = l->next) {
		struct task *t = l->data;

		if (!core->kf->ops->task_alive(core->kf, t->tid, &t->ident))
			task_drop(core, t);
	}
	g_list_free(all);
}

/* A child starts in its parent's groups. The proc connector names the
 * forking thread for a new process, but for a new thread only the process's
 * own parent: a thread joins its process leader's groups. */
static void task_fork(struct cg_core *core, const struct task_event *ev)
{
	pid_t from = ev->tid == ev->tgid ? ev->parent : ev->tgid;
	struct task *parent = task_lookup(core, from), *child;
	bool created;

	if (!parent || parent->cset == core->init_css_set || task_lookup(core, ev->tid))
		return;
	/* Fails if the child is gone already; its exit is ours to ignore. */
	if (task_get(core, ev->tid, &child, &created) == 0)
		task_set_css_set(core, child, parent->cset);
}

void task_catch_up(struct cg_core *core)
{
	struct task_event ev[256];
	int n;

	do {
		n = core->kf->ops->task_events(core->kf, ev, G_N_ELEMENTS(ev));
		if (n < 0) {
			task_resync(core);
			n = G_N_ELEMENTS(ev);	/* and read on */
			continue;
		}
		for (int i = 0; i < n; i++) {
			struct task *t;

			if (ev[i].what == TASK_EVENT_FORK)
				task_fork(core, &ev[i]);
			else if ((t = task_lookup(core, ev[i].tid)))
				task_drop(core, t);
		}
	} while (n == G_N_ELEMENTS(ev));
}

void task_table_free(struct cg_core *core)
{
	GList *all = g_hash_table_get_values(core->tasks);

	for (GList *l = all; l; l = l->next)
		task_drop(core, l->data);
	g_list_free(all);
}
