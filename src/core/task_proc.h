/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The tracked threads of each process but its leader (found by its id in
 * core->tasks): an index by tgid, so that what concerns a whole process
 * (an exec) finds its tracked threads without a look at every tracked
 * task. core->procs holds an array of their handles (task_pool) for each
 * process with a tracked thread besides its leader: a single-threaded
 * process costs nothing, a thread 4 bytes, and struct task no link. A
 * thread's exit looks for it in its process's array (a few µs for 10,000
 * threads). Called locked. */
#ifndef CGFUSED_TASK_PROC_H
#define CGFUSED_TASK_PROC_H

#include "core/task.h"

/* A task the core starts tracking joins its process's array (a leader
 * joins none). */
void task_proc_link(struct cg_core *core, struct task *t);
/* It leaves it when the core stops tracking it. */
void task_proc_unlink(struct cg_core *core, struct task *t);

/* The tracked threads of process tgid other than its leader, the newest
 * first: one a call from *pos = 0 until NULL; any link or unlink ends a
 * walk. */
struct task *task_proc_next(struct cg_core *core, pid_t tgid, guint *pos);

#endif
