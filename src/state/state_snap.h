/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Snapshots of the core's groups and members, as records (state_rec.h):
 * whole, under the lock, or built in steps that each hold the lock a
 * moment, for a compaction (see docs/design.md, "Compaction").
 *
 * A build visits every group, one step at a time (a group's records, and
 * its members'), and is told by the state's hooks, which run under the
 * same lock, of every change meanwhile: a group changed since its visit
 * is visited again, a member's record is kept up to date by the hook
 * itself. What is seen is appended, never looked up under the lock (a
 * hash table growing past 15,000 groups took 3 ms); the last of each
 * group or member stands, sorted out without the lock. When a last step (under one hold) has visited again what
 * changed, the build is exactly the core at that moment, which is when
 * the logs switch: no record of the log replayed over the snapshot
 * happened before it, none after it is missing. */
#ifndef CGFUSED_STATE_SNAP_H
#define CGFUSED_STATE_SNAP_H

#include <glib.h>

#include "core/cgroup.h"

/* Called locked: every group's records, parents first, then every
 * member's, appended to out; their number added to *nr. */
void snap_groups(GString *out, struct cg_core *core, unsigned *nr);
void snap_tasks(GString *out, struct cg_core *core, unsigned *nr);

struct snap_build;

/* Called locked (it must hear of every change from now on). */
struct snap_build *snap_build_new(struct cg_core *core);
void snap_build_free(struct snap_build *b);

/* Called locked: visits groups until the monotonic time until (at least
 * one), or max of them (0: no such limit). True when none is left to
 * visit (the first step lists every group). */
bool snap_build_step(struct snap_build *b, gint64 until, unsigned max);
/* Called locked, once a step returned true: the groups changed since
 * their visit listed to visit again; how many. */
unsigned snap_build_refill(struct snap_build *b);
/* Records the build holds, or a few more (a group visited again counts
 * twice), for the next compaction's mark. */
unsigned snap_build_records(const struct snap_build *b);
/* Without the lock, once the build is complete and nothing tells it of
 * changes any more: its records, the groups in order of id (a parent is
 * older than its child), then the members, appended to out; how many. */
unsigned snap_build_append(struct snap_build *b, GString *out);

/* The state's hooks, called locked, on a build under way. */
/* cgrp was made, renamed or had its attributes changed. */
void snap_build_changed(struct snap_build *b, struct cgroup *cgrp);
/* A setting of cgrp was written: what a mkdir under it gives may differ,
 * and so may what cgrp's ancestors show. */
void snap_build_written(struct snap_build *b, struct cgroup *cgrp);
/* cgrp is about to be removed (rmdir). */
void snap_build_removed(struct snap_build *b, struct cgroup *cgrp);
/* Tasks moved (or a child joined its parent's groups), or about to be
 * dropped (exit). */
void snap_build_moved(struct snap_build *b, struct task *const *tasks, unsigned n);
void snap_build_exit(struct snap_build *b, struct task *t);

#endif
