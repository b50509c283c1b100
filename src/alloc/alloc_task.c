/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The allocator's per-thread table. */
#include "alloc/alloc_task.h"

#include "alloc/alloc_cpus.h"

/* One a managed thread, on top of the core's struct task. */
G_STATIC_ASSERT(sizeof(struct task_sched) <= 72);

/* The table and the slabs of its entries. */
struct task_table {
	struct tidmap map;		/* first: what callers hold */
	struct slab_pool pool;
};

static struct slab_pool *pool_of(struct tidmap *table)
{
	return &((struct task_table *)table)->pool;
}

static void task_free(struct tidmap *table, struct task_sched *s)
{
	cpus_set_unref(s->masks);
	slab_free(pool_of(table), s);
}

struct tidmap *alloc_task_table_new(void)
{
	struct task_table *t = g_new(struct task_table, 1);

	slab_pool_init(&t->pool, sizeof(struct task_sched));
	tidmap_init(&t->map, &t->pool, offsetof(struct task_sched, tid));
	return &t->map;
}

void alloc_task_table_free(struct tidmap *table)
{
	GPtrArray *all = g_ptr_array_new();
	struct task_sched *s;

	/* Collected first: a free may give back a slab the walk reads. */
	for (guint pos = 0; (s = tidmap_next(table, &pos));)
		g_ptr_array_add(all, s);
	tidmap_clear(table);
	for (guint i = 0; i < all->len; i++)
		task_free(table, all->pdata[i]);
	g_ptr_array_unref(all);
	slab_pool_clear(pool_of(table));
	g_free(table);
}

struct task_sched *alloc_task_lookup(struct tidmap *table, pid_t tid)
{
	return tidmap_lookup(table, tid);
}

struct task_sched *alloc_task_next(struct tidmap *table, guint *pos)
{
	return tidmap_next(table, pos);
}

struct task_sched *alloc_task_add(struct tidmap *table, pid_t tid, const struct task_ident *ident)
{
	struct task_sched *s = slab_alloc(pool_of(table)), *old;

	s->tid = tid;
	s->tgid = ident->tgid;
	s->ino = ident->ino;
	s->runnable = true;
	if ((old = tidmap_insert(table, s)))
		task_free(table, old);
	return s;
}

void alloc_task_remove(struct tidmap *table, struct task_sched *s)
{
	tidmap_remove(table, s->tid);
	task_free(table, s);
}

void alloc_task_fork(struct tidmap *table, struct cpus_pool *pool, pid_t parent, pid_t child,
		     const struct task_ident *ident)
{
	struct task_sched *from = alloc_task_lookup(table, parent), *s;

	if (!from || alloc_task_lookup(table, child))
		return;
	s = alloc_task_add(table, child, ident);
	*s = *from;
	s->tid = child;
	s->tgid = ident->tgid;
	s->ino = ident->ino;
	s->exited = false;
	/* Not managed until the view says so. */
	s->managed = s->active = false;
	s->proc_prev = s->proc_next = NULL;
	s->clock_known = false;
	s->group = NULL;
	s->cs = NULL;
	cpus_set_ref(s->masks);
	s->recorded = false;
	s->sampled = false;
	s->runnable = true;
	/* What it has now is not known: a nice or affinity given to the
	 * parent may have come just before the fork or just after: the next
	 * pass reads them. */
	s->nice = NICE_UNKNOWN;
	s->placed_asleep = false;
	cpus_set_keep(pool, &s->masks, CPUS_NOW, NULL);
}
