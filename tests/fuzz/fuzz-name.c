/* SPDX-License-Identifier: GPL-2.0-or-later */
/* libFuzzer target: group names through cg_mkdir(), cg_rename() and
 * cg_rmdir(), the way FUSE hands them over (NUL-terminated; the VFS never
 * passes "", ".", ".." or a '/').
 *
 * Input: NAME [\0 NEWNAME]. Properties, in a group "p" that holds a group
 * "x" and the usual control files:
 * - mkdir NAME succeeds exactly when the kernel's would: at most 4095
 *   bytes, no newline, not "x" nor a control file's name; else
 *   ENAMETOOLONG, EEXIST or EINVAL, in the kernel's order, and nothing is
 *   made;
 * - a made group is found by its name, with NAME as the last part of its
 *   path; renaming it to NEWNAME follows the same rules and leaves it under
 *   exactly one of the two names;
 * - after rmdir, p holds "x" alone again. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/cgroup.h"
#include "core/internal.h"
#include "test-env.h"

#define CHECK(cond) do { if (!(cond)) __builtin_trap(); } while (0)

static struct env e;
static uint64_t parent;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	env_setup(&e);
	parent = mkdir_ok(&e, e.top[0], "p");
	mkdir_ok(&e, parent, "x");
	return 0;
}

/* What the VFS itself would answer, or 1 when it passes the name on. */
static int vfs_name(const char *name)
{
	if (!*name || strchr(name, '/'))
		return -EINVAL;	/* not a single path component: never sent */
	if (!strcmp(name, ".") || !strcmp(name, ".."))
		return -EEXIST;
	return 1;
}

static bool is_file(const char *name)
{
	bool ret;

	cg_write_lock(&e.core->lock);
	ret = cgroup_file_by_name(cgroup_by_id(e.core, parent), name, NULL) != NULL;
	cg_write_unlock(&e.core->lock);
	return ret;
}

/* The kernel's answer to making name in p (which holds "x"). */
static int expected_mkdir(const char *name)
{
	if (strlen(name) > CG_NAME_MAX)
		return -ENAMETOOLONG;
	if (!strcmp(name, "x") || is_file(name))
		return -EEXIST;
	if (strchr(name, '\n'))
		return -EINVAL;
	return 0;
}

/* Its answer to renaming a group of p to name: the VFS refuses to put a
 * directory over a file; kernfs refuses an existing name. */
static int expected_rename(const char *name)
{
	if (strlen(name) > CG_NAME_MAX)
		return -ENAMETOOLONG;
	if (strchr(name, '\n'))
		return -EINVAL;
	if (is_file(name))
		return -ENOTDIR;
	if (!strcmp(name, "x"))
		return -EEXIST;
	return 0;
}

static unsigned nr_children(void)
{
	unsigned n;

	cg_write_lock(&e.core->lock);
	n = g_hash_table_size(cgroup_by_id(e.core, parent)->children);
	cg_write_unlock(&e.core->lock);
	return n;
}

static bool exists(const char *name, uint64_t id)
{
	struct cgroup *c;
	bool ok;

	cg_write_lock(&e.core->lock);
	c = cgroup_child(cgroup_by_id(e.core, parent), name);
	ok = c && c->id == id && !strcmp(c->name, name);
	if (ok) {
		char *path = cgroup_path(c);
		size_t plen = strlen(path), nlen = strlen(name);

		CHECK(plen > nlen && !strcmp(path + plen - nlen, name) && path[plen - nlen - 1] == '/');
		g_free(path);
	}
	cg_write_unlock(&e.core->lock);
	return ok;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf = malloc(size + 2);
	const char *name = buf, *newname;
	uint64_t id = 0;
	int ret, want;

	memcpy(buf, data, size);
	buf[size] = buf[size + 1] = '\0';
	newname = buf + strlen(buf) + 1;
	if (vfs_name(name) <= 0)
		goto out;
	want = expected_mkdir(name);
	ret = cg_mkdir(e.core, parent, name, 0755, &root_cred, &id);
	CHECK(ret == want);
	if (ret < 0) {
		CHECK(nr_children() == 1);
		goto out;
	}
	CHECK(exists(name, id) && nr_children() == 2);
	if (newname < buf + size + 1 && vfs_name(newname) > 0 && strcmp(newname, name)) {
		want = expected_rename(newname);
		ret = cg_rename(e.core, parent, name, parent, newname, &root_cred);
		CHECK(ret == want);
		if (ret == 0) {
			CHECK(exists(newname, id) && !exists(name, id));
			name = newname;
		} else {
			CHECK(exists(name, id));
		}
		CHECK(nr_children() == 2);
	}
	CHECK(cg_rmdir(e.core, parent, name, &root_cred) == 0);
	CHECK(nr_children() == 1 && !exists(name, id));
out:
	free(buf);
	return 0;
}
