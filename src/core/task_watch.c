/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The task watcher thread. */
#include "core/task_watch.h"

#include <errno.h>
#include <poll.h>

#include "core/task.h"
#include "core/task_queue.h"
#include "lib/worker.h"

struct task_watch {
	struct cg_core *core;
	struct worker *w;
};

/* Reports applied per hold of the lock: the kills wait for the unlock. */
#define WATCH_BATCH 16

/* Applies what was queued, WATCH_BATCH items per hold of the lock. */
static void apply_queued(struct cg_core *core)
{
	bool more = task_queue_pending(core);

	while (more) {
		cg_write_lock(&core->lock);
		more = task_catch_up_batch(core, WATCH_BATCH);
		cg_write_unlock(&core->lock);
	}
}

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
				apply_queued(w->core);
			} while (more);
		}
	}
}

struct task_watch *task_watch_start(struct cg_core *core)
{
	struct task_watch *w;

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

void task_pull_if_pending(struct cg_core *core)
{
	struct kfacade *kf = core->kf;
	struct pollfd pfd = { .fd = kf->ops->event_fd(kf), .events = POLLIN };

	/* POLLERR too: reports were lost, which the pull resyncs. Nothing
	 * waiting may still mean reports the watcher has read and not yet
	 * queued (a fork storm's): what follows must see them, as it did
	 * when the watcher read under the core lock. */
	if (pfd.fd >= 0 && poll(&pfd, 1, 0) == 0) {
		task_pull_wait(core);
		return;
	}
	task_pull(core);
}

void cg_catch_up_if_pending(struct cg_core *core)
{
	task_pull_if_pending(core);
	apply_queued(core);
}

void task_watch_stop(struct task_watch *w)
{
	if (!w)
		return;
	worker_stop(w->w);
	g_free(w);
}
