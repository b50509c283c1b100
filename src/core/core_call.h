/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The core's work for code outside src/core that must look at or change
 * the core under its lock (the enforcers' copies, the state's snapshot,
 * cgrules' exec hook): the core takes the lock, runs the caller's
 * function, lets go, the way the kernel's cgroup functions take
 * cgroup_mutex for their callers. The lock itself stays inside src/core.
 *
 * fn runs as code called locked does (docs/design.md, "Locks and
 * threads"): it takes no lock above the core lock in the lock tree and
 * does nothing slow; under the read side it writes nothing of the core. */
#ifndef CGFUSED_CORE_CALL_H
#define CGFUSED_CORE_CALL_H

#include "core/cgroup.h"
#include "core/notify.h"
#include "core/task_exec.h"

typedef void (*cg_core_fn)(struct cg_core *core, void *data);

/* fn(core, data) with the read side held. */
void cg_core_read(struct cg_core *core, cg_core_fn fn, void *data);

/* fn(core, data) with the write side held; the hold is counted in
 * cgfused.stat under the caller's name (its __func__). */
#define cg_core_write(core, fn, data) cg_core_write_at((core), (fn), (data), __func__)
void cg_core_write_at(struct cg_core *core, cg_core_fn fn, void *data, const char *site);

/* fn(core, data) with the write side held and, if it returned 0, sub
 * subscribed in the same hold: no change falls between what fn saw and
 * the first that sub hears of. Returns fn's. Counted as cg_core_write(). */
#define cg_subscribe_after(core, sub, fn, data) \
	cg_subscribe_after_at((core), (sub), (fn), (data), __func__)
int cg_subscribe_after_at(struct cg_core *core, const struct cg_subscriber *sub,
			  int (*fn)(struct cg_core *core, void *data), void *data,
			  const char *site);

/* The mount is served from now on: the lock's figures in cgfused.stat
 * start afresh, without the start-up's holds (the state's first snapshot
 * is written and synced under the write side before anything is
 * served). */
void cg_core_serving(struct cg_core *core);

/* task_exec_set_hook() (task_exec.h), write-locked. */
void cg_exec_hook_set(struct cg_core *core, task_exec_hook_fn fn, void *data);

#endif
