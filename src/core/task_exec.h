/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A process's exec, as the proc connector reports it. Called locked. */
#ifndef CGFUSED_TASK_EXEC_H
#define CGFUSED_TASK_EXEC_H

#include "core/task.h"
#include "core/task_queue.h"

/* Process it->ev.tgid called execve. When a thread other than its leader
 * did, the process carries on in that thread's groups, under the leader's
 * id: the item tells which tracked threads were found gone and the
 * leader's identity (task_queue.c read them unlocked); an identity it
 * uses is taken from it. */
void task_exec(struct cg_core *core, struct task_item *it);

/* fn (NULL: none) hears of every exec on the system, called locked: it
 * must only take note (no system call, nothing slow). Set it write-locked;
 * one per process. */
typedef void (*task_exec_hook_fn)(void *data, pid_t tgid);
void task_exec_set_hook(task_exec_hook_fn fn, void *data);

#endif
