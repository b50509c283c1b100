/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The allocator's copy of the tree, and charging what it sampled. */
#include "core/sched_view.h"

#include "core/css_set.h"
#include "core/task.h"
#include "core/task_watch.h"

void sched_view_init(struct sched_view *v)
{
	v->groups = g_array_new(FALSE, FALSE, sizeof(struct sched_group));
	v->tasks = g_array_new(FALSE, FALSE, sizeof(struct sched_task));
	v->cpus = g_array_new(FALSE, FALSE, sizeof(struct cpumask));
	v->empty = true;
}

void sched_view_clear(struct sched_view *v)
{
	g_array_unref(v->groups);
	g_array_unref(v->tasks);
	g_array_unref(v->cpus);
}

static void copy_groups(struct cgroup *cgrp, int parent, int ssid, GArray *out,
			GHashTable *index)
{
	struct css *css = cgrp->subsys[ssid];
	struct sched_group g = { cgrp->id, parent, parent < 0 ? 0 : (double)css->ss->weight(css) };
	int me = (int)out->len;
	GHashTableIter iter;
	struct cgroup *child;

	g_array_append_val(out, g);
	g_hash_table_insert(index, cgrp, GINT_TO_POINTER(me + 1));
	cgroup_for_each_child(child, &iter, cgrp)
		copy_groups(child, me, ssid, out, index);
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

static int cpus_index(struct css *css, GArray *out, GHashTable *index)
{
	gpointer found = g_hash_table_lookup(index, css);

	if (found)
		return GPOINTER_TO_INT(found) - 1;
	g_array_append_vals(out, css->ss->cpus(css), 1);
	g_hash_table_insert(index, css, GINT_TO_POINTER(out->len));
	return (int)out->len - 1;
}

static void copy(struct cg_core *core, int weight_ssid, int cpus_ssid, struct sched_view *v)
{
	struct cg_root *root = root_of(core, weight_ssid);
	GHashTable *groups = g_hash_table_new(NULL, NULL), *cpusets = g_hash_table_new(NULL, NULL);
	GHashTableIter iter;
	struct task *t;

	g_array_set_size(v->groups, 0);
	g_array_set_size(v->tasks, 0);
	g_array_set_size(v->cpus, 0);
	if (root)
		copy_groups(root->top, -1, weight_ssid, v->groups, groups);
	g_hash_table_iter_init(&iter, core->tasks);
	while (g_hash_table_iter_next(&iter, NULL, (gpointer *)&t)) {
		struct sched_task st = { t->tid, t->ident, -1, -1 };

		if (t->cset == core->init_css_set)
			continue;
		if (root) {
			struct css *css = t->cset->subsys[weight_ssid];

			st.group = GPOINTER_TO_INT(g_hash_table_lookup(groups, css->cgroup)) - 1;
		}
		if (cpus_ssid >= 0 && t->cset->subsys[cpus_ssid]->parent)
			st.cpus = cpus_index(t->cset->subsys[cpus_ssid], v->cpus, cpusets);
		g_array_append_val(v->tasks, st);
	}
	v->empty = !g_hash_table_size(core->tasks) &&
		   g_hash_table_size(core->cgroups) == core->roots->len;
	g_hash_table_destroy(groups);
	g_hash_table_destroy(cpusets);
}

bool sched_view_mounted(struct cg_core *core, int ssid)
{
	unsigned slot = cg_read_lock(&core->lock);
	bool mounted;

	mounted = root_of(core, ssid) != NULL;
	cg_read_unlock(&core->lock, slot);
	return mounted;
}

bool sched_view_take(struct cg_core *core, int weight_ssid, int cpus_ssid,
		     bool (*changed)(void *data), void *data, struct sched_view *v)
{
	bool copied = false;
	unsigned slot;

	cg_catch_up_if_pending(core);
	/* A copy changes nothing: readers go on beside it. */
	slot = cg_read_lock(&core->lock);
	if (changed(data)) {
		copy(core, weight_ssid, cpus_ssid, v);
		copied = true;
	}
	cg_read_unlock(&core->lock, slot);
	return copied;
}

void sched_view_charge(struct cg_core *core, const struct sched_sample *s, unsigned n)
{
	if (!n)
		return;
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
