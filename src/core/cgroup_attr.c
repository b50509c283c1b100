/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Owners, modes and times of cgroups' directories and files (kernfs keeps
 * them per node), and the checks of the operations on them. A file keeps
 * attributes of its own only once they change: until then they follow
 * from its group (its maker, its creation time) and its cftype. */
#include "core/cgroup.h"

#include <errno.h>

#include "core/internal.h"
#include "core/notify.h"

struct cg_file_iattr {
	unsigned file;
	struct cg_iattr attr;
};

/* A file's attributes until they first change. A group made by anyone but
 * root:root had its files' owner set (cgroup_kn_set_ugid), which gave
 * them kernfs_iattrs. */
static void file_iattr_default(const struct cgroup *cgrp, unsigned file, struct cg_iattr *attr)
{
	const struct cg_file *f = g_ptr_array_index(cgrp->root->files, file);

	*attr = (struct cg_iattr){
		.uid = cgrp->creator_uid,
		.gid = cgrp->creator_gid,
		.mode = S_IFREG | cftype_mode(f->cft),
		.iattrs = cgrp->creator_uid != 0 || cgrp->creator_gid != 0,
		.atime_ns = cgrp->ctime_ns,
		.mtime_ns = cgrp->ctime_ns,
		.ctime_ns = cgrp->ctime_ns,
	};
}

static struct cg_iattr *file_iattr_find(const struct cgroup *cgrp, unsigned file)
{
	for (guint i = 0; cgrp->file_iattrs && i < cgrp->file_iattrs->len; i++) {
		struct cg_file_iattr *fa = &g_array_index(cgrp->file_iattrs, struct cg_file_iattr, i);

		if (fa->file == file)
			return &fa->attr;
	}
	return NULL;
}

void cgroup_iattr(const struct cgroup *cgrp, unsigned file, struct cg_iattr *out)
{
	const struct cg_iattr *own;

	if (file == CG_DIR)
		*out = cgrp->attr;
	else if ((own = file_iattr_find(cgrp, file)))
		*out = *own;
	else
		file_iattr_default(cgrp, file, out);
}

bool cgroup_iattr_own(const struct cgroup *cgrp, unsigned file)
{
	return file_iattr_find(cgrp, file) != NULL;
}

struct cg_iattr *cgroup_iattr_mut(struct cgroup *cgrp, unsigned file)
{
	struct cg_iattr *own;
	struct cg_file_iattr fa = { .file = file };

	if (file == CG_DIR)
		return &cgrp->attr;
	if ((own = file_iattr_find(cgrp, file)))
		return own;
	if (!cgrp->file_iattrs)
		cgrp->file_iattrs = g_array_new(FALSE, FALSE, sizeof(struct cg_file_iattr));
	file_iattr_default(cgrp, file, &fa.attr);
	g_array_append_val(cgrp->file_iattrs, fa);
	return &g_array_index(cgrp->file_iattrs, struct cg_file_iattr,
			      cgrp->file_iattrs->len - 1).attr;
}

/* The live cgroup that has this directory or file, or NULL. */
static struct cgroup *node_cgroup(struct cg_core *core, uint64_t cgrp_id, unsigned file)
{
	struct cgroup *cgrp = cgroup_by_id(core, cgrp_id);

	if (!cgrp || file == CG_DIR)
		return cgrp;
	if (file >= cgrp->root->files->len ||
	    !cgroup_has_file(cgrp, g_ptr_array_index(cgrp->root->files, file)))
		return NULL;
	return cgrp;
}

void cg_root_set_owner(struct cg_root *root, uid_t uid, gid_t gid)
{
	struct cgroup *top = root->top;

	cg_write_lock(&root->core->lock);
	top->creator_uid = top->attr.uid = uid;
	top->creator_gid = top->attr.gid = gid;
	top->attr.mode = S_IFDIR | (uid == 0 ? 0555 : 0755);
	cg_write_unlock(&root->core->lock);
}

/* The live cgroup that has this directory or file, and its attributes;
 * NULL if none. Called locked (either side). */
static struct cgroup *node_find(struct cg_core *core, uint64_t cgrp_id, unsigned file,
				struct cg_iattr *attr)
{
	struct cgroup *cgrp = node_cgroup(core, cgrp_id, file);

	if (cgrp)
		cgroup_iattr(cgrp, file, attr);
	return cgrp;
}

int cg_get_iattr(struct cg_core *core, uint64_t cgrp_id, unsigned file, struct cg_iattr *out)
{
	unsigned slot = cg_read_lock(&core->lock);
	struct cgroup *cgrp = node_find(core, cgrp_id, file, out);

	cg_read_unlock(&core->lock, slot);
	return cgrp ? 0 : -ENOENT;
}

int cg_set_iattr(struct cg_core *core, uint64_t cgrp_id, unsigned file,
		 const struct cg_iattr *attr)
{
	struct cg_iattr old;
	struct cgroup *cgrp;

	cg_write_lock(&core->lock);
	cgrp = node_find(core, cgrp_id, file, &old);
	if (cgrp) {
		struct cg_iattr *dst = cgroup_iattr_mut(cgrp, file);

		*dst = *attr;
		dst->mode = (old.mode & S_IFMT) | (attr->mode & 07777);
	}
	cg_write_unlock(&core->lock);
	return cgrp ? 0 : -ENOENT;
}

int cg_setattr(struct cg_core *core, uint64_t cgrp_id, unsigned file,
	       const struct cg_setattr *req, const struct cg_cred *cred)
{
	struct cg_iattr attr;
	struct cgroup *cgrp;
	int ret;

	cg_write_lock(&core->lock);
	cgrp = node_find(core, cgrp_id, file, &attr);
	/* Changed on a copy: a refused change makes no file's own copy. */
	ret = cgrp ? iattr_setattr(&attr, req, cred) : -ENOENT;
	if (ret == 0) {
		*cgroup_iattr_mut(cgrp, file) = attr;
		if (req->valid & (CG_ATTR_MODE | CG_ATTR_UID | CG_ATTR_GID))
			cg_notify(core, setattr, cgrp, file);
	}
	cg_write_unlock(&core->lock);
	return ret;
}

int cg_permission(struct cg_core *core, uint64_t cgrp_id, unsigned file, int mask,
		  const struct cg_cred *cred)
{
	struct cg_iattr attr;
	unsigned slot = cg_read_lock(&core->lock);
	struct cgroup *cgrp = node_find(core, cgrp_id, file, &attr);
	int ret = cgrp ? iattr_permission(&attr, cred, mask) : -ENOENT;

	cg_read_unlock(&core->lock, slot);
	return ret;
}

int cg_unlink(struct cg_core *core, uint64_t parent_id, const char *name,
	      const struct cg_cred *cred)
{
	struct cgroup *parent, *child = NULL;
	struct cg_iattr victim;
	unsigned file;
	unsigned slot;
	int ret;

	/* Refused whatever the checks say: nothing changes. */
	slot = cg_read_lock(&core->lock);
	parent = cgroup_by_id(core, parent_id);
	if (!parent) {
		ret = -ENOENT;
	} else if ((ret = iattr_permission(&parent->attr, cred, MAY_EXEC)) == 0) {
		if ((child = cgroup_child(parent, name)))
			victim = child->attr;
		else if (cgroup_file_by_name(parent, name, &file))
			cgroup_iattr(parent, file, &victim);
		else
			ret = -ENOENT;
		if (ret == 0)
			ret = iattr_may_delete(&parent->attr, &victim, cred);
		if (ret == 0)
			ret = child ? -EISDIR : -EPERM;
	}
	cg_read_unlock(&core->lock, slot);
	return ret;
}
