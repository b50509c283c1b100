/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Owners, modes and times of the tree's directories and files, and the
 * kernel's rules for who may do what with them: generic_permission() and
 * may_delete() (fs/namei.c), setattr_prepare() and notify_change()
 * (fs/attr.c), as kernfs applies them to cgroupfs. Plain functions over
 * values: the core keeps the attributes (cgroup.h). */
#ifndef CGFUSED_IATTR_H
#define CGFUSED_IATTR_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

/* The kernel's permission mask bits (the same values as X_OK, W_OK, R_OK). */
#define MAY_EXEC 0x1
#define MAY_WRITE 0x2
#define MAY_READ 0x4

/* Who asks: as much of the kernel's struct cred as FUSE tells. uid and gid
 * are the fsuid and fsgid, which is what the kernel's permission checks
 * use (and equal to the euid and egid unless the caller used setfsuid).
 * uid 0 stands for the capabilities root has (CAP_DAC_OVERRIDE, CAP_CHOWN,
 * CAP_FOWNER, CAP_FSETID, CAP_SYS_ADMIN). */
struct cg_cred {
	pid_t pid;			/* the calling thread */
	uid_t uid;
	gid_t gid;
	const gid_t *groups;		/* supplementary groups; may be NULL for root */
	unsigned ngroups;
	/* The supplementary groups were not asked for (libfuse reads them
	 * from /proc, and most checks need none): a check they would decide
	 * answers -ECHILD, and the caller asks again with them, as the
	 * kernel's RCU path walk falls back to the ref walk. */
	bool groups_unknown;
};

/* The attributes of one directory or file: kernfs_node's mode with its
 * kernfs_iattrs. */
struct cg_iattr {
	uid_t uid;
	gid_t gid;
	mode_t mode;			/* S_IFDIR or S_IFREG | permission bits */
	/* The attributes were changed once (kernfs then has a kernfs_iattrs
	 * for the node): from then on, a directory's mtime and ctime follow
	 * the making and removing of groups in it. */
	bool iattrs;
	int64_t atime_ns, mtime_ns, ctime_ns;	/* CLOCK_REALTIME */
};

/* What a setattr asks (the kernel's struct iattr): the CG_ATTR_* bits in
 * valid say which fields count. */
enum {
	CG_ATTR_MODE = 1u << 0,
	CG_ATTR_UID = 1u << 1,
	CG_ATTR_GID = 1u << 2,
	CG_ATTR_SIZE = 1u << 3,
	CG_ATTR_ATIME = 1u << 4,	/* now, unless CG_ATTR_ATIME_SET */
	CG_ATTR_MTIME = 1u << 5,	/* now, unless CG_ATTR_MTIME_SET */
	CG_ATTR_ATIME_SET = 1u << 7,	/* atime_ns as given */
	CG_ATTR_MTIME_SET = 1u << 8,	/* mtime_ns as given */
	CG_ATTR_FILE = 1u << 13,	/* through a file open for writing */
};

struct cg_setattr {
	unsigned valid;
	mode_t mode;
	uid_t uid;
	gid_t gid;
	int64_t atime_ns, mtime_ns;
};

int64_t iattr_now_ns(void);

/* generic_permission(): 0 or -EACCES for the MAY_* bits in mask (-ECHILD:
 * the caller's supplementary groups decide, and they are unknown). */
int iattr_permission(const struct cg_iattr *attr, const struct cg_cred *cred, int mask);

/* may_delete() of victim from dir: -EACCES without write and search
 * permission on dir, -EPERM when dir is sticky and cred owns neither
 * (-ECHILD as iattr_permission). */
int iattr_may_delete(const struct cg_iattr *dir, const struct cg_iattr *victim,
		     const struct cg_cred *cred);

/* Checks a setattr as the kernel does and applies it: 0, -EPERM (not the
 * owner, or a chown only root may do) or -EACCES (truncate or touch
 * without write permission; with CG_ATTR_FILE the caller has the file open
 * for writing and neither is checked). The size is checked and then
 * ignored, as by cgroupfs; every other change sets ctime. -ECHILD, and
 * nothing changed, when the unknown supplementary groups decide. */
int iattr_setattr(struct cg_iattr *attr, const struct cg_setattr *req,
		  const struct cg_cred *cred);

#endif
