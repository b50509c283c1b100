/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests of cpuacct on the fake facade: a group counts what its threads
 * and its descendants' threads ran while they were members, exited threads
 * included, as kernel/sched/cpuacct.c does. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <glib.h>

#include "core/cgroup.h"
#include "core/internal.h"
#include "core/task.h"
#include "fake-kfacade.h"
#include "test-env.h"

#define MS 1000000ULL

static uint64_t usage(struct env *e, uint64_t id, const char *file)
{
	char *s = rd(e, id, file);
	uint64_t v = g_ascii_strtoull(s, NULL, 10);

	g_free(s);
	return v;
}

/* A new top-level group with a new single-threaded process tid in it. */
static uint64_t group_with(struct env *e, const char *name, pid_t tid)
{
	uint64_t id = mkdir_ok(e, e->top[0], name);
	char pid[16];

	fake_kf_add_process(e->fk, tid, 1);
	snprintf(pid, sizeof(pid), "%d", tid);
	wr_ok(e, id, "tasks", pid);
	return id;
}

static void test_usage_follows_members(void)
{
	struct env e;
	uint64_t a, a1, b;

	env_setup(&e);
	a = mkdir_ok(&e, e.top[0], "A");
	a1 = mkdir_ok(&e, a, "A1");
	b = mkdir_ok(&e, e.top[0], "B");
	fake_kf_add_process(e.fk, 100, 1);
	fake_kf_add_process(e.fk, 200, 1);
	fake_kf_run(e.fk, 100, 500 * MS, 0, 1);	/* before: the root's */
	wr_ok(&e, a, "tasks", "100");
	wr_ok(&e, a1, "tasks", "200");
	assert_content(&e, a, "cpuacct.usage", "0\n");

	fake_kf_run(e.fk, 100, 30 * MS, 0, 1);
	fake_kf_run(e.fk, 200, 10 * MS, 0, 2);
	g_assert_cmpuint(usage(&e, a1, "cpuacct.usage"), ==, 10 * MS);
	g_assert_cmpuint(usage(&e, a, "cpuacct.usage"), ==, 40 * MS);
	assert_content(&e, a, "cpuacct.usage_percpu", "0 30000000 10000000 0 \n");
	assert_content(&e, a1, "cpuacct.usage_percpu_user", "0 0 10000000 0 \n");
	assert_content(&e, a1, "cpuacct.usage_all",
		       "cpu user system\n0 0 0\n1 0 0\n2 10000000 0\n3 0 0\n");
	assert_content(&e, a, "cpuacct.stat", "user 4\nsystem 0\n");

	/* What it ran in A stays in A after a move. */
	wr_ok(&e, b, "tasks", "100");
	fake_kf_run(e.fk, 100, 5 * MS, 0, 0);
	g_assert_cmpuint(usage(&e, a, "cpuacct.usage"), ==, 40 * MS);
	g_assert_cmpuint(usage(&e, b, "cpuacct.usage"), ==, 5 * MS);

	/* What it ran in the root (tracked there) is no group's. */
	wr_ok(&e, e.top[0], "tasks", "100");
	fake_kf_run(e.fk, 100, 9 * MS, 0, 0);
	wr_ok(&e, b, "tasks", "100");
	g_assert_cmpuint(usage(&e, b, "cpuacct.usage"), ==, 5 * MS);

	/* An exited thread's last figures stay counted. */
	fake_kf_run(e.fk, 200, 7 * MS, 0, 2);
	fake_kf_exit(e.fk, 200);
	g_assert_cmpuint(usage(&e, a1, "cpuacct.usage"), ==, 17 * MS);
	g_assert_cmpuint(usage(&e, a, "cpuacct.usage"), ==, 47 * MS);
	env_teardown(&e);
}

/* A forked child's whole life is its group's. */
static void test_child_counted_from_birth(void)
{
	struct env e;
	uint64_t a;

	env_setup(&e);
	a = group_with(&e, "A", 100);
	fake_kf_fork(e.fk, 100, 110, 110);
	fake_kf_run(e.fk, 110, 3 * MS, 0, 0);
	g_assert_cmpuint(usage(&e, a, "cpuacct.usage"), ==, 3 * MS);
	env_teardown(&e);
}

static void test_reset(void)
{
	struct env e;
	uint64_t a;

	env_setup(&e);
	a = group_with(&e, "A", 100);
	fake_kf_run(e.fk, 100, 30 * MS, 0, 0);
	g_assert_cmpint(wr(&e, a, "cpuacct.usage", "5"), ==, -EINVAL);
	g_assert_cmpint(wr(&e, a, "cpuacct.usage_user", "0"), ==, -EINVAL);
	g_assert_cmpuint(usage(&e, a, "cpuacct.usage"), ==, 30 * MS);
	assert_content(&e, a, "cpuacct.stat", "user 3\nsystem 0\n");
	wr_ok(&e, a, "cpuacct.usage", "0");
	assert_content(&e, a, "cpuacct.usage", "0\n");
	assert_content(&e, a, "cpuacct.usage_user", "0\n");
	/* cpuacct.stat never goes backwards (the kernel's cputime_adjust). */
	assert_content(&e, a, "cpuacct.stat", "user 3\nsystem 0\n");
	fake_kf_run(e.fk, 100, 2 * MS, 0, 0);
	g_assert_cmpuint(usage(&e, a, "cpuacct.usage"), ==, 2 * MS);
	env_teardown(&e);
}

/* Readers that come within TASK_SAMPLE_SHARE_NS of a sample share it:
 * the threads are not read again. */
static void test_readers_share_a_sample(void)
{
	struct env e;
	uint64_t a;

	env_setup(&e);
	a = group_with(&e, "A", 100);
	fake_kf_run(e.fk, 100, 30 * MS, 0, 0);
	g_assert_cmpuint(usage(&e, a, "cpuacct.usage"), ==, 30 * MS);
	fake_kf_hold_clock(e.fk, true);
	g_assert_cmpuint(usage(&e, a, "cpuacct.usage"), ==, 30 * MS);
	fake_kf_run(e.fk, 100, 5 * MS, 0, 0);
	g_assert_cmpuint(usage(&e, a, "cpuacct.usage"), ==, 30 * MS);	/* shared */
	fake_kf_hold_clock(e.fk, false);
	g_assert_cmpuint(usage(&e, a, "cpuacct.usage"), ==, 35 * MS);
	env_teardown(&e);
}

struct reader {
	struct env *e;
	uint64_t id;
	uint64_t got;
	gint *done;
};

static gpointer read_usage(gpointer data)
{
	struct reader *r = data;

	r->got = usage(r->e, r->id, "cpuacct.usage");
	g_atomic_int_inc(r->done);
	return NULL;
}

/* Readers that come while a sample is under way wait for it and use it:
 * four readers, one sample (one clock read), and none sees the figures
 * from before it. */
static void test_concurrent_readers_one_sample(void)
{
	struct reader r[4];
	GThread *th[4];
	struct env e;
	unsigned clocks;
	gint done = 0;
	uint64_t a;

	env_setup(&e);
	a = group_with(&e, "A", 100);
	fake_kf_run(e.fk, 100, 30 * MS, 0, 0);
	fake_kf_hold_clock(e.fk, true);
	fake_kf_hold_cputime(e.fk, true);
	clocks = fake_kf_calls(e.fk).process_cputime;
	for (unsigned i = 0; i < 4; i++) {
		r[i] = (struct reader){ &e, a, 0, &done };
		th[i] = g_thread_new("reader", read_usage, &r[i]);
		/* The first is in its sample: the others come during it. */
		while (i == 0 && fake_kf_cputime_waiting(e.fk) == 0)
			g_usleep(1000);
	}
	g_usleep(50000);	/* time for a reader that does not wait to end */
	g_assert_cmpint(g_atomic_int_get(&done), ==, 0);
	g_assert_cmpuint(fake_kf_cputime_waiting(e.fk), ==, 1);
	fake_kf_hold_cputime(e.fk, false);
	for (unsigned i = 0; i < 4; i++) {
		g_thread_join(th[i]);
		g_assert_cmpuint(r[i].got, ==, 30 * MS);
	}
	g_assert_cmpuint(fake_kf_calls(e.fk).process_cputime - clocks, ==, 1);
	env_teardown(&e);
}

/* A sample keeps its copy of the members while they stay: a child forked
 * into the group, a thread moved in and one that exits after a read are
 * each seen by the next. */
static void test_copy_follows_members(void)
{
	struct env e;
	uint64_t a;

	env_setup(&e);
	a = group_with(&e, "A", 100);
	fake_kf_add_process(e.fk, 200, 1);
	fake_kf_run(e.fk, 100, 10 * MS, 0, 0);
	g_assert_cmpuint(usage(&e, a, "cpuacct.usage"), ==, 10 * MS);
	g_assert_cmpuint(usage(&e, a, "cpuacct.usage"), ==, 10 * MS);
	fake_kf_fork(e.fk, 100, 110, 110);
	fake_kf_run(e.fk, 110, 3 * MS, 0, 0);
	g_assert_cmpuint(usage(&e, a, "cpuacct.usage"), ==, 13 * MS);
	wr_ok(&e, a, "tasks", "200");
	fake_kf_run(e.fk, 200, 5 * MS, 0, 0);
	g_assert_cmpuint(usage(&e, a, "cpuacct.usage"), ==, 18 * MS);
	fake_kf_run(e.fk, 110, 1 * MS, 0, 0);
	fake_kf_exit(e.fk, 110);
	fake_kf_run(e.fk, 200, 2 * MS, 0, 0);
	g_assert_cmpuint(usage(&e, a, "cpuacct.usage"), ==, 21 * MS);
	env_teardown(&e);
}

/* System time is counted apart from user time, in ns; cpuacct.stat shows
 * both in USER_HZ ticks. */
static void test_system_time(void)
{
	struct env e;
	uint64_t a;

	env_setup(&e);
	a = group_with(&e, "A", 100);
	fake_kf_run(e.fk, 100, 30 * MS, 0, 1);
	fake_kf_run_system(e.fk, 100, 290 * MS, 1);
	g_assert_cmpuint(usage(&e, a, "cpuacct.usage"), ==, 320 * MS);
	g_assert_cmpuint(usage(&e, a, "cpuacct.usage_user"), ==, 30 * MS);
	g_assert_cmpuint(usage(&e, a, "cpuacct.usage_sys"), ==, 290 * MS);
	assert_content(&e, a, "cpuacct.usage_percpu_sys", "0 290000000 0 0 \n");
	assert_content(&e, a, "cpuacct.usage_all",
		       "cpu user system\n0 0 0\n1 30000000 290000000\n2 0 0\n3 0 0\n");
	assert_content(&e, a, "cpuacct.stat", "user 3\nsystem 29\n");
	/* The root: the system's, here the same thread's. */
	g_assert_cmpuint(usage(&e, e.top[0], "cpuacct.usage_sys"), ==, 290 * MS);
	assert_content(&e, e.top[0], "cpuacct.stat", "user 3\nsystem 29\n");
	env_teardown(&e);
}

/* A sample taken before the last charge (by a pass that raced a move) is
 * not charged again, nor as a negative (wrapped) amount. */
static void test_stale_sample_ignored(void)
{
	struct env e;
	uint64_t a;
	struct task_cputime old = { .run_ns = 10 * MS, .utime = 1, .cpu = 1 };

	env_setup(&e);
	a = group_with(&e, "A", 100);
	fake_kf_run(e.fk, 100, 30 * MS, 0, 1);
	g_assert_cmpuint(usage(&e, a, "cpuacct.usage"), ==, 30 * MS);
	cg_write_lock(&e.core->lock);
	task_charge(e.core, task_lookup(e.core, 100), &old);
	cg_write_unlock(&e.core->lock);
	g_assert_cmpuint(usage(&e, a, "cpuacct.usage"), ==, 30 * MS);
	assert_content(&e, a, "cpuacct.stat", "user 3\nsystem 0\n");
	env_teardown(&e);
}

/* The root counts the whole system, members of groups or not. */
static void test_root_counts_system(void)
{
	struct env e;

	env_setup(&e);
	group_with(&e, "A", 100);
	fake_kf_add_process(e.fk, 200, 1);
	fake_kf_run(e.fk, 100, 30 * MS, 0, 1);
	fake_kf_run(e.fk, 200, 20 * MS, 0, 0);
	g_assert_cmpuint(usage(&e, e.top[0], "cpuacct.usage"), ==, 50 * MS);
	assert_content(&e, e.top[0], "cpuacct.usage_percpu", "20000000 30000000 0 0 \n");
	wr_ok(&e, e.top[0], "cpuacct.usage", "0");
	fake_kf_run(e.fk, 200, 1 * MS, 0, 0);
	g_assert_cmpuint(usage(&e, e.top[0], "cpuacct.usage"), ==, 1 * MS);
	env_teardown(&e);
}

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	/* A failed check fails its case; the next cases still run. */
	g_test_set_nonfatal_assertions();
	g_test_add_func("/cpuacct/usage-follows-members", test_usage_follows_members);
	g_test_add_func("/cpuacct/child-counted-from-birth", test_child_counted_from_birth);
	g_test_add_func("/cpuacct/reset", test_reset);
	g_test_add_func("/cpuacct/readers-share-a-sample", test_readers_share_a_sample);
	g_test_add_func("/cpuacct/copy-follows-members", test_copy_follows_members);
	g_test_add_func("/cpuacct/concurrent-readers-one-sample",
			test_concurrent_readers_one_sample);
	g_test_add_func("/cpuacct/system-time", test_system_time);
	g_test_add_func("/cpuacct/stale-sample-ignored", test_stale_sample_ignored);
	g_test_add_func("/cpuacct/root-counts-system", test_root_counts_system);
	return g_test_run();
}
