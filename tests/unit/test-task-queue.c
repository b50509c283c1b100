/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests of the task watcher's queue (core/task_queue.c) on the fake
 * kernel facade: reports are read and made ready with the core lock let
 * go (task_pull), then applied under it with no system call, and every
 * order in which reading, applying and the other operations can meet
 * keeps the kernel's memberships. task_pull() stands for the watcher
 * thread having read the reports before an operation applies them. */
#include <errno.h>

#include <glib.h>

#include "core/cgroup.h"
#include "core/internal.h"
#include "core/task.h"
#include "core/task_queue.h"
#include "fake-kfacade.h"
#include "test-env.h"

#define INIT 1
#define P100 100		/* threads 100, 101, 102 */
#define P300 300		/* the writer */
#define P500 500		/* a process whose children are watched */

static void populate(struct env *e)
{
	e->writer = P300;
	fake_kf_add_process(e->fk, INIT, 1);
	fake_kf_add_process(e->fk, P100, 3);
	fake_kf_add_process(e->fk, P300, 1);
	fake_kf_add_process(e->fk, P500, 1);
}

/* A core with group a holding P500, whose children the tests watch. */
static uint64_t setup_parent_in_a(struct env *e)
{
	uint64_t a;

	env_setup(e);
	populate(e);
	a = mkdir_ok(e, e->top[0], "a");
	wr_ok(e, a, "tasks", "500");
	return a;
}

/* A child and its own child reported in one batch: the grandchild's parent
 * is not tracked yet when the batch is read, but will be (born). */
static void test_grandchild_same_batch(void)
{
	struct env e;
	uint64_t a;

	a = setup_parent_in_a(&e);
	fake_kf_fork(e.fk, 500, 600, 600);
	fake_kf_fork(e.fk, 600, 601, 601);
	assert_content(&e, a, "tasks", "500\n600\n601\n");
	g_assert_cmpuint(fake_kf_open_count_tid(e.fk, 601), ==, 1);
	env_teardown(&e);
}

/* The same, the child's report read (queued, not applied) before the
 * grandchild is born. */
static void test_grandchild_next_batch(void)
{
	struct env e;
	uint64_t a;

	a = setup_parent_in_a(&e);
	fake_kf_fork(e.fk, 500, 600, 600);
	task_pull(e.core);
	g_assert_true(task_queue_pending(e.core));
	fake_kf_fork(e.fk, 600, 601, 601);
	task_pull(e.core);
	assert_content(&e, a, "tasks", "500\n600\n601\n");
	env_teardown(&e);
}

/* A fork reported while its parent was untracked: the child was born
 * before the parent joined a group and stays in the root. */
static void test_fork_before_parent_joined(void)
{
	struct env e;
	uint64_t a;

	env_setup(&e);
	populate(&e);
	a = mkdir_ok(&e, e.top[0], "a");
	fake_kf_fork(e.fk, 500, 600, 600);
	task_pull(e.core);
	wr_ok(&e, a, "tasks", "500");
	assert_content(&e, a, "tasks", "500\n");
	g_assert_true(lists(&e, e.top[0], "tasks", 600));
	g_assert_cmpuint(fake_kf_open_count_tid(e.fk, 600), ==, 0);
	env_teardown(&e);
}

/* A fork report read before the child was moved elsewhere, applied by the
 * move itself: the child first joins its parent's group, then moves. */
static void test_fork_applied_after_move(void)
{
	struct env e;
	uint64_t a, b;

	a = setup_parent_in_a(&e);
	b = mkdir_ok(&e, e.top[0], "b");
	fake_kf_fork(e.fk, 500, 600, 600);
	task_pull(e.core);
	wr_ok(&e, b, "tasks", "600");
	assert_content(&e, a, "tasks", "500\n");
	assert_content(&e, b, "tasks", "600\n");
	g_assert_cmpuint(nr_tasks(&e), ==, 2);
	g_assert_cmpuint(fake_kf_open_count_tid(e.fk, 600), ==, 1);
	env_teardown(&e);
}

/* The child exits after its identity was opened but before the fork is
 * applied: it is tracked for a moment, then forgotten, nothing left open. */
static void test_exit_after_fork_read(void)
{
	struct env e;
	uint64_t a;

	a = setup_parent_in_a(&e);
	fake_kf_fork(e.fk, 500, 600, 600);
	task_pull(e.core);
	fake_kf_exit(e.fk, 600);
	assert_content(&e, a, "tasks", "500\n");
	g_assert_cmpuint(nr_tasks(&e), ==, 1);
	g_assert_cmpuint(fake_kf_open_count_tid(e.fk, 600), ==, 0);
	env_teardown(&e);
}

/* A thread born in a group execs, its fork read (queued, not applied) but
 * not its exec yet: the process still carries on in the group under the
 * leader's id. (Both read at once, the thread is gone before its identity
 * can be read, the kernel's and the old catch-up's limit alike.) */
static void test_exec_by_born_thread(void)
{
	struct env e;
	uint64_t a;

	env_setup(&e);
	populate(&e);
	a = mkdir_ok(&e, e.top[0], "a");
	wr_ok(&e, a, "cgroup.procs", "100");
	fake_kf_fork(e.fk, 0, 104, 100);
	task_pull(e.core);
	fake_kf_exec(e.fk, 104);
	assert_content(&e, a, "tasks", "100\n");
	g_assert_cmpuint(nr_tasks(&e), ==, 1);
	g_assert_cmpuint(fake_kf_open_count_tid(e.fk, 104), ==, 0);
	g_assert_cmpuint(fake_kf_open_count_tid(e.fk, 100), ==, 1);
	env_teardown(&e);
}

/* Reports lost after an exit and a fork that reuses the id were read: the
 * resync found the old thread gone, but applies its drop only to the
 * thread that had that identity, not to the new one. */
static void test_resync_spares_reused_id(void)
{
	struct env e;
	uint64_t a;
	struct task *t;

	a = setup_parent_in_a(&e);
	wr_ok(&e, a, "tasks", "101");
	fake_kf_exit(e.fk, 101);
	fake_kf_fork(e.fk, 500, 101, 101);	/* the id again, a new thread */
	task_pull(e.core);
	fake_kf_lose_exits(e.fk);
	task_pull(e.core);			/* the resync, checked unlocked */
	assert_content(&e, a, "tasks", "101\n500\n");
	t = task_lookup(e.core, 101);
	g_assert_nonnull(t);
	g_assert_cmpuint(t->ident.ino, ==, fake_kf_ino(e.fk, 101));
	g_assert_cmpuint(fake_kf_open_count_tid(e.fk, 101), ==, 1);
	g_assert_cmpuint(e.core->nr_resyncs, ==, 1);
	env_teardown(&e);
}

/* A source that reports late (a /proc scan) names the exited thread's
 * identity: its exit, come after the id was reused by a thread attached
 * meanwhile, leaves that new thread alone. */
static void test_late_exit_spares_reused_id(void)
{
	struct env e;
	uint64_t a;
	struct task *t;

	a = setup_parent_in_a(&e);
	wr_ok(&e, a, "tasks", "101");
	fake_kf_exit_late_known(e.fk, 101);
	fake_kf_reuse(e.fk, 101, 100);		/* the id again, a new thread */
	wr_ok(&e, a, "tasks", "101");
	fake_kf_report_late(e.fk);
	assert_content(&e, a, "tasks", "101\n500\n");
	t = task_lookup(e.core, 101);
	g_assert_nonnull(t);
	g_assert_cmpuint(t->ident.ino, ==, fake_kf_ino(e.fk, 101));
	env_teardown(&e);
}

/* Fork reports lost: the resync finds the children born in the group, and
 * the grandchild too (its parent is itself an orphan found). */
static void test_resync_adopts_lost_children(void)
{
	struct env e;
	uint64_t a;

	a = setup_parent_in_a(&e);
	fake_kf_lose_exits(e.fk);
	fake_kf_fork(e.fk, 500, 600, 600);
	fake_kf_fork(e.fk, 600, 601, 601);
	assert_content(&e, a, "tasks", "500\n600\n601\n");
	g_assert_true(lists(&e, e.top[0], "tasks", 300));
	env_teardown(&e);
}

/* Everything the queue holds (forks, a grandchild, an exit, an exec by a
 * non-leader, a resync adopting a child whose report was lost) is applied
 * under the write lock without one call the real facade makes a system
 * call for, and ends where the kernel would be. */
static void test_apply_makes_no_system_call(void)
{
	struct env e;
	uint64_t a, b;
	unsigned before;

	a = setup_parent_in_a(&e);
	b = mkdir_ok(&e, e.top[0], "b");
	wr_ok(&e, b, "cgroup.procs", "100");
	fake_kf_fork(e.fk, 500, 600, 600);
	fake_kf_fork(e.fk, 600, 601, 601);
	task_pull(e.core);
	fake_kf_exit(e.fk, 601);
	fake_kf_exec(e.fk, 102);
	task_pull(e.core);
	fake_kf_lose_exits(e.fk);
	fake_kf_fork(e.fk, 500, 602, 602);	/* its report lost */
	task_pull(e.core);

	cg_write_lock(&e.core->lock);
	before = fake_kf_sys_calls(e.fk);
	task_catch_up(e.core);
	g_assert_cmpuint(fake_kf_sys_calls(e.fk), ==, before);
	g_assert_false(task_queue_pending(e.core));
	cg_write_unlock(&e.core->lock);

	assert_content(&e, a, "tasks", "500\n600\n602\n");
	assert_content(&e, b, "tasks", "100\n");
	g_assert_cmpuint(nr_tasks(&e), ==, 4);
	env_teardown(&e);
}

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/task-queue/grandchild-same-batch", test_grandchild_same_batch);
	g_test_add_func("/task-queue/grandchild-next-batch", test_grandchild_next_batch);
	g_test_add_func("/task-queue/fork-before-parent-joined", test_fork_before_parent_joined);
	g_test_add_func("/task-queue/fork-applied-after-move", test_fork_applied_after_move);
	g_test_add_func("/task-queue/exit-after-fork-read", test_exit_after_fork_read);
	g_test_add_func("/task-queue/exec-by-born-thread", test_exec_by_born_thread);
	g_test_add_func("/task-queue/resync-spares-reused-id", test_resync_spares_reused_id);
	g_test_add_func("/task-queue/late-exit-spares-reused-id", test_late_exit_spares_reused_id);
	g_test_add_func("/task-queue/resync-adopts-lost-children",
			test_resync_adopts_lost_children);
	g_test_add_func("/task-queue/apply-makes-no-system-call", test_apply_makes_no_system_call);
	return g_test_run();
}
