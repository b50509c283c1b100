/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Hierarchies and cgroups: creation, mkdir, rmdir, rename, lookups. */
#include "core/cgroup.h"

#include <errno.h>
#include <string.h>

#include "core/cgfused_stat.h"
#include "core/css_set.h"
#include "core/face.h"
#include "core/internal.h"
#include "core/notify.h"
#include "core/task.h"
#include "core/task_catch_up.h"
#include "core/task_queue.h"
#include "core/task_sample.h"

void css_get(struct css *css)
{
	css->refcnt++;
}

void css_put(struct css *css)
{
	g_assert(css->refcnt > 0);
	if (--css->refcnt)
		return;
	if (css->ss) {
		css->ss->css_free(css);
		return;
	}
	/* The cgroup's own css goes last: the cgroup goes with it. */
	struct cgroup *cgrp = css->cgroup;

	g_hash_table_unref(cgrp->children);
	if (cgrp->file_iattrs)
		g_array_unref(cgrp->file_iattrs);
	g_free(cgrp->name);
	g_free(cgrp);
}

/* A cgroup with its css, neither numbered nor known to the core: its
 * directory with mode, it and its files owned by cred. */
static struct cgroup *cgroup_alloc(struct cg_root *root, struct cgroup *parent, const char *name,
				   mode_t mode, const struct cg_cred *cred)
{
	struct cg_core *core = root->core;
	struct cgroup *cgrp = g_new0(struct cgroup, 1);

	cgrp->name = g_strdup(name);
	cgrp->parent = parent;
	cgrp->root = root;
	cgrp->children = g_hash_table_new(g_str_hash, g_str_equal);
	g_queue_init(&cgrp->csets);
	cgrp->ctime_ns = iattr_now_ns();
	cgrp->creator_uid = cred->uid;
	cgrp->creator_gid = cred->gid;
	cgrp->attr = (struct cg_iattr){
		.uid = cred->uid,
		.gid = cred->gid,
		.mode = S_IFDIR | (mode & 01777),
		.iattrs = cred->uid != 0 || cred->gid != 0,
		.atime_ns = cgrp->ctime_ns,
		.mtime_ns = cgrp->ctime_ns,
		.ctime_ns = cgrp->ctime_ns,
	};
	cgrp->self.cgroup = cgrp;
	cgrp->self.ssid = -1;
	cgrp->self.parent = parent ? &parent->self : NULL;
	cgrp->self.refcnt = 1;
	if (parent)
		css_get(&parent->self);
	cgrp->dom_cgrp = cgrp;
	cgrp->max_depth = cgrp->max_descendants = UINT_MAX;
	if (parent && root->face->mkdir)
		root->face->mkdir(cgrp);
	cgrp->parent_nr_writes = parent ? parent->nr_writes : 0;

	for (unsigned i = 0; i < core->nr_subsys; i++) {
		const struct cgroup_subsys *ss = core->subsys[i];
		struct css *pcss = parent ? parent->subsys[i] : NULL;
		struct css *css;

		if (!(root->subsys_mask & (1u << i)))
			continue;
		css = ss->css_alloc(pcss);
		css->cgroup = cgrp;
		css->ss = ss;
		css->ssid = (int)i;
		css->parent = pcss;
		css->refcnt = 1;
		if (pcss)
			css_get(pcss);
		cgrp->subsys[i] = css;
		if (ss->css_online)
			ss->css_online(css);
	}
	return cgrp;
}

/* Makes a cgroup with its css, not yet visible in the tree. */
static struct cgroup *cgroup_create(struct cg_root *root, struct cgroup *parent, const char *name,
				    mode_t mode, const struct cg_cred *cred)
{
	struct cg_core *core = root->core;
	struct cgroup *cgrp = cgroup_alloc(root, parent, name, mode, cred);

	/* Made where its start depends on its siblings: it counts as
	 * written, the state compares its settings with what a mkdir gives. */
	if (parent && !cgroup_children_alike(parent))
		cgrp->nr_writes++;
	cgrp->id = (core->next_seq++ << CG_ID_ROOT_BITS) | root->index;
	g_hash_table_insert(core->cgroups, &cgrp->id, cgrp);
	root->nr_cgroups++;
	for (struct cgroup *p = parent; p; p = p->parent)
		p->nr_descendants++;
	return cgrp;
}

/* Lets go of a cgroup's css, and so of the cgroup. */
static void cgroup_release(struct cgroup *cgrp)
{
	struct cgroup *parent = cgrp->parent;

	for (unsigned i = 0; i < CG_MAX_SUBSYS; i++) {
		struct css *css = cgrp->subsys[i];

		if (!css)
			continue;
		cgrp->subsys[i] = NULL;
		if (css->parent)
			css_put(css->parent);
		css_put(css);
	}
	if (parent)
		css_put(&parent->self);
	css_put(&cgrp->self);
}

/* Drops a cgroup that has no tasks and no children. */
static void cgroup_destroy(struct cgroup *cgrp)
{
	g_hash_table_remove(cgrp->root->core->cgroups, &cgrp->id);
	if (cgrp->parent)
		g_hash_table_remove(cgrp->parent->children, cgrp->name);
	cgrp->root->nr_cgroups--;
	for (struct cgroup *p = cgrp->parent; p; p = p->parent)
		p->nr_descendants--;
	if (cgrp->parent && cgrp->dom_cgrp != cgrp)
		cgrp->parent->nr_threaded_children--;
	cgroup_release(cgrp);
}

struct cgroup *cgroup_probe_new(struct cgroup *parent)
{
	static const struct cg_cred root_cred = { 0 };

	return cgroup_alloc(parent->root, parent, "", 0755, &root_cred);
}

void cgroup_probe_free(struct cgroup *probe)
{
	cgroup_release(probe);
}

bool cgroup_children_alike(struct cgroup *cgrp)
{
	struct cg_core *core = cgrp->root->core;

	for (unsigned i = 0; i < core->nr_subsys; i++) {
		const struct cgroup_subsys *ss = core->subsys[i];

		if ((cgrp->root->subsys_mask & (1u << i)) && ss->children_alike &&
		    !ss->children_alike(cgrp->subsys[i]))
			return false;
	}
	return true;
}

struct cg_core *cg_core_new(const struct cgroup_subsys *const *subsys, unsigned nr,
			    struct kfacade *kf)
{
	struct cg_core *core = g_new0(struct cg_core, 1);

	g_assert(nr <= CG_MAX_SUBSYS);
	cg_lock_init(&core->lock);
	for (unsigned i = 0; i < nr; i++)
		core->subsys[i] = subsys[i];
	core->nr_subsys = nr;
	core->roots = g_ptr_array_new();
	core->cgroups = g_hash_table_new(g_int64_hash, g_int64_equal);
	core->css_sets = css_set_table_new();
	slab_pool_init(&core->task_pool, sizeof(struct task));
	tidmap_init(&core->tasks, &core->task_pool, offsetof(struct task, tid));
	core->procs = g_hash_table_new_full(NULL, NULL, NULL, (GDestroyNotify)g_array_unref);
	core->subscribers = g_ptr_array_new();
	core->kf = kf;
	core->taskq = task_queue_new();
	g_mutex_init(&core->sample_lock);
	g_cond_init(&core->sample_done);
	core->sampling = g_hash_table_new(g_int64_hash, g_int64_equal);
	core->sample_copies = task_sample_copies_new();
	core->max_depth = CG_MAX_DEPTH_DEFAULT;
	core->max_descendants = CG_MAX_DESCENDANTS_DEFAULT;
	core->next_seq = 1;	/* id 0 would make inode numbers the fs layer reserves */
	return core;
}

static void add_file(struct cg_root *root, const struct cftype *cft,
		     const struct cgroup_subsys *ss, int ssid)
{
	struct cg_file *f = g_new0(struct cg_file, 1);

	f->cft = cft;
	f->ss = ss;
	f->ssid = ssid;
	f->max_write_len = cft->max_write_len ? cft->max_write_len(root->core->kf)
					      : CFTYPE_WRITE_MAX;
	if (ss && !(cft->flags & CFTYPE_NO_PREFIX))
		f->name = g_strdup_printf("%s.%s", ss->name, cft->name);
	else
		f->name = g_strdup(cft->name);
	g_ptr_array_add(root->files, f);
}

/* init_css_set holds every hierarchy's root css: made anew when a hierarchy
 * is added, before any task is tracked. Called locked, before root joins
 * core->roots, so that the old one is released from the roots it knows. */
static void add_root(struct cg_core *core, struct cg_root *root)
{
	struct css *subsys[CG_MAX_SUBSYS] = { 0 };

	g_assert(tidmap_size(&core->tasks) == 0);
	if (core->init_css_set) {
		memcpy(subsys, core->init_css_set->subsys, sizeof(subsys));
		put_css_set(core, core->init_css_set);	/* the core's own, last ref */
	}
	for (unsigned i = 0; i < core->nr_subsys; i++)
		if (root->subsys_mask & (1u << i))
			subsys[i] = root->top->subsys[i];
	g_ptr_array_add(core->roots, root);
	core->init_css_set = find_css_set(core, subsys);
}

static void add_files(struct cg_root *root, const struct cftype *files,
		      const struct cgroup_subsys *ss, int ssid)
{
	for (const struct cftype *cft = files; cft && cft->name; cft++)
		add_file(root, cft, ss, ssid);
}

/* The files in the order every directory lists them: the face's, ours,
 * then each controller's table that the face shows. */
struct cg_root *cg_root_new(struct cg_core *core, const struct cg_face *face,
			    unsigned subsys_mask, bool clone_children)
{
	struct cg_root *root = g_new0(struct cg_root, 1);
	GString *name = g_string_new(NULL);

	g_assert(subsys_mask != 0);
	root->core = core;
	root->face = face;
	root->dfl = face->dfl;
	root->index = core->roots->len;
	root->subsys_mask = subsys_mask;
	root->files = g_ptr_array_new();
	root->release_agent = g_strdup("");
	add_files(root, face->base_files, NULL, -1);
	add_files(root, cgfused_files, NULL, -1);
	for (unsigned i = 0; i < core->nr_subsys; i++) {
		const struct cgroup_subsys *ss = core->subsys[i];

		if (!(subsys_mask & (1u << i)))
			continue;
		g_string_append_printf(name, "%s%s", name->len ? "," : "", ss->name);
		add_files(root, face->dfl ? ss->dfl_files : ss->legacy_files, ss, (int)i);
	}
	/* One v2 hierarchy has every controller: named as the kernel's mount
	 * option says, never like a v1 one in a saved state. */
	if (face->dfl)
		g_string_assign(name, "unified");
	root->name = g_string_free(name, FALSE);
	cg_write_lock(&core->lock);
	root->top = cgroup_create(root, NULL, "", 0555, &(struct cg_cred){ 0 });
	if (clone_children)
		root->top->flags |= CGRP_CPUSET_CLONE_CHILDREN;
	add_root(core, root);
	cg_write_unlock(&core->lock);
	return root;
}

static void cgroup_destroy_tree(struct cgroup *cgrp)
{
	GHashTableIter iter;
	struct cgroup *child;

	while (g_hash_table_size(cgrp->children)) {
		g_hash_table_iter_init(&iter, cgrp->children);
		g_hash_table_iter_next(&iter, NULL, (gpointer *)&child);
		cgroup_destroy_tree(child);
	}
	cgroup_destroy(cgrp);
}

void cg_core_free(struct cg_core *core)
{
	/* Nobody hears of the daemon going away (no release agent runs). */
	g_ptr_array_set_size(core->subscribers, 0);
	/* No other thread is left; taken as task_drop() must be called. */
	cg_write_lock(&core->lock);
	task_table_free(core);
	cg_write_unlock(&core->lock);
	task_queue_free(core, core->taskq);
	put_css_set(core, core->init_css_set);
	for (unsigned r = 0; r < core->roots->len; r++) {
		struct cg_root *root = g_ptr_array_index(core->roots, r);

		cgroup_destroy_tree(root->top);
		for (unsigned i = 0; i < root->files->len; i++) {
			struct cg_file *f = g_ptr_array_index(root->files, i);

			g_free(f->name);
			g_free(f);
		}
		g_ptr_array_unref(root->files);
		g_free(root->release_agent);
		g_free(root->name);
		g_free(root);
	}
	g_ptr_array_unref(core->roots);
	g_hash_table_unref(core->cgroups);
	g_hash_table_unref(core->css_sets);
	tidmap_clear(&core->tasks);
	g_hash_table_unref(core->procs);
	slab_pool_clear(&core->task_pool);
	g_ptr_array_unref(core->subscribers);
	g_hash_table_unref(core->sampling);
	g_hash_table_unref(core->sample_copies);
	g_cond_clear(&core->sample_done);
	g_mutex_clear(&core->sample_lock);
	cg_lock_clear(&core->lock);
	g_free(core);
}

struct kfacade *cg_core_kf(const struct cg_core *core)
{
	return core->kf;
}

unsigned cg_core_nr_subsys(const struct cg_core *core)
{
	return core->nr_subsys;
}

const struct cgroup_subsys *cg_core_subsys(const struct cg_core *core, unsigned ssid)
{
	return core->subsys[ssid];
}

unsigned cg_core_nr_roots(const struct cg_core *core)
{
	return core->roots->len;
}

struct cg_root *cg_core_root(const struct cg_core *core, unsigned index)
{
	return g_ptr_array_index(core->roots, index);
}

bool cg_core_loading(const struct cg_core *core)
{
	return core->loading;
}

void cg_core_set_limits(struct cg_core *core, unsigned max_depth, unsigned max_descendants)
{
	core->max_depth = max_depth;
	core->max_descendants = max_descendants;
}

struct cg_core *cg_root_core(const struct cg_root *root)
{
	return root->core;
}

bool cg_root_dfl(const struct cg_root *root)
{
	return root->dfl;
}

unsigned cg_root_index(const struct cg_root *root)
{
	return root->index;
}

unsigned cg_root_subsys_mask(const struct cg_root *root)
{
	return root->subsys_mask;
}

const char *cg_root_name(const struct cg_root *root)
{
	return root->name;
}

struct cgroup *cg_root_top(const struct cg_root *root)
{
	return root->top;
}

const char *cg_root_release_agent(const struct cg_root *root)
{
	return root->release_agent;
}

unsigned cg_root_nr_files(const struct cg_root *root)
{
	return root->files->len;
}

const struct cg_file *cg_root_file(const struct cg_root *root, unsigned index)
{
	return g_ptr_array_index(root->files, index);
}

size_t cg_core_max_write_len(struct cg_core *core)
{
	size_t longest = 0;
	unsigned slot = cg_read_lock(&core->lock);

	for (guint i = 0; i < core->roots->len; i++) {
		struct cg_root *root = g_ptr_array_index(core->roots, i);

		for (guint f = 0; f < root->files->len; f++)
			longest = MAX(longest, ((struct cg_file *)
						g_ptr_array_index(root->files, f))->max_write_len);
	}
	cg_read_unlock(&core->lock, slot);
	return longest;
}

struct cg_root *cgroup_id_root(struct cg_core *core, uint64_t id)
{
	unsigned index = id & ((1u << CG_ID_ROOT_BITS) - 1);

	if (id == 0 || (id >> CG_ID_ROOT_BITS) >= core->next_seq || index >= core->roots->len)
		return NULL;
	return g_ptr_array_index(core->roots, index);
}

struct cgroup *cgroup_by_id(struct cg_core *core, uint64_t id)
{
	return g_hash_table_lookup(core->cgroups, &id);
}

void cgroup_list_all(struct cg_core *core, GPtrArray *out)
{
	GHashTableIter iter;
	gpointer cgrp;

	g_hash_table_iter_init(&iter, core->cgroups);
	while (g_hash_table_iter_next(&iter, NULL, &cgrp))
		g_ptr_array_add(out, cgrp);
}

struct cgroup *cgroup_child(struct cgroup *cgrp, const char *name)
{
	return g_hash_table_lookup(cgrp->children, name);
}

bool cgroup_has_file(const struct cgroup *cgrp, const struct cg_file *f)
{
	if ((f->cft->flags & CFTYPE_ONLY_ON_ROOT) && cgrp->parent)
		return false;
	if ((f->cft->flags & CFTYPE_NOT_ON_ROOT) && !cgrp->parent)
		return false;
	/* v2: a controller's files where it has its css. */
	if (cgrp->root->dfl && f->ssid >= 0 && !cgroup_css_enabled(cgrp, f->ssid))
		return false;
	return true;
}

bool cgroup_css_enabled(const struct cgroup *cgrp, int ssid)
{
	if (!cgrp->parent)
		return (cgrp->root->subsys_mask & (1u << ssid)) != 0;
	return (cgrp->parent->subtree_control & (1u << ssid)) != 0;
}

bool cgroup_kill_pending(struct cg_core *core, const struct css_set *cset)
{
	for (guint r = 0; r < core->roots->len; r++) {
		const struct cg_root *root = g_ptr_array_index(core->roots, r);

		if (root->dfl && cgroup_flag(css_set_cgroup(cset, root), CGRP_KILL))
			return true;
	}
	return false;
}

const struct cg_file *cgroup_file_by_name(const struct cgroup *cgrp, const char *name,
					  unsigned *index)
{
	for (unsigned i = 0; i < cgrp->root->files->len; i++) {
		const struct cg_file *f = g_ptr_array_index(cgrp->root->files, i);

		if (strcmp(f->name, name) == 0 && cgroup_has_file(cgrp, f)) {
			if (index)
				*index = i;
			return f;
		}
	}
	return NULL;
}

int css_for_each_descendant_pre(struct css *css, int (*fn)(struct css *, void *), void *data)
{
	GHashTableIter iter;
	struct cgroup *child;
	int ret = fn(css, data);

	if (ret)
		return ret;
	cgroup_for_each_child(child, &iter, css->cgroup)
		if ((ret = css_for_each_descendant_pre(css_in(css, child), fn, data)))
			return ret;
	return 0;
}

bool cgroup_is_populated(const struct cgroup *cgrp)
{
	return cgrp->nr_populated_csets || cgrp->nr_populated_children;
}

/* The one place populated changes are found: the release agent hears of
 * them here (and cgroup.events will). */
void cgroup_update_populated(struct cgroup *cgrp, bool populated)
{
	struct cg_core *core = cgrp->root->core;
	struct cgroup *child = NULL;
	int adj = populated ? 1 : -1;

	do {
		bool was_populated = cgroup_is_populated(cgrp);

		if (!child)
			cgrp->nr_populated_csets += adj;
		else
			cgrp->nr_populated_children += adj;
		if (was_populated == cgroup_is_populated(cgrp))
			break;
		if (cgrp->root->dfl) {
			cgrp->events_seq++;	/* cgroup.events: populated */
			if (!populated)		/* killed, every one of them */
				cgroup_set_flag(cgrp, CGRP_KILL, false);
		}
		cg_notify(core, populated, cgrp, !was_populated);
		child = cgrp;
		cgrp = cgrp->parent;
	} while (cgrp);
}

char *cgroup_path(const struct cgroup *cgrp)
{
	GPtrArray *names = g_ptr_array_new();
	GString *path = g_string_new(NULL);

	for (; cgrp->parent; cgrp = cgrp->parent)
		g_ptr_array_add(names, cgrp->name);
	for (guint i = names->len; i > 0; i--)
		g_string_append_printf(path, "/%s", (char *)g_ptr_array_index(names, i - 1));
	if (!path->len)
		g_string_append_c(path, '/');
	g_ptr_array_unref(names);
	return g_string_free(path, FALSE);
}

/* The kernel's rules for a new name in parent, in its order: the VFS
 * looks the name up (search permission), finds it taken or checks that the
 * parent may be written, then cgroup_mkdir refuses a newline. */
static int check_new_name(struct cgroup *parent, const char *name, const struct cg_cred *cred)
{
	int ret;

	if (strlen(name) > CG_NAME_MAX)
		return -ENAMETOOLONG;
	if ((ret = iattr_permission(&parent->attr, cred, MAY_EXEC)))
		return ret;
	if (cgroup_child(parent, name) || cgroup_file_by_name(parent, name, NULL))
		return -EEXIST;
	if ((ret = iattr_permission(&parent->attr, cred, MAY_WRITE | MAY_EXEC)))
		return ret;
	if (strchr(name, '\n'))
		return -EINVAL;
	return 0;
}

/* cgroup_check_hierarchy_limits(): one limit for every group, so the
 * hierarchy's count of groups below its top bounds every subtree's. */
static int check_limits(const struct cgroup *parent)
{
	unsigned depth = 1;

	/* v2: every ancestor's own cgroup.max.* too (always max on v1). */
	for (const struct cgroup *c = parent; c; c = c->parent) {
		if (c->nr_descendants >= c->max_descendants || depth > c->max_depth)
			return -EAGAIN;
		depth++;
	}
	/* depth - 1: the new group's level below the top */
	if (depth - 1 > parent->root->core->max_depth ||
	    parent->root->nr_cgroups - 1 >= parent->root->core->max_descendants)
		return -EAGAIN;
	return 0;
}

/* kernfs dates a directory's change only once it has kernfs_iattrs. */
static void dir_changed(struct cgroup *dir)
{
	if (dir->attr.iattrs)
		dir->attr.mtime_ns = dir->attr.ctime_ns = iattr_now_ns();
}

static int do_mkdir(struct cg_core *core, uint64_t parent_id, const char *name, mode_t mode,
		    const struct cg_cred *cred, bool check, uint64_t *new_id)
{
	static const struct cg_cred root = { 0 };
	struct cgroup *parent, *cgrp;
	int ret;

	cg_write_lock(&core->lock);
	parent = cgroup_by_id(core, parent_id);
	ret = parent ? check_new_name(parent, name, check ? cred : &root) : -ENOENT;
	if (ret == 0)
		ret = check_limits(parent);
	if (ret == 0)
		ret = cg_notify_prepare(core, &(struct cg_change){
			.kind = CG_CHANGE_MKDIR, .cgrp = parent, .name = name });
	if (ret == 0) {
		cgrp = cgroup_create(parent->root, parent, name, mode, cred);
		g_hash_table_insert(parent->children, cgrp->name, cgrp);
		dir_changed(parent);
		*new_id = cgrp->id;
		cg_notify(core, mkdir, cgrp);
	}
	cg_write_unlock(&core->lock);
	return ret;
}

int cg_mkdir(struct cg_core *core, uint64_t parent_id, const char *name, mode_t mode,
	     const struct cg_cred *cred, uint64_t *new_id)
{
	return do_mkdir(core, parent_id, name, mode, cred, true, new_id);
}

int cg_mkdir_restore(struct cg_core *core, uint64_t parent_id, const char *name, mode_t mode,
		     const struct cg_cred *cred, uint64_t *new_id)
{
	return do_mkdir(core, parent_id, name, mode, cred, false, new_id);
}

/* The VFS's part of removing or renaming parent/name: the lookup (search
 * permission, ENOENT) and may_delete(). *cgrp is the group of that name,
 * NULL for a control file. */
static int may_delete_child(struct cgroup *parent, const char *name, const struct cg_cred *cred,
			    struct cgroup **cgrp)
{
	struct cg_iattr victim;
	unsigned file;
	int ret;

	if (!parent)
		return -ENOENT;
	if ((ret = iattr_permission(&parent->attr, cred, MAY_EXEC)))
		return ret;
	if ((*cgrp = cgroup_child(parent, name)))
		victim = (*cgrp)->attr;
	else if (cgroup_file_by_name(parent, name, &file))
		cgroup_iattr(parent, file, &victim);
	else
		return -ENOENT;
	return iattr_may_delete(&parent->attr, &victim, cred);
}

int cg_rmdir(struct cg_core *core, uint64_t parent_id, const char *name,
	     const struct cg_cred *cred)
{
	struct cgroup *parent, *cgrp = NULL;
	GArray *gone;
	int ret;

	task_pull_if_pending(core);
	/* Members whose exit was not reported yet: found before the lock. */
	gone = task_members_copy(core, parent_id, name);
	task_members_keep_gone(core, gone);
	cg_write_lock(&core->lock);
	task_catch_up(core);
	parent = cgroup_by_id(core, parent_id);
	ret = may_delete_child(parent, name, cred, &cgrp);
	if (ret == 0 && !cgrp)
		ret = -ENOTDIR;
	if (ret == 0 && !g_hash_table_size(cgrp->children))
		task_members_drop(core, g_steal_pointer(&gone));
	if (gone)
		g_array_unref(gone);
	if (ret == 0 && (!g_queue_is_empty(&cgrp->csets) || g_hash_table_size(cgrp->children)))
		ret = -EBUSY;
	else if (ret == 0) {
		cg_notify(core, removing, cgrp);
		cgroup_destroy(cgrp);
		/* The release agent's cue too: parent may have lost its last
		 * child. */
		cg_notify(core, rmdir, parent, name);
		dir_changed(parent);
	}
	cg_write_unlock(&core->lock);
	return ret;
}

/* The face's rule and kernfs once the VFS agreed: never onto an
 * existing name. */
static int cgroup_rename(struct cgroup *cgrp, struct cgroup *new_parent, const char *new_name,
			 const struct cg_cred *cred)
{
	struct cgroup *parent = cgrp->parent;
	int ret;

	if (strlen(new_name) > CG_NAME_MAX)
		return -ENAMETOOLONG;	/* getname(), before anything */
	ret = cgrp->root->face->rename(cgrp, new_parent, new_name);
	if (ret)
		return ret;
	if (strcmp(cgrp->name, new_name) == 0)
		return 0;
	if (cgroup_file_by_name(parent, new_name, NULL))
		return -ENOTDIR;
	ret = check_new_name(parent, new_name, cred);
	if (ret == 0) {
		char *old_name = cgrp->name;

		g_hash_table_remove(parent->children, cgrp->name);
		cgrp->name = g_strdup(new_name);
		g_hash_table_insert(parent->children, cgrp->name, cgrp);
		cg_notify(parent->root->core, rename, cgrp, old_name);
		g_free(old_name);
	}
	return ret;
}

int cg_rename(struct cg_core *core, uint64_t parent_id, const char *name,
	      uint64_t new_parent_id, const char *new_name, const struct cg_cred *cred)
{
	struct cgroup *parent, *new_parent, *cgrp = NULL;
	int ret;

	cg_write_lock(&core->lock);
	parent = cgroup_by_id(core, parent_id);
	new_parent = cgroup_by_id(core, new_parent_id);
	ret = may_delete_child(parent, name, cred, &cgrp);
	if (ret == 0 && !new_parent)
		ret = -ENOENT;
	/* may_create() in the new parent */
	if (ret == 0)
		ret = iattr_permission(&new_parent->attr, cred, MAY_WRITE | MAY_EXEC);
	if (ret == 0 && !parent->root->face->rename)
		ret = -EPERM;	/* kernfs without a rename operation */
	if (ret == 0)
		ret = cgrp ? cgroup_rename(cgrp, new_parent, new_name, cred) : -ENOTDIR;
	cg_write_unlock(&core->lock);
	return ret;
}

int cg_refuse_once(gsize *said, const char *what, const char *why)
{
	if (g_once_init_enter(said)) {
		g_message("%s refused (EPERM): %s; see cgfused(8)", what, why);
		g_once_init_leave(said, 1);
	}
	return -EPERM;
}

int css_may_trace(const struct css *css, const char *file)
{
	static gsize said;
	struct kfacade *kf = css_kfacade(css);

	if (kf->ops->may_trace(kf))
		return 0;
	return cg_refuse_once(&said, file, "cgfused stops threads with ptrace, which the Yama "
			      "LSM's ptrace_scope allows it only for its own children");
}
