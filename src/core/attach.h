/* Moving tasks between cgroups (kernel: cgroup_attach_task). Called locked,
 * after task_catch_up(). */
#ifndef CGFUSED_ATTACH_H
#define CGFUSED_ATTACH_H

#include "core/cgroup.h"

/* Moves thread pid (or with threadgroup, every thread of its process) into
 * dst, if cred may move it. Nothing changes unless it all succeeds: -ESRCH
 * (no such task), -EINVAL (a kernel thread), -EACCES (cred is neither root
 * nor the task's owner), or a controller's veto (cpuset: -ENOSPC). */
int cgroup_attach(struct cgroup *dst, pid_t pid, bool threadgroup, const struct cg_cred *cred);

/* Puts back thread tid into dst as a saved state had it, if it is still
 * the thread with pidfs inode ino (not a reused id); joined_ns is when it
 * joined (its children born since are in the group too). -ESRCH when it
 * is gone or another thread, or a controller's veto. */
int cgroup_attach_restore(struct cgroup *dst, pid_t tid, uint64_t ino, uint64_t joined_ns);

/* Appends the sorted ids of the threads in cgrp itself, or with procs of
 * the processes with at least one thread there. */
int cgroup_list_tasks(struct cgroup *cgrp, bool procs, GArray *ids);

#endif
