/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests of attaching tasks (tasks, cgroup.procs), listing them, their
 * exit and id reuse, and the directory operations, on the fake kernel
 * facade. Expected values are the kernel's (docs/kernel-oracle.md). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "core/attach.h"
#include "core/cgroup.h"
#include "core/css_set.h"
#include "ctl/ctl.h"
#include "fake-kfacade.h"
#include "core/internal.h"
#include "core/task.h"
#include "core/task_proc.h"
#include "test-env.h"

/* The made-up system of most tests (see populate()). */
#define KTHREAD 2
#define INIT 1
#define P100 100		/* threads 100, 101, 102 */
#define P200 200		/* one thread */
#define P300 300		/* threads 300, 301: the writer's process */
#define WRITER 301
static const struct cg_cred writer_cred = { .pid = WRITER };

/* ---- helpers ------------------------------------------------------------ */

/* Makes the system, and thread WRITER the one wr() writes as. */
static void populate(struct env *e)
{
	e->writer = WRITER;
	fake_kf_add_kthread(e->fk, KTHREAD);
	fake_kf_add_process(e->fk, INIT, 1);
	fake_kf_add_process(e->fk, P100, 3);
	fake_kf_add_process(e->fk, P200, 1);
	fake_kf_add_process(e->fk, P300, 2);
}

/* What the core tracks, to show that a failed operation changed nothing. */
struct snapshot {
	unsigned tasks, css_sets, open;
};

static struct snapshot snap(struct env *e)
{
	struct snapshot s = { nr_tasks(e), nr_css_sets(e), fake_kf_open_count(e->fk) };

	return s;
}

/* Not fatal: a run with -k goes on to the next test. */
static void assert_same(const struct snapshot *a, const struct snapshot *b)
{
	EXPECT_INT(b->tasks, a->tasks, "%s", "tracked tasks");
	EXPECT_INT(b->css_sets, a->css_sets, "%s", "css_sets");
	EXPECT_INT(b->open, a->open, "%s", "open identities");
}

/* ---- attaching ---------------------------------------------------------- */

/* tasks: only the thread written moves; cgroup.procs lists its tgid even
 * though the leader is elsewhere, and so does the root's. */
static void test_tasks_one_thread(void)
{
	struct env e;
	uint64_t a;

	env_setup(&e);
	populate(&e);
	a = mkdir_ok(&e, e.top[0], "a");
	g_assert_cmpint(wr(&e, a, "tasks", "101"), ==, 3);
	assert_content(&e, a, "tasks", "101\n");
	assert_content(&e, a, "cgroup.procs", "100\n");
	g_assert_false(lists(&e, e.top[0], "tasks", 101));
	g_assert_true(lists(&e, e.top[0], "tasks", 100));
	g_assert_true(lists(&e, e.top[0], "tasks", 102));
	g_assert_true(lists(&e, e.top[0], "cgroup.procs", 100));
	g_assert_cmpuint(nr_tasks(&e), ==, 1);
	g_assert_cmpuint(fake_kf_open_count(e.fk), ==, 1);

	/* A second thread: both listed, the process once. */
	g_assert_cmpint(wr(&e, a, "tasks", "102"), ==, 3);
	assert_content(&e, a, "tasks", "101\n102\n");
	assert_content(&e, a, "cgroup.procs", "100\n");
	g_assert_true(lists(&e, e.top[0], "cgroup.procs", 100));	/* 100 is there */

	/* The tgid written to tasks moves only the leader. */
	g_assert_cmpint(wr(&e, a, "tasks", "100"), ==, 3);
	assert_content(&e, a, "tasks", "100\n101\n102\n");
	g_assert_false(lists(&e, e.top[0], "cgroup.procs", 100));
	env_teardown(&e);
}

/* cgroup.procs given a non-leader tid moves the whole process. */
static void test_procs_whole_group(void)
{
	struct env e;
	uint64_t a;

	env_setup(&e);
	populate(&e);
	a = mkdir_ok(&e, e.top[0], "a");
	g_assert_cmpint(wr(&e, a, "cgroup.procs", "102"), ==, 3);
	assert_content(&e, a, "tasks", "100\n101\n102\n");
	assert_content(&e, a, "cgroup.procs", "100\n");
	for (pid_t t = 100; t <= 102; t++)
		g_assert_false(lists(&e, e.top[0], "tasks", t));
	g_assert_false(lists(&e, e.top[0], "cgroup.procs", 100));
	g_assert_true(lists(&e, e.top[0], "cgroup.procs", 200));
	g_assert_cmpuint(nr_tasks(&e), ==, 3);
	g_assert_cmpuint(nr_css_sets(&e), ==, 2);

	/* And back, all of it, with the tgid to the root's cgroup.procs. */
	g_assert_cmpint(wr(&e, e.top[0], "cgroup.procs", "100"), ==, 3);
	assert_content(&e, a, "tasks", "");
	g_assert_cmpuint(nr_tasks(&e), ==, 3);	/* tracked until they exit */
	g_assert_cmpuint(nr_css_sets(&e), ==, 1);
	fake_kf_exit_process(e.fk, 100);
	assert_content(&e, a, "tasks", "");	/* reads reap */
	g_assert_cmpuint(nr_tasks(&e), ==, 0);
	g_assert_cmpuint(fake_kf_open_count(e.fk), ==, 0);
	env_teardown(&e);
}

/* "0" is the writer: its thread for tasks, its process for cgroup.procs. */
static void test_zero_is_writer(void)
{
	struct env e;
	uint64_t a, b;

	env_setup(&e);
	populate(&e);
	a = mkdir_ok(&e, e.top[0], "a");
	b = mkdir_ok(&e, e.top[0], "b");
	g_assert_cmpint(wrn(&e, a, "tasks", "0", 1, 301), ==, 1);
	assert_content(&e, a, "tasks", "301\n");
	g_assert_cmpint(wrn(&e, b, "cgroup.procs", "0\n", 2, 301), ==, 2);
	assert_content(&e, a, "tasks", "");
	assert_content(&e, b, "tasks", "300\n301\n");
	g_assert_cmpint(wrn(&e, a, "tasks", "0", 1, 200), ==, 1);
	assert_content(&e, a, "tasks", "200\n");
	env_teardown(&e);
}

/* The buffer is stripped, then kstrtoint(.., 0): bases, '+', white space. */
static void test_accepted_forms(void)
{
	static const char *const forms[] = {
		"200", "200\n", " 200", "200 ", "\t200\n", "200\n\n", "+200", "0xc8",
		"0310", " \n\t200\t\n ", "\v200\f\r",
	};
	struct env e;
	uint64_t a;

	env_setup(&e);
	populate(&e);
	a = mkdir_ok(&e, e.top[0], "a");
	for (unsigned f = 0; f < 2; f++) {
		const char *file = f ? "cgroup.procs" : "tasks";

		for (unsigned i = 0; i < G_N_ELEMENTS(forms); i++) {
			char *esc = g_strescape(forms[i], NULL);
			char *got;

			EXPECT_INT(wr(&e, a, file, forms[i]), strlen(forms[i]),
				   "write \"%s\" to %s", esc, file);
			got = rd(&e, a, "tasks");
			if (strcmp(got, "200\n") != 0)
				FAILF("after \"%s\" to %s, tasks reads \"%s\"", esc, file, got);
			g_free(got);
			wr_ok(&e, e.top[0], "tasks", "200");
			g_free(esc);
		}
	}
	/* An embedded NUL ends the command; the whole length is returned. */
	g_assert_cmpint(wrn(&e, a, "tasks", "200\0junk", 8, WRITER), ==, 8);
	assert_content(&e, a, "tasks", "200\n");
	/* Writing a task already in the group is fine. */
	g_assert_cmpint(wr(&e, a, "tasks", "200"), ==, 3);
	assert_content(&e, a, "tasks", "200\n");
	env_teardown(&e);
}

/* The kernel's strstrip() uses its own isspace(), which counts Latin-1
 * NBSP (0xa0) as white space. Measured on this machine: writing
 * "\xa0" "PID" and "PID\xa0" to a cpuset group's tasks moves PID. */
static void test_latin1_nbsp(void)
{
	static const char *const forms[] = { "\xa0" "200", "200\xa0", " \xa0" "200\n" };
	struct env e;
	uint64_t a;

	env_setup(&e);
	populate(&e);
	a = mkdir_ok(&e, e.top[0], "a");
	for (unsigned i = 0; i < G_N_ELEMENTS(forms); i++) {
		char *esc = g_strescape(forms[i], NULL);

		EXPECT_INT(wr(&e, a, "tasks", forms[i]), strlen(forms[i]), "write \"%s\" to tasks",
			   esc);
		if (!lists(&e, a, "tasks", 200))
			FAILF("after \"%s\", 200 is not in the group", esc);
		wr_ok(&e, e.top[0], "tasks", "200");
		g_free(esc);
	}
	env_teardown(&e);
}

/* Everything the kernel refuses with EINVAL; nothing changes. */
static void test_invalid(void)
{
	static const char *const bad[] = {
		"abc", "1 2", "200 100", "200\n100", "200,100", "-1", "-200", "2147483648",
		"4294967295", "4294967296", "18446744073709551616", "\n", " ", "200abc",
		"0200abc", "08", "0x", "--200", "+-200",
	};
	struct env e;
	uint64_t a;
	struct snapshot before, after;

	env_setup(&e);
	populate(&e);
	a = mkdir_ok(&e, e.top[0], "a");
	before = snap(&e);
	for (unsigned f = 0; f < 2; f++) {
		const char *file = f ? "cgroup.procs" : "tasks";

		for (unsigned i = 0; i < G_N_ELEMENTS(bad); i++) {
			char *esc = g_strescape(bad[i], NULL);

			EXPECT_INT(wr(&e, a, file, bad[i]), -EINVAL, "write \"%s\" to %s", esc,
				   file);
			g_free(esc);
		}
	}
	/* A 0-byte write is a no-op that returns 0. */
	g_assert_cmpint(wrn(&e, a, "tasks", "", 0, WRITER), ==, 0);
	assert_content(&e, a, "tasks", "");
	after = snap(&e);
	assert_same(&before, &after);
	env_teardown(&e);
}

/* No such thread: ESRCH, for ids in and beyond any pid range. */
static void test_esrch(void)
{
	static const char *const none[] = { "12345", "30000", "32768", "4194304", "2147483647" };
	struct env e;
	uint64_t a;
	struct snapshot before, after;

	env_setup(&e);
	populate(&e);
	a = mkdir_ok(&e, e.top[0], "a");
	before = snap(&e);
	for (unsigned i = 0; i < G_N_ELEMENTS(none); i++) {
		EXPECT_INT(wr(&e, a, "tasks", none[i]), -ESRCH, "tasks <- %s", none[i]);
		EXPECT_INT(wr(&e, a, "cgroup.procs", none[i]), -ESRCH, "cgroup.procs <- %s",
			   none[i]);
	}
	after = snap(&e);
	assert_same(&before, &after);
	env_teardown(&e);
}

/* Kernel threads cannot be moved: EINVAL; but the root lists them. */
static void test_kthread(void)
{
	struct env e;
	uint64_t a;
	struct snapshot before, after;

	env_setup(&e);
	populate(&e);
	a = mkdir_ok(&e, e.top[0], "a");
	before = snap(&e);
	g_assert_cmpint(wr(&e, a, "tasks", "2"), ==, -EINVAL);
	g_assert_cmpint(wr(&e, a, "cgroup.procs", "2"), ==, -EINVAL);
	after = snap(&e);
	assert_same(&before, &after);
	assert_content(&e, a, "tasks", "");
	assert_content(&e, e.top[0], "tasks", "1\n2\n100\n101\n102\n200\n300\n301\n");
	assert_content(&e, e.top[0], "cgroup.procs", "1\n2\n100\n200\n300\n");
	env_teardown(&e);
}

/* Lists are sorted ascending, one id a line, each once. */
static void test_list_sorted_unique(void)
{
	struct env e;
	uint64_t a;

	env_setup(&e);
	populate(&e);
	a = mkdir_ok(&e, e.top[0], "a");
	wr_ok(&e, a, "tasks", "301");
	wr_ok(&e, a, "tasks", "200");
	wr_ok(&e, a, "tasks", "102");
	wr_ok(&e, a, "tasks", "100");
	wr_ok(&e, a, "tasks", "102");
	assert_content(&e, a, "tasks", "100\n102\n200\n301\n");
	assert_content(&e, a, "cgroup.procs", "100\n200\n300\n");
	/* The root lists what is left, and every process with a thread left. */
	assert_content(&e, e.top[0], "tasks", "1\n2\n101\n300\n");
	assert_content(&e, e.top[0], "cgroup.procs", "1\n2\n100\n300\n");
	env_teardown(&e);
}

/* ---- exit and id reuse -------------------------------------------------- */

static void check_invariants(struct env *e);

/* An exited task is no longer listed; its css_set goes; rmdir then works;
 * the core's tables and lists follow each step. */
static void test_exit(void)
{
	struct env e;
	uint64_t a;

	env_setup(&e);
	populate(&e);
	a = mkdir_ok(&e, e.top[0], "a");
	wr_ok(&e, a, "tasks", "200");
	wr_ok(&e, a, "cgroup.procs", "100");
	check_invariants(&e);
	g_assert_cmpint(cg_rmdir(e.core, e.top[0], "a", &root_cred), ==, -EBUSY);

	fake_kf_exit(e.fk, 200);
	assert_content(&e, a, "tasks", "100\n101\n102\n");
	assert_content(&e, a, "cgroup.procs", "100\n");
	g_assert_cmpuint(fake_kf_open_count(e.fk), ==, 3);
	check_invariants(&e);

	/* The leader exits: the process is still listed for its threads. */
	fake_kf_exit(e.fk, 100);
	assert_content(&e, a, "tasks", "101\n102\n");
	assert_content(&e, a, "cgroup.procs", "100\n");
	check_invariants(&e);
	g_assert_cmpint(cg_rmdir(e.core, e.top[0], "a", &root_cred), ==, -EBUSY);

	fake_kf_exit(e.fk, 101);
	assert_content(&e, a, "tasks", "102\n");
	check_invariants(&e);
	fake_kf_exit_process(e.fk, 100);
	assert_content(&e, a, "tasks", "");
	assert_content(&e, a, "cgroup.procs", "");
	g_assert_cmpuint(nr_css_sets(&e), ==, 1);
	g_assert_cmpuint(nr_tasks(&e), ==, 0);
	g_assert_cmpuint(fake_kf_open_count(e.fk), ==, 0);
	check_invariants(&e);
	g_assert_false(lists(&e, e.top[0], "tasks", 200));
	g_assert_cmpint(cg_rmdir(e.core, e.top[0], "a", &root_cred), ==, 0);
	env_teardown(&e);
}

/* rmdir notices the exit by itself (nothing read in between). */
static void test_exit_then_rmdir(void)
{
	struct env e;
	uint64_t a;

	env_setup(&e);
	populate(&e);
	a = mkdir_ok(&e, e.top[0], "a");
	wr_ok(&e, a, "tasks", "200");
	fake_kf_exit(e.fk, 200);
	g_assert_cmpint(cg_rmdir(e.core, e.top[0], "a", &root_cred), ==, 0);
	g_assert_cmpuint(nr_css_sets(&e), ==, 1);
	g_assert_cmpuint(fake_kf_open_count(e.fk), ==, 0);
	env_teardown(&e);
}

/* For fake_kf_forbid_when(): a system call under the write side fails
 * the test. */
static bool write_held(void *lock)
{
	return cg_write_held(lock);
}

/* rmdir of a group that still lists members asks about each (gone, or
 * keeping it busy) with no lock held: a thousand live members are a
 * thousand system calls, which must not stall every other operation. */
static void test_rmdir_asks_unlocked(void)
{
	struct env e;
	uint64_t a;

	env_setup(&e);
	populate(&e);
	a = mkdir_ok(&e, e.top[0], "a");
	wr_ok(&e, a, "tasks", "200");
	wr_ok(&e, a, "cgroup.procs", "100");
	fake_kf_exit_late(e.fk, 101);
	fake_kf_forbid_when(e.fk, write_held, &e.core->lock);
	g_assert_cmpint(cg_rmdir(e.core, e.top[0], "a", &root_cred), ==, -EBUSY);
	g_assert_false(lists(&e, a, "tasks", 101));
	g_assert_true(lists(&e, a, "tasks", 102));
	fake_kf_forbid_when(e.fk, NULL, NULL);
	env_teardown(&e);
}

/* The exit report comes after the parent reaped the process: rmdir asks
 * about the group's tasks before it says EBUSY, as the kernel (which moves
 * a task out in cgroup_exit(), before exit_notify()) would not. A live
 * task still keeps the group busy. */
static void test_reaped_before_report_then_rmdir(void)
{
	struct env e;
	uint64_t a;

	env_setup(&e);
	populate(&e);
	a = mkdir_ok(&e, e.top[0], "a");
	wr_ok(&e, a, "tasks", "200");
	wr_ok(&e, a, "tasks", "300");
	fake_kf_exit_late(e.fk, 200);
	g_assert_cmpint(cg_rmdir(e.core, e.top[0], "a", &root_cred), ==, -EBUSY);
	g_assert_false(lists(&e, a, "tasks", 200));
	fake_kf_exit_late(e.fk, 300);
	g_assert_cmpint(cg_rmdir(e.core, e.top[0], "a", &root_cred), ==, 0);
	g_assert_cmpuint(nr_css_sets(&e), ==, 1);
	fake_kf_report_late(e.fk);	/* reports of untracked tasks: ignored */
	g_assert_cmpuint(nr_tasks(&e), ==, 0);
	g_assert_cmpuint(fake_kf_open_count(e.fk), ==, 0);
	env_teardown(&e);
}

/* A child starts in its parent's groups (kernel fork semantics): a process
 * in the forking thread's, a new thread in its process leader's. A child of
 * a task in the root, or untracked, is not tracked at all. */
static void test_fork_follows_parent(void)
{
	struct env e;
	uint64_t a;

	env_setup(&e);
	populate(&e);
	a = mkdir_ok(&e, e.top[0], "a");
	wr_ok(&e, a, "tasks", "101");
	fake_kf_fork(e.fk, 101, 400, 400);	/* 101 forks a process */
	fake_kf_fork(e.fk, 200, 401, 401);	/* 200 (untracked) too */
	assert_content(&e, a, "tasks", "101\n400\n");
	assert_content(&e, a, "cgroup.procs", "100\n400\n");
	g_assert_true(lists(&e, e.top[0], "tasks", 401));
	g_assert_cmpuint(nr_tasks(&e), ==, 2);

	wr_ok(&e, a, "tasks", "100");
	fake_kf_fork(e.fk, 0, 104, 100);	/* a new thread of 100 */
	assert_content(&e, a, "tasks", "100\n101\n104\n400\n");

	/* A child that is gone before the core hears of its birth: nothing. */
	fake_kf_fork(e.fk, 400, 402, 402);
	fake_kf_exit(e.fk, 402);
	assert_content(&e, a, "tasks", "100\n101\n104\n400\n");
	env_teardown(&e);
}

/* Exit reports lost (the proc connector overran): the core asks about every
 * task it tracks, so the exited one is still dropped and the live one kept. */
static void test_lost_exits_resync(void)
{
	struct env e;
	uint64_t a;

	env_setup(&e);
	populate(&e);
	a = mkdir_ok(&e, e.top[0], "a");
	wr_ok(&e, a, "tasks", "101");
	wr_ok(&e, a, "tasks", "200");
	fake_kf_exit(e.fk, 101);
	fake_kf_lose_exits(e.fk);
	assert_content(&e, a, "tasks", "200\n");
	g_assert_cmpuint(nr_tasks(&e), ==, 1);
	g_assert_cmpuint(fake_kf_open_count_tid(e.fk, 101), ==, 0);
	/* A reused id is a new thread, not the tracked one. */
	fake_kf_reuse(e.fk, 200, 200);
	fake_kf_lose_exits(e.fk);
	assert_content(&e, a, "tasks", "");
	g_assert_cmpint(cg_rmdir(e.core, e.top[0], "a", &root_cred), ==, 0);
	env_teardown(&e);
}

/* Writing the id of a tracked task that has exited: ESRCH (the kernel has
 * no such task), and it is forgotten. */
static void test_exited_is_esrch(void)
{
	struct env e;
	uint64_t a, b;

	env_setup(&e);
	populate(&e);
	a = mkdir_ok(&e, e.top[0], "a");
	b = mkdir_ok(&e, e.top[0], "b");
	wr_ok(&e, a, "tasks", "200");
	fake_kf_exit(e.fk, 200);
	g_assert_cmpint(wr(&e, b, "tasks", "200"), ==, -ESRCH);
	g_assert_cmpint(wr(&e, e.top[0], "tasks", "200"), ==, -ESRCH);
	g_assert_cmpuint(nr_tasks(&e), ==, 0);
	g_assert_cmpuint(nr_css_sets(&e), ==, 1);
	g_assert_cmpuint(fake_kf_open_count(e.fk), ==, 0);
	env_teardown(&e);
}

/* A tid that exited and was reused by a new thread is not in the old
 * group: the new thread starts in the root. */
static void test_pid_reuse(void)
{
	struct env e;
	uint64_t a, b;
	struct task *t;

	env_setup(&e);
	populate(&e);
	a = mkdir_ok(&e, e.top[0], "a");
	b = mkdir_ok(&e, e.top[0], "b");
	wr_ok(&e, a, "tasks", "200");
	fake_kf_reuse(e.fk, 200, 200);
	assert_content(&e, a, "tasks", "");
	assert_content(&e, a, "cgroup.procs", "");
	g_assert_true(lists(&e, e.top[0], "tasks", 200));
	cg_write_lock(&e.core->lock);
	g_assert_null(task_lookup(e.core, 200));
	cg_write_unlock(&e.core->lock);
	g_assert_cmpuint(nr_css_sets(&e), ==, 1);
	g_assert_cmpuint(fake_kf_open_count(e.fk), ==, 0);

	/* Reused again with nothing read in between, then moved to b: only b
	 * has it, and it is the new thread. */
	wr_ok(&e, a, "tasks", "200");
	fake_kf_reuse(e.fk, 200, 200);
	wr_ok(&e, b, "tasks", "200");
	assert_content(&e, a, "tasks", "");
	assert_content(&e, b, "tasks", "200\n");
	cg_write_lock(&e.core->lock);
	t = task_lookup(e.core, 200);
	g_assert_nonnull(t);
	g_assert_cmpuint(t->ident.ino, ==, fake_kf_ino(e.fk, 200));
	g_assert_true(css_set_cgroup(t->cset, e.root[0]) == cgroup_by_id(e.core, b));
	cg_write_unlock(&e.core->lock);
	g_assert_cmpuint(fake_kf_open_count(e.fk), ==, 1);
	g_assert_cmpint(cg_rmdir(e.core, e.top[0], "a", &root_cred), ==, 0);

	/* A thread id reused by another process: the old process is not
	 * listed for it any more. */
	wr_ok(&e, b, "tasks", "101");
	assert_content(&e, b, "cgroup.procs", "100\n200\n");
	fake_kf_reuse(e.fk, 101, 500);
	assert_content(&e, b, "cgroup.procs", "200\n");
	assert_content(&e, b, "tasks", "200\n");
	wr_ok(&e, b, "cgroup.procs", "101");
	assert_content(&e, b, "cgroup.procs", "200\n500\n");
	env_teardown(&e);
}

/* A record made after the prepare, whose thread has died since (its exit
 * not reported yet) and whose id another thread has, of the writer's own
 * user: may_move() asks again under the lock, and the dead thread's record
 * is not moved on the new thread's uids. */
static void test_reused_after_prepare(void)
{
	const struct cg_cred user = { .pid = WRITER, .uid = 1000, .gid = 1000 };
	struct cg_attach_prep *p;
	struct env e;
	uint64_t a, b;

	env_setup(&e);
	populate(&e);
	a = mkdir_ok(&e, e.top[0], "a");
	b = mkdir_ok(&e, e.top[0], "b");
	wr_ok(&e, a, "tasks", "200");		/* tracked, root's */
	p = cgroup_attach_prepare(e.core, 200, false, &user);
	fake_kf_reuse(e.fk, 200, 200);
	wr_ok(&e, a, "tasks", "200");		/* the new thread, a record of its own */
	fake_kf_exit_late(e.fk, 200);
	fake_kf_reuse(e.fk, 200, 200);
	fake_kf_set_uids(e.fk, 200, &(struct task_uids){ 1000, 1000, 1000, 1000 });
	cg_write_lock(&e.core->lock);
	g_assert_cmpint(cgroup_attach(cgroup_by_id(e.core, b), p, &user), ==, -ESRCH);
	cg_write_unlock(&e.core->lock);
	cgroup_attach_prep_free(p);
	assert_content(&e, b, "tasks", "");
	env_teardown(&e);
}

/* ---- back to the root --------------------------------------------------- */

/* A task moved back to the root frees its css_set but stays tracked (in
 * init_css_set) until it exits, so that moving it again is cheap; its
 * identity is closed there (a task-watch source lets it go), and opened
 * again when it moves into a group. */
static void test_move_back_frees(void)
{
	struct env e;
	uint64_t a;

	env_setup(&e);
	populate(&e);
	a = mkdir_ok(&e, e.top[0], "a");
	wr_ok(&e, a, "tasks", "200");
	g_assert_cmpuint(fake_kf_open_count_tid(e.fk, 200), ==, 1);
	wr_ok(&e, e.top[0], "tasks", "200");
	g_assert_cmpuint(fake_kf_open_count_tid(e.fk, 200), ==, 0);
	g_assert_cmpuint(nr_tasks(&e), ==, 1);
	g_assert_cmpuint(nr_css_sets(&e), ==, 1);
	g_assert_true(lists(&e, e.top[0], "tasks", 200));
	assert_content(&e, a, "tasks", "");
	wr_ok(&e, a, "tasks", "200");
	g_assert_cmpuint(fake_kf_open_count_tid(e.fk, 200), ==, 1);
	g_assert_cmpuint(nr_tasks(&e), ==, 1);
	env_teardown(&e);
}

/* Writing a thread that the core does not track to the root's tasks
 * changes nothing: no struct task is made for it. */
static void test_root_attach_untracked(void)
{
	struct env e;
	struct snapshot before, after;

	env_setup(&e);
	populate(&e);
	mkdir_ok(&e, e.top[0], "a");
	before = snap(&e);
	g_assert_cmpint(wr(&e, e.top[0], "tasks", "200"), ==, 3);
	after = snap(&e);
	g_test_message("after 200 > root tasks: %u tracked tasks, %u open identities",
		       after.tasks, after.open);
	assert_same(&before, &after);
	g_assert_cmpint(wr(&e, e.top[0], "cgroup.procs", "101"), ==, 3);
	after = snap(&e);
	assert_same(&before, &after);
	cg_write_lock(&e.core->lock);
	EXPECT_INT(e.core->init_css_set->refcount, 1, "%s", "init_css_set refcount");
	EXPECT_INT(list_count_nodes(&e.core->init_css_set->tasks), 0, "%s",
		   "tasks in init_css_set");
	cg_write_unlock(&e.core->lock);
	env_teardown(&e);
}

/* The same through a process part of which is in a group: the threads that
 * were in the root must not stay tracked either. */
static void test_root_procs_partly_tracked(void)
{
	struct env e;
	uint64_t a;

	env_setup(&e);
	populate(&e);
	a = mkdir_ok(&e, e.top[0], "a");
	wr_ok(&e, a, "tasks", "101");
	wr_ok(&e, e.top[0], "cgroup.procs", "100");
	assert_content(&e, a, "tasks", "");
	/* 101 stays tracked (until it exits), its identity closed; 100 and
	 * 102 never were. */
	EXPECT_INT(nr_tasks(&e), 1, "%s", "tracked tasks");
	EXPECT_INT(fake_kf_open_count(e.fk), 0, "%s", "open identities");
	EXPECT_INT(fake_kf_open_count_tid(e.fk, 101), 0, "%s", "101's identity");
	env_teardown(&e);
}

/* ---- cpuset veto -------------------------------------------------------- */

/* Attaching to an empty cpuset fails with ENOSPC and changes nothing. */
static void test_enospc_empty_cpuset(void)
{
	struct env e;
	uint64_t a, b;
	struct snapshot before, after;

	env_setup_full(&e, false, false);	/* new groups get no cpus/mems */
	populate(&e);
	a = mkdir_ok(&e, e.top[0], "a");
	b = mkdir_ok(&e, e.top[0], "b");
	assert_content(&e, a, "cpuset.cpus", "\n");
	wr_ok(&e, b, "cpuset.cpus", "0-1");
	wr_ok(&e, b, "cpuset.mems", "0");
	wr_ok(&e, b, "tasks", "200");

	before = snap(&e);
	g_assert_cmpint(wr(&e, a, "tasks", "200"), ==, -ENOSPC);	/* tracked one */
	g_assert_cmpint(wr(&e, a, "tasks", "101"), ==, -ENOSPC);	/* untracked */
	g_assert_cmpint(wr(&e, a, "cgroup.procs", "102"), ==, -ENOSPC);
	g_assert_cmpint(wrn(&e, a, "tasks", "0", 1, WRITER), ==, -ENOSPC);
	after = snap(&e);
	assert_same(&before, &after);
	assert_content(&e, a, "tasks", "");
	assert_content(&e, b, "tasks", "200\n");

	/* cpus but no mems: still ENOSPC; both: ok. */
	wr_ok(&e, a, "cpuset.cpus", "0");
	g_assert_cmpint(wr(&e, a, "tasks", "200"), ==, -ENOSPC);
	g_assert_cmpint(wr(&e, a, "cgroup.procs", "100"), ==, -ENOSPC);
	after = snap(&e);
	assert_same(&before, &after);
	wr_ok(&e, a, "cpuset.mems", "0");
	wr_ok(&e, a, "tasks", "200");
	assert_content(&e, a, "tasks", "200\n");
	assert_content(&e, b, "tasks", "");
	env_teardown(&e);
}

/* ---- directory operations ----------------------------------------------- */

static void test_rmdir_rules(void)
{
	struct env e;
	uint64_t busy, p, c, old;

	env_setup(&e);
	populate(&e);
	busy = mkdir_ok(&e, e.top[0], "busy");
	p = mkdir_ok(&e, e.top[0], "p");
	c = mkdir_ok(&e, p, "c");
	wr_ok(&e, busy, "tasks", "200");

	EXPECT_INT(cg_rmdir(e.core, e.top[0], "busy", &root_cred), -EBUSY, "rmdir %s", "busy (task)");
	EXPECT_INT(cg_rmdir(e.core, e.top[0], "p", &root_cred), -EBUSY, "rmdir %s", "p (child)");
	EXPECT_INT(cg_rmdir(e.core, e.top[0], "nonexist", &root_cred), -ENOENT, "rmdir %s", "nonexist");
	EXPECT_INT(cg_rmdir(e.core, e.top[0], "tasks", &root_cred), -ENOTDIR, "rmdir %s", "tasks");
	EXPECT_INT(cg_rmdir(e.core, e.top[0], "cpu.shares", &root_cred), -ENOTDIR, "rmdir %s", "cpu.shares");
	EXPECT_INT(cg_rmdir(e.core, e.top[0], "release_agent", &root_cred), -ENOTDIR, "rmdir %s",
		   "/release_agent");
	EXPECT_INT(cg_rmdir(e.core, p, "cgroup.procs", &root_cred), -ENOTDIR, "rmdir %s", "p/cgroup.procs");
	/* Root-only files do not exist in a child. */
	EXPECT_INT(cg_rmdir(e.core, p, "release_agent", &root_cred), -ENOENT, "rmdir %s", "p/release_agent");
	EXPECT_INT(cg_rmdir(e.core, 999999, "x", &root_cred), -ENOENT, "rmdir %s", "in unknown parent");

	/* A leaf with control files goes; then its parent. */
	g_assert_cmpint(cg_rmdir(e.core, p, "c", &root_cred), ==, 0);
	cg_write_lock(&e.core->lock);
	g_assert_null(cgroup_by_id(e.core, c));
	cg_write_unlock(&e.core->lock);
	g_assert_cmpint(cg_rmdir(e.core, e.top[0], "p", &root_cred), ==, 0);
	g_assert_cmpint(cg_rmdir(e.core, e.top[0], "p", &root_cred), ==, -ENOENT);

	/* The same name again is a new group with a new id. */
	old = busy;
	wr_ok(&e, e.top[0], "tasks", "200");
	g_assert_cmpint(cg_rmdir(e.core, e.top[0], "busy", &root_cred), ==, 0);
	busy = mkdir_ok(&e, e.top[0], "busy");
	g_assert_cmpuint(busy, !=, old);
	env_teardown(&e);
}

static void test_rename_rules(void)
{
	struct env e;
	uint64_t a, b, full;
	char *path;

	env_setup(&e);
	populate(&e);
	a = mkdir_ok(&e, e.top[0], "a");
	b = mkdir_ok(&e, e.top[0], "b");
	full = mkdir_ok(&e, e.top[0], "full");
	mkdir_ok(&e, a, "kid");
	wr_ok(&e, a, "tasks", "200");
	wr_ok(&e, full, "tasks", "101");

	/* A new name in the same parent: same group, same tasks. */
	g_assert_cmpint(cg_rename(e.core, e.top[0], "a", e.top[0], "a2", &root_cred), ==, 0);
	cg_write_lock(&e.core->lock);
	g_assert_null(cgroup_child(cgroup_by_id(e.core, e.top[0]), "a"));
	g_assert_true(cgroup_child(cgroup_by_id(e.core, e.top[0]), "a2") ==
		      cgroup_by_id(e.core, a));
	path = cgroup_path(cgroup_by_id(e.core, a));
	g_assert_cmpstr(path, ==, "/a2");
	g_free(path);
	path = cgroup_path(cgroup_child(cgroup_by_id(e.core, a), "kid"));
	g_assert_cmpstr(path, ==, "/a2/kid");
	g_free(path);
	cg_write_unlock(&e.core->lock);
	assert_content(&e, a, "tasks", "200\n");
	g_assert_cmpint(cg_mkdir(e.core, e.top[0], "a", 0755, &root_cred, &(uint64_t){ 0 }), ==, 0);
	g_assert_cmpint(cg_rmdir(e.core, e.top[0], "a", &root_cred), ==, 0);

#define RENAME(from, pid, to, want)						\
	EXPECT_INT(cg_rename(e.core, e.top[0], from, pid, to, &root_cred), want,		\
		   "rename %s -> %s", from, to)
	RENAME("a2", e.top[0], "b", -EEXIST);		/* empty group */
	RENAME("a2", e.top[0], "full", -EEXIST);	/* group with tasks */
	RENAME("a2", e.top[0], "a2", 0);		/* no-op */
	RENAME("a2", b, "a3", -EIO);			/* other parent */
	RENAME("a2", a, "x", -EIO);			/* into its own subtree */
	RENAME("a2", e.top[0], "x\ny", -EINVAL);
	RENAME("nonexist", e.top[0], "zz", -ENOENT);
	RENAME("cpu.shares", e.top[0], "cpu.sharez", -ENOTDIR);	/* a control file */
	RENAME("tasks", b, "tasks", -ENOTDIR);
	RENAME("a2", e.top[0], "tasks", -ENOTDIR);	/* onto a control file */
	RENAME("a2", e.top[0], "cpu.shares", -ENOTDIR);
	RENAME("a2", e.top[0], "cgroup.procs", -ENOTDIR);
	RENAME("a2", e.top[0], "release_agent", -ENOTDIR);
#undef RENAME
	/* None of that changed anything. */
	cg_write_lock(&e.core->lock);
	g_assert_true(cgroup_child(cgroup_by_id(e.core, e.top[0]), "a2") ==
		      cgroup_by_id(e.core, a));
	g_assert_true(cgroup_child(cgroup_by_id(e.core, e.top[0]), "b") ==
		      cgroup_by_id(e.core, b));
	cg_write_unlock(&e.core->lock);
	env_teardown(&e);
}

static void test_mkdir_rules(void)
{
	static const char *const files[] = {
		"tasks", "cgroup.procs", "notify_on_release", "cgroup.clone_children",
		"cpu.shares", "cpu.cfs_period_us", "cpu.cfs_quota_us", "cpu.stat",
		"cpuset.cpus", "cpuset.mems", "cpuset.effective_cpus",
	};
	static const char *const odd[] = {
		"cpu.foo", "with space", "x.y", ".hidden", "-dash", "co:lon", "st*ar",
		"tab\tname", "release_agent", "cgroup.sane_behavior",
	};
	struct env e;
	uint64_t c, id = 0, d;
	char *name;

	env_setup(&e);
	c = mkdir_ok(&e, e.top[0], "c");
	EXPECT_INT(cg_mkdir(e.core, e.top[0], "c", 0755, &root_cred, &id), -EEXIST, "mkdir %s", "c again");
	for (unsigned i = 0; i < G_N_ELEMENTS(files); i++) {
		EXPECT_INT(cg_mkdir(e.core, e.top[0], files[i], 0755, &root_cred, &id), -EEXIST, "mkdir /%s",
			   files[i]);
		EXPECT_INT(cg_mkdir(e.core, c, files[i], 0755, &root_cred, &id), -EEXIST, "mkdir c/%s", files[i]);
	}
	/* Root-only files exist in the root only. */
	EXPECT_INT(cg_mkdir(e.core, e.top[0], "release_agent", 0755, &root_cred, &id), -EEXIST, "mkdir %s",
		   "/release_agent");
	EXPECT_INT(cg_mkdir(e.core, e.top[0], "cgroup.sane_behavior", 0755, &root_cred, &id), -EEXIST,
		   "mkdir %s", "/cgroup.sane_behavior");
	for (unsigned i = 0; i < G_N_ELEMENTS(odd); i++)
		EXPECT_INT(cg_mkdir(e.core, c, odd[i], 0755, &root_cred, &id), 0, "mkdir c/%s", odd[i]);
	EXPECT_INT(cg_mkdir(e.core, c, "nl\nname", 0755, &root_cred, &id), -EINVAL, "mkdir %s", "nl\\nname");
	EXPECT_INT(cg_mkdir(e.core, c, "\n", 0755, &root_cred, &id), -EINVAL, "mkdir %s", "\\n");
	EXPECT_INT(cg_mkdir(e.core, 999999, "x", 0755, &root_cred, &id), -ENOENT, "mkdir %s", "in unknown parent");

	/* Depth, and kernfs' name lengths: up to PATH_MAX - 1. */
	d = mkdir_ok(&e, c, "a");
	d = mkdir_ok(&e, d, "b");
	d = mkdir_ok(&e, d, "c");
	mkdir_ok(&e, d, "d");
	for (unsigned len = 255; len <= 4096; len++) {
		if (len != 255 && len != 256 && len != 1000 && len != 4095 && len != 4096)
			continue;
		name = g_strnfill(len, 'n');
		EXPECT_INT(cg_mkdir(e.core, c, name, 0755, &root_cred, &id), len == 4096 ? -ENAMETOOLONG : 0,
			   "mkdir name of %u chars", len);
		g_free(name);
	}
	env_teardown(&e);
}

/* A removed group's files answer ENODEV, also to attaching. */
static void test_removed_group(void)
{
	struct env e;
	uint64_t a;
	unsigned tasks;
	GString *out = g_string_new(NULL);

	env_setup(&e);
	populate(&e);
	a = mkdir_ok(&e, e.top[0], "a");
	tasks = file_index(&e, a, "tasks");
	g_assert_cmpint(cg_rmdir(e.core, e.top[0], "a", &root_cred), ==, 0);
	g_assert_cmpint(cg_file_write(e.core, a, tasks, "200", 3, &writer_cred), ==, -ENODEV);
	g_assert_cmpint(cg_file_read(e.core, a, tasks, out), ==, -ENODEV);
	g_assert_cmpuint(nr_tasks(&e), ==, 0);
	g_assert_cmpuint(fake_kf_open_count(e.fk), ==, 0);
	g_string_free(out, TRUE);
	env_teardown(&e);
}

/* ---- a race ------------------------------------------------------------- */

#define RACE_ITERS 2000
#define RACE_WORKERS 4
#define RACE_PID 1000		/* worker i moves process RACE_PID + i */

struct race {
	struct env *e;
	unsigned tasks, procs;	/* file indices (the same in every group) */
	gint workers_done;
	gint attached, gone, made, removed, busy;
};

struct race_worker {
	struct race *r;
	pid_t pid;
};

/* mkdir and rmdir one group "r", over and over, until the workers are done
 * (and at most RACE_DIR_ITERS times); the group lives a few yields. */
#define RACE_DIR_ITERS (RACE_ITERS * 100)

static gpointer race_dirs(gpointer data)
{
	struct race *r = data;
	struct cg_core *core = r->e->core;
	uint64_t top = r->e->top[0];

	for (unsigned i = 0; i < RACE_DIR_ITERS &&
	     g_atomic_int_get(&r->workers_done) < RACE_WORKERS; i++) {
		uint64_t id;
		int ret = cg_mkdir(core, top, "r", 0755, &root_cred, &id);

		g_assert_true(ret == 0 || ret == -EEXIST);
		if (ret == 0)
			g_atomic_int_inc(&r->made);
		for (unsigned y = 0; y < 10; y++)
			g_thread_yield();
		ret = cg_rmdir(core, top, "r", &root_cred);
		g_assert_true(ret == 0 || ret == -EBUSY);
		g_atomic_int_inc(ret == 0 ? &r->removed : &r->busy);
		g_thread_yield();
	}
	return NULL;
}

static uint64_t current_r(struct race *r)
{
	struct cg_core *core = r->e->core;
	struct cgroup *cgrp;
	uint64_t id;

	cg_write_lock(&core->lock);
	cgrp = cgroup_child(cgroup_by_id(core, r->e->top[0]), "r");
	id = cgrp ? cgrp->id : 0;
	cg_write_unlock(&core->lock);
	return id;
}

/* Moves its process into "r" and back, or lets it exit (the id is reused
 * by a new thread) while it is in "r". */
static gpointer race_worker(gpointer data)
{
	struct race_worker *w = data;
	struct race *r = w->r;
	struct cg_core *core = r->e->core;
	uint64_t top = r->e->top[0];
	struct cg_cred cred = { .pid = w->pid };
	char buf[16];
	int len = g_snprintf(buf, sizeof(buf), "%d\n", w->pid);

	for (unsigned i = 0; i < RACE_ITERS; i++) {
		uint64_t id = current_r(r);
		bool self = i % 3 == 0;		/* "0": the writer itself */
		ssize_t ret;

		if (!id)
			id = top + 1;	/* an id that was "r" once, or never was */
		ret = cg_file_write(core, id, i % 2 ? r->procs : r->tasks, self ? "0" : buf,
				    self ? 1 : (size_t)len, &cred);
		if (ret < 0) {
			g_assert_true(ret == -ENODEV || ret == -ENOENT);
			g_atomic_int_inc(&r->gone);
			g_thread_yield();
			continue;
		}
		g_assert_cmpint(ret, ==, self ? 1 : len);
		g_atomic_int_inc(&r->attached);
		if (i % 50 == 0) {
			fake_kf_reuse(r->e->fk, w->pid, w->pid);	/* exits in "r" */
		} else {
			ret = cg_file_write(core, top, r->tasks, buf, (size_t)len, &cred);
			g_assert_cmpint(ret, ==, len);
		}
		g_thread_yield();
	}
	g_atomic_int_inc(&r->workers_done);
	return NULL;
}

/* Reads the group's and the root's lists while the workers run. */
static gpointer race_reader(gpointer data)
{
	struct race *r = data;

	while (g_atomic_int_get(&r->workers_done) < RACE_WORKERS) {
		uint64_t id = current_r(r);
		GString *out = g_string_new(NULL);
		int ret;

		if (id) {
			ret = cg_file_read(r->e->core, id, r->tasks, out);
			g_assert_true(ret == 0 || ret == -ENODEV);
		}
		ret = cg_file_read(r->e->core, r->e->top[0], r->procs, out);
		g_assert_cmpint(ret, ==, 0);
		g_string_free(out, TRUE);
		g_thread_yield();
	}
	return NULL;
}

/* The core's invariants, checked under its lock. */
static void check_invariants(struct env *e)
{
	struct cg_core *core = e->core;
	GHashTable *distinct = g_hash_table_new(NULL, NULL);
	GHashTableIter iter;
	struct task *t;
	struct css_set *cset;
	struct cgroup *cgrp;
	guint listed = 0, threads = 0, watched = 0;
	GHashTable *procs = g_hash_table_new(NULL, NULL);
	GArray *arr;

	cg_write_lock(&core->lock);
	for (guint pos = 0; (t = tidmap_next(&core->tasks, &pos));) {
		g_assert_true(task_lookup(core, t->tid) == t);
		g_assert_true(g_hash_table_lookup(core->css_sets, t->cset) == t->cset);
		/* A thread other than its leader is in its process's list,
		 * once. */
		if (t->tid != t->ident.tgid) {
			const struct task *p;
			guint seen = 0;

			for (guint at = 0; (p = task_proc_next(core, t->ident.tgid, &at));)
				seen += p == t;
			g_assert_cmpuint(seen, ==, 1);
			g_hash_table_add(procs, GINT_TO_POINTER(t->ident.tgid));
			threads++;
		}
		for (unsigned r = 0; r < core->roots->len; r++) {
			struct cgroup *c = css_set_cgroup(t->cset, g_ptr_array_index(core->roots, r));

			g_assert_true(cgroup_by_id(core, c->id) == c);
		}
		/* A tracked task is the live thread it was opened for. */
		g_assert_cmpuint(t->ident.ino, ==, fake_kf_ino(e->fk, t->tid));
		g_hash_table_add(distinct, t->cset);
	}
	/* Every css_set but init_css_set has tasks, and as many refs; each
	 * task is listed in its own css_set, and every tracked task once. */
	g_hash_table_iter_init(&iter, core->css_sets);
	while (g_hash_table_iter_next(&iter, (gpointer *)&cset, NULL)) {
		css_set_for_each_task(t, cset) {
			g_assert_true(t->cset == cset);
			g_assert_true(task_lookup(core, t->tid) == t);
		}
		listed += list_count_nodes(&cset->tasks);
		if (cset == core->init_css_set)
			continue;
		g_assert_cmpuint(cset->refcount, ==, list_count_nodes(&cset->tasks));
		g_assert_cmpuint(cset->refcount, >, 0);
	}
	g_assert_cmpuint(listed, ==, tidmap_size(&core->tasks));
	/* ... and only those processes have an entry, which lists no other. */
	g_assert_cmpuint(g_hash_table_size(core->procs), ==, g_hash_table_size(procs));
	g_hash_table_iter_init(&iter, core->procs);
	while (g_hash_table_iter_next(&iter, NULL, (gpointer *)&arr))
		threads -= arr->len;
	g_assert_cmpuint(threads, ==, 0);
	g_hash_table_unref(procs);
	/* Every css_set a cgroup lists is a live one. */
	g_hash_table_iter_init(&iter, core->cgroups);
	while (g_hash_table_iter_next(&iter, NULL, (gpointer *)&cgrp))
		for (GList *l = cgrp->csets.head; l; l = l->next)
			g_assert_true(g_hash_table_lookup(core->css_sets, l->data) == l->data);
	/* Every tracked task's identity is open, but those back in the root. */
	for (guint pos = 0; (t = tidmap_next(&core->tasks, &pos));)
		watched += !t->unwatched;
	g_assert_cmpuint(fake_kf_open_count(e->fk), ==, watched);
	/* init_css_set is always there, with or without tasks. */
	g_hash_table_add(distinct, core->init_css_set);
	g_assert_cmpuint(g_hash_table_size(core->css_sets), ==, g_hash_table_size(distinct));
	cg_write_unlock(&core->lock);
	g_hash_table_unref(distinct);
}

/* A thread whose fork is reported only once the attach has the lock: the
 * attach opened its identity, the catch-up opens its own and tracks the
 * thread in its process's group; the move to the root wins, and no
 * identity stays open once the thread is gone. */
static void test_late_fork_to_root(void)
{
	struct env e;
	uint64_t a;

	env_setup(&e);
	a = mkdir_ok(&e, e.top[0], "a");
	fake_kf_add_process(e.fk, 100, 1);
	wr_ok(&e, a, "tasks", "100");
	fake_kf_fork(e.fk, 100, 101, 100);	/* a thread, not yet heard of */
	wr_ok(&e, e.top[0], "tasks", "101");
	assert_content(&e, a, "tasks", "100\n");
	g_assert_cmpuint(fake_kf_open_count_tid(e.fk, 101), <=, 1);
	fake_kf_exit(e.fk, 101);
	assert_content(&e, a, "tasks", "100\n");	/* the exit caught up */
	g_assert_cmpuint(fake_kf_open_count_tid(e.fk, 101), ==, 0);
	env_teardown(&e);
}

static void test_race(void)
{
	struct env e;
	struct race r = { .e = &e };
	struct race_worker w[RACE_WORKERS];
	GThread *threads[RACE_WORKERS + 2];
	int ret;

	env_setup(&e);
	populate(&e);
	for (unsigned i = 0; i < RACE_WORKERS; i++) {
		w[i].r = &r;
		w[i].pid = RACE_PID + (pid_t)i;
		fake_kf_add_process(e.fk, w[i].pid, 1);
	}
	r.tasks = file_index(&e, e.top[0], "tasks");
	r.procs = file_index(&e, e.top[0], "cgroup.procs");

	threads[0] = g_thread_new("dirs", race_dirs, &r);
	threads[1] = g_thread_new("reader", race_reader, &r);
	for (unsigned i = 0; i < RACE_WORKERS; i++)
		threads[i + 2] = g_thread_new("worker", race_worker, &w[i]);
	for (unsigned i = 0; i < G_N_ELEMENTS(threads); i++)
		g_thread_join(threads[i]);
	g_test_message("race: %d attaches, %d to a group gone or never made; "
		       "%d mkdir, %d rmdir ok, %d rmdir EBUSY",
		       r.attached, r.gone, r.made, r.removed, r.busy);

	check_invariants(&e);
	/* Every worker moved back or exited: after a read reaps, only those
	 * that moved back are tracked, all in init_css_set, and "r" (if it is
	 * there) can go. */
	assert_content(&e, e.top[0], "notify_on_release", "0\n");
	check_invariants(&e);
	g_assert_cmpuint(nr_tasks(&e), <=, RACE_WORKERS);
	g_assert_cmpuint(nr_css_sets(&e), ==, 1);
	cg_write_lock(&e.core->lock);
	g_assert_cmpuint(list_count_nodes(&e.core->init_css_set->tasks), ==,
			 tidmap_size(&e.core->tasks));
	cg_write_unlock(&e.core->lock);
	ret = cg_rmdir(e.core, e.top[0], "r", &root_cred);
	g_assert_true(ret == 0 || ret == -ENOENT);
	env_teardown(&e);
}

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	/* A failed check fails its case; the next cases still run. */
	g_test_set_nonfatal_assertions();
	g_test_add_func("/attach/rmdir-asks-unlocked", test_rmdir_asks_unlocked);
	g_test_add_func("/attach/tasks-one-thread", test_tasks_one_thread);
	g_test_add_func("/attach/procs-whole-group", test_procs_whole_group);
	g_test_add_func("/attach/zero-is-writer", test_zero_is_writer);
	g_test_add_func("/attach/accepted-forms", test_accepted_forms);
	g_test_add_func("/attach/latin1-nbsp", test_latin1_nbsp);
	g_test_add_func("/attach/invalid", test_invalid);
	g_test_add_func("/attach/esrch", test_esrch);
	g_test_add_func("/attach/kthread", test_kthread);
	g_test_add_func("/attach/list-sorted-unique", test_list_sorted_unique);
	g_test_add_func("/attach/exit", test_exit);
	g_test_add_func("/attach/exit-then-rmdir", test_exit_then_rmdir);
	g_test_add_func("/attach/reaped-before-report-then-rmdir",
			test_reaped_before_report_then_rmdir);
	g_test_add_func("/attach/exited-is-esrch", test_exited_is_esrch);
	g_test_add_func("/attach/lost-exits-resync", test_lost_exits_resync);
	g_test_add_func("/attach/fork-follows-parent", test_fork_follows_parent);
	g_test_add_func("/attach/pid-reuse", test_pid_reuse);
	g_test_add_func("/attach/reused-after-prepare", test_reused_after_prepare);
	g_test_add_func("/attach/move-back-frees", test_move_back_frees);
	g_test_add_func("/attach/root-attach-untracked", test_root_attach_untracked);
	g_test_add_func("/attach/root-procs-partly-tracked", test_root_procs_partly_tracked);
	g_test_add_func("/attach/enospc-empty-cpuset", test_enospc_empty_cpuset);
	g_test_add_func("/attach/removed-group", test_removed_group);
	g_test_add_func("/dir/rmdir-rules", test_rmdir_rules);
	g_test_add_func("/dir/rename-rules", test_rename_rules);
	g_test_add_func("/dir/mkdir-rules", test_mkdir_rules);
	g_test_add_func("/attach/race", test_race);
	g_test_add_func("/attach/late-fork-to-root", test_late_fork_to_root);
	return g_test_run();
}
