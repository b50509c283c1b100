/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests of a process's exec (core/task_exec.c) on the fake kernel
 * facade: when a thread other than the leader calls execve it takes the
 * leader's id, and the process carries on in that thread's groups. */
#include <errno.h>
#include <stdlib.h>

#include <glib.h>

#include "core/cgroup.h"
#include "core/notify.h"
#include "core/task.h"
#include "fake-kfacade.h"
#include "test-env.h"

#define INIT 1
#define P100 100		/* threads 100, 101, 102 */
#define P300 300		/* the writer */
#define MS 1000000ULL

static void populate(struct env *e)
{
	e->writer = P300;
	fake_kf_add_process(e->fk, INIT, 1);
	fake_kf_add_process(e->fk, P100, 3);
	fake_kf_add_process(e->fk, P300, 1);
}

/* A non-leader in a group execs: the process (now its leader's id) is in
 * that group, the dead id is listed nowhere, and the root does not list it. */
static void test_non_leader_exec(void)
{
	struct env e;
	uint64_t a;

	env_setup(&e);
	populate(&e);
	a = mkdir_ok(&e, e.top[0], "a");
	wr_ok(&e, a, "tasks", "101");
	fake_kf_exec(e.fk, 101);
	assert_content(&e, a, "tasks", "100\n");
	assert_content(&e, a, "cgroup.procs", "100\n");
	g_assert_false(lists(&e, e.top[0], "tasks", 100));
	g_assert_false(lists(&e, e.top[0], "tasks", 101));
	g_assert_cmpuint(nr_tasks(&e), ==, 1);
	g_assert_cmpuint(fake_kf_open_count_tid(e.fk, 101), ==, 0);
	g_assert_cmpuint(fake_kf_open_count_tid(e.fk, 100), ==, 1);
	/* Its children are born there. */
	fake_kf_fork(e.fk, 100, 400, 400);
	assert_content(&e, a, "cgroup.procs", "100\n400\n");
	env_teardown(&e);
}

/* The process's threads in two groups: it carries on in the exec'ing
 * thread's, not the leader's. */
static void test_exec_takes_execers_groups(void)
{
	struct env e;
	uint64_t a, b;

	env_setup(&e);
	populate(&e);
	a = mkdir_ok(&e, e.top[0], "a");
	b = mkdir_ok(&e, e.top[0], "b");
	wr_ok(&e, a, "cgroup.procs", "100");
	wr_ok(&e, b, "tasks", "102");
	fake_kf_exec(e.fk, 102);
	assert_content(&e, a, "tasks", "");
	assert_content(&e, b, "tasks", "100\n");
	g_assert_cmpuint(nr_tasks(&e), ==, 1);
	g_assert_cmpint(cg_rmdir(e.core, e.top[0], "a", &root_cred), ==, 0);
	g_assert_cmpint(cg_rmdir(e.core, e.top[0], "b", &root_cred), ==, -EBUSY);
	env_teardown(&e);
}

/* The leader execs: it stays where it was, the other threads are gone. */
static void test_leader_exec(void)
{
	struct env e;
	uint64_t a;

	env_setup(&e);
	populate(&e);
	a = mkdir_ok(&e, e.top[0], "a");
	wr_ok(&e, a, "cgroup.procs", "100");
	fake_kf_exec(e.fk, 100);
	assert_content(&e, a, "tasks", "100\n");
	g_assert_cmpuint(nr_tasks(&e), ==, 1);
	env_teardown(&e);
}

/* The exec'ing thread was in the root, the leader in a group: the process
 * is in the root afterwards, as the kernel has it. */
static void test_exec_from_root_thread(void)
{
	struct env e;
	uint64_t a;

	env_setup(&e);
	populate(&e);
	a = mkdir_ok(&e, e.top[0], "a");
	wr_ok(&e, a, "tasks", "100");
	wr_ok(&e, a, "tasks", "102");
	fake_kf_exec(e.fk, 101);
	assert_content(&e, a, "tasks", "");
	g_assert_true(lists(&e, e.top[0], "tasks", 100));
	g_assert_cmpuint(nr_tasks(&e), ==, 0);
	env_teardown(&e);
}

/* What the exec'ing thread ran since it was last charged is its group's:
 * the thread survives the exec, its figures go on. */
static void test_exec_keeps_charges(void)
{
	struct env e;
	uint64_t a;
	char *s;

	env_setup(&e);
	populate(&e);
	a = mkdir_ok(&e, e.top[0], "a");
	wr_ok(&e, a, "tasks", "101");
	fake_kf_run(e.fk, 101, 5 * MS, 0, 1);
	fake_kf_exec(e.fk, 101);
	fake_kf_run(e.fk, 100, 2 * MS, 0, 1);
	s = rd(&e, a, "cpuacct.usage");
	g_assert_cmpuint(g_ascii_strtoull(s, NULL, 10), ==, 7 * MS);
	g_free(s);
	env_teardown(&e);
}

/* Reports lost around the exec: the core asks about every task it tracks,
 * and lists no dead id (the process is then in the root: cgfused(8)). */
static void test_exec_lost_reports(void)
{
	struct env e;
	uint64_t a;

	env_setup(&e);
	populate(&e);
	a = mkdir_ok(&e, e.top[0], "a");
	wr_ok(&e, a, "tasks", "101");
	fake_kf_exec(e.fk, 101);
	fake_kf_lose_exits(e.fk);
	assert_content(&e, a, "tasks", "");
	g_assert_cmpuint(nr_tasks(&e), ==, 0);
	g_assert_cmpuint(fake_kf_open_count(e.fk), ==, 0);
	env_teardown(&e);
}

/* Subscribers hear a fork from the old id, then its exit, so that what
 * they keep per thread follows it. */
struct heard {
	struct cg_subscriber sub;
	GString *log;
};

static void on_fork(void *data, struct task *parent, struct task *child)
{
	struct heard *h = data;

	g_string_append_printf(h->log, "fork %d %d\n", parent->tid, child->tid);
}

static void on_exit_(void *data, struct task *t)
{
	struct heard *h = data;

	g_string_append_printf(h->log, "exit %d\n", t->tid);
}

static void test_exec_heard_as_fork_exit(void)
{
	struct env e;
	struct heard h = { .log = g_string_new(NULL) };
	uint64_t a;

	env_setup(&e);
	populate(&e);
	a = mkdir_ok(&e, e.top[0], "a");
	wr_ok(&e, a, "cgroup.procs", "100");
	h.sub = (struct cg_subscriber){ .data = &h, .fork = on_fork, .exit = on_exit_ };
	cg_subscribe(e.core, &h.sub);
	fake_kf_exec(e.fk, 102);
	assert_content(&e, a, "tasks", "100\n");
	g_assert_cmpstr(h.log->str, ==, "exit 101\nexit 100\nfork 102 100\nexit 102\n");
	cg_unsubscribe(e.core, &h.sub);
	g_string_free(h.log, TRUE);
	env_teardown(&e);
}

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/exec/non-leader", test_non_leader_exec);
	g_test_add_func("/exec/execers-groups", test_exec_takes_execers_groups);
	g_test_add_func("/exec/leader", test_leader_exec);
	g_test_add_func("/exec/from-root-thread", test_exec_from_root_thread);
	g_test_add_func("/exec/keeps-charges", test_exec_keeps_charges);
	g_test_add_func("/exec/lost-reports", test_exec_lost_reports);
	g_test_add_func("/exec/heard-as-fork-exit", test_exec_heard_as_fork_exit);
	return g_test_run();
}
