/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The mount point: `cgfused /sys/fs/mycg` must work where it can and say
 * why not where it cannot (/sys/fs is sysfs: mkdir there gives EPERM). */
#include "fs/mountpoint.h"

#include <errno.h>
#include <glib.h>
#include <linux/magic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "fs/mountinfo.h"

static bool fs_is(const char *path, long magic)
{
	struct statfs sf;

	return statfs(path, &sf) == 0 && sf.f_type == magic;
}

/* The deepest ancestor of path that exists. */
static char *existing_ancestor(const char *path)
{
	char *dir = g_path_get_dirname(path);

	while (!g_file_test(dir, G_FILE_TEST_EXISTS) && strcmp(dir, "/") != 0) {
		char *up = g_path_get_dirname(dir);

		g_free(dir);
		dir = up;
	}
	return dir;
}

static void explain_mkdir_failure(const char *path, int err)
{
	char *base = g_path_get_basename(path);
	char *anc = existing_ancestor(path);
	GString *where = g_string_new(NULL);

	if (fs_is("/sys/fs/cgroup", TMPFS_MAGIC))
		g_string_append_printf(where, "/sys/fs/cgroup/%s (a tmpfs here) or ", base);
	g_string_append_printf(where, "/run/cgfused/%s", base);
	if (fs_is(anc, SYSFS_MAGIC))
		fprintf(stderr, "cgfused: cannot create mount point %s: %s is sysfs, where no "
			"directory can be made (%s); use %s\n", path, anc, strerror(err), where->str);
	else
		fprintf(stderr, "cgfused: cannot create mount point %s in %s: %s; use an existing "
			"directory, or %s\n", path, anc, strerror(err), where->str);
	g_string_free(where, TRUE);
	g_free(anc);
	g_free(base);
}

/* A mount whose daemon died answers ENOTCONN, but only when asked: a
 * plain stat() may be answered from the attribute cache. */
static bool mount_is_dead(const char *path)
{
	struct statx stx;

	return statx(AT_FDCWD, path, AT_STATX_FORCE_SYNC, STATX_TYPE, &stx) < 0 &&
	       errno == ENOTCONN;
}

/* Detaches a dead mount: root directly, anyone else through the setuid
 * fusermount3 (which checks that the mount is theirs). */
static int mount_detach(const char *path)
{
	char *argv[] = { "fusermount3", "-uz", (char *)path, NULL };
	GError *err = NULL;
	int status = 0;

	if (geteuid() == 0)
		return umount2(path, MNT_DETACH);
	if (!g_spawn_sync(NULL, argv, NULL, G_SPAWN_SEARCH_PATH | G_SPAWN_STDOUT_TO_DEV_NULL,
			  NULL, NULL, NULL, NULL, &status, &err)) {
		fprintf(stderr, "cgfused: cannot run fusermount3: %s\n", err->message);
		g_error_free(err);
		return -1;
	}
	return g_spawn_check_wait_status(status, NULL) ? 0 : -1;
}

static bool is_fuse(const char *fstype)
{
	return strcmp(fstype, "fuse") == 0 || strcmp(fstype, "fuseblk") == 0 ||
	       g_str_has_prefix(fstype, "fuse.");
}

/* A FUSE file system mounted on path itself and answering (a dead one is
 * detached before): a second mount would hide it, daemon and all. */
static bool mount_is_live_fuse(const char *path, char **fstype)
{
	char *real = realpath(path, NULL), *mp = NULL;
	bool live;

	*fstype = real ? mountinfo_fstype_of(real, &mp) : NULL;
	live = *fstype && strcmp(mp, real) == 0 && is_fuse(*fstype);
	free(real);
	g_free(mp);
	return live;
}

/* A mount point on a cgroup file system hides a kernel cgroup; making one
 * there makes a kernel cgroup. dir: the mount point, or the directory it
 * would be made in. */
static bool on_cgroupfs(const char *path, const char *dir)
{
	char *base;

	if (!fs_is(dir, CGROUP_SUPER_MAGIC) && !fs_is(dir, CGROUP2_SUPER_MAGIC))
		return false;
	base = g_path_get_basename(path);
	fprintf(stderr, "cgfused: mount point %s is on the kernel's cgroup file system (%s), "
		"where a directory is a kernel cgroup; use a directory elsewhere, such as "
		"/run/cgfused/%s\n", path, dir, base);
	g_free(base);
	return true;
}

int mountpoint_prepare(const char *path, bool *created)
{
	struct stat st;

	*created = false;
	if (mount_is_dead(path)) {
		if (mount_detach(path) < 0 || mount_is_dead(path)) {
			fprintf(stderr, "cgfused: %s is the mount of a FUSE daemon that is gone, "
				"and it cannot be unmounted; try: fusermount3 -uz %s\n", path, path);
			return -1;
		}
		fprintf(stderr, "cgfused: %s was left mounted by a daemon that is gone; "
			"unmounted it\n", path);
	}
	if (stat(path, &st) == 0) {
		char *fstype = NULL;

		if (on_cgroupfs(path, path))
			return -1;
		bool live = S_ISDIR(st.st_mode) && mount_is_live_fuse(path, &fstype);

		if (live)
			fprintf(stderr, "cgfused: %s is already mounted (%s, by a daemon that is "
				"running): unmount it first (fusermount3 -u %s)\n", path, fstype,
				path);
		g_free(fstype);
		if (S_ISDIR(st.st_mode))
			return live ? -1 : 0;
		fprintf(stderr, "cgfused: mount point %s is not a directory\n", path);
		return -1;
	}
	if (errno != ENOENT) {
		fprintf(stderr, "cgfused: mount point %s: %s\n", path, strerror(errno));
		return -1;
	}
	{
		char *anc = existing_ancestor(path);
		bool cgroupfs = on_cgroupfs(path, anc);

		g_free(anc);
		if (cgroupfs)
			return -1;
	}
	if (g_mkdir_with_parents(path, 0755) < 0) {
		explain_mkdir_failure(path, errno);
		return -1;
	}
	*created = true;
	return 0;
}

int mountpoint_check_state(const char *mountpoint, const char *file)
{
	char *dir = existing_ancestor(file);
	char *real_dir = realpath(dir, NULL), *real_mnt = realpath(mountpoint, NULL);
	char *fstype = NULL, *mp = NULL;
	size_t len = real_mnt ? strlen(real_mnt) : 0;
	int ret = 0;

	if (real_dir && real_mnt && strncmp(real_dir, real_mnt, len) == 0 &&
	    (real_dir[len] == '\0' || real_dir[len] == '/' || len == 1)) {
		fprintf(stderr, "cgfused: state file %s is inside the mount point %s, where the "
			"daemon would wait on itself: choose one outside with -o state=FILE\n",
			file, mountpoint);
		ret = -1;
	} else if (real_dir && (fstype = mountinfo_fstype_of(real_dir, &mp)) &&
		   strcmp(fstype, "fuse.cgfused") == 0) {
		fprintf(stderr, "cgfused: state file %s is in the cgfused mount %s, which holds "
			"no files: choose another with -o state=FILE\n", file, mp);
		ret = -1;
	}
	g_free(fstype);
	g_free(mp);
	free(real_mnt);
	free(real_dir);
	g_free(dir);
	return ret;
}

/* fusermount3's own file and rule: a user other than root may mount with
 * allow_other only if a line of it is user_allow_other. */
#define FUSE_CONF "/etc/fuse.conf"

static bool fuse_conf_allows_other(void)
{
	char *data = NULL, **lines;
	bool allowed = false;

	if (!g_file_get_contents(FUSE_CONF, &data, NULL, NULL))
		return false;
	lines = g_strsplit(data, "\n", -1);
	for (char **l = lines; *l && !allowed; l++)
		allowed = strcmp(g_strstrip(*l), "user_allow_other") == 0;
	g_strfreev(lines);
	g_free(data);
	return allowed;
}

int mountpoint_check_allow_other(void)
{
	if (getuid() == 0 || fuse_conf_allows_other())
		return 0;
	fprintf(stderr, "cgfused: -o allow_other: " FUSE_CONF " has no user_allow_other line, "
		"without which fusermount3 gives it to root alone; mount without it (the "
		"hierarchy is then this user's alone), or have the administrator add that "
		"line\n");
	return -1;
}
