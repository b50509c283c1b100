/* SPDX-License-Identifier: GPL-2.0-or-later */
/* An operation's catching up with the kernel's reports: see task_catch_up.h. */
#include "core/task_catch_up.h"

#include <poll.h>

#include "core/internal.h"
#include "core/task.h"
#include "core/task_queue.h"

/* Reports applied per hold of the lock: the kills wait for the unlock. */
#define WATCH_BATCH 16

void task_apply_queued(struct cg_core *core)
{
	bool more = task_queue_pending(core);

	while (more) {
		cg_write_lock(&core->lock);
		more = task_catch_up_batch(core, WATCH_BATCH);
		cg_write_unlock(&core->lock);
	}
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
	task_apply_queued(core);
}
