/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests of the permission model: the kernel's rules over owners and
 * modes (iattr.c), and the core's checks of every operation as a user who
 * is not root, on the fake kernel facade. Expected values are the kernel's
 * (docs/kernel-oracle.md, "Permissions"). */
#include <errno.h>
#include <fcntl.h>
#include <string.h>

#include <glib.h>

#include "core/cgroup.h"
#include "fake-kfacade.h"
#include "core/iattr.h"
#include "core/internal.h"
#include "core/restore.h"
#include "test-env.h"

#define USER 1234
#define OTHER 1235

/* The made-up system's processes (see populate()). */
#define P_ROOT 600		/* root's */
#define P_USER 500		/* USER's: threads 500, 501 */
#define P_OTHER 700		/* OTHER's */
#define P_MIXED 800		/* leader root's, thread 801 USER's */
#define P_SUID 900		/* real and effective OTHER, saved USER */
#define P_EUID 950		/* real and saved OTHER, effective USER */
#define KTHREAD 2

static const gid_t extra_groups[] = { 50, 60 };
/* USER in its own group only, and with supplementary groups 50 and 60. */
static const struct cg_cred user = { .pid = P_USER, .uid = USER, .gid = USER };
static const struct cg_cred user_sup = { .pid = P_USER, .uid = USER, .gid = USER,
					 .groups = extra_groups, .ngroups = 2 };
static const struct cg_cred other = { .pid = P_OTHER, .uid = OTHER, .gid = OTHER };

static void set_uids(struct env *e, pid_t tid, uid_t r, uid_t eff, uid_t saved)
{
	fake_kf_set_uids(e->fk, tid, &(struct task_uids){ r, eff, saved, eff });
}

static void populate(struct env *e)
{
	fake_kf_add_kthread(e->fk, KTHREAD);
	fake_kf_add_process(e->fk, P_ROOT, 1);
	fake_kf_add_process(e->fk, P_USER, 2);
	set_uids(e, P_USER, USER, USER, USER);
	set_uids(e, P_USER + 1, USER, USER, USER);
	fake_kf_add_process(e->fk, P_OTHER, 1);
	set_uids(e, P_OTHER, OTHER, OTHER, OTHER);
	fake_kf_add_process(e->fk, P_MIXED, 2);
	set_uids(e, P_MIXED + 1, USER, USER, USER);
	fake_kf_add_process(e->fk, P_SUID, 1);
	set_uids(e, P_SUID, OTHER, OTHER, USER);
	fake_kf_add_process(e->fk, P_EUID, 1);
	set_uids(e, P_EUID, OTHER, USER, OTHER);
}

/* open(O_WRONLY) and one write, as cred. */
static ssize_t wr_as(struct env *e, const struct cg_cred *cred, uint64_t id, const char *file,
		     const char *str)
{
	unsigned f = file_index(e, id, file);
	int ret = cg_file_open(e->core, id, f, O_WRONLY, cred);

	if (ret < 0)
		return ret;
	return cg_file_write(e->core, id, f, str, strlen(str), cred);
}

static struct cg_iattr attr_of(struct env *e, uint64_t id, unsigned file)
{
	struct cg_iattr a;

	g_assert_cmpint(cg_get_iattr(e->core, id, file, &a), ==, 0);
	return a;
}

static int chown_as(struct env *e, const struct cg_cred *cred, uint64_t id, unsigned file,
		    uid_t uid, gid_t gid)
{
	struct cg_setattr req = { .valid = CG_ATTR_UID | CG_ATTR_GID, .uid = uid, .gid = gid };

	return cg_setattr(e->core, id, file, &req, cred);
}

static int chmod_as(struct env *e, const struct cg_cred *cred, uint64_t id, unsigned file,
		    mode_t mode)
{
	struct cg_setattr req = { .valid = CG_ATTR_MODE, .mode = mode };

	return cg_setattr(e->core, id, file, &req, cred);
}

/* chown -R uid:gid of a group without subgroups, as root. */
static void chown_group(struct env *e, uint64_t id, uid_t uid, gid_t gid)
{
	g_assert_cmpint(chown_as(e, &root_cred, id, CG_DIR, uid, gid), ==, 0);
	for (unsigned f = 0; f < e->root[0]->files->len; f++) {
		struct cg_iattr a;

		if (cg_get_iattr(e->core, id, f, &a) == 0)
			g_assert_cmpint(chown_as(e, &root_cred, id, f, uid, gid), ==, 0);
	}
}

static bool in_tasks(struct env *e, uint64_t id, pid_t tid)
{
	return lists(e, id, "tasks", tid);
}

/* ---- the rules themselves ---------------------------------------------- */

static void test_generic_permission(void)
{
	struct cg_iattr file = { .uid = USER, .gid = 50, .mode = S_IFREG | 0064 };
	struct cg_iattr dir = { .uid = 0, .gid = 0, .mode = S_IFDIR | 0555 };
	struct cg_cred stranger = { .uid = 4000, .gid = 4000 };

	/* The owner gets the owner's bits only, though the others' allow more. */
	g_assert_cmpint(iattr_permission(&file, &user, MAY_READ), ==, -EACCES);
	/* A member of the group through a supplementary group: the group's. */
	g_assert_cmpint(iattr_permission(&file, &(struct cg_cred){ .uid = 4000, .gid = 4000,
				.groups = extra_groups, .ngroups = 2 }, MAY_READ | MAY_WRITE), ==, 0);
	g_assert_cmpint(iattr_permission(&file, &stranger, MAY_READ), ==, 0);
	g_assert_cmpint(iattr_permission(&file, &stranger, MAY_WRITE), ==, -EACCES);
	g_assert_cmpint(iattr_permission(&file, &stranger, 0), ==, 0);
	/* Root reads and writes anything, makes groups in a 0555 directory... */
	g_assert_cmpint(iattr_permission(&file, &root_cred, MAY_READ | MAY_WRITE), ==, 0);
	g_assert_cmpint(iattr_permission(&dir, &root_cred, MAY_WRITE | MAY_EXEC), ==, 0);
	g_assert_cmpint(iattr_permission(&dir, &user, MAY_WRITE | MAY_EXEC), ==, -EACCES);
	g_assert_cmpint(iattr_permission(&dir, &user, MAY_READ | MAY_EXEC), ==, 0);
	/* ...but executes a file only when someone may. */
	g_assert_cmpint(iattr_permission(&file, &root_cred, MAY_EXEC), ==, -EACCES);
	file.mode |= 0001;
	g_assert_cmpint(iattr_permission(&file, &root_cred, MAY_EXEC), ==, 0);
}

static void test_may_delete_sticky(void)
{
	struct cg_iattr dir = { .uid = 0, .gid = 0, .mode = S_IFDIR | 01777 };
	struct cg_iattr mine = { .uid = USER, .gid = USER, .mode = S_IFDIR | 0755 };

	g_assert_cmpint(iattr_may_delete(&dir, &mine, &user), ==, 0);
	g_assert_cmpint(iattr_may_delete(&dir, &mine, &other), ==, -EPERM);
	g_assert_cmpint(iattr_may_delete(&dir, &mine, &root_cred), ==, 0);
	dir.uid = OTHER;	/* the directory's owner may */
	g_assert_cmpint(iattr_may_delete(&dir, &mine, &other), ==, 0);
	dir.mode = S_IFDIR | 0755;
	g_assert_cmpint(iattr_may_delete(&dir, &mine, &user), ==, -EACCES);
}

static void test_setattr_rules(void)
{
	struct cg_iattr a = { .uid = USER, .gid = USER, .mode = S_IFREG | 0644 };
	struct cg_setattr req = { 0 };

	/* Only root gives a file away; the owner may "chown" it to itself. */
	req = (struct cg_setattr){ .valid = CG_ATTR_UID, .uid = OTHER };
	g_assert_cmpint(iattr_setattr(&a, &req, &user), ==, -EPERM);
	req.uid = USER;
	g_assert_cmpint(iattr_setattr(&a, &req, &user), ==, 0);
	g_assert_cmpint(iattr_setattr(&a, &req, &other), ==, -EPERM);
	/* chgrp by the owner to a group it is in, not to another. */
	req = (struct cg_setattr){ .valid = CG_ATTR_GID, .gid = 60 };
	g_assert_cmpint(iattr_setattr(&a, &req, &user), ==, -EPERM);
	g_assert_cmpint(iattr_setattr(&a, &req, &user_sup), ==, 0);
	g_assert_cmpint(a.gid, ==, 60);
	/* chmod by the owner only. Not in the file's group: setgid is dropped. */
	req = (struct cg_setattr){ .valid = CG_ATTR_MODE, .mode = 02755 };
	g_assert_cmpint(iattr_setattr(&a, &req, &other), ==, -EPERM);
	g_assert_cmpint(iattr_setattr(&a, &req, &user), ==, 0);
	g_assert_cmpint(a.mode, ==, S_IFREG | 0755);
	g_assert_cmpint(iattr_setattr(&a, &req, &user_sup), ==, 0);
	g_assert_cmpint(a.mode, ==, S_IFREG | 02755);
	req.mode = 07777;
	g_assert_cmpint(iattr_setattr(&a, &req, &root_cred), ==, 0);
	g_assert_cmpint(a.mode, ==, S_IFREG | 07777);
	/* A chown drops a file's set-id bits, even root's chown. */
	req = (struct cg_setattr){ .valid = CG_ATTR_UID | CG_ATTR_GID, .uid = OTHER, .gid = OTHER };
	g_assert_cmpint(iattr_setattr(&a, &req, &root_cred), ==, 0);
	g_assert_cmpint(a.mode, ==, S_IFREG | 01777);
	g_assert_cmpint(a.uid, ==, OTHER);
	g_assert_cmpint(a.gid, ==, OTHER);
}

/* With the groups unknown, a check answers -ECHILD whenever they decide
 * it (a member and a non-member would be answered differently), never when
 * the group's bits are the others', and otherwise what both would be
 * answered: every mode and mask, for the owner, a member of the file's
 * group and a stranger. */
static void test_groups_asked_only_when_they_decide(void)
{
	const struct cg_cred owner = { .uid = USER, .gid = USER, .groups_unknown = true };
	const struct cg_cred member = { .uid = OTHER, .gid = OTHER, .groups = extra_groups,
					.ngroups = 2 };
	const struct cg_cred stranger = { .uid = OTHER, .gid = OTHER };
	const struct cg_cred unknown = { .uid = OTHER, .gid = OTHER, .groups_unknown = true };
	unsigned asked = 0;

	for (mode_t mode = 0; mode <= 0777; mode++) {
		struct cg_iattr file = { .uid = USER, .gid = 50, .mode = S_IFREG | mode };

		for (int mask = 0; mask <= 7; mask++) {
			int in = iattr_permission(&file, &member, mask);
			int out = iattr_permission(&file, &stranger, mask);
			int got = iattr_permission(&file, &unknown, mask);

			g_assert_cmpint(iattr_permission(&file, &owner, mask), ==,
					mask & ~(mode >> 6) & 7 ? -EACCES : 0);
			if (in != out)
				g_assert_cmpint(got, ==, -ECHILD);
			else if (got != -ECHILD)
				g_assert_cmpint(got, ==, in);
			if (((mode >> 3) & 7) == (mode & 7))
				g_assert_cmpint(got, !=, -ECHILD);
			asked += got == -ECHILD;
		}
	}
	g_assert_cmpuint(asked, >, 0);
}

/* A chgrp or chmod the unknown groups decide answers -ECHILD and changes
 * nothing; one they do not decide goes through. */
static void test_setattr_groups_unknown(void)
{
	const struct cg_cred unknown = { .uid = USER, .gid = USER, .groups_unknown = true };
	struct cg_iattr a = { .uid = USER, .gid = USER, .mode = S_IFREG | 0644 };
	struct cg_setattr req = { .valid = CG_ATTR_GID, .gid = 60 };

	g_assert_cmpint(iattr_setattr(&a, &req, &unknown), ==, -ECHILD);
	g_assert_cmpint(a.gid, ==, USER);
	g_assert_false(a.iattrs);
	req.gid = USER;
	g_assert_cmpint(iattr_setattr(&a, &req, &unknown), ==, 0);
	a.gid = 60;
	req = (struct cg_setattr){ .valid = CG_ATTR_MODE, .mode = 02755 };
	g_assert_cmpint(iattr_setattr(&a, &req, &unknown), ==, -ECHILD);
	g_assert_cmpint(a.mode, ==, S_IFREG | 0644);
	req.valid |= CG_ATTR_GID;
	req.gid = USER;	/* to its own group: decided without them */
	req.mode = 02644;
	g_assert_cmpint(iattr_setattr(&a, &req, &unknown), ==, 0);
	g_assert_cmpint(a.mode, ==, S_IFREG | 02644);
	g_assert_cmpint(a.gid, ==, USER);
}

/* Through the core: an open, a mkdir, a removal the unknown groups decide
 * answer -ECHILD with nothing changed, and the same with the groups. */
static void test_core_asks_for_groups(void)
{
	const struct cg_cred unknown = { .pid = P_USER, .uid = USER, .gid = USER,
					 .groups_unknown = true };
	struct env e;
	uint64_t g, id;
	unsigned f;

	env_setup(&e);
	populate(&e);
	g = mkdir_ok(&e, e.top[0], "g");
	f = file_index(&e, g, "cpu.shares");
	g_assert_cmpint(chown_as(&e, &root_cred, g, CG_DIR, 0, 50), ==, 0);
	g_assert_cmpint(chown_as(&e, &root_cred, g, f, 0, 50), ==, 0);
	g_assert_cmpint(chmod_as(&e, &root_cred, g, CG_DIR, 0775), ==, 0);
	/* 0644: the others may read as the group may, no group asked. */
	g_assert_cmpint(cg_file_open(e.core, g, f, O_RDONLY, &unknown), ==, 0);
	g_assert_cmpint(chmod_as(&e, &root_cred, g, f, 0664), ==, 0);
	g_assert_cmpint(cg_file_open(e.core, g, f, O_WRONLY, &unknown), ==, -ECHILD);
	g_assert_cmpint(cg_file_open(e.core, g, f, O_WRONLY, &user_sup), ==, 0);
	g_assert_cmpint(cg_file_open(e.core, g, f, O_WRONLY, &user), ==, -EACCES);
	g_assert_cmpint(cg_mkdir(e.core, g, "sub", 0755, &unknown, &id), ==, -ECHILD);
	g_assert_cmpint(cg_get_iattr(e.core, g, CG_DIR, &(struct cg_iattr){ 0 }), ==, 0);
	g_assert_cmpint(cg_rmdir(e.core, g, "sub", &root_cred), ==, -ENOENT);
	g_assert_cmpint(cg_mkdir(e.core, g, "sub", 0755, &user_sup, &id), ==, 0);
	g_assert_cmpint(cg_rmdir(e.core, g, "sub", &unknown), ==, -ECHILD);
	g_assert_cmpint(cg_get_iattr(e.core, id, CG_DIR, &(struct cg_iattr){ 0 }), ==, 0);
	g_assert_cmpint(cg_rmdir(e.core, g, "sub", &user_sup), ==, 0);
	env_teardown(&e);
}

static void test_setattr_dir_keeps_setid(void)
{
	struct cg_iattr a = { .uid = USER, .gid = USER, .mode = S_IFDIR | 06755 };
	struct cg_setattr req = { .valid = CG_ATTR_UID | CG_ATTR_GID, .uid = OTHER, .gid = OTHER };

	g_assert_cmpint(iattr_setattr(&a, &req, &root_cred), ==, 0);
	g_assert_cmpint(a.mode, ==, S_IFDIR | 06755);
}

static void test_setattr_times(void)
{
	struct cg_iattr a = { .uid = USER, .gid = USER, .mode = S_IFREG | 0644 };
	struct cg_setattr set = { .valid = CG_ATTR_ATIME | CG_ATTR_MTIME | CG_ATTR_ATIME_SET |
					  CG_ATTR_MTIME_SET, .atime_ns = 7000000000, .mtime_ns = 5000000000 };
	struct cg_setattr now = { .valid = CG_ATTR_ATIME | CG_ATTR_MTIME };
	struct cg_setattr size = { .valid = CG_ATTR_SIZE };

	/* The first change dates every time; then ctime follows every change
	 * (all were 0 here, in 1970). */
	g_assert_cmpint(iattr_setattr(&a, &set, &user), ==, 0);
	g_assert_true(a.iattrs);
	g_assert_cmpint(a.atime_ns, ==, 7000000000);
	g_assert_cmpint(a.mtime_ns, ==, 5000000000);
	g_assert_cmpint(a.ctime_ns, >, 7000000000);
	/* Explicit times: the owner only; "now": whoever may write too. */
	g_assert_cmpint(iattr_setattr(&a, &set, &other), ==, -EPERM);
	g_assert_cmpint(iattr_setattr(&a, &now, &other), ==, -EACCES);
	a.mode = S_IFREG | 0666;
	g_assert_cmpint(iattr_setattr(&a, &set, &other), ==, -EPERM);
	g_assert_cmpint(iattr_setattr(&a, &now, &other), ==, 0);
	g_assert_cmpint(a.mtime_ns, >, 7000000000);
	g_assert_cmpint(a.atime_ns, >, 7000000000);
	/* truncate needs write permission, unless through a writable fd, and
	 * changes no time. */
	a.mode = S_IFREG | 0644;
	a.ctime_ns = a.mtime_ns = 1;
	g_assert_cmpint(iattr_setattr(&a, &size, &other), ==, -EACCES);
	g_assert_cmpint(iattr_setattr(&a, &size, &user), ==, 0);
	size.valid |= CG_ATTR_FILE;
	g_assert_cmpint(iattr_setattr(&a, &size, &other), ==, 0);
	g_assert_cmpint(a.ctime_ns, ==, 1);
	g_assert_cmpint(a.mtime_ns, ==, 1);
}

/* ---- the core's checks ---------------------------------------------------- */

static void test_defaults(void)
{
	struct env e;
	uint64_t g;
	struct cg_iattr a;

	env_setup(&e);
	a = attr_of(&e, e.top[0], CG_DIR);
	g_assert_cmpint(a.mode, ==, S_IFDIR | 0555);
	g_assert_cmpint(a.uid, ==, 0);
	g_assert_cmpint(a.gid, ==, 0);
	g = mkdir_ok(&e, e.top[0], "g");
	a = attr_of(&e, g, CG_DIR);
	g_assert_cmpint(a.mode, ==, S_IFDIR | 0755);
	g_assert_false(a.iattrs);
	g_assert_cmpint(attr_of(&e, g, file_index(&e, g, "cpu.shares")).mode, ==, S_IFREG | 0644);
	g_assert_cmpint(attr_of(&e, g, file_index(&e, g, "cpu.stat")).mode, ==, S_IFREG | 0444);
	g_assert_cmpint(attr_of(&e, g, file_index(&e, g, "tasks")).uid, ==, 0);
	/* No such file in a group, no such group. */
	g_assert_cmpint(cg_get_iattr(e.core, g, file_index(&e, e.top[0], "release_agent"), &a), ==,
			-ENOENT);
	g_assert_cmpint(cg_get_iattr(e.core, 999999, CG_DIR, &a), ==, -ENOENT);
	env_teardown(&e);
}

/* mkdir takes the caller's umask-applied mode; only the sticky bit of the
 * special ones stays (vfs_mkdir). */
static void test_mkdir_mode(void)
{
	struct env e;
	uint64_t id;

	env_setup(&e);
	g_assert_cmpint(cg_mkdir(e.core, e.top[0], "m", 07777, &root_cred, &id), ==, 0);
	g_assert_cmpint(attr_of(&e, id, CG_DIR).mode, ==, S_IFDIR | 01777);
	g_assert_cmpint(cg_mkdir(e.core, e.top[0], "p", 0700, &root_cred, &id), ==, 0);
	g_assert_cmpint(attr_of(&e, id, CG_DIR).mode, ==, S_IFDIR | 0700);
	/* The files keep their cftype's modes. */
	g_assert_cmpint(attr_of(&e, id, file_index(&e, id, "cpu.shares")).mode, ==, S_IFREG | 0644);
	env_teardown(&e);
}

/* Outside what it owns a user changes nothing, with the kernel's errno and
 * in the kernel's order. */
static void test_user_in_roots_tree(void)
{
	struct env e;
	uint64_t g, id;

	env_setup(&e);
	populate(&e);
	g = mkdir_ok(&e, e.top[0], "g");
	g_assert_cmpint(cg_mkdir(e.core, e.top[0], "x", 0755, &user, &id), ==, -EACCES);
	/* Lookup first: an existing name is EEXIST even for a user. */
	g_assert_cmpint(cg_mkdir(e.core, e.top[0], "g", 0755, &user, &id), ==, -EEXIST);
	g_assert_cmpint(cg_mkdir(e.core, e.top[0], "tasks", 0755, &user, &id), ==, -EEXIST);
	/* Permission before the newline rule. */
	g_assert_cmpint(cg_mkdir(e.core, g, "a\nb", 0755, &user, &id), ==, -EACCES);
	g_assert_cmpint(cg_rmdir(e.core, e.top[0], "g", &user), ==, -EACCES);
	g_assert_cmpint(cg_rmdir(e.core, e.top[0], "nonexist", &user), ==, -ENOENT);
	g_assert_cmpint(cg_rmdir(e.core, e.top[0], "tasks", &user), ==, -EACCES);
	g_assert_cmpint(cg_rmdir(e.core, e.top[0], "tasks", &root_cred), ==, -ENOTDIR);
	g_assert_cmpint(cg_rename(e.core, e.top[0], "g", e.top[0], "h", &user), ==, -EACCES);
	g_assert_cmpint(cg_unlink(e.core, e.top[0], "tasks", &user), ==, -EACCES);
	g_assert_cmpint(cg_unlink(e.core, e.top[0], "tasks", &root_cred), ==, -EPERM);
	g_assert_cmpint(cg_unlink(e.core, e.top[0], "g", &root_cred), ==, -EISDIR);
	g_assert_cmpint(cg_unlink(e.core, e.top[0], "nonexist", &root_cred), ==, -ENOENT);
	/* Files: 0644 root's: read yes, write no; chmod and chown no. */
	g_assert_cmpint(cg_file_open(e.core, g, file_index(&e, g, "cpu.shares"), O_RDONLY, &user),
			==, 0);
	g_assert_cmpint(wr_as(&e, &user, g, "cpu.shares", "2048"), ==, -EACCES);
	g_assert_cmpint(cg_file_open(e.core, g, file_index(&e, g, "cpu.shares"),
				     O_RDONLY | O_TRUNC, &user), ==, -EACCES);
	g_assert_cmpint(wr_as(&e, &user, g, "tasks", "500"), ==, -EACCES);
	g_assert_cmpint(chmod_as(&e, &user, g, CG_DIR, 0777), ==, -EPERM);
	g_assert_cmpint(chown_as(&e, &user, g, CG_DIR, USER, USER), ==, -EPERM);
	g_assert_cmpint(cg_permission(e.core, g, CG_DIR, MAY_WRITE, &user), ==, -EACCES);
	g_assert_cmpint(cg_permission(e.core, g, CG_DIR, MAY_READ | MAY_EXEC, &user), ==, 0);
	assert_content(&e, g, "cpu.shares", "1024\n");
	g_assert_true(cgroup_child(cgroup_by_id(e.core, e.top[0]), "g") != NULL);
	env_teardown(&e);
}

/* chown -R USER g delegates g: USER makes subgroups, sets their files and
 * moves its own processes there, and nothing else. */
static void test_delegation(void)
{
	struct env e;
	uint64_t g, sub, id, other_g;
	struct cg_iattr a;

	env_setup(&e);
	populate(&e);
	g = mkdir_ok(&e, e.top[0], "g");
	other_g = mkdir_ok(&e, e.top[0], "r");
	chown_group(&e, g, USER, USER);
	g_assert_cmpint(cg_mkdir(e.core, g, "sub", 0755, &user, &sub), ==, 0);
	/* The new group and its files are its maker's (gid too). */
	a = attr_of(&e, sub, CG_DIR);
	g_assert_cmpint(a.uid, ==, USER);
	g_assert_cmpint(a.gid, ==, USER);
	g_assert_true(a.iattrs);
	a = attr_of(&e, sub, file_index(&e, sub, "cpu.shares"));
	g_assert_cmpint(a.uid, ==, USER);
	g_assert_cmpint(a.mode, ==, S_IFREG | 0644);
	g_assert_cmpint(cg_mkdir(e.core, g, "sub2", 0755, &(struct cg_cred){ .uid = USER, .gid = 777 },
				 &id), ==, 0);
	g_assert_cmpint(attr_of(&e, id, file_index(&e, id, "tasks")).gid, ==, 777);

	g_assert_cmpint(wr_as(&e, &user, sub, "cpu.shares", "2048"), ==, 4);
	assert_content(&e, sub, "cpu.shares", "2048\n");
	g_assert_cmpint(wr_as(&e, &user, g, "cpu.shares", "512"), ==, 3);
	g_assert_cmpint(wr_as(&e, &user, e.top[0], "cpu.shares", "512"), ==, -EACCES);

	/* Its own process, in and back within g; not into a group of root's. */
	g_assert_cmpint(wr_as(&e, &user, sub, "cgroup.procs", "500"), ==, 3);
	g_assert_true(in_tasks(&e, sub, P_USER) && in_tasks(&e, sub, P_USER + 1));
	g_assert_cmpint(wr_as(&e, &user, g, "tasks", "501"), ==, 3);
	g_assert_true(in_tasks(&e, g, P_USER + 1));
	g_assert_cmpint(wr_as(&e, &user, other_g, "tasks", "500"), ==, -EACCES);
	g_assert_cmpint(wr_as(&e, &user, e.top[0], "tasks", "500"), ==, -EACCES);
	g_assert_true(in_tasks(&e, sub, P_USER));
	/* "0" is the writer itself (cred->pid). */
	g_assert_cmpint(wr_as(&e, &user, g, "tasks", "0"), ==, 1);
	g_assert_true(in_tasks(&e, g, P_USER));

	/* Others' processes stay put. */
	g_assert_cmpint(wr_as(&e, &user, sub, "tasks", "600"), ==, -EACCES);
	g_assert_cmpint(wr_as(&e, &user, sub, "tasks", "700"), ==, -EACCES);
	g_assert_false(in_tasks(&e, sub, P_ROOT) || in_tasks(&e, sub, P_OTHER));

	/* chmod of its own; the group's removal needs the parent (root's). */
	g_assert_cmpint(chmod_as(&e, &user, sub, CG_DIR, 0700), ==, 0);
	g_assert_cmpint(attr_of(&e, sub, CG_DIR).mode, ==, S_IFDIR | 0700);
	g_assert_cmpint(cg_mkdir(e.core, sub, "deep", 0755, &other, &id), ==, -EACCES);
	g_assert_cmpint(cg_rename(e.core, g, "sub2", g, "sub3", &user), ==, 0);
	g_assert_cmpint(cg_rmdir(e.core, g, "sub3", &user), ==, 0);
	g_assert_cmpint(cg_rmdir(e.core, e.top[0], "g", &user), ==, -EACCES);
	env_teardown(&e);
}

/* __cgroup1_procs_write(): root, or the target's real or saved uid; tasks
 * checks the thread, cgroup.procs the process's leader, once. */
static void test_move_owner_rules(void)
{
	struct env e;
	uint64_t g, g2;

	env_setup(&e);
	populate(&e);
	g = mkdir_ok(&e, e.top[0], "g");
	g2 = mkdir_ok(&e, e.top[0], "g2");
	chown_group(&e, g, USER, USER);
	chown_group(&e, g2, USER, USER);
	g_assert_cmpint(wr_as(&e, &user, g, "tasks", "900"), ==, 3);		/* saved uid */
	g_assert_cmpint(wr_as(&e, &user, g, "tasks", "950"), ==, -EACCES);	/* euid only */
	g_assert_true(in_tasks(&e, g, P_SUID));
	g_assert_false(in_tasks(&e, g, P_EUID));
	/* Root's leader, USER's thread. */
	g_assert_cmpint(wr_as(&e, &user, g, "tasks", "801"), ==, 3);
	g_assert_cmpint(wr_as(&e, &user, g, "cgroup.procs", "801"), ==, -EACCES);
	g_assert_cmpint(wr_as(&e, &user, g, "tasks", "800"), ==, -EACCES);
	g_assert_false(in_tasks(&e, g, P_MIXED));
	/* The other way round: USER's leader moves its root thread with it. */
	set_uids(&e, P_MIXED, USER, USER, USER);
	set_uids(&e, P_MIXED + 1, 0, 0, 0);
	g_assert_cmpint(wr_as(&e, &user, g2, "tasks", "801"), ==, -EACCES);
	g_assert_cmpint(wr_as(&e, &user, g, "cgroup.procs", "801"), ==, 3);
	g_assert_true(in_tasks(&e, g, P_MIXED) && in_tasks(&e, g, P_MIXED + 1));
	/* The other errors come first, as on the kernel. */
	g_assert_cmpint(wr_as(&e, &user, g, "tasks", "31999"), ==, -ESRCH);
	g_assert_cmpint(wr_as(&e, &user, g, "tasks", "2"), ==, -EINVAL);
	g_assert_cmpint(wr_as(&e, &user, g, "tasks", "abc"), ==, -EINVAL);
	/* Root moves anyone's. */
	g_assert_cmpint(wr_as(&e, &root_cred, g, "tasks", "700"), ==, 3);
	g_assert_true(in_tasks(&e, g, P_OTHER));
	env_teardown(&e);
}

/* A failed move changes nothing: no task is left tracked for it. */
static void test_refused_move_tracks_nothing(void)
{
	struct env e;
	uint64_t g;
	unsigned tasks, opens;

	env_setup(&e);
	populate(&e);
	g = mkdir_ok(&e, e.top[0], "g");
	chown_group(&e, g, USER, USER);
	tasks = nr_tasks(&e);
	opens = fake_kf_open_count(e.fk);
	g_assert_cmpint(wr_as(&e, &user, g, "cgroup.procs", "600"), ==, -EACCES);
	g_assert_cmpint(wr_as(&e, &user, g, "cgroup.procs", "800"), ==, -EACCES);
	g_assert_cmpint(nr_tasks(&e), ==, tasks);
	g_assert_cmpint(fake_kf_open_count(e.fk), ==, opens);
	env_teardown(&e);
}

/* The writer's right comes before the watch source's hold: a task the
 * writer may not move is never held, so never traced (-o tracking=ptrace
 * seizes a held thread), not even for a moment. */
static void test_refused_move_holds_nothing(void)
{
	static const char *const files[] = { "tasks", "cgroup.procs" };
	static const char *const refused[] = { "600", "700", "800", "950" };
	struct env e;
	uint64_t g;
	unsigned holds;

	env_setup(&e);
	populate(&e);
	g = mkdir_ok(&e, e.top[0], "g");
	chown_group(&e, g, USER, USER);
	holds = fake_kf_calls(e.fk).holds;
	for (unsigned f = 0; f < G_N_ELEMENTS(files); f++)
		for (unsigned i = 0; i < G_N_ELEMENTS(refused); i++) {
			EXPECT_INT(wr_as(&e, &user, g, files[f], refused[i]), -EACCES, "%s %s",
				   files[f], refused[i]);
			EXPECT_INT(fake_kf_calls(e.fk).holds, holds, "holds after %s %s",
				   files[f], refused[i]);
		}
	/* One it may move is held, each of its threads once. */
	holds = fake_kf_calls(e.fk).holds;
	g_assert_cmpint(wr_as(&e, &user, g, "cgroup.procs", "500"), ==, 3);
	g_assert_cmpint(fake_kf_calls(e.fk).holds, ==, holds + 2);
	env_teardown(&e);
}

/* The agent runs with the daemon's rights: only root sets it, whoever owns
 * the file (the kernel: CAP_SYS_ADMIN). */
static void test_release_agent_root_only(void)
{
	struct env e;
	unsigned ra;

	env_setup(&e);
	ra = file_index(&e, e.top[0], "release_agent");
	g_assert_cmpint(chown_as(&e, &root_cred, e.top[0], ra, USER, USER), ==, 0);
	g_assert_cmpint(wr_as(&e, &user, e.top[0], "release_agent", "/bin/x"), ==, -EPERM);
	assert_content(&e, e.top[0], "release_agent", "\n");
	g_assert_cmpint(wr_as(&e, &root_cred, e.top[0], "release_agent", "/bin/x"), ==, 6);
	assert_content(&e, e.top[0], "release_agent", "/bin/x\n");
	env_teardown(&e);
}

/* A daemon run by a user: the hierarchy is theirs, and they may set the
 * agent (it runs as them). */
static void test_root_owned_by_daemon_user(void)
{
	struct env e;
	uint64_t id;
	struct cg_iattr a;

	env_setup(&e);
	cg_root_set_owner(e.root[0], USER, USER);
	a = attr_of(&e, e.top[0], CG_DIR);
	g_assert_cmpint(a.uid, ==, USER);
	g_assert_cmpint(a.mode, ==, S_IFDIR | 0755);
	g_assert_cmpint(attr_of(&e, e.top[0], file_index(&e, e.top[0], "tasks")).uid, ==, USER);
	g_assert_cmpint(cg_mkdir(e.core, e.top[0], "g", 0755, &user, &id), ==, 0);
	g_assert_cmpint(wr_as(&e, &user, e.top[0], "release_agent", "/bin/x"), ==, 6);
	g_assert_cmpint(wr_as(&e, &other, e.top[0], "release_agent", "/bin/y"), ==, -EACCES);
	env_teardown(&e);
}

/* Root opens even a 0444 file for writing (the write is then EINVAL). */
static void test_open_modes(void)
{
	struct env e;
	uint64_t g;
	unsigned stat;

	env_setup(&e);
	g = mkdir_ok(&e, e.top[0], "g");
	stat = file_index(&e, g, "cpu.stat");
	g_assert_cmpint(cg_file_open(e.core, g, stat, O_WRONLY, &root_cred), ==, 0);
	g_assert_cmpint(wr_as(&e, &root_cred, g, "cpu.stat", "1"), ==, -EINVAL);
	chown_group(&e, g, USER, USER);
	g_assert_cmpint(cg_file_open(e.core, g, stat, O_WRONLY, &user), ==, -EACCES);
	g_assert_cmpint(cg_file_open(e.core, g, stat, O_RDWR, &user), ==, -EACCES);
	g_assert_cmpint(cg_file_open(e.core, g, stat, O_RDONLY, &user), ==, 0);
	/* Write-only for its owner: reading is refused. */
	g_assert_cmpint(chmod_as(&e, &user, g, file_index(&e, g, "cpu.shares"), 0200), ==, 0);
	g_assert_cmpint(cg_file_open(e.core, g, file_index(&e, g, "cpu.shares"), O_RDONLY, &user),
			==, -EACCES);
	g_assert_cmpint(wr_as(&e, &user, g, "cpu.shares", "300"), ==, 3);
	/* A group without the file, a group that is gone. */
	g_assert_cmpint(cg_file_open(e.core, g, file_index(&e, e.top[0], "release_agent"), O_RDONLY,
				     &root_cred), ==, -ENOENT);
	g_assert_cmpint(cg_rmdir(e.core, e.top[0], "g", &root_cred), ==, 0);
	g_assert_cmpint(cg_file_open(e.core, g, stat, O_RDONLY, &root_cred), ==, -ENODEV);
	env_teardown(&e);
}

/* Sets a node's mtime and ctime to 1 (1970), so that a change shows
 * whatever the clock does. */
static void age(struct env *e, uint64_t id, unsigned file)
{
	struct cg_iattr a = attr_of(e, id, file);

	a.mtime_ns = a.ctime_ns = 1;
	g_assert_cmpint(cg_set_iattr(e->core, id, file, &a), ==, 0);
}

/* Times: O_TRUNC dates a file, a write does not; a directory's times
 * follow mkdir and rmdir in it only once its attributes were changed. */
static void test_times(void)
{
	struct env e;
	uint64_t g, id;
	unsigned shares, tasks;
	struct cg_iattr a;

	env_setup(&e);
	g = mkdir_ok(&e, e.top[0], "g");
	shares = file_index(&e, g, "cpu.shares");
	tasks = file_index(&e, g, "tasks");
	age(&e, g, shares);
	age(&e, g, tasks);
	g_assert_cmpint(wr_as(&e, &root_cred, g, "cpu.shares", "300"), ==, 3);
	g_assert_cmpint(attr_of(&e, g, shares).mtime_ns, ==, 1);
	g_assert_cmpint(attr_of(&e, g, shares).ctime_ns, ==, 1);
	g_assert_cmpint(cg_file_open(e.core, g, shares, O_WRONLY | O_TRUNC, &root_cred), ==, 0);
	a = attr_of(&e, g, shares);
	g_assert_cmpint(a.mtime_ns, >, 1);
	g_assert_cmpint(a.ctime_ns, ==, a.mtime_ns);
	g_assert_cmpint(attr_of(&e, g, tasks).mtime_ns, ==, 1);	/* only that file */

	/* A directory never changed: kernfs has no times to update. */
	age(&e, g, CG_DIR);
	a = attr_of(&e, g, CG_DIR);
	a.iattrs = false;
	g_assert_cmpint(cg_set_iattr(e.core, g, CG_DIR, &a), ==, 0);
	mkdir_ok(&e, g, "a");
	g_assert_cmpint(attr_of(&e, g, CG_DIR).mtime_ns, ==, 1);
	/* Once changed, it follows mkdir and rmdir, not rename. */
	a.iattrs = true;
	g_assert_cmpint(cg_set_iattr(e.core, g, CG_DIR, &a), ==, 0);
	g_assert_cmpint(cg_mkdir(e.core, g, "b", 0755, &root_cred, &id), ==, 0);
	g_assert_cmpint(attr_of(&e, g, CG_DIR).mtime_ns, >, 1);
	age(&e, g, CG_DIR);
	g_assert_cmpint(cg_rename(e.core, g, "b", g, "c", &root_cred), ==, 0);
	g_assert_cmpint(attr_of(&e, g, CG_DIR).mtime_ns, ==, 1);
	g_assert_cmpint(cg_rmdir(e.core, g, "c", &root_cred), ==, 0);
	g_assert_cmpint(attr_of(&e, g, CG_DIR).mtime_ns, >, 1);
	g_assert_cmpint(attr_of(&e, g, CG_DIR).ctime_ns, >, 1);
	env_teardown(&e);
}

/* What a saved state gives back comes back as it was. */
static void test_set_get_iattr(void)
{
	struct env e;
	uint64_t g;
	unsigned tasks;
	struct cg_iattr want = { .uid = USER, .gid = 50, .mode = 0640, .iattrs = true,
				 .atime_ns = 11, .mtime_ns = 22, .ctime_ns = 33 };
	struct cg_iattr got;

	env_setup(&e);
	g = mkdir_ok(&e, e.top[0], "g");
	tasks = file_index(&e, g, "tasks");
	g_assert_cmpint(cg_set_iattr(e.core, g, tasks, &want), ==, 0);
	got = attr_of(&e, g, tasks);
	want.mode |= S_IFREG;	/* the node's type is kept */
	/* Field by field: the struct's padding is not part of the value. */
	g_assert_cmpuint(got.uid, ==, want.uid);
	g_assert_cmpuint(got.gid, ==, want.gid);
	g_assert_cmpuint(got.mode, ==, want.mode);
	g_assert_true(got.iattrs == want.iattrs);
	g_assert_cmpint(got.atime_ns, ==, want.atime_ns);
	g_assert_cmpint(got.mtime_ns, ==, want.mtime_ns);
	g_assert_cmpint(got.ctime_ns, ==, want.ctime_ns);
	want.mode = S_IFREG | 0700;
	g_assert_cmpint(cg_set_iattr(e.core, g, CG_DIR, &want), ==, 0);
	g_assert_cmpint(attr_of(&e, g, CG_DIR).mode, ==, S_IFDIR | 0700);
	g_assert_cmpint(cg_set_iattr(e.core, 999999, CG_DIR, &want), ==, -ENOENT);
	env_teardown(&e);
}

/* The sticky bit: in a shared 01777 group, users remove only their own. */
static void test_sticky_group(void)
{
	struct env e;
	uint64_t shared, id;

	env_setup(&e);
	shared = mkdir_ok(&e, e.top[0], "shared");
	g_assert_cmpint(chmod_as(&e, &root_cred, shared, CG_DIR, 01777), ==, 0);
	g_assert_cmpint(cg_mkdir(e.core, shared, "mine", 0755, &user, &id), ==, 0);
	g_assert_cmpint(cg_rmdir(e.core, shared, "mine", &other), ==, -EPERM);
	g_assert_cmpint(cg_rename(e.core, shared, "mine", shared, "theirs", &other), ==, -EPERM);
	g_assert_cmpint(cg_rmdir(e.core, shared, "mine", &user), ==, 0);
	env_teardown(&e);
}

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	/* A failed check fails its case; the next cases still run. */
	g_test_set_nonfatal_assertions();
	g_test_add_func("/iattr/generic-permission", test_generic_permission);
	g_test_add_func("/iattr/may-delete-sticky", test_may_delete_sticky);
	g_test_add_func("/iattr/setattr-rules", test_setattr_rules);
	g_test_add_func("/iattr/setattr-dir-keeps-setid", test_setattr_dir_keeps_setid);
	g_test_add_func("/iattr/groups-asked-only-when-they-decide",
			test_groups_asked_only_when_they_decide);
	g_test_add_func("/iattr/setattr-groups-unknown", test_setattr_groups_unknown);
	g_test_add_func("/perms/core-asks-for-groups", test_core_asks_for_groups);
	g_test_add_func("/iattr/setattr-times", test_setattr_times);
	g_test_add_func("/perms/defaults", test_defaults);
	g_test_add_func("/perms/mkdir-mode", test_mkdir_mode);
	g_test_add_func("/perms/user-in-roots-tree", test_user_in_roots_tree);
	g_test_add_func("/perms/delegation", test_delegation);
	g_test_add_func("/perms/move-owner-rules", test_move_owner_rules);
	g_test_add_func("/perms/refused-move-tracks-nothing", test_refused_move_tracks_nothing);
	g_test_add_func("/perms/refused-move-holds-nothing", test_refused_move_holds_nothing);
	g_test_add_func("/perms/release-agent-root-only", test_release_agent_root_only);
	g_test_add_func("/perms/root-owned-by-daemon-user", test_root_owned_by_daemon_user);
	g_test_add_func("/perms/open-modes", test_open_modes);
	g_test_add_func("/perms/times", test_times);
	g_test_add_func("/perms/set-get-iattr", test_set_get_iattr);
	g_test_add_func("/perms/sticky-group", test_sticky_group);
	return g_test_run();
}
