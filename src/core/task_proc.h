/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The tracked threads of each process but its leader (found by its id in
 * core->tasks): an index by tgid, so that what concerns a whole process
 * (an exec) finds its tracked threads without a look at every tracked
 * task. Two pointers per task and one table slot per process with a
 * tracked thread besides its leader (tidmap.h): a single-threaded process
 * costs no slot. Called locked. */
#ifndef CGFUSED_TASK_PROC_H
#define CGFUSED_TASK_PROC_H

#include "core/task.h"

/* A task the core starts tracking joins its process's list (a leader
 * joins none). */
void task_proc_link(struct cg_core *core, struct task *t);
/* It leaves it when the core stops tracking it. */
void task_proc_unlink(struct cg_core *core, struct task *t);

/* The first tracked thread of process tgid other than its leader (then
 * ->proc_next), or NULL. */
struct task *task_proc_first(struct cg_core *core, pid_t tgid);

#endif
