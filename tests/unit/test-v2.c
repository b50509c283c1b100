/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The v2 face on the core, without FUSE: the rules of cgroup.subtree_control,
 * the no-internal-process rule, threaded mode, cgroup.kill, the limits, what
 * the state saves, and the effective css the allocator's view reads. The
 * expectations are the kernel's (docs/kernel-oracle.md, "cgroup v2"). */
#include <errno.h>
#include <string.h>

#include <glib.h>

#include "core/cgroup.h"
#include "core/css_set.h"
#include "core/face.h"
#include "core/internal.h"
#include "core/sched_view.h"
#include "ctl/ctl.h"
#include "fake-kfacade.h"
#include "test-env.h"
#include "v2/face.h"

#define MS 1000000ULL

static void setup(struct env *e)
{
	unsigned nr = 0, mask = 0;

	while (cgfused_controllers[nr])
		nr++;
	for (unsigned i = 0; i < nr; i++)
		if (!cgfused_controllers[i]->legacy_only)
			mask |= 1u << i;
	memset(e, 0, sizeof(*e));
	e->writer = 1;
	e->fk = fake_kf_new();
	e->core = cg_core_new(cgfused_controllers, nr, fake_kf_facade(e->fk));
	e->root[0] = cg_root_new(e->core, &cgroup2_face, mask, false);
	e->top[0] = e->root[0]->top->id;
}

static char *num(long n)
{
	return g_strdup_printf("%ld", n);
}

/* A write of str, which must fail with err. */
static void wr_err(struct env *e, uint64_t id, const char *file, const char *str, int err)
{
	EXPECT_INT(wr(e, id, file, str), -err, "'%s' to %s", str, file);
}

static void test_files(void)
{
	struct env e;
	uint64_t a;

	setup(&e);
	assert_content(&e, e.top[0], "cgroup.controllers", "cpuset cpu pids\n");
	a = mkdir_ok(&e, e.top[0], "a");
	assert_content(&e, a, "cgroup.type", "domain\n");
	assert_content(&e, a, "cgroup.controllers", "\n");
	assert_content(&e, a, "cgroup.events", "populated 0\nfrozen 0\n");
	g_assert_cmpint(file_index(&e, a, "cgroup.kill"), >, 0);
	{
		unsigned slot = cg_read_lock(&e.core->lock);

		g_assert_null(cgroup_file_by_name(cgroup_by_id(e.core, a), "tasks", NULL));
		g_assert_null(cgroup_file_by_name(cgroup_by_id(e.core, a), "notify_on_release",
						  NULL));
		g_assert_null(cgroup_file_by_name(e.root[0]->top, "release_agent", NULL));
		g_assert_null(cgroup_file_by_name(e.root[0]->top, "cgroup.type", NULL));
		cg_read_unlock(&e.core->lock, slot);
	}
	/* No rename on the default hierarchy. */
	g_assert_cmpint(cg_rename(e.core, e.top[0], "a", e.top[0], "b", &root_cred), ==, -EPERM);
	env_teardown(&e);
}

static void test_subtree_control(void)
{
	struct env e;
	uint64_t a, b;

	setup(&e);
	a = mkdir_ok(&e, e.top[0], "a");
	b = mkdir_ok(&e, a, "b");
	wr_err(&e, e.top[0], "cgroup.subtree_control", "cpu", EINVAL);
	wr_err(&e, e.top[0], "cgroup.subtree_control", "+cpuacct", EINVAL);
	wr_err(&e, e.top[0], "cgroup.subtree_control", "+cpu +nosuch", EINVAL);
	assert_content(&e, e.top[0], "cgroup.subtree_control", "\n");
	wr_ok(&e, e.top[0], "cgroup.subtree_control", "+cpu -cpu");
	assert_content(&e, e.top[0], "cgroup.subtree_control", "\n");
	wr_ok(&e, e.top[0], "cgroup.subtree_control", " -cpu +cpu  +pids\n");
	assert_content(&e, e.top[0], "cgroup.subtree_control", "cpu pids\n");
	assert_content(&e, a, "cgroup.controllers", "cpu pids\n");
	/* Top-down: ENOENT, and nothing of the write is applied. */
	wr_err(&e, a, "cgroup.subtree_control", "+cpu +cpuset", ENOENT);
	assert_content(&e, a, "cgroup.subtree_control", "\n");
	wr_ok(&e, a, "cgroup.subtree_control", "+cpu");
	assert_content(&e, b, "cgroup.controllers", "cpu\n");
	/* EBUSY: a child enables it. */
	wr_err(&e, e.top[0], "cgroup.subtree_control", "-cpu", EBUSY);
	assert_content(&e, e.top[0], "cgroup.subtree_control", "cpu pids\n");
	wr_ok(&e, a, "cgroup.subtree_control", "-cpu");
	wr_ok(&e, e.top[0], "cgroup.subtree_control", "-cpu");
	assert_content(&e, e.top[0], "cgroup.subtree_control", "pids\n");
	env_teardown(&e);
}

static void test_no_internal_process(void)
{
	struct env e;
	uint64_t a, b;
	g_autofree char *p = num(100), *q = num(200);

	setup(&e);
	fake_kf_add_process(e.fk, 100, 1);
	fake_kf_add_process(e.fk, 200, 1);
	wr_ok(&e, e.top[0], "cgroup.subtree_control", "+cpu");
	a = mkdir_ok(&e, e.top[0], "a");
	b = mkdir_ok(&e, a, "b");
	wr_ok(&e, b, "cgroup.procs", p);
	wr_ok(&e, a, "cgroup.subtree_control", "+cpu");
	/* A populated domain child: a cannot be a thread root. */
	wr_err(&e, a, "cgroup.procs", q, EBUSY);
	wr_ok(&e, a, "cgroup.subtree_control", "-cpu");
	wr_ok(&e, a, "cgroup.procs", q);
	wr_err(&e, a, "cgroup.subtree_control", "+cpu", EBUSY);
	/* The root takes both. */
	wr_ok(&e, e.top[0], "cgroup.procs", q);
	g_assert_true(lists(&e, b, "cgroup.procs", 100));
	env_teardown(&e);
}

static void test_threaded(void)
{
	struct env e;
	uint64_t g, a, t, t2, x;
	g_autofree char *p = num(100), *tid = num(102);

	setup(&e);
	fake_kf_add_process(e.fk, 100, 3);
	g = mkdir_ok(&e, e.top[0], "g");
	a = mkdir_ok(&e, g, "a");
	t = mkdir_ok(&e, a, "t");
	t2 = mkdir_ok(&e, t, "t2");
	x = mkdir_ok(&e, g, "x");
	wr_err(&e, a, "cgroup.type", "domain", EINVAL);
	wr_ok(&e, t, "cgroup.type", "threaded\n");
	assert_content(&e, a, "cgroup.type", "domain threaded\n");
	assert_content(&e, t, "cgroup.type", "threaded\n");
	assert_content(&e, t2, "cgroup.type", "domain invalid\n");
	wr_err(&e, t2, "cgroup.procs", p, EOPNOTSUPP);
	wr_ok(&e, a, "cgroup.procs", p);
	wr_ok(&e, t, "cgroup.threads", tid);
	g_assert_true(lists(&e, t, "cgroup.threads", 102));
	g_assert_false(lists(&e, a, "cgroup.threads", 102));
	g_assert_true(lists(&e, a, "cgroup.procs", 100));
	EXPECT_INT(cg_file_read(e.core, t, file_index(&e, t, "cgroup.procs"), NULL), -EOPNOTSUPP,
		   "%s", "threaded cgroup.procs");
	/* Out of its domain, a thread does not go alone. */
	wr_err(&e, x, "cgroup.threads", tid, EOPNOTSUPP);
	/* g has a populated domain child: x cannot join a threaded domain. */
	wr_err(&e, x, "cgroup.type", "threaded", EOPNOTSUPP);
	wr_ok(&e, t2, "cgroup.type", "threaded");
	wr_ok(&e, t2, "cgroup.threads", tid);
	wr_err(&e, t, "cgroup.kill", "1", EOPNOTSUPP);
	/* A populated domain never turns threaded. */
	wr_ok(&e, x, "cgroup.procs", p);
	wr_err(&e, x, "cgroup.type", "threaded", EOPNOTSUPP);
	/* rmdir of a threaded child leaves its root a plain domain. */
	g_assert_cmpint(cg_rmdir(e.core, t, "t2", &root_cred), ==, 0);
	g_assert_cmpint(cg_rmdir(e.core, a, "t", &root_cred), ==, 0);
	assert_content(&e, a, "cgroup.type", "domain\n");
	env_teardown(&e);
}

static bool has(GArray *tids, pid_t tid)
{
	for (guint i = 0; i < tids->len; i++)
		if (g_array_index(tids, pid_t, i) == tid)
			return true;
	return false;
}

static void test_kill(void)
{
	struct env e;
	uint64_t a, b, c;
	g_autofree char *p = num(100), *q = num(200), *r = num(300);
	GArray *tids = g_array_new(FALSE, FALSE, sizeof(pid_t));
	struct cgroup *cg;
	bool pending;

	setup(&e);
	fake_kf_add_process(e.fk, 100, 2);
	fake_kf_add_process(e.fk, 200, 1);
	fake_kf_add_process(e.fk, 300, 1);
	a = mkdir_ok(&e, e.top[0], "a");
	b = mkdir_ok(&e, a, "b");
	c = mkdir_ok(&e, e.top[0], "c");
	wr_ok(&e, a, "cgroup.procs", p);
	wr_ok(&e, b, "cgroup.procs", q);
	wr_ok(&e, c, "cgroup.procs", r);
	wr_err(&e, a, "cgroup.kill", "0", ERANGE);
	wr_err(&e, a, "cgroup.kill", "x", EINVAL);
	fake_kf_killed(e.fk, tids);
	g_assert_cmpuint(tids->len, ==, 0);
	/* Forked before the kill, heard of by it: killed too. */
	fake_kf_fork(e.fk, 200, 201, 201);
	wr_ok(&e, a, "cgroup.kill", "1");
	/* Until the exits are heard of, a child its members fork is to be
	 * killed as it is reported (the kernel's CGRP_KILL at fork). */
	cg_write_lock(&e.core->lock);
	cg = cgroup_by_id(e.core, b);
	pending = cgroup_flag(cg, CGRP_KILL) &&
		  cgroup_kill_pending(e.core, ((struct css_set *)cg->csets.head->data));
	cg_write_unlock(&e.core->lock);
	g_assert_true(pending);
	assert_content(&e, a, "cgroup.events", "populated 0\nfrozen 0\n");
	fake_kf_killed(e.fk, tids);
	g_assert_true(has(tids, 100) || has(tids, 101));
	g_assert_true(has(tids, 200));
	g_assert_true(has(tids, 201));
	g_assert_false(has(tids, 300));
	cg_write_lock(&e.core->lock);
	pending = cgroup_flag(cgroup_by_id(e.core, b), CGRP_KILL);
	cg_write_unlock(&e.core->lock);
	g_assert_false(pending);	/* empty: the kill is over */
	g_assert_true(lists(&e, c, "cgroup.procs", 300));
	/* Empty now: one moved in later is not killed, nor its children. */
	wr_ok(&e, a, "cgroup.procs", r);
	fake_kf_fork(e.fk, 300, 301, 301);
	g_assert_true(lists(&e, a, "cgroup.procs", 301));
	g_array_unref(tids);
	env_teardown(&e);
}

static void test_limits(void)
{
	struct env e;
	uint64_t g, a, id;
	g_autofree char *stat = NULL;

	setup(&e);
	g = mkdir_ok(&e, e.top[0], "g");
	a = mkdir_ok(&e, g, "a");
	assert_content(&e, g, "cgroup.max.depth", "max\n");
	wr_err(&e, g, "cgroup.max.depth", "-1", ERANGE);
	wr_err(&e, g, "cgroup.max.depth", "foo", EINVAL);
	wr_ok(&e, g, "cgroup.max.depth", "1");
	g_assert_cmpint(cg_mkdir(e.core, a, "d", 0755, &root_cred, &id), ==, -EAGAIN);
	wr_ok(&e, g, "cgroup.max.depth", "max");
	wr_ok(&e, g, "cgroup.max.descendants", "2");
	g_assert_cmpint(cg_mkdir(e.core, a, "d", 0755, &root_cred, &id), ==, 0);
	g_assert_cmpint(cg_mkdir(e.core, g, "e", 0755, &root_cred, &id), ==, -EAGAIN);
	wr_ok(&e, g, "cgroup.max.descendants", "2147483647");
	assert_content(&e, g, "cgroup.max.descendants", "max\n");
	stat = rd(&e, e.top[0], "cgroup.stat");
	g_assert_true(g_str_has_prefix(stat, "nr_descendants 3\n"));
	env_teardown(&e);
}

/* The state saves what writing back takes. */
static void test_saved_settings(void)
{
	struct env e;
	uint64_t a, t;
	GString *out = g_string_new(NULL);
	struct cgroup *cg;
	unsigned control, type;

	setup(&e);
	a = mkdir_ok(&e, e.top[0], "a");
	t = mkdir_ok(&e, a, "t");
	wr_ok(&e, e.top[0], "cgroup.subtree_control", "+pids +cpu");
	wr_ok(&e, t, "cgroup.type", "threaded");
	control = file_index(&e, e.top[0], "cgroup.subtree_control");
	type = file_index(&e, a, "cgroup.type");
	cg_write_lock(&e.core->lock);
	cgroup_file_show_setting(e.root[0]->top, control, out);
	g_assert_cmpstr(out->str, ==, "+cpu +pids\n");
	g_string_truncate(out, 0);
	cg = cgroup_by_id(e.core, a);
	cgroup_file_show_setting(cg, type, out);
	g_assert_cmpstr(out->str, ==, "");	/* "domain threaded" follows */
	cgroup_file_show_setting(cgroup_by_id(e.core, t), type, out);
	g_assert_cmpstr(out->str, ==, "threaded\n");
	cg_write_unlock(&e.core->lock);
	g_string_free(out, TRUE);
	env_teardown(&e);
}

/* cpu.stat, a core file: usage_usec, and user_usec + system_usec adding
 * up to it (cputime_adjust()) in every group, the root's the system's;
 * cpu's throttling lines, and cpu.stat.local's, where cpu is enabled. */
static void test_cpu_stat(void)
{
	const char *throttled = "nr_periods 0\nnr_throttled 0\nthrottled_usec 0\n"
				"nr_bursts 0\nburst_usec 0\n";
	struct env e;
	uint64_t a, a1;
	char *want;

	setup(&e);
	a = mkdir_ok(&e, e.top[0], "a");
	a1 = mkdir_ok(&e, a, "a1");
	fake_kf_add_process(e.fk, 100, 1);
	fake_kf_add_process(e.fk, 200, 1);
	fake_kf_run(e.fk, 100, 500 * MS, 0, 1);	/* before it joined: the root's */
	wr_ok(&e, a, "cgroup.procs", "100");
	wr_ok(&e, a1, "cgroup.procs", "200");
	assert_content(&e, a, "cpu.stat", "usage_usec 0\nuser_usec 0\nsystem_usec 0\n");
	assert_content(&e, a, "cpu.stat.local", "");
	fake_kf_run(e.fk, 100, 30 * MS, 0, 1);
	fake_kf_run_system(e.fk, 200, 10 * MS, 2);
	assert_content(&e, a1, "cpu.stat", "usage_usec 10000\nuser_usec 0\nsystem_usec 10000\n");
	assert_content(&e, a, "cpu.stat", "usage_usec 40000\nuser_usec 30000\nsystem_usec 10000\n");
	/* With cpu enabled above them: cpu's lines too. */
	wr_ok(&e, e.top[0], "cgroup.subtree_control", "+cpu");
	want = g_strconcat("usage_usec 40000\nuser_usec 30000\nsystem_usec 10000\n", throttled, NULL);
	assert_content(&e, a, "cpu.stat", want);
	g_free(want);
	assert_content(&e, a, "cpu.stat.local", "throttled_usec 0\n");
	assert_content(&e, a1, "cpu.stat.local", "");
	/* The root: every thread of the system, member or not. */
	want = g_strconcat("usage_usec 540000\nuser_usec 530000\nsystem_usec 10000\n", throttled, NULL);
	assert_content(&e, e.top[0], "cpu.stat", want);
	g_free(want);
	assert_content(&e, e.top[0], "cpu.stat.local", "throttled_usec 0\n");
	g_assert_cmpint(wr(&e, a, "cpu.stat", "0"), ==, -EINVAL);
	env_teardown(&e);
}

static const struct sched_task *view_task(struct sched_view *v, pid_t tid)
{
	for (guint i = 0; i < v->tasks->len; i++)
		if (g_array_index(v->tasks, struct sched_task, i).tid == tid)
			return &g_array_index(v->tasks, struct sched_task, i);
	return NULL;
}

static const struct sched_group *view_group(struct sched_view *v, uint64_t id)
{
	for (guint i = 0; i < v->groups->len; i++)
		if (g_array_index(v->groups, struct sched_group, i).id == id)
			return &g_array_index(v->groups, struct sched_group, i);
	return NULL;
}

static int ssid_of(struct env *e, const char *name)
{
	for (unsigned i = 0; i < e->core->nr_subsys; i++)
		if (strcmp(e->core->subsys[i]->name, name) == 0)
			return (int)i;
	return -1;
}

/* A group without cpu weighs nothing of its own: its tasks count in the
 * nearest ancestor with cpu (cgroup_e_css()). */
static void test_effective_css(void)
{
	struct env e;
	struct sched_view v;
	uint64_t a, b;
	int cpu;
	g_autofree char *p = num(100);

	setup(&e);
	cpu = ssid_of(&e, "cpu");
	fake_kf_add_process(e.fk, 100, 1);
	a = mkdir_ok(&e, e.top[0], "a");
	b = mkdir_ok(&e, a, "b");
	wr_ok(&e, b, "cgroup.procs", p);
	sched_view_init(&v);
	g_assert_true(sched_view_take(e.core, cpu, -1, &v));
	g_assert_cmpuint(view_task(&v, 100)->group, ==, 0);
	g_assert_true(view_group(&v, a)->gone);
	g_assert_true(view_group(&v, b)->gone);
	wr_ok(&e, e.top[0], "cgroup.subtree_control", "+cpu");
	sched_view_mark_all(&v);
	g_assert_true(sched_view_take(e.core, cpu, -1, &v));
	g_assert_cmpuint(view_task(&v, 100)->group, ==, a);
	g_assert_false(view_group(&v, a)->gone);
	g_assert_cmpuint(view_group(&v, a)->parent, ==, 0);
	g_assert_true(view_group(&v, b)->gone);
	wr_ok(&e, a, "cgroup.subtree_control", "+cpu");
	sched_view_mark_all(&v);
	g_assert_true(sched_view_take(e.core, cpu, -1, &v));
	g_assert_cmpuint(view_task(&v, 100)->group, ==, b);
	g_assert_cmpuint(view_group(&v, b)->parent, ==, a);
	sched_view_clear(&v);
	env_teardown(&e);
}

int main(int argc, char *argv[])
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/v2/files", test_files);
	g_test_add_func("/v2/subtree-control", test_subtree_control);
	g_test_add_func("/v2/no-internal-process", test_no_internal_process);
	g_test_add_func("/v2/threaded", test_threaded);
	g_test_add_func("/v2/kill", test_kill);
	g_test_add_func("/v2/limits", test_limits);
	g_test_add_func("/v2/saved-settings", test_saved_settings);
	g_test_add_func("/v2/effective-css", test_effective_css);
	g_test_add_func("/v2/cpu-stat", test_cpu_stat);
	return g_test_run();
}
