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

void task_reap_exited(struct cg_core *core)
{
	pid_t tids[256];
	int n;

	do {
		n = core->kf->ops->exited(core->kf, tids, G_N_ELEMENTS(tids));
		if (n < 0) {
			task_resync(core);
			n = G_N_ELEMENTS(tids);	/* and read on */
			continue;
		}
		for (int i = 0; i < n; i++) {
			struct task *t = task_lookup(core, tids[i]);

			if (t)
				task_drop(core, t);
		}
	} while (n == G_N_ELEMENTS(tids));
}

void task_table_free(struct cg_core *core)
{
	GList *all = g_hash_table_get_values(core->tasks);

	for (GList *l = all; l; l = l->next)
		task_drop(core, l->data);
	g_list_free(all);
}
