/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The filesystem: cgroups are directories, control files are files.
 *
 * Inodes need no table: a cgroup's id and a file's index in its hierarchy's
 * file list make the inode number, (id << FS_SLOT_BITS) | slot, with slot 0
 * the directory and slot i + 1 file i. Ids are never reused, so a stale inode
 * can only resolve to nothing. Inode 1 is the mount's top: the hierarchy's
 * root cgroup when there is one hierarchy, else a directory holding one
 * directory per hierarchy, named after its controllers (like /sys/fs/cgroup).
 *
 * Every change reaches the kernel through this mount, so the kernel's caches
 * of names and attributes stay right and may be kept long. */
#include "fs/fs.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "core/cgroup.h"
#include "core/cgroup_lookup.h"
#include "fs/fs_poll.h"

#define FS_SLOT_BITS 7
#define FS_TOP_INO FUSE_ROOT_ID
#define FS_CACHE_TIMEOUT 86400.0

G_STATIC_ASSERT(sizeof(fuse_ino_t) >= sizeof(uint64_t));

enum node_kind { NODE_NONE, NODE_TOP, NODE_DIR, NODE_FILE };

/* An open control file: the content of the last read from offset 0 (the
 * kernel's seq_file makes its snapshot then too), and who opened it: a
 * write is checked against the opener's ids, as on the kernel. */
struct open_file {
	uint64_t cgrp_id;
	unsigned file;
	uid_t uid;
	gid_t gid;
	GMutex lock;
	GString *snapshot;
	struct fs_poll_file poll;
};

struct dir_entry {
	char *name;
	fuse_ino_t ino;
	mode_t mode;
};

static struct cg_core *req_core(fuse_req_t req)
{
	return fuse_req_userdata(req);
}

/* The caller's credentials, without its supplementary groups: libfuse
 * reads those from /proc, and most checks need none (see groups_unknown
 * in core/iattr.h). Root needs none at all. */
static struct cg_cred req_cred(fuse_req_t req)
{
	const struct fuse_ctx *ctx = fuse_req_ctx(req);

	return (struct cg_cred){ .pid = ctx->pid, .uid = ctx->uid, .gid = ctx->gid,
				 .groups_unknown = ctx->uid != 0 };
}

/* Whether to ask the core again (ret was -ECHILD: the groups decide):
 * the groups are then in cred and *groups, for the caller to g_free(). */
static bool retry_with_groups(fuse_req_t req, struct cg_cred *cred, gid_t **groups, int ret)
{
	int n = 0;

	if (ret != -ECHILD || !cred->groups_unknown)
		return false;
	for (int size = 32;; size = n) {
		*groups = g_renew(gid_t, *groups, size);
		n = fuse_req_getgroups(req, size, *groups);
		if (n <= size)
			break;
	}
	/* Unknown (the caller is gone): in no group but its own. */
	cred->groups = *groups;
	cred->ngroups = n > 0 ? (unsigned)n : 0;
	cred->groups_unknown = false;
	return true;
}

static bool single_hierarchy(struct cg_core *core)
{
	return cg_nr_hierarchies(core) == 1;
}

static fuse_ino_t dir_ino(uint64_t id)
{
	return (fuse_ino_t)id << FS_SLOT_BITS;
}

/* The inode of a directory or file; single: whether there is one
 * hierarchy (its root is then the top). */
static fuse_ino_t ref_ino(const struct cg_ref *ref, bool single)
{
	if (ref->file != CG_DIR)
		return dir_ino(ref->id) | (ref->file + 1);
	return ref->root && single ? FS_TOP_INO : dir_ino(ref->id);
}

/* What an inode is: the directory of hierarchies, or a live cgroup's
 * directory or file (then *n is what the core says of it). */
static enum node_kind resolve(struct cg_core *core, fuse_ino_t ino, struct cg_node *n)
{
	unsigned slot = ino & ((1u << FS_SLOT_BITS) - 1);
	uint64_t id = ino >> FS_SLOT_BITS;
	unsigned file = slot ? slot - 1 : CG_DIR;

	if (ino == FS_TOP_INO) {
		if (!single_hierarchy(core))
			return NODE_TOP;
		cg_hierarchy(core, 0, NULL, &id);
		file = CG_DIR;
	}
	if (cg_node_get(core, id, file, n) < 0)
		return NODE_NONE;
	return file == CG_DIR ? NODE_DIR : NODE_FILE;
}

/* What is not a cgroup's: the directory of hierarchies, and what fstat
 * of a removed group's file shows. The daemon's, made at time 0. */
static struct cg_iattr daemon_iattr(mode_t mode)
{
	return (struct cg_iattr){ .uid = geteuid(), .gid = getegid(), .mode = mode };
}

static void fill_iattr(struct stat *st, const struct cg_iattr *a)
{
	st->st_mode = a->mode;
	st->st_uid = a->uid;
	st->st_gid = a->gid;
	st->st_blksize = 4096;
	st->st_atim.tv_sec = a->atime_ns / 1000000000;
	st->st_atim.tv_nsec = a->atime_ns % 1000000000;
	st->st_mtim.tv_sec = a->mtime_ns / 1000000000;
	st->st_mtim.tv_nsec = a->mtime_ns % 1000000000;
	st->st_ctim.tv_sec = a->ctime_ns / 1000000000;
	st->st_ctim.tv_nsec = a->ctime_ns % 1000000000;
}

/* Owner, mode and times are the core's; directories have nlink 2 +
 * subgroups, files size 0. */
static void node_stat(struct cg_core *core, fuse_ino_t ino, enum node_kind kind,
		      const struct cg_node *n, struct stat *st)
{
	struct cg_iattr a;

	memset(st, 0, sizeof(*st));
	st->st_ino = ino;
	switch (kind) {
	case NODE_TOP:
		a = daemon_iattr(S_IFDIR | 0555);
		fill_iattr(st, &a);
		st->st_nlink = 2 + cg_nr_hierarchies(core);
		break;
	case NODE_DIR:
	case NODE_FILE:
		fill_iattr(st, &n->attr);
		st->st_nlink = n->nlink;
		break;
	case NODE_NONE:
		break;
	}
}

static void reply_entry(fuse_req_t req, struct cg_core *core, const struct cg_node *n)
{
	struct fuse_entry_param e = { 0 };

	e.ino = ref_ino(&n->ref, single_hierarchy(core));
	e.attr_timeout = e.entry_timeout = FS_CACHE_TIMEOUT;
	node_stat(core, e.ino, n->ref.file == CG_DIR ? NODE_DIR : NODE_FILE, n, &e.attr);
	fuse_reply_entry(req, &e);
}

void fs_notify_changed(void *mount, uint64_t id, unsigned file, const char *name)
{
	struct fs_mount *m = mount;
	struct cg_core *core = m->core;
	struct fuse_session *se = m->se;
	struct cg_node n;
	fuse_ino_t ino;

	if (cg_node_get(core, id, file, &n) < 0)
		return;
	ino = ref_ino(&n.ref, single_hierarchy(core));
	/* -ENOENT: the kernel had nothing cached. */
	if (name)
		fuse_lowlevel_notify_inval_entry(se, ino, name, strlen(name));
	fuse_lowlevel_notify_inval_inode(se, ino, -1, 0);
}

/* A name that does not exist is cached as such too. */
static void reply_negative_entry(fuse_req_t req)
{
	struct fuse_entry_param e = { 0 };

	e.entry_timeout = FS_CACHE_TIMEOUT;
	fuse_reply_entry(req, &e);
}

/* The least max_write, in bytes, so that reads and directory listings,
 * which the kernel cuts to as many pages as max_write spans, still come in
 * pieces as large as a reader's usual buffer. */
#define FS_MIN_MAX_WRITE (64 * 1024)

static void cgfs_init(void *userdata, struct fuse_conn_info *conn)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	size_t longest = cg_core_max_write_len(userdata);

	/* libfuse gives every worker thread a request buffer of max_write plus
	 * a page, and keeps it while the worker lives: 1 MiB by default, which
	 * a control file never needs. The kernel cuts a longer write into
	 * max_write pieces; with max_write past every file's limit, each write
	 * a file takes comes whole, and the first piece of any longer one is
	 * itself too long (E2BIG), as on the kernel. */
	conn->max_write = MIN(conn->max_write,
			      MAX(FS_MIN_MAX_WRITE, (longest / page + 1) * page));
	/* O_TRUNC comes with OPEN instead of as a SETATTR round trip, so
	 * `echo 5 > cpu.shares` costs no more than a plain write. */
	if (conn->capable & FUSE_CAP_ATOMIC_O_TRUNC)
		conn->want |= FUSE_CAP_ATOMIC_O_TRUNC;
	/* With a writeback cache, writes would arrive with pid 0, so "0" could
	 * not name the writer (docs/kernel-notes.md). */
	conn->want &= ~FUSE_CAP_WRITEBACK_CACHE;
}

static void cgfs_lookup(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	struct cg_core *core = req_core(req);
	struct cg_node p, n;
	enum node_kind kind = resolve(core, parent, &p);
	const char *hname;
	uint64_t top;
	int ret = -ENOENT;

	if (kind == NODE_TOP) {
		for (unsigned r = 0; cg_hierarchy(core, r, &hname, &top) == 0; r++)
			if (strcmp(hname, name) == 0)
				ret = cg_node_get(core, top, CG_DIR, &n);
	} else if (kind == NODE_DIR) {
		ret = cg_node_lookup(core, p.ref.id, name, &n);
		if (ret == -ENODEV)	/* removed since resolved */
			kind = NODE_NONE;
	}
	if (kind == NODE_NONE || kind == NODE_FILE)
		fuse_reply_err(req, kind == NODE_FILE ? ENOTDIR : ENOENT);
	else if (ret < 0)
		reply_negative_entry(req);
	else
		reply_entry(req, core, &n);
}

static void cgfs_forget(fuse_req_t req, fuse_ino_t ino, uint64_t nlookup)
{
	/* Inodes are computed, not kept: nothing to release. */
	(void)ino;
	(void)nlookup;
	fuse_reply_none(req);
}

/* fstat of a file or directory still open after its group was removed
 * works on the kernel's cgroupfs; the kernel asks us then (after a read,
 * for atime). */
static bool stat_removed(struct cg_core *core, fuse_ino_t ino, struct stat *st)
{
	unsigned slot = ino & ((1u << FS_SLOT_BITS) - 1);
	unsigned mode;
	struct cg_iattr a;

	if (cg_node_gone_mode(core, ino >> FS_SLOT_BITS, slot ? slot - 1 : CG_DIR, &mode) < 0)
		return false;
	memset(st, 0, sizeof(*st));
	st->st_ino = ino;
	if (slot) {
		a = daemon_iattr(S_IFREG | mode);
		st->st_nlink = 1;
	} else {
		a = daemon_iattr(S_IFDIR | 0755);
		st->st_nlink = 2;
	}
	fill_iattr(st, &a);
	return true;
}

static void cgfs_getattr(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct cg_core *core = req_core(req);
	struct cg_node n;
	enum node_kind kind = resolve(core, ino, &n);
	struct stat st;
	bool found = true;

	(void)fi;
	if (kind != NODE_NONE)
		node_stat(core, ino, kind, &n, &st);
	else
		found = stat_removed(core, ino, &st);
	if (!found)
		fuse_reply_err(req, ENOENT);
	else
		fuse_reply_attr(req, &st, FS_CACHE_TIMEOUT);
}

/* The core's name of a directory or file inode: a cgroup id, and CG_DIR or
 * the file's index. */
static enum node_kind node_ref(struct cg_core *core, fuse_ino_t ino, uint64_t *id, unsigned *file)
{
	struct cg_node n;
	enum node_kind kind = resolve(core, ino, &n);

	if (kind == NODE_DIR || kind == NODE_FILE) {
		*id = n.ref.id;
		*file = n.ref.file;
	}
	return kind;
}

static int64_t timespec_ns(const struct timespec *ts)
{
	return (int64_t)ts->tv_sec * 1000000000 + ts->tv_nsec;
}

/* chmod, chown, utimes and truncate, which the core checks and keeps
 * (truncate changes nothing, as on the kernel's cgroupfs). */
static void cgfs_setattr(fuse_req_t req, fuse_ino_t ino, struct stat *attr, int to_set,
			 struct fuse_file_info *fi)
{
	struct cg_core *core = req_core(req);
	struct cg_setattr sa = { .mode = attr->st_mode, .uid = attr->st_uid, .gid = attr->st_gid,
				 .atime_ns = timespec_ns(&attr->st_atim),
				 .mtime_ns = timespec_ns(&attr->st_mtim) };
	struct cg_cred cred = req_cred(req);
	g_autofree gid_t *groups = NULL;
	enum node_kind kind;
	uint64_t id = 0;
	unsigned file = 0;
	int err;

	if (to_set & FUSE_SET_ATTR_MODE)
		sa.valid |= CG_ATTR_MODE;
	if (to_set & FUSE_SET_ATTR_UID)
		sa.valid |= CG_ATTR_UID;
	if (to_set & FUSE_SET_ATTR_GID)
		sa.valid |= CG_ATTR_GID;
	if (to_set & FUSE_SET_ATTR_SIZE)
		sa.valid |= CG_ATTR_SIZE | (fi ? CG_ATTR_FILE : 0);
	if (to_set & FUSE_SET_ATTR_ATIME)
		sa.valid |= CG_ATTR_ATIME | (to_set & FUSE_SET_ATTR_ATIME_NOW ? 0 : CG_ATTR_ATIME_SET);
	if (to_set & FUSE_SET_ATTR_MTIME)
		sa.valid |= CG_ATTR_MTIME | (to_set & FUSE_SET_ATTR_MTIME_NOW ? 0 : CG_ATTR_MTIME_SET);
	kind = node_ref(core, ino, &id, &file);
	if (kind == NODE_TOP)
		err = EPERM;	/* the directory of hierarchies is not a cgroup's */
	else if (kind == NODE_NONE)
		err = ENOENT;
	else
		do
			err = -cg_setattr(core, id, file, &sa, &cred);
		while (retry_with_groups(req, &cred, &groups, -err));
	if (err)
		fuse_reply_err(req, err);
	else
		cgfs_getattr(req, ino, fi);
}

static void reply_new_dir(fuse_req_t req, struct cg_core *core, uint64_t id)
{
	struct cg_node n;

	if (cg_node_get(core, id, CG_DIR, &n) == 0)
		reply_entry(req, core, &n);
	else	/* removed by another caller in between */
		fuse_reply_err(req, ENOENT);
}

/* The cgroup id behind a directory inode, or an errno for what the kernel
 * says when the parent is not a cgroup. */
static int dir_id(struct cg_core *core, fuse_ino_t ino, uint64_t *id)
{
	unsigned file;
	enum node_kind kind = node_ref(core, ino, id, &file);

	if (kind == NODE_TOP)
		return EPERM;
	return kind == NODE_DIR ? 0 : ENOENT;
}

static void cgfs_mkdir(fuse_req_t req, fuse_ino_t parent, const char *name, mode_t mode)
{
	struct cg_core *core = req_core(req);
	struct cg_cred cred = req_cred(req);
	g_autofree gid_t *groups = NULL;
	uint64_t pid, id;
	int err;

	err = dir_id(core, parent, &pid);
	if (!err)	/* mode comes with the caller's umask applied */
		do
			err = -cg_mkdir(core, pid, name, mode, &cred, &id);
		while (retry_with_groups(req, &cred, &groups, -err));
	if (err)
		fuse_reply_err(req, err);
	else
		reply_new_dir(req, core, id);
}

static void cgfs_rmdir(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	struct cg_core *core = req_core(req);
	struct cg_cred cred = req_cred(req);
	g_autofree gid_t *groups = NULL;
	uint64_t pid;
	int err = dir_id(core, parent, &pid);

	if (!err)
		do
			err = -cg_rmdir(core, pid, name, &cred);
		while (retry_with_groups(req, &cred, &groups, -err));
	fuse_reply_err(req, err);
}

static void cgfs_rename(fuse_req_t req, fuse_ino_t parent, const char *name,
			fuse_ino_t newparent, const char *newname, unsigned int flags)
{
	struct cg_core *core = req_core(req);
	struct cg_cred cred = req_cred(req);
	g_autofree gid_t *groups = NULL;
	uint64_t pid, newpid;
	int err;

	if (flags) {	/* kernfs takes no RENAME_NOREPLACE/EXCHANGE/WHITEOUT */
		fuse_reply_err(req, EINVAL);
		return;
	}
	err = dir_id(core, parent, &pid);
	if (!err)
		err = dir_id(core, newparent, &newpid);
	if (!err)
		do
			err = -cg_rename(core, pid, name, newpid, newname, &cred);
		while (retry_with_groups(req, &cred, &groups, -err));
	fuse_reply_err(req, err);
}

/* Control files cannot be removed, linked to or made: kernfs has no such
 * operations, and the VFS answers EPERM, or EACCES for a regular file -
 * after its own checks, which answer EACCES to whoever may not change
 * the directory. */
static void cgfs_unlink(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	struct cg_core *core = req_core(req);
	struct cg_cred cred = req_cred(req);
	g_autofree gid_t *groups = NULL;
	uint64_t pid;
	int err = EPERM;

	if (dir_id(core, parent, &pid) == 0)
		do
			err = -cg_unlink(core, pid, name, &cred);
		while (retry_with_groups(req, &cred, &groups, -err));
	fuse_reply_err(req, err);
}

/* may_create(): EACCES for whoever may not add to the directory, else
 * what cgroupfs answers. */
static void reply_may_create(fuse_req_t req, fuse_ino_t parent, int err)
{
	struct cg_core *core = req_core(req);
	struct cg_cred cred = req_cred(req);
	g_autofree gid_t *groups = NULL;
	uint64_t id;
	int ret = 0;

	if (dir_id(core, parent, &id) == 0)
		do
			ret = cg_permission(core, id, CG_DIR, MAY_WRITE | MAY_EXEC, &cred);
		while (retry_with_groups(req, &cred, &groups, ret));
	fuse_reply_err(req, ret < 0 ? EACCES : err);
}

static void cgfs_symlink(fuse_req_t req, const char *link, fuse_ino_t parent, const char *name)
{
	(void)link;
	(void)name;
	reply_may_create(req, parent, EPERM);
}

static void cgfs_link(fuse_req_t req, fuse_ino_t ino, fuse_ino_t newparent, const char *newname)
{
	(void)ino;
	(void)newparent;
	(void)newname;
	fuse_reply_err(req, EPERM);	/* may_linkat() refuses first */
}

static void cgfs_mknod(fuse_req_t req, fuse_ino_t parent, const char *name, mode_t mode, dev_t rdev)
{
	(void)name;
	(void)rdev;
	reply_may_create(req, parent, S_ISREG(mode) ? EACCES : EPERM);
}

static void cgfs_create(fuse_req_t req, fuse_ino_t parent, const char *name, mode_t mode,
			struct fuse_file_info *fi)
{
	(void)parent;
	(void)name;
	(void)mode;
	(void)fi;
	fuse_reply_err(req, EACCES);
}

static void cgfs_open(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct cg_core *core = req_core(req);
	struct cg_cred cred = req_cred(req);
	g_autofree gid_t *groups = NULL;
	struct open_file *of;
	enum node_kind kind;
	uint64_t id = 0;
	unsigned file = 0;
	int err;

	kind = node_ref(core, ino, &id, &file);
	if (kind != NODE_FILE)
		err = kind == NODE_NONE ? ENOENT : EISDIR;
	else
		do
			err = -cg_file_open(core, id, file, fi->flags, &cred);
		while (retry_with_groups(req, &cred, &groups, -err));
	if (err) {
		fuse_reply_err(req, err);
		return;
	}
	of = g_new0(struct open_file, 1);
	of->cgrp_id = id;
	of->file = file;
	of->uid = cred.uid;
	of->gid = cred.gid;
	g_mutex_init(&of->lock);
	of->poll = (struct fs_poll_file){ .cgrp_id = id, .file = file,
		.events = (cg_file_flags(core, id, file) & CFTYPE_EVENTS) != 0 };
	fs_poll_seen(core, &of->poll);
	fi->fh = (uintptr_t)of;
	/* Size 0 but content: bypass the page cache. No FLUSH round trip. */
	fi->direct_io = 1;
	fi->noflush = 1;
	if (fuse_reply_open(req, fi) == -ENOENT) {	/* interrupted: no release comes */
		g_mutex_clear(&of->lock);
		g_free(of);
	}
}

static void cgfs_read(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
		      struct fuse_file_info *fi)
{
	struct open_file *of = (struct open_file *)(uintptr_t)fi->fh;
	char *slice = NULL;
	size_t len = 0;
	int err = 0;

	(void)ino;
	g_mutex_lock(&of->lock);
	if (off == 0 || !of->snapshot) {
		GString *fresh = g_string_new(NULL);

		fs_poll_seen(req_core(req), &of->poll);	/* what is read is at least as new */
		err = -cg_file_read(req_core(req), of->cgrp_id, of->file, fresh);
		if (err) {
			g_string_free(fresh, TRUE);
		} else {
			if (of->snapshot)
				g_string_free(of->snapshot, TRUE);
			of->snapshot = fresh;
		}
	}
	if (!err && (size_t)off < of->snapshot->len) {
		len = MIN(size, of->snapshot->len - (size_t)off);
		slice = g_memdup2(of->snapshot->str + off, len);
	}
	/* Unlocked before replying: the reply lets the caller close the file,
	 * and RELEASE may then run on another thread at once. */
	g_mutex_unlock(&of->lock);
	if (err)
		fuse_reply_err(req, err);
	else
		fuse_reply_buf(req, slice, len);
	g_free(slice);
}

static void cgfs_write(fuse_req_t req, fuse_ino_t ino, const char *buf, size_t size, off_t off,
		       struct fuse_file_info *fi)
{
	struct open_file *of = (struct open_file *)(uintptr_t)fi->fh;
	/* The opener's ids (the writer's may differ: an inherited fd); a write
	 * checks no mode bits, so no groups. */
	struct cg_cred cred = { .pid = fuse_req_ctx(req)->pid, .uid = of->uid, .gid = of->gid };
	ssize_t ret;

	(void)ino;
	(void)off;	/* each write is one command, wherever it lands */
	ret = cg_file_write(req_core(req), of->cgrp_id, of->file, buf, size, &cred);
	if (ret < 0)
		fuse_reply_err(req, (int)-ret);
	else
		fuse_reply_write(req, (size_t)ret);
}

static void cgfs_release(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct open_file *of = (struct open_file *)(uintptr_t)fi->fh;

	(void)ino;
	fs_poll_release(&of->poll);
	if (of->snapshot)
		g_string_free(of->snapshot, TRUE);
	g_mutex_clear(&of->lock);
	g_free(of);
	fuse_reply_err(req, 0);
}

static void cgfs_poll(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi,
		      struct fuse_pollhandle *ph)
{
	struct open_file *of = (struct open_file *)(uintptr_t)fi->fh;

	(void)ino;
	fuse_reply_poll(req, fs_poll_poll(req_core(req), &of->poll, ph));
}

/* A directory's listing while opendir makes it; single: as for ref_ino(). */
struct listing {
	GArray *entries;		/* struct dir_entry */
	bool single;
};

static void add_entry(GArray *entries, const char *name, fuse_ino_t ino, mode_t mode)
{
	struct dir_entry e = { g_strdup(name), ino, mode };

	g_array_append_val(entries, e);
}

/* Called locked (cg_readdir()): copies the name. */
static void fill_entry(void *data, const char *name, const struct cg_ref *ref)
{
	struct listing *l = data;

	add_entry(l->entries, name, ref_ino(ref, l->single),
		  ref->file == CG_DIR ? S_IFDIR : S_IFREG);
}

static void free_entry(gpointer p)
{
	g_free(((struct dir_entry *)p)->name);
}

/* The listing is taken at opendir, so that offsets stay meaningful. Only
 * who may read the directory may list it. */
static void cgfs_opendir(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct cg_core *core = req_core(req);
	struct cg_cred cred = req_cred(req);
	g_autofree gid_t *groups = NULL;
	struct listing l = { .single = single_hierarchy(core) };
	struct cg_node n;
	enum node_kind kind = resolve(core, ino, &n);
	const char *name;
	uint64_t top;
	int ret = 0;

	if (kind == NODE_DIR)
		do
			ret = cg_permission(core, n.ref.id, CG_DIR, MAY_READ, &cred);
		while (retry_with_groups(req, &cred, &groups, ret));
	if (ret < 0) {
		fuse_reply_err(req, EACCES);
		return;
	}
	l.entries = g_array_new(FALSE, FALSE, sizeof(struct dir_entry));
	g_array_set_clear_func(l.entries, free_entry);
	add_entry(l.entries, ".", ino, S_IFDIR);
	if (kind == NODE_TOP) {
		add_entry(l.entries, "..", ino, S_IFDIR);
		for (unsigned r = 0; cg_hierarchy(core, r, &name, &top) == 0; r++)
			add_entry(l.entries, name, dir_ino(top), S_IFDIR);
	} else if (kind == NODE_DIR && cg_readdir(core, n.ref.id, fill_entry, &l) < 0) {
		kind = NODE_NONE;	/* removed since resolved */
	}
	if (kind == NODE_TOP || kind == NODE_DIR) {
		fi->fh = (uintptr_t)l.entries;
		if (fuse_reply_open(req, fi) == -ENOENT)
			g_array_unref(l.entries);
	} else {
		g_array_unref(l.entries);
		fuse_reply_err(req, kind == NODE_NONE ? ENOENT : ENOTDIR);
	}
}

static void cgfs_readdir(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
			 struct fuse_file_info *fi)
{
	struct cg_node n;
	GArray *entries = (GArray *)(uintptr_t)fi->fh;
	char *buf = g_malloc(size);
	size_t used = 0;
	bool gone = resolve(req_core(req), ino, &n) == NODE_NONE;	/* lists nothing, as the kernel's */

	for (guint i = (guint)off; !gone && i < entries->len; i++) {
		const struct dir_entry *e = &g_array_index(entries, struct dir_entry, i);
		struct stat st = { .st_ino = e->ino, .st_mode = e->mode };
		size_t len = fuse_add_direntry(req, buf + used, size - used, e->name, &st, i + 1);

		if (len > size - used)
			break;
		used += len;
	}
	fuse_reply_buf(req, buf, used);
	g_free(buf);
}

static void cgfs_releasedir(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	(void)ino;
	g_array_unref((GArray *)(uintptr_t)fi->fh);
	fuse_reply_err(req, 0);
}

/* access(2) and chdir, asked only without -o default_permissions. */
static void cgfs_access(fuse_req_t req, fuse_ino_t ino, int mask)
{
	struct cg_core *core = req_core(req);
	struct cg_cred cred = req_cred(req);
	g_autofree gid_t *groups = NULL;
	struct cg_iattr top = daemon_iattr(S_IFDIR | 0555);
	uint64_t id = 0;
	unsigned file = 0;
	enum node_kind kind = node_ref(core, ino, &id, &file);
	int err;

	if (kind == NODE_NONE)
		err = ENOENT;
	else
		do
			err = kind == NODE_TOP ? -iattr_permission(&top, &cred, mask) :
						 -cg_permission(core, id, file, mask, &cred);
		while (retry_with_groups(req, &cred, &groups, -err));
	fuse_reply_err(req, err);
}

static void cgfs_statfs(fuse_req_t req, fuse_ino_t ino)
{
	struct statvfs st = { .f_bsize = 4096, .f_frsize = 4096, .f_namemax = CG_NAME_MAX };

	(void)ino;
	fuse_reply_statfs(req, &st);
}

const struct fuse_lowlevel_ops cgfs_ops = {
	.init = cgfs_init,
	.lookup = cgfs_lookup,
	.forget = cgfs_forget,
	.getattr = cgfs_getattr,
	.setattr = cgfs_setattr,
	.mknod = cgfs_mknod,
	.mkdir = cgfs_mkdir,
	.unlink = cgfs_unlink,
	.rmdir = cgfs_rmdir,
	.symlink = cgfs_symlink,
	.rename = cgfs_rename,
	.link = cgfs_link,
	.open = cgfs_open,
	.read = cgfs_read,
	.write = cgfs_write,
	.release = cgfs_release,
	.poll = cgfs_poll,
	.opendir = cgfs_opendir,
	.readdir = cgfs_readdir,
	.releasedir = cgfs_releasedir,
	.statfs = cgfs_statfs,
	.access = cgfs_access,
	.create = cgfs_create,
};
