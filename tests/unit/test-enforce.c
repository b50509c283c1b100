/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The freezer and the CPU quota on one hierarchy, holding threads in the
 * same tracees (enforce/tracees.h): a thread frozen and throttled is
 * seized once, and runs again only when neither holds it. Driven pass by
 * pass on the fake facade, whose ptrace stops a thread at once and, like
 * the kernel's, refuses a second seize of a traced thread. */
#include <string.h>

#include <glib.h>

#include "core/cgroup.h"
#include "ctl/ctl.h"
#include "enforce/enforce_thread.h"
#include "enforce/freezer.h"
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

/* The enforcement thread's stop (the daemon's umount) lets every thread
 * it holds go, with the signal its stop took: the kernel would let them
 * go too when the daemon exits, so only this shows the thread's part. */
static void test_thread_stop_releases(void)
{
	struct enforce_thread *th;
	struct both b;
	gint64 end;

	setup(&b);
	wr_ok(&b.e, b.g, "tasks", "200");
	fake_kf_send_signal(b.e.fk, P200, SIGUSR1);
	th = enforce_thread_start(b.tr, b.fe, b.qe, NULL);
	g_assert_nonnull(th);
	wr_ok(&b.e, b.g, "freezer.state", "FROZEN");	/* the thread's pass freezes */
	end = g_get_monotonic_time() + 10 * G_USEC_PER_SEC;
	while (!fake_kf_frozen(b.e.fk, P200) && g_get_monotonic_time() < end)
		g_usleep(1000);
	g_assert_true(fake_kf_frozen(b.e.fk, P200));
	enforce_thread_stop(th);
	g_assert_false(fake_kf_traced(b.e.fk, P200));
	g_assert_false(fake_kf_traced(b.e.fk, 100));
	g_assert_cmpint(fake_kf_given_back(b.e.fk, P200), ==, SIGUSR1);
	g_assert_false(tracees_tracing(b.tr));
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
