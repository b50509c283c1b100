/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Putting a saved state back (see core/restore.h). */
#include "core/restore.h"

#include <errno.h>

#include "core/attach.h"
#include "core/internal.h"
#include "core/task.h"
#include "core/task_queue.h"
#include "core/task_catch_up.h"

void cg_restore_begin(struct cg_core *core)
{
	cg_write_lock(&core->lock);
	core->loading = true;
	cg_write_unlock(&core->lock);
}

void cg_restore_end(struct cg_core *core)
{
	task_pull_if_pending(core);
	/* Children born in groups while no daemon ran, found with the lock let
	 * go; they join tracked parents only: with none, no /proc walk. */
	task_pull_resync(core, false);
	cg_write_lock(&core->lock);
	task_catch_up(core);
	core->loading = false;
	cg_write_unlock(&core->lock);
}

int cg_attach_restore(struct cg_core *core, uint64_t cgrp_id, pid_t tid, uint64_t ino,
		      uint64_t joined_ns)
{
	struct cgroup *cgrp;
	int ret;

	task_pull_if_pending(core);
	cg_write_lock(&core->lock);
	task_catch_up(core);
	cgrp = cgroup_by_id(core, cgrp_id);
	ret = cgrp ? cgroup_attach_restore(cgrp, tid, ino, joined_ns) : -ENOENT;
	cg_write_unlock(&core->lock);
	return ret;
}
