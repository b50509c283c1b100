/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cpu.idle made real: the threads of a group with cpu.idle 1 (or under
 * one: the kernel's idle group holds its whole subtree) are SCHED_IDLE,
 * they run only when nothing else wants the CPU, as the kernel's idle
 * group's entity. Only threads found SCHED_OTHER are changed (a real-time
 * or batch thread, or one already idle by its own choice, is left as it
 * is), and they get SCHED_OTHER back when the group's cpu.idle is 0
 * again, they leave it, or the daemon stops. A child forked by a thread
 * made idle inherits the policy, and is taken as made idle too. Those it
 * made idle are on file beside the state, for the next daemon after a
 * kill -9 (idle_keep_originals).
 *
 * Under the core lock only a flag and a kick (a subscriber); passes copy
 * the members of idle groups under the read side and make the system calls
 * with no lock, on the enforcement thread (enforce_thread.c). */
#ifndef CGFUSED_ENFORCE_IDLE_H
#define CGFUSED_ENFORCE_IDLE_H

#include <glib.h>
#include <stdint.h>

#include "core/cgroup.h"

struct idle_enforcer;

/* Subscribes to the core; NULL when no hierarchy has the cpu controller. */
struct idle_enforcer *idle_enforcer_new(struct cg_core *core);
/* Records the threads it makes idle in STATE.idle (alloc/alloc_orig.h),
 * before it changes them, so that a daemon started after a kill -9 takes
 * them: the first pass keeps those still in idle groups and gives
 * SCHED_OTHER back to the others (the same thread, by its pidfs inode,
 * and still SCHED_IDLE); the SCHED_IDLE threads of the processes they
 * forked meanwhile (recursively) likewise. Before the passes; false and
 * err if the file is refused. */
bool idle_keep_originals(struct idle_enforcer *ie, const char *state, const char *boot_id,
			 GError **err);
/* With no enforcer (no hierarchy has cpu): what the last daemon left in
 * STATE.idle, and the idle children those threads forked, given back
 * now, and the file removed. */
bool idle_give_back_file(struct kfacade *kf, const char *state, const char *boot_id,
			 GError **err);
/* Unsubscribes and frees, after idle_release_all(); the file removed if
 * nothing is left on it. NULL-safe. */
void idle_enforcer_free(struct idle_enforcer *ie);

/* One pass: makes the new members of idle groups SCHED_IDLE, and gives
 * SCHED_OTHER back to those that are members no more. */
void idle_pass(struct idle_enforcer *ie);
/* Gives SCHED_OTHER back to every thread made idle. */
void idle_release_all(struct idle_enforcer *ie);

/* The descriptor that becomes readable when a pass is due; clear it
 * before the pass. */
int idle_kick_fd(struct idle_enforcer *ie);
void idle_kick_clear(struct idle_enforcer *ie);

/* Threads SCHED_IDLE by this daemon's doing now. */
unsigned idle_nr_threads(struct idle_enforcer *ie);

#endif
