/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The tracked threads of each process: see task_proc.h. */
#include "core/task_proc.h"

GHashTable *task_proc_table_new(void)
{
	return g_hash_table_new(NULL, NULL);
}

struct task *task_proc_first(struct cg_core *core, pid_t tgid)
{
	return g_hash_table_lookup(core->procs, GINT_TO_POINTER(tgid));
}

void task_proc_link(struct cg_core *core, struct task *t)
{
	struct task *first = task_proc_first(core, t->ident.tgid);

	t->proc_prev = NULL;
	t->proc_next = first;
	if (first)
		first->proc_prev = t;
	g_hash_table_insert(core->procs, GINT_TO_POINTER(t->ident.tgid), t);
}

void task_proc_unlink(struct cg_core *core, struct task *t)
{
	if (t->proc_next)
		t->proc_next->proc_prev = t->proc_prev;
	if (t->proc_prev)
		t->proc_prev->proc_next = t->proc_next;
	else if (t->proc_next)
		g_hash_table_insert(core->procs, GINT_TO_POINTER(t->ident.tgid), t->proc_next);
	else
		g_hash_table_remove(core->procs, GINT_TO_POINTER(t->ident.tgid));
	t->proc_prev = t->proc_next = NULL;
}
