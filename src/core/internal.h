/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What only src/core uses of the core (the kernel's cgroup-internal.h):
 * no file outside src/core includes it (tests/core-internal.sh checks).
 * The layers above reach the core through core/cgroup.h and the headers
 * of their own (restore.h, task_catch_up.h, core_call.h ...). */
#ifndef CGFUSED_CORE_INTERNAL_H
#define CGFUSED_CORE_INTERNAL_H

#include "core/cgroup.h"
#include "core/core_lock.h"
#include "kernel/task_cputime.h"
#include "lib/slab.h"
#include "lib/tidmap.h"

struct css_set;
struct task_queue;

/* A hierarchy (the kernel's cgroup_root). */
struct cg_root {
	struct cg_core *core;
	const struct cg_face *face;	/* its files and rules (core/face.h) */
	bool dfl;			/* face->dfl: the default hierarchy (v2) */
	unsigned index;			/* position in core->roots */
	unsigned subsys_mask;		/* bit i: core->subsys[i] is bound here */
	char *name;			/* "cpu,cpuacct,cpuset" */
	struct cgroup *top;		/* the root cgroup */
	GPtrArray *files;		/* struct cg_file *, in directory order */
	char *release_agent;
	unsigned nr_cgroups;
};

/* The daemon's whole model. */
struct cg_core {
	/* The kernel's cgroup_mutex, a reader-writer lock (core/core_lock.h).
	 * Taken only in src/core (by the cg_* functions, and for code
	 * outside by cg_core_read() and cg_core_write(), core/core_call.h,
	 * which run its function under it); not recursive, and
	 * a reader never takes the write side.
	 *
	 * Guards everything below, every struct cgroup, css, css_set and task
	 * reachable from here, and each controller's state in its css. The
	 * read side may only read all that: no show function, lookup or
	 * subscriber's stat callback writes a word of it (two readers must
	 * not share a written word either: no reference counts or figures
	 * bumped by a read). The exceptions, atomics made for concurrent
	 * readers: cgroup->sampled_ns (task_sample.c), cpuacct's
	 * prev_stat and cpu's throttling figures (ctl/cpu.h). Written once before the daemon serves and only read
	 * since, so also read with no lock: roots, their files, subsys.
	 *
	 * The lock order and what must not run under it: docs/design.md,
	 * "Locks and threads". */
	struct cg_lock lock;
	const struct cgroup_subsys *subsys[CG_MAX_SUBSYS];
	unsigned nr_subsys;
	GPtrArray *roots;		/* struct cg_root * */
	GHashTable *cgroups;		/* id -> struct cgroup * */
	uint64_t next_seq;		/* for cgroup ids */
	GHashTable *css_sets;		/* struct css_set * (itself the key) */
	struct css_set *init_css_set;	/* every root css: where untracked tasks are */
	struct slab_pool task_pool;	/* every struct task */
	struct tidmap tasks;		/* struct task, by tid */
	GHashTable *procs;		/* tgid -> the tracked threads besides its leader (task_proc.h) */
	uint64_t nr_resyncs;		/* times task reports were lost */
	/* Children forked over a limit and left alive: the limit's writers
	 * could not have killed them (can_fork's kill_as). */
	_Atomic uint64_t nr_fork_kills_spared;
	struct task_queue *taskq;	/* reports read, to apply (task_queue.h) */
	struct kfacade *kf;
	GPtrArray *subscribers;		/* const struct cg_subscriber * (notify.h) */
	bool loading;			/* a saved state is being replayed */
	/* v2's cgroup.max.depth and cgroup.max.descendants, for every group
	 * (so the top's count bounds all): mkdir past them is EAGAIN. */
	unsigned max_depth, max_descendants;
	/* The samples under way (task_sample.c), outside the core lock: a
	 * reader of a group being sampled waits for that sample. Taken with
	 * no other lock held. */
	GMutex sample_lock;
	GCond sample_done;
	GHashTable *sampling;		/* cgroup id -> its sampler's ticket */
	uint64_t sample_tickets;
	GHashTable *sample_copies;	/* cgroup id -> its members as copied */
};

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
