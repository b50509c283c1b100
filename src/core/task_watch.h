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

#endif
