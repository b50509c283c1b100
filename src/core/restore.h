/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Putting a saved state back (src/state/state_replay.c): what replay
 * needs of the core beyond the entry points a client uses. Each takes the
 * core lock itself. */
#ifndef CGFUSED_RESTORE_H
#define CGFUSED_RESTORE_H

#include <stdint.h>
#include <sys/types.h>

#include "core/cgroup.h"

/* Between these, core->loading is set (what replay changes is nobody's
 * news: no release agent runs). The end takes in what the kernel
 * reported meanwhile and lets children forked while no daemon ran join
 * their parents' groups (task_adopt_orphans()). */
void cg_restore_begin(struct cg_core *core);
void cg_restore_end(struct cg_core *core);

/* cgroup_attach_restore() into live group cgrp_id, after taking in what
 * the kernel reported: 0, -ENOENT when there is no such group, or its
 * errno. */
int cg_attach_restore(struct cg_core *core, uint64_t cgrp_id, pid_t tid, uint64_t ino,
		      uint64_t joined_ns);

#endif
