/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The tracked threads of each process: see task_proc.h. */
#include "core/task_proc.h"

struct task *task_proc_first(struct cg_core *core, pid_t tgid)
{
	return tidmap_lookup(&core->procs, tgid);
}

void task_proc_link(struct cg_core *core, struct task *t)
{
	struct task *first;

	t->proc_prev = t->proc_next = NULL;
	if (t->tid == t->ident.tgid)
		return;		/* a leader is found by its id */
	first = task_proc_first(core, t->ident.tgid);
	t->proc_next = first;
	if (first)
		first->proc_prev = t;
	tidmap_insert(&core->procs, t);
}

void task_proc_unlink(struct cg_core *core, struct task *t)
{
	if (t->tid == t->ident.tgid)
		return;
	if (t->proc_next)
		t->proc_next->proc_prev = t->proc_prev;
	if (t->proc_prev)
		t->proc_prev->proc_next = t->proc_next;
	else if (t->proc_next)
		tidmap_insert(&core->procs, t->proc_next);
	else
		tidmap_remove(&core->procs, t->ident.tgid);
	t->proc_prev = t->proc_next = NULL;
}
