/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The tracked threads of each process: see task_proc.h. */
#include "core/internal.h"
#include "core/task_proc.h"

static GArray *threads_of(struct cg_core *core, pid_t tgid)
{
	return g_hash_table_lookup(core->procs, GINT_TO_POINTER(tgid));
}

struct task *task_proc_next(struct cg_core *core, pid_t tgid, guint *pos)
{
	GArray *threads = threads_of(core, tgid);

	if (!threads || *pos >= threads->len)
		return NULL;
	(*pos)++;
	return slab_object(&core->task_pool,
			   g_array_index(threads, guint32, threads->len - *pos));
}

void task_proc_link(struct cg_core *core, struct task *t)
{
	pid_t tgid = t->ident.tgid;
	guint32 handle = slab_handle(&core->task_pool, t);
	GArray *threads;

	if (t->tid == tgid)
		return;		/* a leader is found by its id */
	if (!(threads = threads_of(core, tgid))) {
		threads = g_array_sized_new(FALSE, FALSE, sizeof(guint32), 1);
		g_hash_table_insert(core->procs, GINT_TO_POINTER(tgid), threads);
	}
	g_array_append_val(threads, handle);
}

void task_proc_unlink(struct cg_core *core, struct task *t)
{
	pid_t tgid = t->ident.tgid;
	guint32 handle;
	GArray *threads;

	if (t->tid == tgid)
		return;
	threads = threads_of(core, tgid);
	handle = slab_handle(&core->task_pool, t);
	/* From the newest: the one going is often among the last born. */
	for (guint i = threads->len; i-- > 0;) {
		if (g_array_index(threads, guint32, i) == handle) {
			g_array_remove_index(threads, i);
			break;
		}
	}
	if (!threads->len)
		g_hash_table_remove(core->procs, GINT_TO_POINTER(tgid));
}
