/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The kernel's permission and setattr rules (see iattr.h). */
#include "core/iattr.h"

#include <errno.h>
#include <time.h>

int64_t iattr_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Root's capabilities. */
static bool capable(const struct cg_cred *cred)
{
	return cred->uid == 0;
}

/* in_group_p(): 1 or 0, or -ECHILD when only the unknown supplementary
 * groups could say. */
static int cred_in_group(const struct cg_cred *cred, gid_t gid)
{
	if (cred->gid == gid)
		return 1;
	if (cred->groups_unknown)
		return -ECHILD;
	for (unsigned i = 0; i < cred->ngroups; i++)
		if (cred->groups[i] == gid)
			return 1;
	return 0;
}

static bool owner_or_capable(const struct cg_iattr *attr, const struct cg_cred *cred)
{
	return cred->uid == attr->uid || capable(cred);
}

/* acl_permission_check(): only the owner's bits count for the owner, only
 * the group's for a member; membership is asked only where the group's
 * bits and the others' differ in what mask asks. */
static int mode_permission(const struct cg_iattr *attr, const struct cg_cred *cred, int mask)
{
	unsigned bits = attr->mode;

	mask &= 7;
	if (cred->uid == attr->uid) {
		bits >>= 6;
	} else if ((unsigned)mask & (bits ^ (bits >> 3))) {
		int in = cred_in_group(cred, attr->gid);

		if (in < 0)
			return in;
		if (in)
			bits >>= 3;
	}
	return (unsigned)mask & ~bits & 7 ? -EACCES : 0;
}

int iattr_permission(const struct cg_iattr *attr, const struct cg_cred *cred, int mask)
{
	int ret = mode_permission(attr, cred, mask);

	if (ret == 0 || !capable(cred))
		return ret;
	/* Root overrides everything but executing a file nobody may execute. */
	if (!S_ISDIR(attr->mode) && (mask & MAY_EXEC) && !(attr->mode & (S_IXUSR | S_IXGRP | S_IXOTH)))
		return -EACCES;
	return 0;
}

int iattr_may_delete(const struct cg_iattr *dir, const struct cg_iattr *victim,
		     const struct cg_cred *cred)
{
	int ret = iattr_permission(dir, cred, MAY_WRITE | MAY_EXEC);

	if (ret)
		return ret;
	/* check_sticky() */
	if ((dir->mode & S_ISVTX) && cred->uid != victim->uid && cred->uid != dir->uid &&
	    !capable(cred))
		return -EPERM;
	return 0;
}

/* setattr_prepare(), with vfs_truncate()'s and utimes' write checks. */
static int setattr_allowed(const struct cg_iattr *attr, const struct cg_setattr *req,
			   const struct cg_cred *cred)
{
	bool owner = cred->uid == attr->uid;
	bool opened = req->valid & CG_ATTR_FILE;

	if ((req->valid & CG_ATTR_SIZE) && !opened && iattr_permission(attr, cred, MAY_WRITE))
		return -EACCES;
	if ((req->valid & CG_ATTR_UID) && !(owner && req->uid == attr->uid) && !capable(cred))
		return -EPERM;
	if ((req->valid & CG_ATTR_GID) && !capable(cred) &&
	    !(owner && req->gid == attr->gid)) {
		int in = owner ? cred_in_group(cred, req->gid) : 0;

		if (in <= 0)
			return in < 0 ? in : -EPERM;
	}
	if ((req->valid & CG_ATTR_MODE) && !owner_or_capable(attr, cred))
		return -EPERM;
	if (req->valid & (CG_ATTR_ATIME_SET | CG_ATTR_MTIME_SET)) {
		if (!owner_or_capable(attr, cred))
			return -EPERM;
	} else if ((req->valid & (CG_ATTR_ATIME | CG_ATTR_MTIME)) && !opened &&
		   !owner_or_capable(attr, cred) && iattr_permission(attr, cred, MAY_WRITE)) {
		return -EACCES;		/* touch: the owner, or who may write */
	}
	return 0;
}

int iattr_setattr(struct cg_iattr *attr, const struct cg_setattr *req,
		  const struct cg_cred *cred)
{
	unsigned valid = req->valid;
	mode_t mode = attr->mode;
	int64_t now = iattr_now_ns();
	int ret = setattr_allowed(attr, req, cred);

	if (ret)
		return ret;
	if (valid & CG_ATTR_MODE) {
		int in = capable(cred) ? 1 :
			 cred_in_group(cred, valid & CG_ATTR_GID ? req->gid : attr->gid);

		if (in < 0)
			return in;
		mode = (attr->mode & S_IFMT) | (req->mode & 07777);
		if (!in)
			mode &= ~(mode_t)S_ISGID;
	}
	/* A chown of a file drops its set-id bits (setgid only together with
	 * group execute: without it the bit means mandatory locking). */
	if ((valid & (CG_ATTR_UID | CG_ATTR_GID)) && S_ISREG(mode)) {
		mode &= ~(mode_t)S_ISUID;
		if (mode & S_IXGRP)
			mode &= ~(mode_t)S_ISGID;
	}
	/* kernfs makes a node's kernfs_iattrs at its first setattr, its
	 * times starting then. */
	if (!attr->iattrs) {
		attr->iattrs = true;
		attr->atime_ns = attr->mtime_ns = attr->ctime_ns = now;
	}
	attr->mode = mode;
	if (valid & CG_ATTR_UID)
		attr->uid = req->uid;
	if (valid & CG_ATTR_GID)
		attr->gid = req->gid;
	if (valid & CG_ATTR_ATIME)
		attr->atime_ns = valid & CG_ATTR_ATIME_SET ? req->atime_ns : now;
	if (valid & CG_ATTR_MTIME)
		attr->mtime_ns = valid & CG_ATTR_MTIME_SET ? req->mtime_ns : now;
	if (valid & (CG_ATTR_MODE | CG_ATTR_UID | CG_ATTR_GID | CG_ATTR_ATIME | CG_ATTR_MTIME))
		attr->ctime_ns = now;
	return 0;
}
