/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What an operation does before it takes the core lock, so that it sees
 * every fork, exit and exec the kernel reported before it: the reports
 * read outside the lock (task_queue.h), then applied under its write side.
 * The task watcher (task_watch.h) does the same for nobody in particular. */
#ifndef CGFUSED_TASK_CATCH_UP_H
#define CGFUSED_TASK_CATCH_UP_H

#include "core/cgroup.h"

/* Not called locked: applies what was queued under the write side, a
 * batch of reports per hold of the lock (the kills wait for the unlock). */
void task_apply_queued(struct cg_core *core);

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
