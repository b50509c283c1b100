/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The freezer and the CPU quota on one hierarchy, holding threads in the
 * same tracees (enforce/tracees.h): a thread frozen and throttled is
 * seized once, and runs again only when neither holds it. Driven pass by
 * pass on the fake facade, whose ptrace stops a thread at once and, like
 * the kernel's, refuses a second seize of a traced thread. */
#include <sched.h>
#include <signal.h>
#include <string.h>

#include <glib.h>

#include "core/cgroup.h"
#include "ctl/ctl.h"
#include "enforce/enforce_thread.h"
#include "enforce/freezer.h"
#include "enforce/idle.h"
#include "enforce/quota.h"
#include "enforce/tracees.h"
#include "fake-kfacade.h"
#include "test-env.h"
#include "v1/face.h"

#define MS 1000000ULL
#define INIT 1
#define P100 100	/* threads 100, 101 */
#define P200 200

struct both {
	struct env e;
	struct tracees *tr;
	struct freezer_enforcer *fe;
	struct quota_enforcer *qe;
	uint64_t g;
};

/* cpu and the freezer co-mounted; group g holds process 100 (threads
 * 100, 101) with a quota of 20 ms a 100 ms period. */
static void setup(struct both *b)
{
	struct env *e = &b->e;

	memset(b, 0, sizeof(*b));
	env_setup_root(e, &cgroup1_face, ctl_bit("cpu") | ctl_bit("freezer"));
	fake_kf_add_process(e->fk, INIT, 1);
	fake_kf_add_process(e->fk, P100, 2);
	fake_kf_add_process(e->fk, P200, 1);
	b->tr = tracees_new(fake_kf_facade(e->fk));
	b->fe = freezer_enforcer_new(e->core, b->tr);
	b->qe = quota_enforcer_new(e->core, b->tr);
	g_assert_nonnull(b->fe);
	g_assert_nonnull(b->qe);
	b->g = mkdir_ok(e, e->top[0], "g");
	wr_ok(e, b->g, "cgroup.procs", "100");
	wr_ok(e, b->g, "cpu.cfs_quota_us", "20000");
	quota_pass(b->qe, 0);
}

static void teardown(struct both *b)
{
	tracees_release_all(b->tr, 0);
	freezer_enforcer_free(b->fe);
	quota_enforcer_free(b->qe);
	tracees_free(b->tr);
	env_teardown(&b->e);
}

/* Threads 100 and 101 run 25 ms, seen at time now: over the quota. */
static void throttle(struct both *b, uint64_t now)
{
	fake_kf_run(b->e.fk, 100, 15 * MS, 0, 0);
	fake_kf_run(b->e.fk, 101, 10 * MS, 0, 1);
	quota_pass(b->qe, now);
	g_assert_cmpuint(quota_stats(b->qe)->throttled, ==, 1);
}

static void assert_stopped(struct both *b, bool stopped)
{
	g_assert_cmpint(fake_kf_frozen(b->e.fk, 100), ==, stopped);
	g_assert_cmpint(fake_kf_frozen(b->e.fk, 101), ==, stopped);
	if (!stopped) {
		g_assert_false(fake_kf_traced(b->e.fk, 100));
		g_assert_false(fake_kf_traced(b->e.fk, 101));
	}
}

static void set_state(struct both *b, const char *state)
{
	wr_ok(&b->e, b->g, "freezer.state", state);
	freezer_pass(b->fe, false);
}

/* Frozen while throttled: FROZEN at once (no fight over the tracer), held
 * past the period's end; thawed, held until the period ends. */
static void test_freeze_while_throttled(void)
{
	struct both b;

	setup(&b);
	throttle(&b, 10 * MS);
	assert_stopped(&b, true);
	set_state(&b, "FROZEN");
	assert_content(&b.e, b.g, "freezer.state", "FROZEN\n");
	g_assert_cmpuint(freezer_stats(b.fe)->frozen, ==, 2);
	g_assert_cmpuint(freezer_stats(b.fe)->refused, ==, 0);
	g_assert_cmpuint(fake_kf_calls(b.e.fk).trace_freeze, ==, 2);	/* seized once */
	quota_pass(b.qe, 100 * MS);		/* the period ends: still frozen */
	assert_stopped(&b, true);
	g_assert_cmpuint(quota_stats(b.qe)->throttled, ==, 0);
	assert_content(&b.e, b.g, "freezer.state", "FROZEN\n");
	set_state(&b, "THAWED");
	assert_stopped(&b, false);
	g_assert_cmpuint(fake_kf_calls(b.e.fk).trace_thaw, ==, 2);

	/* Thawed while still throttled: stopped until the period ends. */
	throttle(&b, 120 * MS);
	set_state(&b, "FROZEN");
	set_state(&b, "THAWED");
	assert_stopped(&b, true);
	assert_content(&b.e, b.g, "freezer.state", "THAWED\n");
	quota_pass(b.qe, 200 * MS);
	assert_stopped(&b, false);
	teardown(&b);
}

/* Throttled while frozen: counted as stopped by the quota, not refused;
 * the period's end leaves it frozen; uncapped while frozen, still frozen. */
static void test_throttle_while_frozen(void)
{
	struct both b;

	setup(&b);
	set_state(&b, "FROZEN");
	assert_stopped(&b, true);
	/* Ran before the freeze, seen by the quota after it. */
	throttle(&b, 10 * MS);
	g_assert_cmpuint(quota_stats(b.qe)->stopped, ==, 2);
	g_assert_cmpuint(quota_stats(b.qe)->refused, ==, 0);
	quota_pass(b.qe, 100 * MS);
	assert_stopped(&b, true);
	assert_content(&b.e, b.g, "freezer.state", "FROZEN\n");

	throttle(&b, 120 * MS);
	wr_ok(&b.e, b.g, "cpu.cfs_quota_us", "-1");	/* uncapped while frozen */
	quota_pass(b.qe, 130 * MS);
	g_assert_cmpuint(quota_stats(b.qe)->capped, ==, 0);
	assert_stopped(&b, true);
	freezer_pass(b.fe, false);
	assert_content(&b.e, b.g, "freezer.state", "FROZEN\n");
	set_state(&b, "THAWED");
	assert_stopped(&b, false);
	teardown(&b);
}

/* A thread frozen and throttled that leaves the group runs again once
 * both have looked, whichever looks first. */
static void test_leaving(void)
{
	struct both b;

	setup(&b);
	throttle(&b, 10 * MS);
	set_state(&b, "FROZEN");
	wr_ok(&b.e, b.e.top[0], "tasks", "100");
	freezer_pass(b.fe, false);
	g_assert_true(fake_kf_frozen(b.e.fk, 100));	/* throttled still */
	quota_pass(b.qe, 20 * MS);
	g_assert_false(fake_kf_traced(b.e.fk, 100));
	g_assert_true(fake_kf_frozen(b.e.fk, 101));
	/* The other way round. */
	wr_ok(&b.e, b.e.top[0], "tasks", "101");
	quota_pass(b.qe, 30 * MS);
	g_assert_true(fake_kf_frozen(b.e.fk, 101));	/* frozen still */
	freezer_pass(b.fe, false);
	g_assert_false(fake_kf_traced(b.e.fk, 101));
	teardown(&b);
}

/* The daemon's stop lets every thread go, whatever holds it. */
static void test_stop(void)
{
	struct both b;

	setup(&b);
	throttle(&b, 10 * MS);
	set_state(&b, "FROZEN");
	wr_ok(&b.e, b.g, "tasks", "200");
	freezer_pass(b.fe, false);
	g_assert_true(fake_kf_frozen(b.e.fk, P200));
	tracees_release_all(b.tr, 0);
	assert_stopped(&b, false);
	g_assert_false(fake_kf_traced(b.e.fk, P200));
	g_assert_false(tracees_tracing(b.tr));
	g_assert_cmpuint(tracees_nr_held(b.tr, TRACEE_FROZEN), ==, 0);
	g_assert_cmpuint(tracees_nr_held(b.tr, TRACEE_THROTTLED), ==, 0);
	teardown(&b);
}

#define P300 300	/* idle */
#define P400 400	/* idle group, SCHED_BATCH its own choice */
#define P500 500	/* in no group */

/* Polls cond(b) for up to 10 s: the enforcement thread's passes. */
static bool eventually(struct both *b, bool (*cond)(struct both *b))
{
	gint64 end = g_get_monotonic_time() + 10 * G_USEC_PER_SEC;

	while (!cond(b) && g_get_monotonic_time() < end)
		g_usleep(1000);
	return cond(b);
}

static bool all_held(struct both *b)
{
	struct fake_kf *fk = b->e.fk;

	return fake_kf_frozen(fk, P200) && fake_kf_frozen(fk, 100) && fake_kf_frozen(fk, 101) &&
	       fake_kf_policy(fk, P300) == SCHED_IDLE;
}

/* The enforcement thread's stop (the daemon's umount) gives back what it
 * holds, and only that: a frozen thread (with the signal its stop took),
 * throttled ones, an idle one. The kernel would let the traced ones go
 * too when the thread ends, but not resume one held with SIGSTOP, nor
 * give a policy back (freezer.bats, quota.bats show those). */
static void test_thread_stop_releases(void)
{
	uint64_t f, i, now = (uint64_t)g_get_monotonic_time() * 1000;
	struct enforce_thread *th;
	struct idle_enforcer *ie;
	struct fake_kf_calls was;
	struct both b;

	setup(&b);
	fake_kf_add_process(b.e.fk, P300, 1);
	fake_kf_add_process(b.e.fk, P400, 1);
	fake_kf_add_process(b.e.fk, P500, 1);
	fake_kf_set_own_policy(b.e.fk, P400, SCHED_BATCH);
	fake_kf_set_own_policy(b.e.fk, P500, SCHED_BATCH);
	/* g throttled at the thread's clock, with a debt of a whole period
	 * at 1 ms a second: held for minutes. */
	wr_ok(&b.e, b.g, "cpu.cfs_period_us", "1000000");
	wr_ok(&b.e, b.g, "cpu.cfs_quota_us", "1000");
	quota_pass(b.qe, now);
	fake_kf_run(b.e.fk, 100, 1500 * MS, 0, 0);
	fake_kf_run(b.e.fk, 101, 500 * MS, 0, 1);
	quota_pass(b.qe, now + MS);
	g_assert_cmpuint(quota_stats(b.qe)->throttled, ==, 1);
	f = mkdir_ok(&b.e, b.e.top[0], "f");
	wr_ok(&b.e, f, "tasks", "200");
	fake_kf_send_signal(b.e.fk, P200, SIGUSR1);
	wr_ok(&b.e, f, "freezer.state", "FROZEN");
	i = mkdir_ok(&b.e, b.e.top[0], "i");
	wr_ok(&b.e, i, "tasks", "300");
	wr_ok(&b.e, i, "tasks", "400");
	wr_ok(&b.e, i, "cpu.idle", "1");
	ie = idle_enforcer_new(b.e.core);
	g_assert_nonnull(ie);
	th = enforce_thread_start(b.tr, b.fe, b.qe, ie);	/* its first passes hold */
	g_assert_nonnull(th);
	g_assert_true(eventually(&b, all_held));
	was = fake_kf_calls(b.e.fk);
	enforce_thread_stop(th);
	assert_stopped(&b, false);
	g_assert_false(fake_kf_traced(b.e.fk, P200));
	g_assert_cmpint(fake_kf_given_back(b.e.fk, P200), ==, SIGUSR1);
	g_assert_cmpint(fake_kf_policy(b.e.fk, P300), ==, SCHED_OTHER);
	/* Only those: three thaws, one policy, nothing sent. */
	g_assert_cmpuint(fake_kf_calls(b.e.fk).trace_thaw - was.trace_thaw, ==, 3);
	g_assert_cmpuint(fake_kf_calls(b.e.fk).policy - was.policy, ==, 1);
	g_assert_cmpint(fake_kf_policy(b.e.fk, P400), ==, SCHED_BATCH);
	g_assert_cmpint(fake_kf_policy(b.e.fk, P500), ==, SCHED_BATCH);
	for (pid_t t = 100; t <= P500; t += 100)
		g_assert_cmpint(fake_kf_conts(b.e.fk, t), ==, 0);
	g_assert_false(fake_kf_traced(b.e.fk, P500));
	g_assert_false(tracees_tracing(b.tr));
	g_assert_cmpuint(tracees_nr_held(b.tr, TRACEE_FROZEN), ==, 0);
	g_assert_cmpuint(tracees_nr_held(b.tr, TRACEE_THROTTLED), ==, 0);
	idle_enforcer_free(ie);
	teardown(&b);
}

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/enforce/freeze-while-throttled", test_freeze_while_throttled);
	g_test_add_func("/enforce/throttle-while-frozen", test_throttle_while_frozen);
	g_test_add_func("/enforce/leaving", test_leaving);
	g_test_add_func("/enforce/stop", test_stop);
	g_test_add_func("/enforce/thread-stop-releases", test_thread_stop_releases);
	return g_test_run();
}
