/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The group-fair weight of every managed thread. */
#include "alloc/alloc_weight.h"

#include "alloc/alloc_nice.h"

static double task_own_weight(const struct task_sched *s)
{
	return s->seen ? nice_to_weight(s->orig_nice) : nice_to_weight(0);
}

struct group_sums {
	bool busy;			/* a runnable thread below */
	double all, runnable;		/* its entities' weights: everyone's, the runnable's */
	double weight;			/* its own effective weight */
};

void alloc_weights(const struct sched_view *v, struct task_sched *const *sched,
		   GArray *targets)
{
	const struct sched_group *g = (const struct sched_group *)v->groups->data;
	const struct sched_task *t = (const struct sched_task *)v->tasks->data;
	guint ng = v->groups->len, nt = v->tasks->len;
	struct group_sums *sum = g_new0(struct group_sums, ng);

	for (guint i = 0; i < nt; i++)
		if (t[i].group > 0 && sched[i]->runnable)
			sum[t[i].group].busy = true;
	/* Parents come first: backwards, every child is done before its parent. */
	for (guint i = ng; i-- > 1;)
		if (sum[i].busy)
			sum[g[i].parent].busy = true;
	for (guint i = 1; i < ng; i++) {
		sum[g[i].parent].all += g[i].shares;
		if (sum[i].busy)
			sum[g[i].parent].runnable += g[i].shares;
	}
	for (guint i = 0; i < nt; i++) {
		double own = task_own_weight(sched[i]);

		if (t[i].group <= 0)
			continue;
		sum[t[i].group].all += own;
		if (sched[i]->runnable)
			sum[t[i].group].runnable += own;
	}
	/* Each top-level group weighs its shares against the rest of the
	 * system, whatever its siblings do. */
	for (guint i = 1; i < ng; i++) {
		const struct group_sums *p = &sum[g[i].parent];

		sum[i].weight = g[i].parent == 0 ? g[i].shares
			: p->weight * g[i].shares / (sum[i].busy ? p->runnable : p->all);
	}
	for (guint i = 0; i < nt; i++) {
		const struct group_sums *p;
		struct alloc_target target;

		if (t[i].group <= 0)
			continue;
		p = &sum[t[i].group];
		target = (struct alloc_target){
			.s = sched[i],
			.leaf = g[t[i].group].id,
			.weight = p->weight * task_own_weight(sched[i]) /
				  (sched[i]->runnable ? p->runnable : p->all),
			.runnable = sched[i]->runnable,
		};
		g_array_append_val(targets, target);
	}
	g_free(sum);
}
