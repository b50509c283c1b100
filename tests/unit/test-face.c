/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A hierarchy's face decides its base files, which controller tables it
 * shows, its rename rule and what a new group inherits: a face with none
 * of v1's next to cgroup1_face. */
#include <errno.h>
#include <string.h>

#include <glib.h>

#include "core/cgroup.h"
#include "core/face.h"
#include "core/internal.h"
#include "ctl/ctl.h"
#include "fake-kfacade.h"
#include "test-env.h"
#include "v1/face.h"

/* No base files, the controllers' dfl_files, no rename, no
 * inheritance. */
static const struct cftype bare_files[] = { { 0 } };
static const struct cg_face bare_face = { .base_files = bare_files, .dfl = true };

struct two_faces {
	struct fake_kf *fk;
	struct cg_core *core;
	struct cg_root *v1, *bare;
};

/* cpu,cpuacct with the v1 face, cpuset with the bare one; both roots
 * with clone_children set. */
static void setup(struct two_faces *t)
{
	unsigned nr = 0;

	while (cgfused_controllers[nr])
		nr++;
	t->fk = fake_kf_new();
	t->core = cg_core_new(cgfused_controllers, nr, fake_kf_facade(t->fk));
	t->v1 = cg_root_new(t->core, &cgroup1_face, ctl_bit("cpu") | ctl_bit("cpuacct"), true);
	t->bare = cg_root_new(t->core, &bare_face, ctl_bit("cpuset"), true);
}

static void teardown(struct two_faces *t)
{
	cg_core_free(t->core);
	fake_kf_free(t->fk);
}

static GString *file_names(const struct cg_root *root)
{
	GString *names = g_string_new(NULL);

	for (guint i = 0; i < root->files->len; i++)
		g_string_append_printf(names, "%s ",
				       ((const struct cg_file *)g_ptr_array_index(root->files, i))->name);
	return names;
}

static void test_files(void)
{
	struct two_faces t;
	g_autoptr(GString) v1 = NULL, bare = NULL;

	setup(&t);
	v1 = file_names(t.v1);
	bare = file_names(t.bare);
	/* The face's base files, then cgfused's own, then the controllers'. */
	g_assert_true(g_str_has_prefix(v1->str, "cgroup.procs cgroup.clone_children "
				       "cgroup.sane_behavior tasks notify_on_release "
				       "release_agent cgfused.stat cpu.shares "));
	g_assert_nonnull(strstr(v1->str, " cpuacct.usage "));
	/* cpuset's dfl_files, none of its legacy ones. */
	g_assert_cmpstr(bare->str, ==, "cgfused.stat cpuset.cpus cpuset.mems "
			"cpuset.cpus.effective cpuset.mems.effective cpuset.cpus.partition "
			 "cpuset.cpus.exclusive cpuset.cpus.exclusive.effective "
			"cpuset.cpus.isolated ");
	teardown(&t);
}

static void test_rename(void)
{
	struct two_faces t;
	uint64_t a, b;

	setup(&t);
	g_assert_cmpint(cg_mkdir(t.core, t.v1->top->id, "a", 0755, &root_cred, &a), ==, 0);
	g_assert_cmpint(cg_mkdir(t.core, t.bare->top->id, "b", 0755, &root_cred, &b), ==, 0);
	g_assert_cmpint(cg_rename(t.core, t.v1->top->id, "a", t.v1->top->id, "a2", &root_cred),
			==, 0);
	g_assert_cmpint(cg_rename(t.core, t.v1->top->id, "a2", a, "x", &root_cred), ==, -EIO);
	/* Refused after the VFS's checks (a missing name is still ENOENT). */
	g_assert_cmpint(cg_rename(t.core, t.bare->top->id, "b", t.bare->top->id, "b2",
				  &root_cred), ==, -EPERM);
	g_assert_cmpint(cg_rename(t.core, t.bare->top->id, "none", t.bare->top->id, "b2",
				  &root_cred), ==, -ENOENT);
	teardown(&t);
}

/* clone_children (and notify_on_release) pass to a child through v1's
 * mkdir hook only. */
static void test_mkdir_inherits(void)
{
	struct two_faces t;
	uint64_t a, b;
	bool v1_clone, v1_notify, bare_inherited;

	setup(&t);
	cg_write_lock(&t.core->lock);
	cgroup_set_flag(t.v1->top, CGRP_NOTIFY_ON_RELEASE, true);
	cgroup_set_flag(t.bare->top, CGRP_NOTIFY_ON_RELEASE, true);
	cg_write_unlock(&t.core->lock);
	g_assert_cmpint(cg_mkdir(t.core, t.v1->top->id, "a", 0755, &root_cred, &a), ==, 0);
	g_assert_cmpint(cg_mkdir(t.core, t.bare->top->id, "b", 0755, &root_cred, &b), ==, 0);
	cg_write_lock(&t.core->lock);
	v1_clone = cgroup_flag(cgroup_by_id(t.core, a), CGRP_CPUSET_CLONE_CHILDREN);
	v1_notify = cgroup_flag(cgroup_by_id(t.core, a), CGRP_NOTIFY_ON_RELEASE);
	bare_inherited = cgroup_flag(cgroup_by_id(t.core, b), CGRP_CPUSET_CLONE_CHILDREN) ||
		     cgroup_flag(cgroup_by_id(t.core, b), CGRP_NOTIFY_ON_RELEASE);
	cg_write_unlock(&t.core->lock);
	g_assert_true(v1_clone);
	g_assert_true(v1_notify);
	g_assert_false(bare_inherited);
	teardown(&t);
}

int main(int argc, char *argv[])
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/face/files", test_files);
	g_test_add_func("/face/rename", test_rename);
	g_test_add_func("/face/mkdir-inherits", test_mkdir_inherits);
	return g_test_run();
}
