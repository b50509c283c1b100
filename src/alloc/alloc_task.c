/* The allocator's per-thread table. */
#include "alloc/alloc_task.h"

GHashTable *alloc_task_table_new(void)
{
	return g_hash_table_new_full(NULL, NULL, NULL, g_free);
}

struct task_sched *alloc_task_lookup(GHashTable *table, const struct task *t)
{
	return g_hash_table_lookup(table, t);
}

struct task_sched *alloc_task_get(GHashTable *table, const struct task *t)
{
	struct task_sched *s = g_hash_table_lookup(table, t);

	if (!s) {
		s = g_new0(struct task_sched, 1);
		s->runnable = true;
		g_hash_table_insert(table, (gpointer)t, s);
	}
	return s;
}

void alloc_task_fork(GHashTable *table, const struct task *parent, const struct task *child)
{
	struct task_sched *from = alloc_task_lookup(table, parent);
	struct task_sched *s = alloc_task_get(table, child);

	if (from)
		*s = *from;
	s->sampled = false;
	s->runnable = true;
}
