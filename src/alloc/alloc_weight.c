/* The group-fair weight of every managed thread. */
#include "alloc/alloc_weight.h"

#include "alloc/alloc_nice.h"
#include "core/css_set.h"

struct weigh {
	int ssid;
	GHashTable *sched;		/* the allocator's per-thread table */
	GHashTable *busy;		/* cgroups with a runnable thread below */
	GArray *out;
};

static double task_own_weight(const struct task_sched *s)
{
	return s->seen ? nice_to_weight(s->orig_nice) : nice_to_weight(0);
}

#define for_each_task_in(t, cs, ts, cgrp)					\
	for (GList *cs = (cgrp)->csets.head; cs; cs = cs->next)			\
		for (GList *ts = ((struct css_set *)cs->data)->tasks.head;	\
		     ts && ((t) = ts->data); ts = ts->next)

/* Marks the cgroups that have a runnable thread in their subtree. */
static bool mark_busy(struct cgroup *cgrp, struct weigh *w)
{
	GHashTableIter iter;
	struct cgroup *child;
	struct task *t;
	bool busy = false;

	cgroup_for_each_child(child, &iter, cgrp)
		busy |= mark_busy(child, w);
	for_each_task_in(t, cs, ts, cgrp)
		busy |= alloc_task_get(w->sched, t)->runnable;
	if (busy)
		g_hash_table_add(w->busy, cgrp);
	return busy;
}

static double shares(struct cgroup *cgrp, const struct weigh *w)
{
	struct css *css = cgrp->subsys[w->ssid];

	return (double)css->ss->weight(css);
}

static void weigh_group(struct cgroup *cgrp, double weight, struct weigh *w)
{
	GHashTableIter iter;
	struct cgroup *child;
	struct task *t;
	double busy = 0, all = 0;	/* the runnable entities' weight, everyone's */

	cgroup_for_each_child(child, &iter, cgrp) {
		double own = shares(child, w);

		all += own;
		if (g_hash_table_contains(w->busy, child))
			busy += own;
	}
	for_each_task_in(t, cs, ts, cgrp) {
		const struct task_sched *s = alloc_task_get(w->sched, t);

		all += task_own_weight(s);
		if (s->runnable)
			busy += task_own_weight(s);
	}

	cgroup_for_each_child(child, &iter, cgrp) {
		bool runs = g_hash_table_contains(w->busy, child);

		weigh_group(child, weight * shares(child, w) / (runs ? busy : all), w);
	}
	for_each_task_in(t, cs, ts, cgrp) {
		struct task_sched *s = alloc_task_get(w->sched, t);
		struct alloc_target target = {
			.t = t,
			.s = s,
			.leaf = cgrp,
			.weight = weight * task_own_weight(s) / (s->runnable ? busy : all),
			.runnable = s->runnable,
		};

		g_array_append_val(w->out, target);
	}
}

struct cg_root *alloc_weight_root(struct cg_core *core, int ssid)
{
	for (guint i = 0; i < core->roots->len; i++) {
		struct cg_root *root = g_ptr_array_index(core->roots, i);

		if (root->subsys_mask & (1u << ssid))
			return root;
	}
	return NULL;
}

void alloc_weights(struct cg_core *core, int ssid, GHashTable *sched, GArray *targets)
{
	struct cg_root *root = alloc_weight_root(core, ssid);
	struct weigh w = { ssid, sched, g_hash_table_new(NULL, NULL), targets };
	GHashTableIter iter;
	struct cgroup *top;

	if (!root)
		return;
	mark_busy(root->top, &w);
	/* Each top-level group weighs its shares against the rest of the
	 * system, whatever its siblings do. */
	cgroup_for_each_child(top, &iter, root->top)
		weigh_group(top, shares(top, &w), &w);
	g_hash_table_destroy(w.busy);
}
