/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The task watcher thread. */
#include "core/task_watch.h"

#include <errno.h>
#include <poll.h>

#include "core/internal.h"
#include "core/task_catch_up.h"
#include "core/task_queue.h"
#include "lib/worker.h"

struct task_watch {
	struct cg_core *core;
	struct worker *w;
};

static void watch_loop(void *data, int stop_fd)
{
	struct task_watch *w = data;
	struct kfacade *kf = w->core->kf;
	struct pollfd pfd[2] = {
		{ .fd = kf->ops->event_fd(kf), .events = POLLIN },
		{ .fd = stop_fd, .events = POLLIN },
	};

	while (poll(pfd, 2, -1) >= 0 || errno == EINTR) {
		if (pfd[1].revents)
			break;
		if (pfd[0].revents) {
			bool more;

			/* Read with the lock let go, applied under it. */
			do {
				more = task_pull_batch(w->core);
				task_apply_queued(w->core);
			} while (more);
		}
	}
}

struct task_watch *task_watch_start(struct cg_core *core)
{
	struct task_watch *w;

	if (core->kf->ops->watch_start)
		core->kf->ops->watch_start(core->kf);
	if (core->kf->ops->event_fd(core->kf) < 0)
		return NULL;
	w = g_new0(struct task_watch, 1);
	w->core = core;
	w->w = worker_start("task-watch", watch_loop, w);
	if (!w->w) {
		g_free(w);
		return NULL;
	}
	return w;
}

void task_watch_stop(struct task_watch *w)
{
	if (!w)
		return;
	worker_stop(w->w);
	g_free(w);
}
