/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Putting a saved state back (src/state/state_replay.c): what replay
 * needs of the core beyond the entry points a client uses, unchecked (the
 * config's groups, src/config/conf_apply.c, are made the same way, as the
 * daemon's own). Each takes the core lock itself. */
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

/* cg_mkdir() without permission checks: the group belongs to cred's uid
 * and gid. */
int cg_mkdir_restore(struct cg_core *core, uint64_t parent_id, const char *name, mode_t mode,
		     const struct cg_cred *cred, uint64_t *new_id);

/* A group's or file's attributes (cg_get_iattr()) set as given,
 * unchecked; the file type bits of attr->mode are ignored. */
int cg_set_iattr(struct cg_core *core, uint64_t cgrp_id, unsigned file,
		 const struct cg_iattr *attr);

#endif
