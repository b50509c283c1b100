/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What only src/core uses of the core (the kernel's cgroup-internal.h):
 * no file outside src/core includes it (tests/core-internal.sh checks).
 * The layers above reach the core through core/cgroup.h and the headers
 * of their own (restore.h, task_catch_up.h, core_call.h ...). */
#ifndef CGFUSED_CORE_INTERNAL_H
#define CGFUSED_CORE_INTERNAL_H

#include "core/cgroup.h"
#include "kernel/task_cputime.h"

struct css_set;

/* The hierarchy of a cgroup id that was ever given out, or NULL. */
struct cg_root *cgroup_id_root(struct cg_core *core, uint64_t id);

/* A css_set was linked to cgrp (populated) or unlinked from it: counts it
 * and tells subscribers of every group that became populated or empty
 * (the kernel's cgroup_update_populated()). */
void cgroup_update_populated(struct cgroup *cgrp, bool populated);

/* The attributes of the directory (CG_DIR) or a file of cgrp, to change:
 * the file's own copy is made on its first change. */
struct cg_iattr *cgroup_iattr_mut(struct cgroup *cgrp, unsigned file);

/* Called locked: a thread of cset ran for d; the groups of the default
 * hierarchy it is in count it with their ancestors' (v2's cpu.stat). */
void cgroup_charge_cputime(struct cg_core *core, const struct css_set *cset,
			   const struct task_cputime *d);

/* Called locked: a css's reference counting. */
void css_get(struct css *css);
void css_put(struct css *css);

#endif
