/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The allocator's copy of what changed in the tree, and charging what it
 * sampled. */
#include "core/sched_view.h"

#include "core/css_set.h"
#include "core/internal.h"
#include "core/task.h"
#include "core/task_catch_up.h"

void sched_view_init(struct sched_view *v)
{
	v->dirty_groups = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL);
	v->dirty_tasks = g_hash_table_new(NULL, NULL);
	v->dirty_all = true;
	v->groups = g_array_new(FALSE, FALSE, sizeof(struct sched_group));
	v->cpusets = g_array_new(FALSE, FALSE, sizeof(struct sched_cpuset));
	v->tasks = g_array_new(FALSE, FALSE, sizeof(struct sched_task));
	v->empty = true;
}

void sched_view_clear(struct sched_view *v)
{
	g_hash_table_destroy(v->dirty_groups);
	g_hash_table_destroy(v->dirty_tasks);
	g_array_unref(v->groups);
	g_array_unref(v->cpusets);
	g_array_unref(v->tasks);
}

void sched_view_mark_group(struct sched_view *v, const struct cgroup *cgrp)
{
	if (!v->dirty_all && !g_hash_table_contains(v->dirty_groups, &cgrp->id))
		g_hash_table_add(v->dirty_groups, g_memdup2(&cgrp->id, sizeof(cgrp->id)));
}

void sched_view_mark_all(struct sched_view *v)
{
	v->dirty_all = true;
	g_hash_table_remove_all(v->dirty_groups);
	g_hash_table_remove_all(v->dirty_tasks);
}

void sched_view_mark_task(struct sched_view *v, const struct task *t)
{
	if (!v->dirty_all)
		g_hash_table_add(v->dirty_tasks, GINT_TO_POINTER(t->tid));
}

static struct cg_root *root_of(struct cg_core *core, int ssid)
{
	for (guint i = 0; ssid >= 0 && i < core->roots->len; i++) {
		struct cg_root *root = g_ptr_array_index(core->roots, i);

		if (root->subsys_mask & (1u << ssid))
			return root;
	}
	return NULL;
}

/* What a take reads: the two hierarchies and where to put what it finds. */
struct take {
	struct cg_core *core;
	int weight_ssid, cpus_ssid;
	struct cg_root *weight_root, *cpus_root;
	struct sched_view *v;
};

/* v2: a group without the controller's css is none of the owner's: its
 * tasks count in the nearest ancestor's that has one (cgroup_e_css()). */
static bool has_css(const struct cgroup *cgrp, int ssid)
{
	return !cgrp->root->dfl || cgroup_css_enabled(cgrp, ssid);
}

static void copy_group(struct take *tk, struct cgroup *cgrp)
{
	struct css *css = cgrp->subsys[tk->weight_ssid];
	struct cgroup *parent;
	struct sched_group g = { .id = cgrp->id, .gone = true };

	if (has_css(cgrp, tk->weight_ssid)) {
		parent = cgroup_e_css(cgrp->parent, tk->weight_ssid)->cgroup;
		g = (struct sched_group){
			.id = cgrp->id,
			.parent = parent == tk->weight_root->top ? 0 : parent->id,
			.shares = (double)css->ss->weight(css),
		};
	}
	g_array_append_val(tk->v->groups, g);
}

static void copy_cpuset(struct take *tk, struct cgroup *cgrp)
{
	struct css *css = cgrp->subsys[tk->cpus_ssid];
	struct sched_cpuset cs = { .id = cgrp->id, .gone = true };

	if (has_css(cgrp, tk->cpus_ssid))
		cs = (struct sched_cpuset){ .id = cgrp->id, .cpus = *css->ss->cpus(css) };
	g_array_append_val(tk->v->cpusets, cs);
}

/* A cpuset's children's effective CPUs follow its own. */
static void copy_cpusets_below(struct take *tk, struct cgroup *cgrp)
{
	GHashTableIter iter;
	struct cgroup *child;

	cgroup_for_each_child(child, &iter, cgrp) {
		copy_cpuset(tk, child);
		copy_cpusets_below(tk, child);
	}
}

/* The group, and with every its descendants, parents first. */
static void copy_tree(struct take *tk, struct cgroup *cgrp, bool every)
{
	GHashTableIter iter;
	struct cgroup *child;

	if (cgrp->parent && cgrp->root == tk->weight_root)
		copy_group(tk, cgrp);
	if (cgrp->parent && cgrp->root == tk->cpus_root)
		copy_cpuset(tk, cgrp);
	if (every)
		cgroup_for_each_child(child, &iter, cgrp)
			copy_tree(tk, child, true);
	else if (cgrp->root == tk->cpus_root)
		copy_cpusets_below(tk, cgrp);
}

static uint64_t group_of(const struct task *t, int ssid, const struct cg_root *root)
{
	struct cgroup *cgrp;

	if (!root)
		return 0;
	cgrp = cgroup_e_css(t->cset->subsys[ssid]->cgroup, ssid)->cgroup;
	return cgrp == root->top ? 0 : cgrp->id;
}

static void copy_task(struct take *tk, pid_t tid, const struct task *t)
{
	struct sched_task st = { .tid = tid, .gone = !t || t->cset == tk->core->init_css_set };

	if (!st.gone) {
		st.ident = t->ident;
		st.group = group_of(t, tk->weight_ssid, tk->weight_root);
		st.cpuset = group_of(t, tk->cpus_ssid, tk->cpus_root);
	}
	g_array_append_val(tk->v->tasks, st);
}

static void copy_all(struct take *tk)
{
	struct task *t;

	for (guint i = 0; i < tk->core->roots->len; i++) {
		struct cg_root *root = g_ptr_array_index(tk->core->roots, i);

		if (root == tk->weight_root || root == tk->cpus_root)
			copy_tree(tk, root->top, true);
	}
	for (guint pos = 0; (t = tidmap_next(&tk->core->tasks, &pos));)
		if (t->cset != tk->core->init_css_set)
			copy_task(tk, t->tid, t);
}

static void copy_marked(struct take *tk)
{
	GHashTableIter iter;
	gpointer key;

	g_hash_table_iter_init(&iter, tk->v->dirty_groups);
	while (g_hash_table_iter_next(&iter, &key, NULL)) {
		uint64_t id = *(const uint64_t *)key;
		struct cgroup *cgrp = cgroup_by_id(tk->core, id);
		struct sched_group g = { .id = id, .gone = true };
		struct sched_cpuset cs = { .id = id, .gone = true };

		if (cgrp) {
			copy_tree(tk, cgrp, false);
			continue;
		}
		/* Removed: the owner forgets whichever it knew. */
		g_array_append_val(tk->v->groups, g);
		g_array_append_val(tk->v->cpusets, cs);
	}
	g_hash_table_iter_init(&iter, tk->v->dirty_tasks);
	while (g_hash_table_iter_next(&iter, &key, NULL))
		copy_task(tk, GPOINTER_TO_INT(key), task_lookup(tk->core, GPOINTER_TO_INT(key)));
}

bool sched_view_mounted(struct cg_core *core, int ssid)
{
	unsigned slot = cg_read_lock(&core->lock);
	bool mounted;

	mounted = root_of(core, ssid) != NULL;
	cg_read_unlock(&core->lock, slot);
	return mounted;
}

/* Emptied; one that held many is made anew, so that a large copy (the
 * first) does not keep its memory for good. */
static void empty_array(GArray **arr)
{
	if ((*arr)->len > 1024) {
		guint size = g_array_get_element_size(*arr);

		g_array_unref(*arr);
		*arr = g_array_new(FALSE, FALSE, size);
	}
	g_array_set_size(*arr, 0);
}

bool sched_view_take(struct cg_core *core, int weight_ssid, int cpus_ssid,
		     struct sched_view *v)
{
	struct take tk = { core, weight_ssid, cpus_ssid, NULL, NULL, v };
	bool copied;
	unsigned slot;

	empty_array(&v->groups);
	empty_array(&v->cpusets);
	empty_array(&v->tasks);
	cg_catch_up_if_pending(core);
	/* A copy changes nothing of the tree: readers go on beside it. The
	 * marks are the view's own: writers, who make them, wait. */
	slot = cg_read_lock(&core->lock);
	copied = v->dirty_all || g_hash_table_size(v->dirty_groups) ||
		 g_hash_table_size(v->dirty_tasks);
	if (copied) {
		tk.weight_root = root_of(core, weight_ssid);
		tk.cpus_root = root_of(core, cpus_ssid);
		if (v->dirty_all)
			copy_all(&tk);
		else
			copy_marked(&tk);
		v->empty = !tidmap_size(&core->tasks) &&
			   g_hash_table_size(core->cgroups) == core->roots->len;
		v->dirty_all = false;
		g_hash_table_remove_all(v->dirty_groups);
		g_hash_table_remove_all(v->dirty_tasks);
	}
	cg_read_unlock(&core->lock, slot);
	return copied;
}

void sched_view_charge(struct cg_core *core, const struct sched_sample *s, unsigned n)
{
	if (!n)
		return;
	task_pull_if_pending(core);
	cg_write_lock(&core->lock);
	task_catch_up(core);
	for (unsigned i = 0; i < n; i++) {
		struct task *t = task_lookup(core, s[i].tid);

		/* Gone, or a reused id: a new thread, not the one read. */
		if (!t || t->ident.ino != s[i].ident.ino || s[i].now.run_ns < t->charged.run_ns)
			continue;
		task_charge(core, t, &s[i].now);
	}
	cg_write_unlock(&core->lock);
}
