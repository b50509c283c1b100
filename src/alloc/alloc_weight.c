/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The allocator's weighing hierarchy: sums kept as things change, weights
 * worked out along a thread's path. */
#include "alloc/alloc_weight.h"

#include "alloc/alloc_nice.h"

void alloc_groups_init(struct alloc_groups *gs)
{
	gs->by_id = g_hash_table_new_full(g_int64_hash, g_int64_equal, NULL, g_free);
	gs->gen = 0;
}

void alloc_groups_clear(struct alloc_groups *gs)
{
	g_hash_table_destroy(gs->by_id);
}

struct alloc_group *alloc_group_get(struct alloc_groups *gs, uint64_t id)
{
	struct alloc_group *g = g_hash_table_lookup(gs->by_id, &id);

	if (!g) {
		g = g_new0(struct alloc_group, 1);
		g->id = id;
		g_hash_table_insert(gs->by_id, &g->id, g);
	}
	g->refs++;
	return g;
}

void alloc_group_put(struct alloc_groups *gs, struct alloc_group *g)
{
	while (g && --g->refs == 0) {
		struct alloc_group *parent = g->parent;

		g_hash_table_remove(gs->by_id, &g->id);
		g = parent;		/* the child's reference on it */
	}
}

/* g gained (delta 1) or lost (-1) a running entity: a group that becomes
 * busy or idle is one more or one less in its parent's. */
static void running(struct alloc_group *g, int delta)
{
	for (; g; g = g->parent) {
		bool was = g->nr_running > 0;

		g->nr_running = (unsigned)((int)g->nr_running + delta);
		if (!g->linked || !g->parent || was == (g->nr_running > 0))
			return;
		g->parent->runnable += delta * g->shares;
	}
}

/* Counts g in its parent's sums (sign 1), or stops counting it (-1). */
static void count_in(struct alloc_group *g, int sign)
{
	struct alloc_group *p = g->parent;

	g->linked = sign > 0;
	if (!p)
		return;
	p->all += sign * g->shares;
	if (g->nr_running) {
		p->runnable += sign * g->shares;
		running(p, sign);
	}
}

void alloc_group_set(struct alloc_groups *gs, const struct sched_group *sg)
{
	struct alloc_group *g = alloc_group_get(gs, sg->id);
	struct alloc_group *parent = sg->parent ? alloc_group_get(gs, sg->parent) : NULL;

	if (!g->in_tree) {
		g->in_tree = true;
		g->refs++;		/* the tree's, until it is removed */
	}
	if (g->linked)
		count_in(g, -1);
	if (g->parent != parent) {
		struct alloc_group *old = g->parent;

		g->parent = parent;	/* parent's reference is now g's */
		alloc_group_put(gs, old);
	} else {
		alloc_group_put(gs, parent);
	}
	g->shares = sg->shares;
	count_in(g, 1);
	alloc_group_put(gs, g);
}

void alloc_group_remove(struct alloc_groups *gs, uint64_t id)
{
	struct alloc_group *g = g_hash_table_lookup(gs->by_id, &id);

	if (!g || !g->in_tree)
		return;
	if (g->linked)
		count_in(g, -1);
	g->in_tree = false;
	alloc_group_put(gs, g);
}

/* Counts the thread in its group's sums (sign 1), or stops (-1). */
static void join(struct task_sched *s, int sign)
{
	struct alloc_group *g = s->group;

	if (!g)
		return;
	if (sign > 0)
		s->own_nice = s->seen ? s->orig_nice : 0;
	g->all += sign * nice_to_weight(s->own_nice);
	if (s->runnable) {
		g->runnable += sign * nice_to_weight(s->own_nice);
		running(g, sign);
	}
}

void alloc_task_set_group(struct alloc_groups *gs, struct task_sched *s,
			  struct alloc_group *g)
{
	struct alloc_group *old = s->group;

	if (old == g)
		return;
	join(s, -1);
	if (g)
		g->refs++;
	s->group = g;
	join(s, 1);
	alloc_group_put(gs, old);
}

void alloc_task_set_runnable(struct task_sched *s, bool runnable)
{
	if (s->runnable == runnable)
		return;
	join(s, -1);
	s->runnable = runnable;
	join(s, 1);
}

void alloc_task_reweigh(struct task_sched *s)
{
	join(s, -1);
	join(s, 1);
}

/* A share over a sum that may be 0 (a group whose view is not complete
 * yet): then the whole. */
static double part(double whole, double share, double sum)
{
	return sum > 0 ? whole * share / sum : whole;
}

static double group_weight(struct alloc_groups *gs, struct alloc_group *g)
{
	const struct alloc_group *p = g->parent;

	if (g->gen == gs->gen)
		return g->weight;
	/* Each top-level group weighs its shares against the rest of the
	 * system, whatever its siblings do. */
	g->weight = !p ? g->shares
		       : part(group_weight(gs, g->parent), g->shares,
			      g->nr_running ? p->runnable : p->all);
	g->gen = gs->gen;
	return g->weight;
}

void alloc_weights_begin(struct alloc_groups *gs)
{
	gs->gen++;
}

double alloc_task_weight(struct alloc_groups *gs, const struct task_sched *s)
{
	const struct alloc_group *g = s->group;

	return part(group_weight(gs, s->group), nice_to_weight(s->own_nice),
		    s->runnable ? g->runnable : g->all);
}
