/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The tree as the layers above the core see it (the filesystem, the
 * state's replay): by id, by name in a directory, by path. Each function
 * takes the core lock itself and copies out what it answers, so that
 * nobody outside src/core holds the lock or a pointer into the tree. */
#ifndef CGFUSED_CGROUP_LOOKUP_H
#define CGFUSED_CGROUP_LOOKUP_H

#include <stdbool.h>
#include <stdint.h>

#include "core/cgroup.h"

/* A cgroup's directory (file CG_DIR) or one of its files. */
struct cg_ref {
	uint64_t id;			/* the cgroup */
	unsigned file;			/* CG_DIR or the file's index */
	bool root;			/* the cgroup is its hierarchy's root */
};

/* What a live directory or file is, as stat shows it. */
struct cg_node {
	struct cg_ref ref;
	struct cg_iattr attr;
	unsigned nlink;			/* a directory: 2 + its groups; a file: 1 */
};

/* Hierarchies are all made before the core serves, and stay. */
unsigned cg_nr_hierarchies(struct cg_core *core);
/* Hierarchy index's name ("cpu,cpuacct", alive as long as the core; name
 * may be NULL) and its root cgroup's id: 0, or -ENOENT when there is no
 * such hierarchy. */
int cg_hierarchy(struct cg_core *core, unsigned index, const char **name, uint64_t *top_id);
/* The index of the hierarchy named name: 0, or -ENOENT. */
int cg_hierarchy_by_name(struct cg_core *core, const char *name, unsigned *index);
/* The index of the hierarchy that binds every controller in the list
 * names ("cpuset,cpu"), others besides: 0, or -ENOENT. A state saved
 * before a hierarchy gained a controller (the freezer joined the default
 * set) finds it so. */
int cg_hierarchy_binding(struct cg_core *core, const char *names, unsigned *index);

/* Directory or file ref->file of live cgroup ref->id: 0, or -ENOENT when
 * there is no such cgroup or it has no such file. */
int cg_node_get(struct cg_core *core, uint64_t id, unsigned file, struct cg_node *out);
/* The group or file called name in directory dir_id (a group first, as
 * they cannot share a name): 0, -ENOENT when there is no such name, or
 * -ENODEV when dir_id is no live cgroup. */
int cg_node_lookup(struct cg_core *core, uint64_t dir_id, const char *name,
		   struct cg_node *out);
/* What a removed group's directory or file (kept open) was: 0, when id
 * was given out and its hierarchy has a file of index file, with *mode
 * the file's permission bits by its cftype (0 for CG_DIR), or -ENOENT. */
int cg_node_gone_mode(struct cg_core *core, uint64_t id, unsigned file, unsigned *mode);

/* Lists directory id: fn gets ".." (its parent; the directory itself for
 * a root), then each file it has, in order, then each of its groups; it
 * is called locked and copies what it keeps. 0, or -ENOENT when id is no
 * live cgroup. */
typedef void (*cg_filldir_fn)(void *data, const char *name, const struct cg_ref *ref);
int cg_readdir(struct cg_core *core, uint64_t id, cg_filldir_fn fn, void *data);

/* The group at path ("/a/b") in hierarchy index, and unless name is NULL
 * the index of its file called name ("": the directory, CG_DIR): 0, or
 * -ENOENT when there is no such group or file. */
int cg_path_lookup(struct cg_core *core, unsigned index, const char *path, const char *name,
		   uint64_t *id, unsigned *file);

#endif
