/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests of the pids controller on the fake facade: what a group
 * counts (every thread of its subtree, as kernel/cgroup/pids.c), pids.max's
 * parsing as measured on the kernel's v1 pids, and the fork check: which
 * child is killed, when, and which pids.events counts it. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <glib.h>

#include "core/cgroup.h"
#include "core/internal.h"
#include "ctl/ctl.h"
#include "fake-kfacade.h"
#include "test-env.h"
#include "v1/face.h"

/* One hierarchy with pids alone, as `-o controllers=pids` has it. */
static void setup(struct env *e)
{
	unsigned nr = 0;

	while (cgfused_controllers[nr])
		nr++;
	memset(e, 0, sizeof(*e));
	e->writer = 1;
	e->fk = fake_kf_new();
	e->core = cg_core_new(cgfused_controllers, nr, fake_kf_facade(e->fk));
	e->root[0] = cg_root_new(e->core, &cgroup1_face, ctl_bit("pids"), true);
	e->top[0] = e->root[0]->top->id;
}

static long long num(struct env *e, uint64_t id, const char *file)
{
	char *s = rd(e, id, file);
	long long v = g_ascii_strtoll(s, NULL, 10);

	g_free(s);
	return v;
}

/* pids.events' count ("max N"). */
static long long events(struct env *e, uint64_t id)
{
	return max_events(e, id, "pids.events");
}

/* Takes in the waiting reports, forks then the exits of the children
 * they killed (the kills follow the unlock of the first catch-up). */
static void settle(struct env *e)
{
	for (int i = 0; i < 2; i++)
		g_free(rd(e, e->top[0], "cgroup.clone_children"));
}

static void join(struct env *e, uint64_t id, pid_t tgid)
{
	char pid[16];

	snprintf(pid, sizeof(pid), "%d", tgid);
	wr_ok(e, id, "cgroup.procs", pid);
}

/* Group g with this pids.max and process 100 (one thread) in it. */
static uint64_t limited_group(struct env *e, const char *max)
{
	uint64_t g = mkdir_ok(e, e->top[0], "g");

	wr_ok(e, g, "pids.max", max);
	fake_kf_add_process(e->fk, 100, 1);
	join(e, g, 100);
	return g;
}

/* The threads the fake killed so far. */
static GArray *killed(struct env *e)
{
	GArray *tids = g_array_new(FALSE, FALSE, sizeof(pid_t));

	fake_kf_killed(e->fk, tids);
	return tids;
}

static unsigned nr_killed(struct env *e)
{
	GArray *tids = killed(e);
	unsigned n = tids->len;

	g_array_unref(tids);
	return n;
}

static void test_files(void)
{
	static const char *const names[] = { "pids.max", "pids.current", "pids.peak", "pids.events" };
	struct env e;
	uint64_t g;

	setup(&e);
	g = mkdir_ok(&e, e.top[0], "g");
	/* The kernel's root has none of them. */
	cg_write_lock(&e.core->lock);
	for (guint i = 0; i < G_N_ELEMENTS(names); i++) {
		g_assert_null(cgroup_file_by_name(cgroup_by_id(e.core, e.top[0]), names[i], NULL));
		g_assert_nonnull(cgroup_file_by_name(cgroup_by_id(e.core, g), names[i], NULL));
	}
	cg_write_unlock(&e.core->lock);
	assert_content(&e, g, "pids.max", "max\n");
	assert_content(&e, g, "pids.current", "0\n");
	assert_content(&e, g, "pids.peak", "0\n");
	assert_content(&e, g, "pids.events", "max 0\n");
	env_teardown(&e);
}

/* Measured on the kernel's v1 pids (kernel 6.18): what each write does. */
static void test_max_parsing(void)
{
	static const struct {
		const char *in;
		int err;		/* 0: taken */
		const char *shown;	/* after it */
	} rows[] = {
		{ "max", 0, "max\n" }, { "0", 0, "0\n" }, { "10", 0, "10\n" },
		{ " 5 ", 0, "5\n" }, { "5\n", 0, "5\n" }, { "0x10", 0, "16\n" },
		{ "010", 0, "8\n" }, { "+5", 0, "5\n" }, { "-0", 0, "0\n" },
		{ "4194304", 0, "4194304\n" }, { "4194305", -EINVAL, "4194304\n" },
		{ "max ", 0, "max\n" }, { " max", 0, "max\n" },
		{ "4194303", 0, "4194303\n" },
		{ "MAX", -EINVAL, "4194303\n" }, { "abc", -EINVAL, "4194303\n" },
		{ " ", -EINVAL, "4194303\n" }, { "\n", -EINVAL, "4194303\n" },
		{ "-1", -EINVAL, "4194303\n" }, { "--5", -EINVAL, "4194303\n" },
		{ "5 5", -EINVAL, "4194303\n" }, { "0x", -EINVAL, "4194303\n" },
		{ "1e3", -EINVAL, "4194303\n" }, { "-4194305", -EINVAL, "4194303\n" },
		{ "9223372036854775807", -EINVAL, "4194303\n" },
		{ "9223372036854775808", -ERANGE, "4194303\n" },
		{ "99999999999999999999", -ERANGE, "4194303\n" },
	};
	struct env e;
	uint64_t g;

	setup(&e);
	g = mkdir_ok(&e, e.top[0], "g");
	for (guint i = 0; i < G_N_ELEMENTS(rows); i++) {
		ssize_t ret = wr(&e, g, "pids.max", rows[i].in);
		char *shown = rd(&e, g, "pids.max");

		EXPECT_INT(ret, rows[i].err ? rows[i].err : (ssize_t)strlen(rows[i].in),
			   "write \"%s\"", g_strescape(rows[i].in, NULL));
		if (strcmp(shown, rows[i].shown) != 0)
			FAILF("after \"%s\": shows \"%s\", want \"%s\"", rows[i].in, shown,
			      rows[i].shown);
		g_free(shown);
	}
	env_teardown(&e);
}

/* Every thread of the subtree, as it joins, forks, exits and leaves. */
static void test_counting(void)
{
	struct env e;
	uint64_t a, b;

	setup(&e);
	a = mkdir_ok(&e, e.top[0], "A");
	b = mkdir_ok(&e, a, "B");
	fake_kf_add_process(e.fk, 100, 3);
	fake_kf_add_process(e.fk, 200, 1);
	join(&e, a, 100);
	join(&e, b, 200);
	g_assert_cmpint(num(&e, a, "pids.current"), ==, 4);
	g_assert_cmpint(num(&e, b, "pids.current"), ==, 1);
	fake_kf_fork(e.fk, 200, 210, 210);	/* a process */
	fake_kf_fork(e.fk, 210, 211, 210);	/* and a thread of it */
	settle(&e);
	g_assert_cmpint(num(&e, b, "pids.current"), ==, 3);
	g_assert_cmpint(num(&e, a, "pids.current"), ==, 6);
	fake_kf_exit(e.fk, 101);
	fake_kf_exit_process(e.fk, 210);
	settle(&e);
	g_assert_cmpint(num(&e, b, "pids.current"), ==, 1);
	g_assert_cmpint(num(&e, a, "pids.current"), ==, 3);
	/* Moving within the subtree keeps A's count; leaving takes it. */
	join(&e, b, 100);
	g_assert_cmpint(num(&e, a, "pids.current"), ==, 3);
	g_assert_cmpint(num(&e, b, "pids.current"), ==, 3);
	join(&e, e.top[0], 100);
	g_assert_cmpint(num(&e, a, "pids.current"), ==, 1);
	g_assert_cmpint(num(&e, b, "pids.current"), ==, 1);
	g_assert_cmpint(num(&e, a, "pids.peak"), ==, 6);
	g_assert_cmpint(num(&e, b, "pids.peak"), ==, 3);
	g_assert_cmpuint(nr_killed(&e), ==, 0);
	env_teardown(&e);
}

/* A fork that takes the group past its limit: the new child is killed,
 * never its parent nor a member already there; pids.events counts it. */
static void test_fork_over_limit(void)
{
	struct env e;
	uint64_t g;
	GArray *k;

	setup(&e);
	g = limited_group(&e, "2");
	fake_kf_fork(e.fk, 100, 110, 110);	/* 2: at the limit */
	settle(&e);
	g_assert_cmpint(num(&e, g, "pids.current"), ==, 2);
	g_assert_cmpuint(nr_killed(&e), ==, 0);
	fake_kf_fork(e.fk, 100, 120, 120);	/* 3: over */
	settle(&e);
	g_assert_cmpint(num(&e, g, "pids.current"), ==, 2);
	k = killed(&e);
	g_assert_cmpuint(k->len, ==, 1);
	g_assert_cmpint(g_array_index(k, pid_t, 0), ==, 120);
	g_array_unref(k);
	g_assert_true(lists(&e, g, "tasks", 100));
	g_assert_true(lists(&e, g, "tasks", 110));
	g_assert_false(lists(&e, g, "tasks", 120));
	g_assert_cmpint(events(&e, g), ==, 1);
	/* A member leaves: a fork fits again. */
	fake_kf_exit(e.fk, 110);
	fake_kf_fork(e.fk, 100, 130, 130);
	settle(&e);
	g_assert_cmpint(num(&e, g, "pids.current"), ==, 2);
	g_assert_cmpuint(nr_killed(&e), ==, 1);
	g_assert_cmpint(events(&e, g), ==, 1);
	/* A new thread over the limit is killed too (with its process). */
	fake_kf_fork(e.fk, 130, 131, 130);
	settle(&e);
	k = killed(&e);
	g_assert_cmpuint(k->len, ==, 2);
	g_assert_cmpint(g_array_index(k, pid_t, 1), ==, 131);
	g_array_unref(k);
	g_assert_cmpint(num(&e, g, "pids.current"), ==, 1);
	g_assert_cmpint(events(&e, g), ==, 2);
	env_teardown(&e);
}

/* The tightest ancestor wins. On v1 the event is the forking group's (the
 * kernel's events_local[PIDCG_FORKFAIL]), not the limited ancestor's. */
static void test_hierarchical_limit(void)
{
	struct env e;
	uint64_t a, b, c;
	GArray *k;

	setup(&e);
	a = mkdir_ok(&e, e.top[0], "A");
	b = mkdir_ok(&e, a, "B");
	c = mkdir_ok(&e, a, "C");
	wr_ok(&e, a, "pids.max", "3");
	wr_ok(&e, b, "pids.max", "10");
	fake_kf_add_process(e.fk, 100, 1);
	fake_kf_add_process(e.fk, 200, 1);
	join(&e, b, 100);
	join(&e, c, 200);
	fake_kf_fork(e.fk, 100, 110, 110);	/* A: 3 */
	fake_kf_fork(e.fk, 100, 120, 120);	/* A: 4, over A's 3 */
	fake_kf_fork(e.fk, 200, 210, 210);	/* over A's, from C */
	settle(&e);
	k = killed(&e);
	g_assert_cmpuint(k->len, ==, 2);
	g_assert_cmpint(g_array_index(k, pid_t, 0), ==, 120);
	g_assert_cmpint(g_array_index(k, pid_t, 1), ==, 210);
	g_array_unref(k);
	g_assert_cmpint(num(&e, a, "pids.current"), ==, 3);
	g_assert_cmpint(events(&e, b), ==, 1);
	g_assert_cmpint(events(&e, c), ==, 1);
	g_assert_cmpint(events(&e, a), ==, 0);
	/* Lifting A's limit lets B's own (10) decide. */
	wr_ok(&e, a, "pids.max", "max");
	fake_kf_fork(e.fk, 100, 130, 130);
	settle(&e);
	g_assert_cmpuint(nr_killed(&e), ==, 2);
	g_assert_cmpint(num(&e, a, "pids.current"), ==, 4);
	env_teardown(&e);
}

/* A killed child is not yet gone when the next fork comes: it does not
 * count against that fork (its own fork failed on the kernel), and what
 * it forked before it died is killed as well. */
static void test_dying_children(void)
{
	struct env e;
	uint64_t g;
	GArray *k;

	setup(&e);
	g = limited_group(&e, "2");
	fake_kf_fork(e.fk, 100, 106, 106);	/* 2: at the limit */
	settle(&e);
	/* All reported at once, before the core hears of any: 120 is over
	 * the limit and forks 121 before its kill lands; 106 exits, and 110
	 * fits in its place (counting the dying, it would not). */
	fake_kf_fork(e.fk, 100, 120, 120);	/* over: dying */
	fake_kf_fork(e.fk, 120, 121, 121);	/* by a dying parent */
	fake_kf_exit(e.fk, 106);
	fake_kf_fork(e.fk, 100, 110, 110);	/* 2 live ones: fits */
	settle(&e);
	g_assert_true(lists(&e, g, "tasks", 110));
	k = killed(&e);
	g_assert_cmpuint(k->len, ==, 2);
	g_assert_cmpint(g_array_index(k, pid_t, 0), ==, 120);
	g_assert_cmpint(g_array_index(k, pid_t, 1), ==, 121);
	g_array_unref(k);
	/* The dying parent's child hit no limit of its own: one event. */
	g_assert_cmpint(events(&e, g), ==, 1);
	g_assert_cmpint(num(&e, g, "pids.current"), ==, 2);
	/* The two dying ones were there for a moment. */
	g_assert_cmpint(num(&e, g, "pids.peak"), ==, 4);
	env_teardown(&e);
}

/* pids.max's owner and mode, as root sets them (chown, chmod). */
static void set_max_attr(struct env *e, uint64_t g, uid_t uid, mode_t mode)
{
	static const struct cg_cred root = { 0 };
	struct cg_setattr req = { .valid = CG_ATTR_UID | CG_ATTR_MODE, .uid = uid, .mode = mode };

	g_assert_cmpint(cg_setattr(e->core, g, file_index(e, g, "pids.max"), &req, &root), ==, 0);
}

/* A limit kills only what whoever may write pids.max could kill (kill(2):
 * the writer's uid is the child's real or saved uid); a child spared is a
 * member as any other, counted and listed. */
static void test_kill_as_writer(void)
{
	static const struct task_uids root_ids = { 0 }, user_ids = { 1000, 1000, 1000, 1000 },
				      setuid_ids = { 1000, 0, 1000, 0 };
	static const struct {
		uid_t owner;
		mode_t mode;
		const struct task_uids *child;
		bool killed;
	} rows[] = {
		{ 0, 0644, &root_ids, true },		/* root's limit */
		{ 1000, 0444, &root_ids, true },	/* only root may write it */
		{ 1000, 0644, &root_ids, false },	/* the user's: not root's child */
		{ 1000, 0644, &user_ids, true },	/* the user's own child */
		{ 1000, 0644, &setuid_ids, true },	/* its real uid is the user's */
		{ 1000, 0664, &user_ids, false },	/* a group may write it too */
		{ 0, 0646, &user_ids, false },		/* anyone may write it */
	};

	for (unsigned i = 0; i < G_N_ELEMENTS(rows); i++) {
		struct env e;
		uint64_t g;

		setup(&e);
		g = limited_group(&e, "1");
		set_max_attr(&e, g, rows[i].owner, rows[i].mode);
		fake_kf_fork(e.fk, 100, 101, 100);
		fake_kf_set_uids(e.fk, 101, rows[i].child);
		settle(&e);
		g_assert_cmpuint(nr_killed(&e), ==, rows[i].killed);
		g_assert_cmpint(events(&e, g), ==, 1);
		if (!rows[i].killed) {
			g_assert_true(lists(&e, g, "tasks", 101));
			g_assert_cmpint(num(&e, g, "pids.current"), ==, 2);
		}
		env_teardown(&e);
	}
}

/* Organisational moves are never refused nor punished (the kernel's
 * can_attach charges past the limit); forks then are over it. */
static void test_attach_past_limit(void)
{
	struct env e;
	uint64_t g;

	setup(&e);
	g = mkdir_ok(&e, e.top[0], "g");
	wr_ok(&e, g, "pids.max", "0");
	fake_kf_add_process(e.fk, 100, 2);
	join(&e, g, 100);
	g_assert_cmpint(num(&e, g, "pids.current"), ==, 2);
	g_assert_cmpuint(nr_killed(&e), ==, 0);
	fake_kf_fork(e.fk, 100, 110, 110);
	settle(&e);
	g_assert_cmpuint(nr_killed(&e), ==, 1);
	g_assert_cmpint(num(&e, g, "pids.current"), ==, 2);
	g_assert_true(lists(&e, g, "tasks", 100));
	env_teardown(&e);
}

/* Children found after lost reports may have lived for long: they are
 * counted, never killed. */
static void test_orphans_not_killed(void)
{
	struct env e;
	uint64_t g;

	setup(&e);
	g = limited_group(&e, "1");
	fake_kf_lose_exits(e.fk);
	fake_kf_fork(e.fk, 100, 110, 110);
	settle(&e);
	g_assert_cmpint(num(&e, g, "pids.current"), ==, 2);
	g_assert_true(lists(&e, g, "tasks", 110));
	g_assert_cmpuint(nr_killed(&e), ==, 0);
	g_assert_cmpint(events(&e, g), ==, 0);
	env_teardown(&e);
}

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/pids/files", test_files);
	g_test_add_func("/pids/max-parsing", test_max_parsing);
	g_test_add_func("/pids/counting", test_counting);
	g_test_add_func("/pids/fork-over-limit", test_fork_over_limit);
	g_test_add_func("/pids/hierarchical-limit", test_hierarchical_limit);
	g_test_add_func("/pids/dying-children", test_dying_children);
	g_test_add_func("/pids/attach-past-limit", test_attach_past_limit);
	g_test_add_func("/pids/kill-as-writer", test_kill_as_writer);
	g_test_add_func("/pids/orphans-not-killed", test_orphans_not_killed);
	return g_test_run();
}
