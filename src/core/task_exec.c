/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A process's exec. When a thread other than the leader calls execve, the
 * kernel's de_thread() kills the other threads, then gives the exec'ing
 * thread the leader's id: the proc connector reports the leader's exit,
 * then the exec under the leader's id, and never an exit for the exec'ing
 * thread's old id. That thread's task_struct, and so its cgroups, survive:
 * the process carries on in its groups. */
#include "core/task_exec.h"

#include "core/internal.h"
#include "core/notify.h"

/* The tracked thread whose id vanished in the exec: a thread of the process
 * that was gone when the report was read, and is still tracked (not its
 * leader, whose id is not tracked when we look). The threads de_thread()
 * killed are reported before the exec as a rule, so it is the only one
 * then; when a killed thread's report comes late, the first gone one is
 * taken (cgfused(8), DIFFERENCES FROM THE KERNEL). */
static struct task *exec_thread(struct cg_core *core, const struct task_item *it)
{
	for (guint i = 0; it->gone && i < it->gone->len; i++) {
		const struct task_seen *s = &g_array_index(it->gone, struct task_seen, i);
		struct task *t = task_lookup(core, s->tid);

		if (t && t->ident.ino == s->ident.ino && t->ident.tgid == it->ev.tgid)
			return t;
	}
	return NULL;
}

static task_exec_hook_fn exec_hook;
static void *exec_hook_data;

void task_exec_set_hook(task_exec_hook_fn fn, void *data)
{
	exec_hook = fn;
	exec_hook_data = data;
}

void task_exec(struct cg_core *core, struct task_item *it)
{
	const struct task_event *ev = &it->ev;
	struct task *old, *t;

	if (exec_hook)
		exec_hook(exec_hook_data, ev->tgid);

	/* A tracked leader exec'd itself: its id and its groups stay. Every
	 * exec on the system comes here: a hash lookup when untracked. */
	if (task_lookup(core, ev->tgid) || !(old = exec_thread(core, it)))
		return;
	/* Like a fork from the old id, so that subscribers' data follows. */
	if (it->opened) {
		t = task_new(core, ev->tgid, &it->ident, it->proc_ns, &it->now);
		it->opened = false;	/* the task's now */
		t->dying = old->dying;
		task_set_css_set(core, t, old->cset);
		t->joined_ns = old->joined_ns;
		/* The same thread: what it ran since it was charged is its groups'. */
		t->charged = old->charged;
		t->charged_proc_ns = UINT64_MAX;
		cg_notify(core, fork, old, t);
	}
	/* Else the process is gone already; its exit report follows. */
	task_drop(core, old);
}
