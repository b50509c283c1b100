/* SPDX-License-Identifier: GPL-2.0-or-later */
/* css_set: the array of one css per controller, shared by every task with the
 * same memberships. Found on attach through a hash table keyed by that array,
 * so that attaching costs the same with 10 or 100,000 groups (the kernel's
 * 2008 css_set hash patch). All functions are called locked. */
#ifndef CGFUSED_CSS_SET_H
#define CGFUSED_CSS_SET_H

#include "core/cgroup.h"

struct css_set {
	unsigned refcount;		/* tasks, plus the core's own for init_css_set */
	guint hash;
	struct list_head tasks;		/* struct task, through cg_list */
	struct css *subsys[CG_MAX_SUBSYS];
	GList *cgrp_link[CG_MAX_SUBSYS]; /* per hierarchy: our node in cgroup->csets */
};

/* Hash over every bit of every css pointer (a plain sum of pointers was
 * rejected in the 2008 review: aligned allocations collide). */
guint css_set_hash_subsys(struct css *const *subsys, unsigned nr);

/* Finds the css_set with exactly these css, or makes one; returns it with a
 * reference taken. NULL only if memory runs out. */
struct css_set *find_css_set(struct cg_core *core, struct css *const *subsys);
void get_css_set(struct css_set *cset);
void put_css_set(struct cg_core *core, struct css_set *cset);

/* The css_set that differs from cset only in hierarchy root, where it has
 * cgrp's css (kernel: find_css_set(old_cset, cgrp)). Referenced. */
struct css_set *css_set_for_move(struct cg_core *core, struct css_set *cset,
				 struct cgroup *cgrp);

/* The cgroup a css_set belongs to in one hierarchy. */
struct cgroup *css_set_cgroup(const struct css_set *cset, const struct cg_root *root);

GHashTable *css_set_table_new(void);

#endif
