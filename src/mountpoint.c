/* The mount point: `cgfused /sys/fs/mycg` must work where it can and say
 * why not where it cannot (/sys/fs is sysfs: mkdir there gives EPERM). */
#include "mountpoint.h"

#include <errno.h>
#include <glib.h>
#include <linux/magic.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>

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

int mountpoint_prepare(const char *path, bool *created)
{
	struct stat st;

	*created = false;
	if (stat(path, &st) == 0) {
		if (S_ISDIR(st.st_mode))
			return 0;
		fprintf(stderr, "cgfused: mount point %s is not a directory\n", path);
		return -1;
	}
	if (errno == ENOTCONN) {
		fprintf(stderr, "cgfused: %s is the mount of a FUSE daemon that is gone (%s); "
			"unmount it with: fusermount3 -uz %s\n", path, strerror(errno), path);
		return -1;
	}
	if (errno != ENOENT) {
		fprintf(stderr, "cgfused: mount point %s: %s\n", path, strerror(errno));
		return -1;
	}
	if (g_mkdir_with_parents(path, 0755) < 0) {
		explain_mkdir_failure(path, errno);
		return -1;
	}
	*created = true;
	return 0;
}
