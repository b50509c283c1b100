/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The freezer controller's state, for the thread that makes it real
 * (src/enforce/freezer.c). The controller keeps what the files say: which
 * groups freeze (self_freezing, parent_freezing). Whether a freezing group
 * is FROZEN yet is a fact of the threads, which only the enforcer knows:
 * it tells the controller which threads it has stopped (freezer_confirm),
 * and a read of freezer.state shows FROZEN once every thread of the
 * subtree is among them, as the kernel's update_if_frozen() checks. */
#ifndef CGFUSED_CTL_FREEZER_H
#define CGFUSED_CTL_FREEZER_H

#include "core/cgroup.h"

/* What the controller shares with the enforcer: one per hierarchy that
 * has the freezer, in its root css, living as long as the core. */
struct freezer_confirm;

/* Called locked (read side will do). The hierarchy's record, from any of
 * its freezer css. */
struct freezer_confirm *freezer_confirm_of(struct css *css);
/* Called locked: whether any group of the hierarchy freezes. */
bool freezer_any_freezing(struct freezer_confirm *fc);
/* Called read-locked: fn(data, tid, ident) for every thread that is to be
 * frozen (in a freezing group), each once. */
void freezer_for_each_frozen_task(struct freezer_confirm *fc,
				  void (*fn)(void *data, pid_t tid, const struct task_ident *id),
				  void *data);

/* Any context, no core lock needed (a lock of its own, after the core's):
 * thread tid (identity ino) is stopped, or no more. */
void freezer_confirm_stopped(struct freezer_confirm *fc, pid_t tid, uint64_t ino);
void freezer_confirm_gone(struct freezer_confirm *fc, pid_t tid);

#endif
