/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Moving tasks between cgroups (kernel: cgroup_attach_task), in two phases
 * as the kernel's cgroup_migrate prepares and commits: what needs system
 * calls (listing a process's threads, opening their identities, reading
 * their figures and ids) is done by cgroup_attach_prepare() without the
 * lock, and cgroup_attach() commits under it, after task_catch_up(),
 * checking that what was prepared still holds (a thread adopted or gone
 * meanwhile is asked about again). */
#ifndef CGFUSED_ATTACH_H
#define CGFUSED_ATTACH_H

#include "core/cgroup.h"

struct cg_attach_prep;

/* Not called locked (takes the read side briefly): prepares moving thread
 * pid (or with threadgroup, every thread of its process) for cred. */
struct cg_attach_prep *cgroup_attach_prepare(struct cg_core *core, pid_t pid, bool threadgroup,
					     const struct cg_cred *cred);
/* Not called locked: closes what the prepare opened and no task took. */
void cgroup_attach_prep_free(struct cg_attach_prep *prep);

/* Moves the prepared thread or process into dst, if cred may move it.
 * Nothing changes unless it all succeeds: -ESRCH (no such task), -EINVAL
 * (a kernel thread), -EACCES (cred is neither root nor the task's owner),
 * or a controller's veto (cpuset: -ENOSPC). */
int cgroup_attach(struct cgroup *dst, struct cg_attach_prep *prep, const struct cg_cred *cred);

/* Puts back thread tid into dst as a saved state had it, if it is still
 * the thread with pidfs inode ino (not a reused id); joined_ns is when it
 * joined (its children born since are in the group too). -ESRCH when it
 * is gone or another thread, or a controller's veto. */
int cgroup_attach_restore(struct cgroup *dst, pid_t tid, uint64_t ino, uint64_t joined_ns);

/* Appends the sorted ids of the threads in cgrp itself, or with procs of
 * the processes with at least one thread there. Called locked, but for a
 * hierarchy's top group (every thread no child group holds), which is
 * listed without the lock: /proc is read outside it, and only the choice
 * of which ids to drop is made under its read side. */
int cgroup_list_tasks(struct cgroup *cgrp, bool procs, GArray *ids);

#endif
