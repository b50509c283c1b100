/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A process's exec, as the proc connector reports it. Called locked. */
#ifndef CGFUSED_TASK_EXEC_H
#define CGFUSED_TASK_EXEC_H

#include "core/task.h"

/* Process ev->tgid called execve. When a thread other than its leader did,
 * the process carries on in that thread's groups, under the leader's id. */
void task_exec(struct cg_core *core, const struct task_event *ev);

/* fn (NULL: none) hears of every exec on the system, called locked: it
 * must only take note (no system call, nothing slow). Set it write-locked;
 * one per process. */
typedef void (*task_exec_hook_fn)(void *data, pid_t tgid);
void task_exec_set_hook(task_exec_hook_fn fn, void *data);

#endif
