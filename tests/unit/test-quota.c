/* SPDX-License-Identifier: GPL-2.0-or-later */
/* CPU bandwidth: a period's arithmetic (quota_period.c: throttle, debt,
 * burst, the figures of cpu.stat) and the enforcer's decisions, driven pass
 * by pass on the fake facade (its ptrace stops a thread at once), with the
 * time of each pass chosen by the test; and cpu.idle's enforcer (idle.c)
 * on the fake's scheduling policies. */
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include <glib.h>
#include <glib/gstdio.h>

#include "core/cgroup.h"
#include "ctl/cpu.h"
#include "ctl/ctl.h"
#include "enforce/freezer.h"
#include "enforce/idle.h"
#include "enforce/quota.h"
#include "enforce/quota_period.h"
#include "fake-kfacade.h"
#include "test-env.h"
#include "v1/face.h"

#define MS 1000000ULL
#define INIT 1
#define P100 100	/* threads 100, 101 */
#define P200 200

/* The enforcement thread's tracees, shared by the enforcers of a test. */
static struct tracees *tr;

/* ---- a period's arithmetic ---------------------------------------------- */

static void test_period_throttle(void)
{
	struct quota_period p;
	struct cfs_bandwidth_stat d = { 0 };
	uint64_t next;

	quota_period_init(&p, 20 * MS, 100 * MS, 0, 1000 * MS, 500 * MS);
	/* Idle: looked at again a tenth of a period later. */
	next = quota_period_update(&p, 1000 * MS, 500 * MS, &d);
	g_assert_false(p.throttled);
	g_assert_cmpuint(next, ==, 1010 * MS);
	/* Running at 1 CPU: 10 ms used, the rest runs out at 1020 ms, and
	 * the throttle is decided QUOTA_LEAD_NS before. */
	next = quota_period_update(&p, 1010 * MS, 510 * MS, &d);
	g_assert_false(p.throttled);
	g_assert_cmpuint(next, ==, 1020 * MS - QUOTA_LEAD_NS);
	next = quota_period_update(&p, 1020 * MS - QUOTA_LEAD_NS,
				   520 * MS - QUOTA_LEAD_NS, &d);
	g_assert_true(p.throttled);
	g_assert_cmpuint(next, ==, 1100 * MS);	/* until the period ends */
	g_assert_cmpuint(d.nr_throttled, ==, 1);
	/* Stopped: its rate falls to 0, it stays throttled. */
	quota_period_update(&p, 1050 * MS, 521 * MS, &d);
	g_assert_true(p.throttled);
	g_assert_cmpuint(d.nr_throttled, ==, 1);
	g_assert_false(quota_period_wants_sample(&p, 1099 * MS));
	g_assert_true(quota_period_wants_sample(&p, 1100 * MS));
	/* The period ends with 21 ms used: 1 ms of debt. */
	quota_period_update(&p, 1100 * MS, 521 * MS, &d);
	g_assert_false(p.throttled);
	g_assert_cmpint(p.runtime, ==, 19 * MS);
	g_assert_cmpuint(p.start, ==, 1100 * MS);
	g_assert_cmpuint(d.nr_periods, ==, 1);
	g_assert_cmpuint(d.nr_throttled, ==, 1);
	g_assert_cmpuint(d.throttled_time, ==, 80 * MS + QUOTA_LEAD_NS);
	g_assert_cmpuint(d.nr_bursts, ==, 0);
}

static void test_period_debt_and_burst(void)
{
	struct quota_period p;
	struct cfs_bandwidth_stat d = { 0 };

	/* What a period ran over is paid back by the next ones, a quota
	 * a period (the share over many periods is the quota's), but a
	 * debt is cut to a period's worth or 100 ms, whichever is more (a
	 * stalled daemon). */
	quota_period_init(&p, 10 * MS, 100 * MS, 0, 0, 0);
	quota_period_update(&p, 100 * MS, 300 * MS, &d);
	g_assert_cmpint(p.runtime, ==, -100 * (int64_t)MS);
	g_assert_true(p.throttled);
	quota_period_update(&p, 200 * MS, 300 * MS, &d);
	g_assert_true(p.throttled);
	g_assert_cmpint(p.runtime, ==, -90 * (int64_t)MS);
	quota_period_update(&p, 300 * MS, 300 * MS, &d);
	g_assert_true(p.throttled);
	g_assert_cmpint(p.runtime, ==, -80 * (int64_t)MS);
	/* A period counts when the group ran or was throttled in it. */
	g_assert_cmpuint(d.nr_periods, ==, 3);
	g_assert_cmpuint(d.nr_throttled, ==, 3);
	/* Short periods: two threads sampled late ran 30 ms of a 5 ms
	 * quota; all 25 ms are owed, not only a 10 ms period's worth. */
	quota_period_init(&p, 5 * MS, 10 * MS, 0, 0, 0);
	quota_period_update(&p, 10 * MS, 30 * MS, &d);
	g_assert_cmpint(p.runtime, ==, -20 * (int64_t)MS);
	quota_period_init(&p, 5 * MS, 10 * MS, 0, 0, 0);
	quota_period_update(&p, 10 * MS, 1000 * MS, &d);
	g_assert_cmpint(p.runtime, ==, -100 * (int64_t)MS);

	/* Burst: unused quota is kept up to the burst, and a period that
	 * uses it counts in nr_bursts and burst_time. */
	memset(&d, 0, sizeof(d));
	quota_period_init(&p, 20 * MS, 100 * MS, 15 * MS, 0, 0);
	quota_period_update(&p, 100 * MS, 0, &d);	/* idle: 20 kept, +20 */
	g_assert_cmpint(p.runtime, ==, 35 * MS);	/* quota + burst at most */
	g_assert_cmpuint(d.nr_periods, ==, 0);
	quota_period_update(&p, 150 * MS, 30 * MS, &d);
	g_assert_false(p.throttled);			/* 30 of 35 */
	quota_period_update(&p, 200 * MS, 30 * MS, &d);
	g_assert_cmpuint(d.nr_bursts, ==, 1);
	g_assert_cmpuint(d.burst_time, ==, 10 * MS);
	g_assert_cmpint(p.runtime, ==, 25 * MS);

	/* A pass late by two periods or more: the next period starts then. */
	quota_period_update(&p, 500 * MS, 30 * MS, &d);
	g_assert_cmpuint(p.start, ==, 500 * MS);
}

/* ---- the enforcer on the fake facade ------------------------------------ */

/* One hierarchy with cpu. */
static void setup(struct env *e, struct quota_enforcer **qe)
{
	env_setup_root(e, &cgroup1_face, ctl_bit("cpu"));
	fake_kf_add_process(e->fk, INIT, 1);
	fake_kf_add_process(e->fk, P100, 2);
	fake_kf_add_process(e->fk, P200, 1);
	tr = tracees_new(fake_kf_facade(e->fk));
	*qe = quota_enforcer_new(e->core, tr);
	g_assert_nonnull(*qe);
}

static void teardown(struct env *e, struct quota_enforcer *qe)
{
	tracees_release_all(tr, 0);
	quota_enforcer_free(qe);
	tracees_free(tr);
	env_teardown(e);
}

/* The figure NAME of cpu.stat (or cpu.stat.local) of group g. */
static uint64_t stat_of(struct env *e, uint64_t g, const char *file, const char *name)
{
	char *text = rd(e, g, file), *at = strstr(text, name);
	uint64_t v;

	g_assert_nonnull(at);
	v = g_ascii_strtoull(at + strlen(name) + 1, NULL, 10);
	g_free(text);
	return v;
}

static void test_no_cpu(void)
{
	struct env e;

	env_setup_root(&e, &cgroup1_face, ctl_bit("cpuset"));
	g_assert_null(quota_enforcer_new(e.core, NULL));
	env_teardown(&e);
}

static void test_throttle_and_release(void)
{
	struct quota_enforcer *qe;
	struct env e;
	uint64_t g;

	setup(&e, &qe);
	g = mkdir_ok(&e, e.top[0], "g");
	wr_ok(&e, g, "cgroup.procs", "100");
	/* Nothing capped: nothing to do, no pass due. */
	g_assert_cmpuint(quota_pass(qe, 0), ==, QUOTA_NO_PASS);
	wr_ok(&e, g, "cpu.cfs_quota_us", "20000");
	g_assert_cmpuint(quota_pass(qe, 0), ==, 10 * MS);
	g_assert_false(fake_kf_traced(e.fk, 100));
	/* Two threads ran 25 ms between them: over the quota, both stop. */
	fake_kf_run(e.fk, 100, 15 * MS, 0, 0);
	fake_kf_run(e.fk, 101, 10 * MS, 0, 1);
	quota_pass(qe, 10 * MS);
	g_assert_true(fake_kf_frozen(e.fk, 100));
	g_assert_true(fake_kf_frozen(e.fk, 101));
	g_assert_false(fake_kf_traced(e.fk, P200));
	g_assert_cmpuint(quota_stats(qe)->stopped, ==, 2);
	g_assert_cmpuint(quota_stats(qe)->throttled, ==, 1);
	g_assert_cmpuint(stat_of(&e, g, "cpu.stat", "nr_throttled"), ==, 1);
	/* Still throttled mid-period: no new stop. */
	quota_pass(qe, 50 * MS);
	g_assert_cmpuint(fake_kf_calls(e.fk).trace_freeze, ==, 2);
	/* The period ends: 5 ms of debt, 15 ms left, both run again. */
	quota_pass(qe, 100 * MS);
	g_assert_false(fake_kf_traced(e.fk, 100));
	g_assert_false(fake_kf_traced(e.fk, 101));
	g_assert_cmpuint(fake_kf_calls(e.fk).trace_thaw, ==, 2);
	g_assert_cmpuint(stat_of(&e, g, "cpu.stat", "nr_periods"), ==, 1);
	g_assert_cmpuint(stat_of(&e, g, "cpu.stat", "throttled_time"), ==, 90 * MS);
	g_assert_cmpuint(stat_of(&e, g, "cpu.stat.local", "throttled_time"), ==, 90 * MS);
	/* 15 ms more: throttled again, at once. */
	fake_kf_run(e.fk, 100, 15 * MS, 0, 0);
	quota_pass(qe, 120 * MS);
	g_assert_true(fake_kf_frozen(e.fk, 100));
	g_assert_cmpuint(stat_of(&e, g, "cpu.stat", "nr_throttled"), ==, 2);
	/* The quota removed: both run at once, nothing more is counted. */
	wr_ok(&e, g, "cpu.cfs_quota_us", "-1");
	g_assert_cmpuint(quota_pass(qe, 130 * MS), ==, QUOTA_NO_PASS);
	g_assert_false(fake_kf_traced(e.fk, 100));
	g_assert_cmpuint(quota_stats(qe)->capped, ==, 0);
	teardown(&e, qe);
}

/* Over its quota before its throttle (a late sample), frozen past the
 * period's end, thawed before the periods after it paid the overrun back:
 * the thaw leaves it to the quota, which holds it until the period that
 * clears the debt, or until a new quota starts a period owing nothing
 * (freezer.bats waits for that one, not for the debt). */
static void test_debt_outlasts_freeze(void)
{
	struct freezer_enforcer *fe;
	struct quota_enforcer *qe;
	struct env e;
	uint64_t g;

	env_setup_root(&e, &cgroup1_face, ctl_bit("cpu") | ctl_bit("freezer"));
	fake_kf_add_process(e.fk, INIT, 1);
	fake_kf_add_process(e.fk, P200, 1);
	tr = tracees_new(fake_kf_facade(e.fk));
	qe = quota_enforcer_new(e.core, tr);
	fe = freezer_enforcer_new(e.core, tr);
	g = mkdir_ok(&e, e.top[0], "g");
	wr_ok(&e, g, "cgroup.procs", "200");
	wr_ok(&e, g, "cpu.cfs_period_us", "1000000");
	wr_ok(&e, g, "cpu.cfs_quota_us", "1000");
	quota_pass(qe, 0);
	/* 30 ms in its first 1 ms: 29 periods of debt. */
	fake_kf_run(e.fk, P200, 30 * MS, 0, 0);
	quota_pass(qe, 10 * MS);
	g_assert_true(fake_kf_frozen(e.fk, P200));
	wr_ok(&e, g, "freezer.state", "FROZEN");
	freezer_pass(fe, false);
	assert_content(&e, g, "freezer.state", "FROZEN\n");
	quota_pass(qe, 1000 * MS);
	quota_pass(qe, 2000 * MS);
	wr_ok(&e, g, "freezer.state", "THAWED");
	freezer_pass(fe, false);
	assert_content(&e, g, "freezer.state", "THAWED\n");
	g_assert_true(fake_kf_frozen(e.fk, P200));	/* the quota's still */
	g_assert_cmpuint(quota_stats(qe)->stopped, ==, 1);
	quota_pass(qe, 3000 * MS);
	g_assert_true(fake_kf_frozen(e.fk, P200));
	/* A new quota: a new period, no debt; it runs at once. */
	wr_ok(&e, g, "cpu.cfs_quota_us", "10000");
	quota_pass(qe, 3100 * MS);
	g_assert_false(fake_kf_traced(e.fk, P200));
	g_assert_cmpuint(fake_kf_calls(e.fk).trace_freeze, ==, 1);	/* seized once */
	tracees_release_all(tr, 0);
	freezer_enforcer_free(fe);
	quota_enforcer_free(qe);
	tracees_free(tr);
	env_teardown(&e);
}

/* A pass over a capped group costs its runnable threads: of a process of
 * 500 sleepers, its clock is read once (twice when another process ran:
 * once to tell, once in the sample) and no thread; of a process that ran,
 * its thread. */
static void test_sleepers_cost(void)
{
	struct quota_enforcer *qe;
	struct fake_kf_calls c0, c1;
	struct env e;
	uint64_t g, sampled;

	setup(&e, &qe);
	fake_kf_add_process(e.fk, 1000, 500);
	g = mkdir_ok(&e, e.top[0], "g");
	wr_ok(&e, g, "cgroup.procs", "1000");
	wr_ok(&e, g, "cgroup.procs", "200");
	wr_ok(&e, g, "cpu.cfs_quota_us", "20000");
	quota_pass(qe, 0);
	fake_kf_run(e.fk, P200, 1 * MS, 0, 0);
	c0 = fake_kf_calls(e.fk);
	quota_pass(qe, 10 * MS);
	c1 = fake_kf_calls(e.fk);
	g_assert_cmpuint(c1.task_cputime - c0.task_cputime, ==, 1);
	g_assert_cmpuint(c1.process_cputime - c0.process_cputime, ==, 4);
	/* Nothing ran: one clock read a process, no sample. */
	sampled = atomic_load(&cgroup_by_id(e.core, g)->sampled_ns);
	quota_pass(qe, 15 * MS);
	g_assert_cmpuint(atomic_load(&cgroup_by_id(e.core, g)->sampled_ns), ==, sampled);
	c0 = fake_kf_calls(e.fk);
	g_assert_cmpuint(c0.task_cputime - c1.task_cputime, ==, 0);
	g_assert_cmpuint(c0.process_cputime - c1.process_cputime, ==, 2);
	/* What the runner ran is counted all the same. */
	fake_kf_run(e.fk, P200, 25 * MS, 0, 0);
	quota_pass(qe, 20 * MS);
	g_assert_true(fake_kf_frozen(e.fk, P200));
	g_assert_true(fake_kf_frozen(e.fk, 1499));
	teardown(&e, qe);
}

/* A signal on its way when a thread stopped is given back when it runs. */
static void test_signal_given_back(void)
{
	struct quota_enforcer *qe;
	struct env e;
	uint64_t g;

	setup(&e, &qe);
	g = mkdir_ok(&e, e.top[0], "g");
	wr_ok(&e, g, "cgroup.procs", "200");
	wr_ok(&e, g, "cpu.cfs_quota_us", "20000");
	quota_pass(qe, 0);
	fake_kf_send_signal(e.fk, P200, SIGUSR1);
	fake_kf_run(e.fk, P200, 30 * MS, 0, 0);
	quota_pass(qe, 30 * MS);
	g_assert_true(fake_kf_frozen(e.fk, P200));
	quota_pass(qe, 200 * MS);	/* 10 ms of debt: runs again */
	g_assert_false(fake_kf_traced(e.fk, P200));
	g_assert_cmpint(fake_kf_given_back(e.fk, P200), ==, SIGUSR1);
	teardown(&e, qe);
}

/* A parent's quota holds its subgroups; a member moved out, a thread that
 * cannot be traced and a thread that exits are dealt with. */
static void test_hierarchy_and_members(void)
{
	struct quota_enforcer *qe;
	struct env e;
	uint64_t g, c;

	setup(&e, &qe);
	g = mkdir_ok(&e, e.top[0], "g");
	c = mkdir_ok(&e, g, "c");
	wr_ok(&e, c, "cgroup.procs", "100");
	wr_ok(&e, g, "cgroup.procs", "200");
	wr_ok(&e, g, "cpu.cfs_quota_us", "20000");
	/* A child's quota may not exceed its parent's: the kernel's EINVAL. */
	g_assert_cmpint(wr(&e, c, "cpu.cfs_quota_us", "30000"), ==, -EINVAL);
	wr_ok(&e, c, "cpu.cfs_quota_us", "10000");
	fake_kf_set_debugged(e.fk, P200, true);
	quota_pass(qe, 0);
	/* The child over its own quota: only its threads stop. */
	fake_kf_run(e.fk, 100, 12 * MS, 0, 0);
	quota_pass(qe, 10 * MS);
	g_assert_true(fake_kf_frozen(e.fk, 100));
	g_assert_true(fake_kf_frozen(e.fk, 101));
	g_assert_false(fake_kf_traced(e.fk, P200));
	g_assert_cmpuint(stat_of(&e, c, "cpu.stat", "nr_throttled"), ==, 1);
	g_assert_cmpuint(stat_of(&e, g, "cpu.stat", "nr_throttled"), ==, 0);
	/* The parent over its quota: its own thread is a debugger's, and is
	 * counted as refused. */
	fake_kf_run(e.fk, P200, 10 * MS, 0, 1);
	quota_pass(qe, 20 * MS);
	g_assert_cmpuint(stat_of(&e, g, "cpu.stat", "nr_throttled"), ==, 1);
	g_assert_cmpuint(quota_stats(qe)->refused, ==, 1);
	g_assert_false(fake_kf_traced(e.fk, P200));
	/* Moved out of the capped subtree: runs again at the next pass. */
	wr_ok(&e, e.top[0], "tasks", "101");
	quota_pass(qe, 30 * MS);
	g_assert_false(fake_kf_traced(e.fk, 101));
	g_assert_true(fake_kf_frozen(e.fk, 100));
	/* A stopped thread that exits is reaped and forgotten. */
	fake_kf_exit(e.fk, 100);
	quota_pass(qe, 40 * MS);
	g_assert_cmpuint(quota_stats(qe)->stopped, ==, 0);
	/* cpu.stat.local of the child: held by its own quota and its
	 * parent's, from 10 ms to 40 ms; its cpu.stat counts its own. */
	g_assert_cmpuint(stat_of(&e, c, "cpu.stat.local", "throttled_time"), ==, 30 * MS);
	g_assert_cmpuint(stat_of(&e, c, "cpu.stat", "throttled_time"), ==, 30 * MS);
	g_assert_cmpuint(stat_of(&e, g, "cpu.stat", "throttled_time"), ==, 20 * MS);
	teardown(&e, qe);
}

/* A new period starts when the settings change; release_all resumes. */
static void test_settings_and_release(void)
{
	struct quota_enforcer *qe;
	struct env e;
	uint64_t g;

	setup(&e, &qe);
	g = mkdir_ok(&e, e.top[0], "g");
	wr_ok(&e, g, "cgroup.procs", "100");
	wr_ok(&e, g, "cpu.cfs_quota_us", "20000");
	quota_pass(qe, 0);
	fake_kf_run(e.fk, 100, 30 * MS, 0, 0);
	quota_pass(qe, 10 * MS);
	g_assert_true(fake_kf_frozen(e.fk, 100));
	/* A larger quota: a new period with it, running again. */
	wr_ok(&e, g, "cpu.cfs_quota_us", "50000");
	quota_pass(qe, 20 * MS);
	g_assert_false(fake_kf_traced(e.fk, 100));
	fake_kf_run(e.fk, 100, 60 * MS, 0, 0);
	quota_pass(qe, 30 * MS);
	g_assert_true(fake_kf_frozen(e.fk, 100));
	tracees_release_all(tr, 0);
	g_assert_false(fake_kf_traced(e.fk, 100));
	g_assert_false(tracees_tracing(tr));
	quota_enforcer_free(qe);
	tracees_free(tr);
	env_teardown(&e);
}

/* A cap charges only what ran after it, as the kernel's runtime refill
 * when a quota is written: a thread that ran 5 s before is throttled
 * once it used the quota's worth after the cap, and owes nothing older. */
static void test_cap_charges_from_now(void)
{
	struct quota_enforcer *qe;
	struct env e;
	uint64_t g;

	setup(&e, &qe);
	g = mkdir_ok(&e, e.top[0], "g");
	fake_kf_run(e.fk, 100, 5000 * MS, 0, 0);
	wr_ok(&e, g, "cgroup.procs", "100");
	fake_kf_run(e.fk, 100, 1000 * MS, 0, 0);	/* in g, uncapped */
	wr_ok(&e, g, "cpu.cfs_quota_us", "20000");
	quota_pass(qe, 0);
	g_assert_false(fake_kf_traced(e.fk, 100));
	fake_kf_run(e.fk, 100, 10 * MS, 0, 0);
	quota_pass(qe, 10 * MS);
	g_assert_false(fake_kf_traced(e.fk, 100));
	fake_kf_run(e.fk, 100, 9 * MS, 0, 0);
	quota_pass(qe, 19 * MS);
	g_assert_false(fake_kf_traced(e.fk, 100));
	fake_kf_run(e.fk, 100, 2 * MS, 0, 0);
	quota_pass(qe, 21 * MS);
	g_assert_true(fake_kf_frozen(e.fk, 100));
	/* 1 ms of debt, nothing older: it runs in the next period. */
	quota_pass(qe, 100 * MS);
	g_assert_false(fake_kf_traced(e.fk, 100));
	teardown(&e, qe);
}

/* A new quota starts owing nothing, whatever the group ran under the
 * former one (over it, throttled, or not), or with no quota between. */
static void test_new_quota_charges_from_now(void)
{
	struct quota_enforcer *qe;
	struct env e;
	uint64_t g;

	setup(&e, &qe);
	g = mkdir_ok(&e, e.top[0], "g");
	wr_ok(&e, g, "cgroup.procs", "100");
	wr_ok(&e, g, "cpu.cfs_quota_us", "500000");
	quota_pass(qe, 0);
	/* Under a large quota, throttled with a debt. */
	fake_kf_run(e.fk, 100, 600 * MS, 0, 0);
	fake_kf_run(e.fk, 101, 600 * MS, 0, 1);
	quota_pass(qe, 10 * MS);
	g_assert_true(fake_kf_frozen(e.fk, 100));
	wr_ok(&e, g, "cpu.cfs_quota_us", "20000");
	quota_pass(qe, 20 * MS);
	g_assert_false(fake_kf_traced(e.fk, 100));
	fake_kf_run(e.fk, 100, 10 * MS, 0, 0);
	quota_pass(qe, 30 * MS);
	g_assert_false(fake_kf_traced(e.fk, 100));
	fake_kf_run(e.fk, 100, 11 * MS, 0, 0);
	quota_pass(qe, 41 * MS);
	g_assert_true(fake_kf_frozen(e.fk, 100));
	/* No quota, a lot of CPU, a quota again: charged from then. */
	wr_ok(&e, g, "cpu.cfs_quota_us", "-1");
	quota_pass(qe, 50 * MS);
	g_assert_false(fake_kf_traced(e.fk, 100));
	fake_kf_run(e.fk, 100, 3000 * MS, 0, 0);
	fake_kf_run(e.fk, 101, 3000 * MS, 0, 1);
	quota_pass(qe, 3050 * MS);
	wr_ok(&e, g, "cpu.cfs_quota_us", "20000");
	quota_pass(qe, 3060 * MS);
	g_assert_false(fake_kf_traced(e.fk, 100));
	fake_kf_run(e.fk, 100, 10 * MS, 0, 0);
	quota_pass(qe, 3070 * MS);
	g_assert_false(fake_kf_traced(e.fk, 100));
	g_assert_cmpuint(stat_of(&e, g, "cpu.stat", "nr_throttled"), ==, 2);
	/* The same quota written again refills it too. */
	fake_kf_run(e.fk, 100, 30 * MS, 0, 0);
	quota_pass(qe, 3080 * MS);
	g_assert_true(fake_kf_frozen(e.fk, 100));
	/* What it ran between that sample and its stop is the old quota's,
	 * although no sample came while it was throttled. */
	fake_kf_run(e.fk, 100, 50 * MS, 0, 0);
	wr_ok(&e, g, "cpu.cfs_quota_us", "20000");
	quota_pass(qe, 3090 * MS);
	g_assert_false(fake_kf_traced(e.fk, 100));
	fake_kf_run(e.fk, 100, 10 * MS, 0, 0);
	quota_pass(qe, 3095 * MS);
	g_assert_false(fake_kf_traced(e.fk, 100));
	/* A thread that ran 5 s elsewhere joins: it brings no debt. */
	fake_kf_run(e.fk, P200, 5000 * MS, 0, 0);
	wr_ok(&e, g, "cgroup.procs", "200");
	quota_pass(qe, 3096 * MS);
	g_assert_false(fake_kf_traced(e.fk, P200));
	g_assert_false(fake_kf_traced(e.fk, 100));
	teardown(&e, qe);
}

/* ---- cpu.idle ----------------------------------------------------------- */

static void test_idle(void)
{
	struct quota_enforcer *qe;
	struct idle_enforcer *ie;
	struct env e;
	uint64_t g, c;

	setup(&e, &qe);
	ie = idle_enforcer_new(e.core);
	g_assert_nonnull(ie);
	g = mkdir_ok(&e, e.top[0], "g");
	c = mkdir_ok(&e, g, "c");
	wr_ok(&e, c, "cgroup.procs", "100");
	wr_ok(&e, g, "cgroup.procs", "200");
	fake_kf_set_own_policy(e.fk, P200, SCHED_BATCH);	/* the user's choice */
	idle_pass(ie);
	g_assert_cmpint(fake_kf_policy(e.fk, 100), ==, SCHED_OTHER);
	g_assert_cmpuint(fake_kf_calls(e.fk).policy, ==, 0);
	/* The parent idle: its subtree's SCHED_OTHER threads are idle. */
	wr_ok(&e, g, "cpu.idle", "1");
	idle_pass(ie);
	g_assert_cmpint(fake_kf_policy(e.fk, 100), ==, SCHED_IDLE);
	g_assert_cmpint(fake_kf_policy(e.fk, 101), ==, SCHED_IDLE);
	g_assert_cmpint(fake_kf_policy(e.fk, P200), ==, SCHED_BATCH);
	g_assert_cmpuint(idle_nr_threads(ie), ==, 2);
	/* A child forked by one inherits, and is ours; one that sets its
	 * own policy meanwhile keeps it. */
	fake_kf_fork(e.fk, 100, 300, 300);
	idle_pass(ie);
	g_assert_cmpint(fake_kf_policy(e.fk, 300), ==, SCHED_IDLE);
	g_assert_cmpuint(idle_nr_threads(ie), ==, 3);
	/* Moved out: SCHED_OTHER again. */
	wr_ok(&e, e.top[0], "tasks", "101");
	idle_pass(ie);
	g_assert_cmpint(fake_kf_policy(e.fk, 101), ==, SCHED_OTHER);
	fake_kf_set_own_policy(e.fk, 300, SCHED_BATCH);
	/* cpu.idle 0: all back, but the thread that chose its own. */
	wr_ok(&e, g, "cpu.idle", "0");
	idle_pass(ie);
	g_assert_cmpint(fake_kf_policy(e.fk, 100), ==, SCHED_OTHER);
	g_assert_cmpint(fake_kf_policy(e.fk, 300), ==, SCHED_BATCH);
	g_assert_cmpint(fake_kf_policy(e.fk, P200), ==, SCHED_BATCH);
	g_assert_cmpuint(idle_nr_threads(ie), ==, 0);
	/* A thread already idle by its own choice is not ours to give back. */
	fake_kf_set_own_policy(e.fk, P200, SCHED_IDLE);
	wr_ok(&e, g, "cpu.idle", "1");
	idle_pass(ie);
	g_assert_cmpuint(idle_nr_threads(ie), ==, 1);	/* 100 */
	/* The daemon's stop gives back what it set. */
	idle_release_all(ie);
	g_assert_cmpint(fake_kf_policy(e.fk, 100), ==, SCHED_OTHER);
	g_assert_cmpint(fake_kf_policy(e.fk, P200), ==, SCHED_IDLE);
	idle_enforcer_free(ie);
	teardown(&e, qe);
}

/* A state's place in a directory of its own, and its STATE.idle. */
struct idle_files {
	char *dir, *state, *file;
};

static void idle_files_make(struct idle_files *f)
{
	GError *err = NULL;

	f->dir = g_dir_make_tmp("test-quota-XXXXXX", &err);
	g_assert_no_error(err);
	f->state = g_build_filename(f->dir, "s.state", NULL);
	f->file = g_strconcat(f->state, ".idle", NULL);
}

/* At the end: no file left (nothing left to give back), all removed. */
static void idle_files_done(struct idle_files *f)
{
	g_assert_false(g_file_test(f->file, G_FILE_TEST_EXISTS));
	g_assert_cmpint(g_rmdir(f->dir), ==, 0);
	g_free(f->file);
	g_free(f->state);
	g_free(f->dir);
}

/* An idle enforcer that records what it makes idle beside state. */
static struct idle_enforcer *idle_on_file(struct env *e, const char *state)
{
	struct idle_enforcer *ie = idle_enforcer_new(e->core);
	GError *err = NULL;

	g_assert_true(idle_keep_originals(ie, state, "boot-1", &err));
	g_assert_no_error(err);
	return ie;
}

/* What a daemon killed with kill -9 made idle (its STATE.idle as it left
 * it): the next one keeps the threads still in idle groups, gives the
 * others SCHED_OTHER back, and touches no thread whose identity differs. */
static void test_idle_after_crash(void)
{
	struct quota_enforcer *qe;
	struct idle_enforcer *ie;
	struct env e;
	struct idle_files fs;
	char *bad;
	uint64_t g, c;
	FILE *f;

	idle_files_make(&fs);
	setup(&e, &qe);
	ie = idle_on_file(&e, fs.state);
	g = mkdir_ok(&e, e.top[0], "g");
	c = mkdir_ok(&e, g, "c");
	wr_ok(&e, c, "cgroup.procs", "100");
	wr_ok(&e, g, "cpu.idle", "1");
	idle_pass(ie);
	g_assert_cmpint(fake_kf_policy(e.fk, 101), ==, SCHED_IDLE);
	/* kill -9: nothing given back, the file as it was. */
	idle_enforcer_free(ie);
	g_assert_true(g_file_test(fs.file, G_FILE_TEST_EXISTS));
	/* A thread of the same id but another identity (idle of its own, no
	 * child of a recorded one), and lines that mean nothing: not acted
	 * on. */
	fake_kf_add_process(e.fk, 300, 1);
	fake_kf_set_own_policy(e.fk, 300, SCHED_IDLE);
	wr_ok(&e, e.top[0], "cgroup.procs", "300");
	bad = g_strdup_printf("i 300 %" G_GUINT64_FORMAT "\ni x 1\nt 1 1 0 0\n",
			      fake_kf_ino(e.fk, 300) + 1);
	g_assert_nonnull(f = fopen(fs.file, "a"));
	fputs(bad, f);
	fclose(f);
	/* 101 left the idle group meanwhile. */
	wr_ok(&e, e.top[0], "tasks", "101");
	ie = idle_on_file(&e, fs.state);
	idle_pass(ie);
	g_assert_cmpint(fake_kf_policy(e.fk, 100), ==, SCHED_IDLE);
	g_assert_cmpint(fake_kf_policy(e.fk, 101), ==, SCHED_OTHER);
	g_assert_cmpint(fake_kf_policy(e.fk, 300), ==, SCHED_IDLE);
	g_assert_cmpuint(idle_nr_threads(ie), ==, 1);
	/* 100 is this daemon's now: given back at cpu.idle 0. */
	wr_ok(&e, g, "cpu.idle", "0");
	idle_pass(ie);
	g_assert_cmpint(fake_kf_policy(e.fk, 100), ==, SCHED_OTHER);
	g_assert_cmpint(fake_kf_policy(e.fk, 300), ==, SCHED_IDLE);
	/* A clean stop with nothing left: no file. */
	idle_release_all(ie);
	idle_enforcer_free(ie);
	idle_files_done(&fs);
	teardown(&e, qe);
	g_free(bad);
}

/* Children forked while no daemon ran by threads the last one made idle
 * inherited SCHED_IDLE and are on no record: the restart walks the
 * recorded threads' children (and theirs, every thread of each), keeps
 * those in idle groups as its own, gives the other idle ones SCHED_OTHER
 * back, and leaves a child of another policy as it is; the same without
 * the cpu controller (idle_give_back_file). */
static void test_idle_children_after_crash(void)
{
	struct quota_enforcer *qe;
	struct idle_enforcer *ie;
	struct env e;
	struct idle_files fs;
	GError *err = NULL;
	uint64_t g;

	idle_files_make(&fs);
	setup(&e, &qe);
	ie = idle_on_file(&e, fs.state);
	g = mkdir_ok(&e, e.top[0], "g");
	wr_ok(&e, g, "cgroup.procs", "100");
	wr_ok(&e, g, "cpu.idle", "1");
	idle_pass(ie);
	g_assert_cmpint(fake_kf_policy(e.fk, 101), ==, SCHED_IDLE);
	idle_enforcer_free(ie);		/* kill -9 */
	/* No daemon: 100 forks 400, which forks 500 (two threads); 100 forks
	 * 600, which chooses SCHED_BATCH; they are moved out of g. 101 forks
	 * 700, which stays in g. 200, idle by its own choice, is no child. */
	fake_kf_fork(e.fk, 100, 400, 400);
	fake_kf_fork(e.fk, 400, 500, 500);
	fake_kf_fork(e.fk, 500, 501, 500);
	fake_kf_fork(e.fk, 100, 600, 600);
	fake_kf_set_own_policy(e.fk, 600, SCHED_BATCH);
	fake_kf_fork(e.fk, 101, 700, 700);
	fake_kf_set_own_policy(e.fk, P200, SCHED_IDLE);
	wr_ok(&e, e.top[0], "cgroup.procs", "400");
	wr_ok(&e, e.top[0], "cgroup.procs", "500");
	wr_ok(&e, e.top[0], "cgroup.procs", "600");
	for (pid_t t = 400; t <= 700; t += 100)
		g_assert_cmpint(fake_kf_policy(e.fk, t), ==, t == 600 ? SCHED_BATCH : SCHED_IDLE);
	g_assert_cmpint(fake_kf_policy(e.fk, 501), ==, SCHED_IDLE);
	ie = idle_on_file(&e, fs.state);
	idle_pass(ie);
	g_assert_cmpint(fake_kf_policy(e.fk, 400), ==, SCHED_OTHER);
	g_assert_cmpint(fake_kf_policy(e.fk, 500), ==, SCHED_OTHER);
	g_assert_cmpint(fake_kf_policy(e.fk, 501), ==, SCHED_OTHER);
	g_assert_cmpint(fake_kf_policy(e.fk, 600), ==, SCHED_BATCH);
	g_assert_cmpint(fake_kf_policy(e.fk, 700), ==, SCHED_IDLE);
	g_assert_cmpint(fake_kf_policy(e.fk, P200), ==, SCHED_IDLE);
	/* 700 is this daemon's (on file too): 100, 101, 700. */
	g_assert_cmpuint(idle_nr_threads(ie), ==, 3);
	idle_enforcer_free(ie);		/* kill -9 again */
	/* 700 forks 800 meanwhile; a restart without the cpu controller gives
	 * all back: 700 on file, 800 its child. */
	fake_kf_fork(e.fk, 700, 800, 800);
	g_assert_cmpint(fake_kf_policy(e.fk, 800), ==, SCHED_IDLE);
	g_assert_true(idle_give_back_file(fake_kf_facade(e.fk), fs.state, "boot-1", &err));
	g_assert_no_error(err);
	g_assert_cmpint(fake_kf_policy(e.fk, 100), ==, SCHED_OTHER);
	g_assert_cmpint(fake_kf_policy(e.fk, 700), ==, SCHED_OTHER);
	g_assert_cmpint(fake_kf_policy(e.fk, 800), ==, SCHED_OTHER);
	g_assert_cmpint(fake_kf_policy(e.fk, 600), ==, SCHED_BATCH);
	g_assert_cmpint(fake_kf_policy(e.fk, P200), ==, SCHED_IDLE);
	idle_files_done(&fs);
	teardown(&e, qe);
}

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/quota/period/throttle", test_period_throttle);
	g_test_add_func("/quota/period/debt-and-burst", test_period_debt_and_burst);
	g_test_add_func("/quota/no-cpu", test_no_cpu);
	g_test_add_func("/quota/throttle-and-release", test_throttle_and_release);
	g_test_add_func("/quota/debt-outlasts-freeze", test_debt_outlasts_freeze);
	g_test_add_func("/quota/signal-given-back", test_signal_given_back);
	g_test_add_func("/quota/sleepers-cost", test_sleepers_cost);
	g_test_add_func("/quota/hierarchy-and-members", test_hierarchy_and_members);
	g_test_add_func("/quota/settings-and-release", test_settings_and_release);
	g_test_add_func("/quota/cap-charges-from-now", test_cap_charges_from_now);
	g_test_add_func("/quota/new-quota-charges-from-now", test_new_quota_charges_from_now);
	g_test_add_func("/quota/idle", test_idle);
	g_test_add_func("/quota/idle-after-crash", test_idle_after_crash);
	g_test_add_func("/quota/idle-children-after-crash", test_idle_children_after_crash);
	return g_test_run();
}
