/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Lookups and listings for the layers above the core (see
 * core/cgroup_lookup.h). */
#include "core/cgroup_lookup.h"
#include "core/internal.h"

#include <errno.h>
#include <string.h>

/* Called locked. */
static struct cg_root *hierarchy(struct cg_core *core, unsigned index)
{
	return index < core->roots->len ? g_ptr_array_index(core->roots, index) : NULL;
}

static struct cg_ref ref_of(const struct cgroup *cgrp, unsigned file)
{
	return (struct cg_ref){ .id = cgrp->id, .file = file, .root = !cgrp->parent };
}

/* Called locked, for a file the cgroup has. */
static void node_of(const struct cgroup *cgrp, unsigned file, struct cg_node *out)
{
	out->ref = ref_of(cgrp, file);
	cgroup_iattr(cgrp, file, &out->attr);
	out->nlink = file == CG_DIR ? 2 + g_hash_table_size(cgrp->children) : 1;
}

unsigned cg_nr_hierarchies(struct cg_core *core)
{
	unsigned slot;
	unsigned n;

	slot = cg_read_lock(&core->lock);
	n = core->roots->len;
	cg_read_unlock(&core->lock, slot);
	return n;
}

int cg_hierarchy(struct cg_core *core, unsigned index, const char **name, uint64_t *top_id)
{
	unsigned slot;
	struct cg_root *root;

	slot = cg_read_lock(&core->lock);
	root = hierarchy(core, index);
	if (root && name)
		*name = root->name;
	if (root)
		*top_id = root->top->id;
	cg_read_unlock(&core->lock, slot);
	return root ? 0 : -ENOENT;
}

/* Called locked: the controllers of root named in the list name (every
 * name must be bound there), or 0. */
static unsigned bound_named(struct cg_core *core, const struct cg_root *root, const char *name)
{
	char **names = g_strsplit(name, ",", -1);
	unsigned mask = 0;

	for (char **n = names; *n && mask != ~0u; n++) {
		unsigned i;

		for (i = 0; i < core->nr_subsys; i++)
			if ((root->subsys_mask & (1u << i)) && strcmp(core->subsys[i]->name, *n) == 0)
				break;
		mask = i < core->nr_subsys ? mask | (1u << i) : ~0u;
	}
	g_strfreev(names);
	return mask == ~0u ? 0 : mask;
}

int cg_hierarchy_by_name(struct cg_core *core, const char *name, unsigned *index)
{
	unsigned slot;
	int ret = -ENOENT;

	slot = cg_read_lock(&core->lock);
	for (unsigned r = 0; ret && r < core->roots->len; r++) {
		if (strcmp(hierarchy(core, r)->name, name) == 0) {
			*index = r;
			ret = 0;
		}
	}
	cg_read_unlock(&core->lock, slot);
	return ret;
}

int cg_hierarchy_binding(struct cg_core *core, const char *names, unsigned *index)
{
	unsigned slot;
	int ret = -ENOENT;

	slot = cg_read_lock(&core->lock);
	for (unsigned r = 0; ret && r < core->roots->len; r++) {
		if (bound_named(core, hierarchy(core, r), names)) {
			*index = r;
			ret = 0;
		}
	}
	cg_read_unlock(&core->lock, slot);
	return ret;
}

/* Called locked. */
static bool has_file(const struct cgroup *cgrp, unsigned file)
{
	return file == CG_DIR ||
	       (file < cgrp->root->files->len &&
		cgroup_has_file(cgrp, g_ptr_array_index(cgrp->root->files, file)));
}

int cg_node_get(struct cg_core *core, uint64_t id, unsigned file, struct cg_node *out)
{
	unsigned slot;
	struct cgroup *cgrp;
	int ret = -ENOENT;

	slot = cg_read_lock(&core->lock);
	cgrp = cgroup_by_id(core, id);
	if (cgrp && has_file(cgrp, file)) {
		node_of(cgrp, file, out);
		ret = 0;
	}
	cg_read_unlock(&core->lock, slot);
	return ret;
}

int cg_node_lookup(struct cg_core *core, uint64_t dir_id, const char *name,
		   struct cg_node *out)
{
	unsigned slot;
	struct cgroup *dir, *child;
	unsigned file;
	int ret = -ENOENT;

	slot = cg_read_lock(&core->lock);
	dir = cgroup_by_id(core, dir_id);
	if (!dir) {
		ret = -ENODEV;
	} else if ((child = cgroup_child(dir, name))) {
		node_of(child, CG_DIR, out);
		ret = 0;
	} else if (cgroup_file_by_name(dir, name, &file)) {
		node_of(dir, file, out);
		ret = 0;
	}
	cg_read_unlock(&core->lock, slot);
	return ret;
}

int cg_node_gone_mode(struct cg_core *core, uint64_t id, unsigned file, unsigned *mode)
{
	unsigned slot;
	struct cg_root *root;
	int ret = -ENOENT;

	slot = cg_read_lock(&core->lock);
	root = cgroup_id_root(core, id);
	if (root && (file == CG_DIR || file < root->files->len)) {
		*mode = file == CG_DIR ? 0 : cftype_mode(((const struct cg_file *)
						   g_ptr_array_index(root->files, file))->cft);
		ret = 0;
	}
	cg_read_unlock(&core->lock, slot);
	return ret;
}

int cg_readdir(struct cg_core *core, uint64_t id, cg_filldir_fn fn, void *data)
{
	unsigned slot;
	struct cgroup *cgrp, *child;
	GHashTableIter iter;
	struct cg_ref ref;

	slot = cg_read_lock(&core->lock);
	cgrp = cgroup_by_id(core, id);
	if (!cgrp) {
		cg_read_unlock(&core->lock, slot);
		return -ENOENT;
	}
	ref = ref_of(cgrp->parent ? cgrp->parent : cgrp, CG_DIR);
	fn(data, "..", &ref);
	for (unsigned i = 0; i < cgrp->root->files->len; i++) {
		const struct cg_file *f = g_ptr_array_index(cgrp->root->files, i);

		if (cgroup_has_file(cgrp, f)) {
			ref = ref_of(cgrp, i);
			fn(data, f->name, &ref);
		}
	}
	cgroup_for_each_child(child, &iter, cgrp) {
		ref = ref_of(child, CG_DIR);
		fn(data, child->name, &ref);
	}
	cg_read_unlock(&core->lock, slot);
	return 0;
}

int cg_path_lookup(struct cg_core *core, unsigned index, const char *path, const char *name,
		   uint64_t *id, unsigned *file)
{
	unsigned slot;
	char **names = g_strsplit(path, "/", -1);
	struct cg_root *root;
	struct cgroup *cgrp;
	int ret = -ENOENT;

	slot = cg_read_lock(&core->lock);
	root = hierarchy(core, index);
	cgrp = root ? root->top : NULL;
	for (char **n = names; cgrp && *n; n++)
		if (**n)
			cgrp = cgroup_child(cgrp, *n);
	if (cgrp && name && !*name)
		*file = CG_DIR;
	if (cgrp && (!name || !*name || cgroup_file_by_name(cgrp, name, file))) {
		*id = cgrp->id;
		ret = 0;
	}
	cg_read_unlock(&core->lock, slot);
	g_strfreev(names);
	return ret;
}
