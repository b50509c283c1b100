/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The tree as the filesystem and replay see it (core/cgroup_lookup.h):
 * lookups by id, name and path, listings, and what is left of a removed
 * group. */
#include <errno.h>
#include <string.h>

#include <glib.h>

#include "core/cgroup.h"
#include "core/cgroup_lookup.h"
#include "core/internal.h"
#include "test-env.h"

static void test_hierarchies(void)
{
	struct env e;
	const char *name;
	uint64_t top;
	unsigned index;

	env_setup_full(&e, true, true);
	g_assert_cmpuint(cg_nr_hierarchies(e.core), ==, 2);
	g_assert_cmpint(cg_hierarchy(e.core, 1, &name, &top), ==, 0);
	g_assert_cmpstr(name, ==, "cpuset");
	g_assert_cmpuint(top, ==, e.top[1]);
	g_assert_cmpint(cg_hierarchy(e.core, 2, &name, &top), ==, -ENOENT);
	g_assert_cmpint(cg_hierarchy_by_name(e.core, "cpu,cpuacct", &index), ==, 0);
	g_assert_cmpuint(index, ==, 0);
	g_assert_cmpint(cg_hierarchy_by_name(e.core, "cpu", &index), ==, -ENOENT);
	/* By the controllers it binds: all of them in one hierarchy. */
	g_assert_cmpint(cg_hierarchy_binding(e.core, "cpu", &index), ==, 0);
	g_assert_cmpuint(index, ==, 0);
	g_assert_cmpint(cg_hierarchy_binding(e.core, "cpuset", &index), ==, 0);
	g_assert_cmpuint(index, ==, 1);
	g_assert_cmpint(cg_hierarchy_binding(e.core, "cpuset,cpu", &index), ==, -ENOENT);
	g_assert_cmpint(cg_hierarchy_binding(e.core, "memory", &index), ==, -ENOENT);
	g_assert_cmpint(cg_hierarchy_binding(e.core, "", &index), ==, -ENOENT);
	env_teardown(&e);
}

static void test_node(void)
{
	struct env e;
	struct cg_node n;
	uint64_t a, b;
	unsigned shares;

	env_setup(&e);
	a = mkdir_ok(&e, e.top[0], "a");
	b = mkdir_ok(&e, a, "b");
	shares = file_index(&e, a, "cpu.shares");
	g_assert_cmpint(cg_node_get(e.core, e.top[0], CG_DIR, &n), ==, 0);
	g_assert_true(n.ref.root);
	g_assert_cmpuint(n.nlink, ==, 3);
	g_assert_cmpint(cg_node_get(e.core, a, shares, &n), ==, 0);
	g_assert_false(n.ref.root);
	g_assert_cmpuint(n.nlink, ==, 1);
	g_assert_cmpuint(n.attr.mode, ==, S_IFREG | 0644);
	/* release_agent is only the root's. */
	g_assert_cmpint(cg_node_get(e.core, a, file_index(&e, e.top[0], "release_agent"), &n),
			==, -ENOENT);
	g_assert_cmpint(cg_node_lookup(e.core, a, "b", &n), ==, 0);
	g_assert_cmpuint(n.ref.id, ==, b);
	g_assert_cmpuint(n.ref.file, ==, CG_DIR);
	g_assert_cmpint(cg_node_lookup(e.core, a, "cpu.shares", &n), ==, 0);
	g_assert_cmpuint(n.ref.id, ==, a);
	g_assert_cmpuint(n.ref.file, ==, shares);
	g_assert_cmpint(cg_node_lookup(e.core, a, "none", &n), ==, -ENOENT);
	g_assert_cmpint(cg_rmdir(e.core, a, "b", &root_cred), ==, 0);
	g_assert_cmpint(cg_node_lookup(e.core, b, "cpu.shares", &n), ==, -ENODEV);
	g_assert_cmpint(cg_node_get(e.core, b, CG_DIR, &n), ==, -ENOENT);
	env_teardown(&e);
}

/* A removed group's directory and files are still known by their type. */
static void test_gone(void)
{
	struct env e;
	uint64_t a;
	unsigned mode = 1, nr_files;

	env_setup(&e);
	a = mkdir_ok(&e, e.top[0], "a");
	nr_files = e.root[0]->files->len;
	g_assert_cmpint(cg_rmdir(e.core, e.top[0], "a", &root_cred), ==, 0);
	g_assert_cmpint(cg_node_gone_mode(e.core, a, CG_DIR, &mode), ==, 0);
	g_assert_cmpuint(mode, ==, 0);
	g_assert_cmpint(cg_node_gone_mode(e.core, a, file_index(&e, e.top[0], "cgroup.sane_behavior"),
					  &mode), ==, 0);
	g_assert_cmpuint(mode, ==, 0444);
	g_assert_cmpint(cg_node_gone_mode(e.core, a, nr_files, &mode), ==, -ENOENT);
	g_assert_cmpint(cg_node_gone_mode(e.core, a + (1000 << CG_ID_ROOT_BITS), CG_DIR, &mode),
			==, -ENOENT);	/* never given out */
	env_teardown(&e);
}

static void collect(void *data, const char *name, const struct cg_ref *ref)
{
	g_string_append_printf(data, "%s:%s%s ", name, ref->file == CG_DIR ? "d" : "f",
			       ref->root ? "r" : "");
}

/* "..", the files the group has in order, then its groups. */
static void test_readdir(void)
{
	struct env e;
	g_autoptr(GString) top = g_string_new(NULL), a_list = g_string_new(NULL);
	uint64_t a;

	env_setup(&e);
	a = mkdir_ok(&e, e.top[0], "a");
	mkdir_ok(&e, a, "b");
	g_assert_cmpint(cg_readdir(e.core, e.top[0], collect, top), ==, 0);
	g_assert_true(g_str_has_prefix(top->str, "..:dr cgroup.procs:fr cgroup.clone_children:fr "
				       "cgroup.sane_behavior:fr tasks:fr "));
	g_assert_true(g_str_has_suffix(top->str, ":fr a:d "));
	g_assert_cmpint(cg_readdir(e.core, a, collect, a_list), ==, 0);
	g_assert_true(g_str_has_prefix(a_list->str, "..:dr cgroup.procs:f cgroup.clone_children:f "
				       "tasks:f "));
	g_assert_true(g_str_has_suffix(a_list->str, ":f b:d "));
	g_assert_null(strstr(a_list->str, "release_agent"));
	g_assert_cmpint(cg_readdir(e.core, a + (1000 << CG_ID_ROOT_BITS), collect, a_list), ==,
			-ENOENT);
	env_teardown(&e);
}

static void test_path(void)
{
	struct env e;
	uint64_t a, b, id = 0;
	unsigned file = 0;

	env_setup_full(&e, true, true);
	a = mkdir_ok(&e, e.top[1], "a");
	b = mkdir_ok(&e, a, "b");
	g_assert_cmpint(cg_path_lookup(e.core, 1, "/a/b", NULL, &id, NULL), ==, 0);
	g_assert_cmpuint(id, ==, b);
	g_assert_cmpint(cg_path_lookup(e.core, 1, "/", "", &id, &file), ==, 0);
	g_assert_cmpuint(id, ==, e.top[1]);
	g_assert_cmpuint(file, ==, CG_DIR);
	g_assert_cmpint(cg_path_lookup(e.core, 1, "/a", "cpuset.cpus", &id, &file), ==, 0);
	g_assert_cmpuint(id, ==, a);
	g_assert_cmpuint(file, ==, file_index(&e, a, "cpuset.cpus"));
	g_assert_cmpint(cg_path_lookup(e.core, 0, "/a", NULL, &id, NULL), ==, -ENOENT);
	g_assert_cmpint(cg_path_lookup(e.core, 1, "/a", "cpu.shares", &id, &file), ==, -ENOENT);
	g_assert_cmpint(cg_path_lookup(e.core, 2, "/", NULL, &id, NULL), ==, -ENOENT);
	env_teardown(&e);
}

int main(int argc, char *argv[])
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/lookup/hierarchies", test_hierarchies);
	g_test_add_func("/lookup/node", test_node);
	g_test_add_func("/lookup/gone", test_gone);
	g_test_add_func("/lookup/readdir", test_readdir);
	g_test_add_func("/lookup/path", test_path);
	return g_test_run();
}
