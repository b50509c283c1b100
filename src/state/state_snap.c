/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Snapshots of the core, whole or built in steps (see state_snap.h). */
#include "state/state_snap.h"


#include "core/css_set.h"
#include "core/task.h"
#include "state/state_rec.h"

static bool file_is_setting(const struct cgroup *cgrp, const struct cg_file *f)
{
	return cgroup_has_file(cgrp, f) && cftype_writable(f->cft) &&
	       !(f->cft->flags & CFTYPE_NO_STATE);
}

/* Called locked: cgrp's setting file i shown into val (emptied first);
 * false if it is not a setting there. */
static bool show_setting(struct cgroup *cgrp, unsigned i, GString *val)
{
	g_string_truncate(val, 0);
	return file_is_setting(cgrp, cg_root_file(cgrp->root, i)) &&
	       cgroup_file_show_setting(cgrp, i, val) == 0;
}

/* What a group made now under parent starts with, by file index (NULL
 * where no setting): mkdir's defaults and what it inherits from parent
 * (flags, a clone_children cpuset). NULL when a child's start depends on
 * its siblings (an exclusive cpuset): its settings are saved in full. */
static GPtrArray *fresh_settings(struct cgroup *parent, GString *val)
{
	struct cgroup *probe;
	GPtrArray *vals;

	if (!cgroup_children_alike(parent))
		return NULL;
	probe = cgroup_probe_new(parent);
	vals = g_ptr_array_new_full(cg_root_nr_files(parent->root), g_free);

	for (unsigned i = 0; i < cg_root_nr_files(parent->root); i++)
		g_ptr_array_add(vals, show_setting(probe, i, val) ? g_strdup(val->str) : NULL);
	cgroup_probe_free(probe);
	return vals;
}

/* One group's records: its mkdir (a hierarchy's top has none), its
 * changed attributes, and its settings, but for those that are what a
 * mkdir under its parent gives (fresh; NULL: none is left out, for a top
 * or beside an exclusive cpuset). val is room to show a value in. */
static void snap_group(GString *out, struct cgroup *cgrp, const GPtrArray *fresh, GString *val,
		       unsigned *nr)
{
	bool made;

	if (cgrp->parent) {
		rec_mkdir(out, cgrp);
		++*nr;
	}
	/* Attributes that changed (kernfs_iattrs): a group's maker's own come
	 * back with the mkdir. */
	if (cgrp->attr.iattrs) {
		rec_attr(out, cgrp, CG_DIR);
		++*nr;
	}
	/* Not written to, nor its parent since it was made: it has what a
	 * mkdir gives now, nothing to show. */
	made = fresh && !cgrp->nr_writes && cgrp->parent_nr_writes == cgrp->parent->nr_writes;
	for (unsigned i = 0; i < cg_root_nr_files(cgrp->root); i++) {
		if (cgroup_iattr_own(cgrp, i)) {
			rec_attr(out, cgrp, i);
			++*nr;
		}
		if (!made && show_setting(cgrp, i, val) &&
		    !(fresh && g_strcmp0(val->str, g_ptr_array_index(fresh, i)) == 0)) {
			rec_write(out, cgrp, i, val->str);
			++*nr;
		}
	}
}

/* A group, then its children: a parent's cpuset allows its children's.
 * Replay makes each group under its parent as the snapshot has it. */
static void snap_subtree(GString *out, struct cgroup *cgrp, const GPtrArray *fresh,
			 GString *val, unsigned *nr)
{
	GHashTableIter iter;
	struct cgroup *child;
	GPtrArray *vals;

	snap_group(out, cgrp, fresh, val, nr);
	if (!g_hash_table_size(cgrp->children))
		return;
	vals = fresh_settings(cgrp, val);
	cgroup_for_each_child(child, &iter, cgrp)
		snap_subtree(out, child, vals, val, nr);
	if (vals)
		g_ptr_array_unref(vals);
}

void snap_groups(GString *out, struct cg_core *core, unsigned *nr)
{
	GString *val = g_string_new(NULL);

	for (guint r = 0; r < cg_core_nr_roots(core); r++)
		snap_subtree(out, cg_root_top(cg_core_root(core, r)), NULL,
			     val, nr);
	g_string_free(val, TRUE);
}

void snap_tasks(GString *out, struct cg_core *core, unsigned *nr)
{
	GString *group = g_string_new(NULL);
	struct task *t;

	for (guint pos = 0; (t = task_next(core, &pos));) {
		for (guint r = 0; r < cg_core_nr_roots(core); r++) {
			struct cgroup *cgrp = css_set_cgroup(t->cset, cg_core_root(core, r));

			if (cgrp && cgrp->parent) {
				g_string_truncate(group, 0);
				rec_group_id(group, cgrp);
				rec_task(out, t, group);
				++*nr;
			}
		}
	}
	g_string_free(group, TRUE);
}

/* Built in steps. */

/* What a visit or a hook saw of a group (by id) or of a task's
 * membership (by task_key()): nothing is looked up or removed under the
 * lock, a later item of the same key stands for an earlier one (a hash
 * table's growth took ms at 20,000 groups). */
struct snap_item {
	uint64_t key;
	guint seq;		/* the order it was seen in */
	unsigned nr;		/* records in text */
	char *text;		/* NULL: none (the group is gone; the task is not
				 * in a group there) */
};

struct snap_build {
	struct cg_core *core;
	GArray *groups, *tasks;	/* struct snap_item, as they come */
	guint seq;
	/* Groups to visit, from the end: pointers, for the first step lists
	 * every group without reading one (20,000 cache misses took 3 ms);
	 * a group removed since is in removed (its memory may even hold a
	 * group made since, which is visited as a change). */
	GPtrArray *todo;
	GHashTable *removed;
	bool listed;		/* every group went to todo */
	GHashTable *again;	/* ids to visit again (owned uint64_t keys) */
	GHashTable *below;	/* ids whose descendants are to be visited again */
	/* parent id -> cgroup_children_alike() + 1 at its children's visits */
	GHashTable *alike;
	/* parent id -> its fresh settings (struct fresh), in the current step
	 * only: a parent may change between steps. */
	GHashTable *fresh;
	GString *val, *group;
	unsigned nr;		/* records of the items, more than the snapshot's
				 * where a key was seen again */
};

struct fresh {
	GPtrArray *vals;	/* fresh_settings(), NULL included */
};

static guint task_key(const struct task *t, const struct cg_root *root)
{
	return (guint)t->tid << 8 | cg_root_index(root);
}

static GHashTable *id_set_new(void)
{
	return g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL);
}

static void id_set_add(GHashTable *set, uint64_t id)
{
	if (!g_hash_table_contains(set, &id))
		g_hash_table_add(set, g_memdup2(&id, sizeof(id)));
}

static void fresh_free(gpointer data)
{
	struct fresh *f = data;

	if (f->vals)
		g_ptr_array_unref(f->vals);
	g_free(f);
}

static void item_clear(gpointer data)
{
	g_free(((struct snap_item *)data)->text);
}

static void add_item(struct snap_build *b, GArray *items, uint64_t key, char *text, unsigned nr)
{
	struct snap_item item = { key, b->seq++, nr, text };

	g_array_append_val(items, item);
	b->nr += nr;
}

struct snap_build *snap_build_new(struct cg_core *core)
{
	struct snap_build *b = g_new0(struct snap_build, 1);

	b->core = core;
	b->groups = g_array_new(FALSE, FALSE, sizeof(struct snap_item));
	b->tasks = g_array_new(FALSE, FALSE, sizeof(struct snap_item));
	g_array_set_clear_func(b->groups, item_clear);
	g_array_set_clear_func(b->tasks, item_clear);
	b->todo = g_ptr_array_new();
	b->removed = g_hash_table_new(NULL, NULL);
	b->again = id_set_new();
	b->below = id_set_new();
	b->alike = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL);
	b->fresh = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, fresh_free);
	b->val = g_string_new(NULL);
	b->group = g_string_new(NULL);
	return b;
}

void snap_build_free(struct snap_build *b)
{
	g_array_unref(b->groups);
	g_array_unref(b->tasks);
	g_ptr_array_unref(b->todo);
	g_hash_table_unref(b->removed);
	g_hash_table_unref(b->again);
	g_hash_table_unref(b->below);
	g_hash_table_unref(b->alike);
	g_hash_table_unref(b->fresh);
	g_string_free(b->val, TRUE);
	g_string_free(b->group, TRUE);
	g_free(b);
}

/* What a mkdir under parent gives, shown once a step. */
static const GPtrArray *fresh_of(struct snap_build *b, struct cgroup *parent)
{
	struct fresh *f = g_hash_table_lookup(b->fresh, &parent->id);

	if (!f) {
		f = g_new(struct fresh, 1);
		f->vals = fresh_settings(parent, b->val);
		g_hash_table_insert(b->fresh, g_memdup2(&parent->id, sizeof(parent->id)), f);
		g_hash_table_insert(b->alike, g_memdup2(&parent->id, sizeof(parent->id)),
				    GINT_TO_POINTER((f->vals != NULL) + 1));
	}
	return f->vals;
}

/* cgrp's membership in its hierarchy: task t's record, or none in a top. */
static void task_in(struct snap_build *b, struct task *t, struct cgroup *cgrp)
{
	GString *rec;

	if (!cgrp->parent) {
		add_item(b, b->tasks, task_key(t, cgrp->root), NULL, 0);
		return;
	}
	rec = g_string_new(NULL);
	g_string_truncate(b->group, 0);
	rec_group_id(b->group, cgrp);
	rec_task(rec, t, b->group);
	add_item(b, b->tasks, task_key(t, cgrp->root), g_string_free(rec, FALSE), 1);
}

/* The group's records and its members' as they are now. */
static void visit(struct snap_build *b, struct cgroup *cgrp)
{
	unsigned nr = 0;
	GString *out;
	struct task *t;

	out = g_string_new(NULL);
	snap_group(out, cgrp, cgrp->parent ? fresh_of(b, cgrp->parent) : NULL, b->val, &nr);
	add_item(b, b->groups, cgrp->id, g_string_free(out, FALSE), nr);
	for (GList *l = cgrp->csets.head; l; l = l->next)
		css_set_for_each_task(t, (struct css_set *)l->data)
			task_in(b, t, cgrp);
}

bool snap_build_step(struct snap_build *b, gint64 until, unsigned max)
{
	unsigned n = 0;

	if (!b->listed) {
		cgroup_list_all(b->core, b->todo);
		b->listed = true;
	}
	while (b->todo->len) {
		struct cgroup *cgrp;

		if (n && ((max && n >= max) || (n % 16 == 0 && g_get_monotonic_time() >= until)))
			break;
		cgrp = g_ptr_array_steal_index_fast(b->todo, b->todo->len - 1);
		if (!g_hash_table_contains(b->removed, cgrp))
			visit(b, cgrp);
		n++;
	}
	g_hash_table_remove_all(b->fresh);
	return !b->todo->len;
}

static void list_below(struct snap_build *b, struct cgroup *cgrp)
{
	GHashTableIter iter;
	struct cgroup *child;

	cgroup_for_each_child(child, &iter, cgrp) {
		g_ptr_array_add(b->todo, child);
		list_below(b, child);
	}
}

unsigned snap_build_refill(struct snap_build *b)
{
	GHashTableIter iter;
	gpointer id;

	/* todo is empty: no pointer in it can be of a removed group. */
	g_hash_table_remove_all(b->removed);
	g_hash_table_iter_init(&iter, b->below);
	while (g_hash_table_iter_next(&iter, &id, NULL)) {
		struct cgroup *cgrp = cgroup_by_id(b->core, *(uint64_t *)id);

		if (cgrp)
			list_below(b, cgrp);
	}
	g_hash_table_remove_all(b->below);
	g_hash_table_iter_init(&iter, b->again);
	while (g_hash_table_iter_next(&iter, &id, NULL)) {
		struct cgroup *cgrp = cgroup_by_id(b->core, *(uint64_t *)id);

		if (cgrp)	/* else gone, as snap_build_removed() noted */
			g_ptr_array_add(b->todo, cgrp);
	}
	g_hash_table_remove_all(b->again);
	return b->todo->len;
}

unsigned snap_build_records(const struct snap_build *b)
{
	return b->nr;
}

static gint cmp_item(gconstpointer a, gconstpointer b)
{
	const struct snap_item *x = a, *y = b;

	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* The last item of each key, in order of key; their records' number. */
static unsigned append_last(GArray *items, GString *out)
{
	unsigned nr = 0;

	g_array_sort(items, cmp_item);
	for (guint i = 0; i < items->len; i++) {
		const struct snap_item *it = &g_array_index(items, struct snap_item, i);

		if (i + 1 < items->len && g_array_index(items, struct snap_item, i + 1).key == it->key)
			continue;
		if (it->text) {
			g_string_append(out, it->text);
			nr += it->nr;
		}
	}
	return nr;
}

unsigned snap_build_append(struct snap_build *b, GString *out)
{
	unsigned nr = append_last(b->groups, out);

	return nr + append_last(b->tasks, out);
}

/* A child of parent came, went or was written to: if whether its children
 * start alike changed, they are all visited again. */
static void check_alike(struct snap_build *b, struct cgroup *parent)
{
	gpointer was = g_hash_table_lookup(b->alike, &parent->id);

	if (was && GPOINTER_TO_INT(was) - 1 != (int)cgroup_children_alike(parent))
		id_set_add(b->below, parent->id);
}

void snap_build_changed(struct snap_build *b, struct cgroup *cgrp)
{
	id_set_add(b->again, cgrp->id);
	if (cgrp->parent)
		check_alike(b, cgrp->parent);
}

void snap_build_written(struct snap_build *b, struct cgroup *cgrp)
{
	id_set_add(b->below, cgrp->id);
	for (struct cgroup *c = cgrp; c; c = c->parent)
		id_set_add(b->again, c->id);
	if (cgrp->parent)
		check_alike(b, cgrp->parent);
}

void snap_build_removed(struct snap_build *b, struct cgroup *cgrp)
{
	add_item(b, b->groups, cgrp->id, NULL, 0);
	g_hash_table_add(b->removed, cgrp);
	check_alike(b, cgrp->parent);
}

void snap_build_moved(struct snap_build *b, struct task *const *tasks, unsigned n)
{
	/* Every hierarchy's: a record has the time the task joined its
	 * css_set, which a move in any of them sets. */
	for (guint r = 0; r < cg_core_nr_roots(b->core); r++) {
		const struct cg_root *rt = cg_core_root(b->core, r);

		for (unsigned i = 0; i < n; i++)
			task_in(b, tasks[i], css_set_cgroup(tasks[i]->cset, rt));
	}
}

void snap_build_exit(struct snap_build *b, struct task *t)
{
	for (guint r = 0; r < cg_core_nr_roots(b->core); r++)
		add_item(b, b->tasks, task_key(t, cg_core_root(b->core, r)), NULL, 0);
}
