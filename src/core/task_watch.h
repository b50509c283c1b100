/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A thread that takes in the kernel's fork and exit reports as they come,
 * so that memberships (and release agents) follow the kernel while nobody
 * touches the filesystem, and the proc connector's buffer does not fill up
 * and lose reports while the daemon is idle. Operations still catch up
 * themselves first, so nothing depends on this thread's timing. */
#ifndef CGFUSED_TASK_WATCH_H
#define CGFUSED_TASK_WATCH_H

#include "core/cgroup.h"

struct task_watch;

/* NULL when the facade has nothing to wait on, or the thread cannot start. */
struct task_watch *task_watch_start(struct cg_core *core);
void task_watch_stop(struct task_watch *w);

/* Reads the waiting reports, if some wait, into the queue the core lock's
 * holder applies (task_queue.h), taking no core lock but for short reads:
 * what a writer does before it takes the lock, so that its
 * task_catch_up() sees every report sent before. The check is a poll of
 * the facade's event_fd with timeout 0; a facade with none (the tests'
 * fake) is read every time. Not called locked. */
void task_pull_if_pending(struct cg_core *core);

/* task_pull_if_pending(), then applies the queue under the write side of
 * the core lock (in batches), if something waits, and otherwise takes no
 * write lock: what a read does before taking the read side, which must
 * not change the tasks. Not called locked. */
void cg_catch_up_if_pending(struct cg_core *core);

#endif
