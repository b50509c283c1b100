/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The freezer: its files (against the kernel's, docs/kernel-oracle.md) and
 * the enforcer's decisions, driven pass by pass on the fake facade, whose
 * ptrace stops a thread at once unless its stop is held. */
#include <errno.h>
#include <signal.h>
#include <string.h>

#include <glib.h>

#include "core/cgroup.h"
#include "ctl/ctl.h"
#include "enforce/freezer.h"
#include "fake-kfacade.h"
#include "test-env.h"
#include "core/notify.h"
#include "v1/face.h"
#include "v2/face.h"

#define INIT 1
#define P100 100	/* threads 100, 101 */
#define P200 200

/* The enforcement thread's tracees. */
static struct tracees *tr;

/* One hierarchy with cpu and the freezer (with the cpuset, a task could
 * not join a group without CPUs). */
static void setup(struct env *e, struct freezer_enforcer **fe)
{
	env_setup_root(e, &cgroup1_face, ctl_bit("cpu") | ctl_bit("freezer"));
	fake_kf_add_process(e->fk, INIT, 1);
	fake_kf_add_process(e->fk, P100, 2);
	fake_kf_add_process(e->fk, P200, 1);
	tr = tracees_new(fake_kf_facade(e->fk));
	*fe = freezer_enforcer_new(e->core, tr);
	g_assert_nonnull(*fe);
}

/* Group g with process 100 (threads 100 and 101) in it. */
static uint64_t group_of_100(struct env *e)
{
	uint64_t g = mkdir_ok(e, e->top[0], "g");

	wr_ok(e, g, "cgroup.procs", "100");
	return g;
}

static void teardown(struct env *e, struct freezer_enforcer *fe)
{
	tracees_release_all(tr, 0);
	freezer_enforcer_free(fe);
	tracees_free(tr);
	env_teardown(e);
}

static void test_no_freezer(void)
{
	struct env e;

	env_setup(&e);
	g_assert_null(freezer_enforcer_new(e.core, NULL));
	env_teardown(&e);
}

static void test_files(void)
{
	struct freezer_enforcer *fe;
	struct env e;
	uint64_t g;

	setup(&e, &fe);
	g = mkdir_ok(&e, e.top[0], "g");
	assert_content(&e, g, "freezer.state", "THAWED\n");
	assert_content(&e, g, "freezer.self_freezing", "0\n");
	assert_content(&e, g, "freezer.parent_freezing", "0\n");
	/* The kernel's parsing: strstrip, then exactly THAWED or FROZEN. */
	g_assert_cmpint(wr(&e, g, "freezer.state", "FREEZING"), ==, -EINVAL);
	g_assert_cmpint(wr(&e, g, "freezer.state", "frozen"), ==, -EINVAL);
	g_assert_cmpint(wr(&e, g, "freezer.state", "\n"), ==, -EINVAL);
	g_assert_cmpint(wr(&e, g, "freezer.state", "FROZEN X"), ==, -EINVAL);
	assert_content(&e, g, "freezer.state", "THAWED\n");
	g_assert_cmpint(wrn(&e, g, "freezer.state", "FROZEN\0x", 8, INIT), ==, 8);
	/* Empty: frozen at once. */
	assert_content(&e, g, "freezer.state", "FROZEN\n");
	assert_content(&e, g, "freezer.self_freezing", "1\n");
	wr_ok(&e, g, "freezer.state", " THAWED \n");
	assert_content(&e, g, "freezer.state", "THAWED\n");
	g_assert_cmpint(wr(&e, g, "freezer.self_freezing", "1"), <, 0);
	teardown(&e, fe);
}

/* freezer_change_state(): parents first, each child by its parent. */
static void test_hierarchy(void)
{
	struct freezer_enforcer *fe;
	struct env e;
	uint64_t a, b, c;

	setup(&e, &fe);
	a = mkdir_ok(&e, e.top[0], "a");
	b = mkdir_ok(&e, a, "b");
	wr_ok(&e, a, "freezer.state", "FROZEN");
	assert_content(&e, b, "freezer.state", "FROZEN\n");
	assert_content(&e, b, "freezer.self_freezing", "0\n");
	assert_content(&e, b, "freezer.parent_freezing", "1\n");
	/* A new group of a freezing parent freezes. */
	c = mkdir_ok(&e, b, "c");
	assert_content(&e, c, "freezer.parent_freezing", "1\n");
	/* Thawing a child of a frozen parent does nothing. */
	wr_ok(&e, b, "freezer.state", "THAWED");
	assert_content(&e, b, "freezer.state", "FROZEN\n");
	/* A child frozen itself stays frozen when its parent thaws. */
	wr_ok(&e, b, "freezer.state", "FROZEN");
	wr_ok(&e, a, "freezer.state", "THAWED");
	assert_content(&e, a, "freezer.state", "THAWED\n");
	assert_content(&e, b, "freezer.state", "FROZEN\n");
	assert_content(&e, b, "freezer.self_freezing", "1\n");
	assert_content(&e, b, "freezer.parent_freezing", "0\n");
	assert_content(&e, c, "freezer.parent_freezing", "1\n");
	/* A frozen empty group can be removed. */
	g_assert_cmpint(cg_rmdir(e.core, b, "c", &root_cred), ==, 0);
	g_assert_cmpint(cg_rmdir(e.core, a, "b", &root_cred), ==, 0);
	teardown(&e, fe);
}

static void test_freeze_thaw(void)
{
	struct freezer_enforcer *fe;
	struct env e;
	uint64_t g;

	setup(&e, &fe);
	g = group_of_100(&e);
	g_assert_false(freezer_pass(fe, false));
	g_assert_false(fake_kf_traced(e.fk, 100));	/* nothing to freeze: no ptrace */
	wr_ok(&e, g, "freezer.state", "FROZEN");
	/* Wanted, not done: the kernel's FREEZING. */
	assert_content(&e, g, "freezer.state", "FREEZING\n");
	g_assert_false(freezer_pass(fe, false));
	g_assert_true(fake_kf_frozen(e.fk, 100));
	g_assert_true(fake_kf_frozen(e.fk, 101));
	g_assert_false(fake_kf_traced(e.fk, P200));
	assert_content(&e, g, "freezer.state", "FROZEN\n");
	g_assert_cmpuint(freezer_stats(fe)->frozen, ==, 2);
	/* A pass with nothing new changes nothing. */
	freezer_pass(fe, true);
	g_assert_cmpuint(fake_kf_calls(e.fk).trace_freeze, ==, 2);

	wr_ok(&e, g, "freezer.state", "THAWED");
	freezer_pass(fe, false);
	g_assert_false(fake_kf_traced(e.fk, 100));
	g_assert_false(fake_kf_traced(e.fk, 101));
	g_assert_cmpuint(fake_kf_calls(e.fk).trace_thaw, ==, 2);
	g_assert_cmpuint(freezer_stats(fe)->frozen, ==, 0);
	g_assert_false(tracees_tracing(tr));
	teardown(&e, fe);
}

/* Threads forked or moved in while frozen are frozen; one moved out, a
 * nested group's, and one that exits are let go. */
static void test_membership(void)
{
	struct freezer_enforcer *fe;
	struct env e;
	uint64_t g, sub;

	setup(&e, &fe);
	g = mkdir_ok(&e, e.top[0], "g");
	sub = mkdir_ok(&e, g, "sub");
	wr_ok(&e, g, "tasks", "100");
	wr_ok(&e, g, "freezer.state", "FROZEN");
	freezer_pass(fe, false);
	g_assert_true(fake_kf_frozen(e.fk, 100));
	g_assert_false(fake_kf_traced(e.fk, 101));	/* v1: threads move alone */

	fake_kf_fork(e.fk, 100, 300, 300);	/* raced the freeze */
	fake_kf_fork(e.fk, 0, 102, P100);	/* a new thread of 100 */
	freezer_pass(fe, false);
	g_assert_true(fake_kf_frozen(e.fk, 300));
	g_assert_true(fake_kf_frozen(e.fk, 102));
	g_assert_false(fake_kf_traced(e.fk, 101));

	wr_ok(&e, sub, "tasks", "200");		/* a nested group freezes too */
	freezer_pass(fe, false);
	g_assert_true(fake_kf_frozen(e.fk, P200));
	assert_content(&e, g, "freezer.state", "FROZEN\n");

	wr_ok(&e, e.top[0], "tasks", "300");	/* out: runs again */
	freezer_pass(fe, false);
	g_assert_false(fake_kf_traced(e.fk, 300));
	g_assert_true(fake_kf_frozen(e.fk, 100));

	fake_kf_exit(e.fk, 102);		/* a frozen thread killed */
	g_assert_true(freezer_pass(fe, false));	/* look again soon: reap it */
	g_assert_false(freezer_pass(fe, false));
	g_assert_cmpuint(freezer_stats(fe)->frozen, ==, 2);
	assert_content(&e, g, "freezer.state", "FROZEN\n");
	teardown(&e, fe);
}

/* A thread that does not stop at once (uninterruptible sleep) keeps the
 * group FREEZING, and passes are due until it stops. */
static void test_slow_stop(void)
{
	struct freezer_enforcer *fe;
	struct env e;
	uint64_t g;

	setup(&e, &fe);
	g = group_of_100(&e);
	fake_kf_hold_stop(e.fk, 101, true);
	wr_ok(&e, g, "freezer.state", "FROZEN");
	g_assert_true(freezer_pass(fe, false));
	g_assert_true(fake_kf_frozen(e.fk, 100));
	g_assert_false(fake_kf_frozen(e.fk, 101));
	assert_content(&e, g, "freezer.state", "FREEZING\n");
	g_assert_cmpuint(freezer_stats(fe)->freezing, ==, 1);
	fake_kf_hold_stop(e.fk, 101, false);
	g_assert_false(freezer_pass(fe, false));
	assert_content(&e, g, "freezer.state", "FROZEN\n");

	/* Thawed while on its way to a stop: let go once it stops. */
	wr_ok(&e, g, "freezer.state", "THAWED");
	freezer_pass(fe, false);
	wr_ok(&e, g, "freezer.state", "FROZEN");
	fake_kf_hold_stop(e.fk, 100, true);
	fake_kf_hold_stop(e.fk, 101, true);
	freezer_pass(fe, false);
	wr_ok(&e, g, "freezer.state", "THAWED");
	g_assert_true(freezer_pass(fe, false));
	g_assert_true(fake_kf_traced(e.fk, 100));
	fake_kf_hold_stop(e.fk, 100, false);
	fake_kf_hold_stop(e.fk, 101, false);
	g_assert_false(freezer_pass(fe, false));
	g_assert_false(fake_kf_traced(e.fk, 100));
	g_assert_false(fake_kf_traced(e.fk, 101));
	teardown(&e, fe);
}

/* A thread waiting in vfork() cannot stop, and counts as frozen as on the
 * kernel (its freezable wait): from the pass after the one that found it
 * not stopped; once its child is done it stops for real. */
static void test_vfork_waiter(void)
{
	struct freezer_enforcer *fe;
	struct env e;
	uint64_t g;

	setup(&e, &fe);
	g = group_of_100(&e);
	fake_kf_set_vfork(e.fk, 101, true);
	wr_ok(&e, g, "freezer.state", "FROZEN");
	g_assert_true(freezer_pass(fe, false));
	assert_content(&e, g, "freezer.state", "FREEZING\n");
	g_assert_true(freezer_pass(fe, false));
	assert_content(&e, g, "freezer.state", "FROZEN\n");
	g_assert_false(fake_kf_frozen(e.fk, 101));
	fake_kf_set_vfork(e.fk, 101, false);
	freezer_pass(fe, false);
	g_assert_true(fake_kf_frozen(e.fk, 101));
	assert_content(&e, g, "freezer.state", "FROZEN\n");
	/* Another thread that cannot stop, not in vfork(): FREEZING. */
	fake_kf_hold_stop(e.fk, 200, true);
	wr_ok(&e, g, "cgroup.procs", "200");
	freezer_pass(fe, false);
	freezer_pass(fe, false);
	assert_content(&e, g, "freezer.state", "FREEZING\n");
	wr_ok(&e, g, "freezer.state", "THAWED");
	fake_kf_hold_stop(e.fk, 200, false);
	freezer_pass(fe, false);
	g_assert_false(fake_kf_traced(e.fk, 101));
	teardown(&e, fe);
}

/* A thread a debugger traces cannot be frozen: the group stays FREEZING
 * (as the kernel's does while a task cannot freeze), the refusal is
 * counted, and the thread is tried again at a recheck. */
static void test_debugged(void)
{
	struct freezer_enforcer *fe;
	struct env e;
	uint64_t g;

	setup(&e, &fe);
	g = group_of_100(&e);
	fake_kf_set_debugged(e.fk, 101, true);
	wr_ok(&e, g, "freezer.state", "FROZEN");
	g_assert_false(freezer_pass(fe, false));
	g_assert_true(fake_kf_frozen(e.fk, 100));
	g_assert_cmpuint(freezer_stats(fe)->refused, ==, 1);
	assert_content(&e, g, "freezer.state", "FREEZING\n");
	fake_kf_set_debugged(e.fk, 101, false);
	freezer_pass(fe, false);		/* no recheck: not tried */
	g_assert_false(fake_kf_traced(e.fk, 101));
	freezer_pass(fe, true);
	g_assert_true(fake_kf_frozen(e.fk, 101));
	g_assert_cmpuint(freezer_stats(fe)->refused, ==, 0);
	assert_content(&e, g, "freezer.state", "FROZEN\n");
	teardown(&e, fe);
}

/* A thread the daemon's tracer has already, its fork's report on its way
 * (the ptrace source's EAGAIN): on its way to a stop, not refused, and
 * tried again at the next pass, which is due soon; no recheck needed. */
static void test_trace_pending(void)
{
	struct freezer_enforcer *fe;
	struct env e;
	uint64_t g;

	setup(&e, &fe);
	g = group_of_100(&e);
	fake_kf_set_trace_pending(e.fk, 101, true);
	wr_ok(&e, g, "freezer.state", "FROZEN");
	g_assert_true(freezer_pass(fe, false));	/* look again soon */
	g_assert_true(fake_kf_frozen(e.fk, 100));
	g_assert_false(fake_kf_traced(e.fk, 101));
	g_assert_cmpuint(freezer_stats(fe)->refused, ==, 0);
	g_assert_cmpuint(freezer_stats(fe)->freezing, ==, 1);
	assert_content(&e, g, "freezer.state", "FREEZING\n");
	g_assert_true(freezer_pass(fe, false));	/* still pending */
	fake_kf_set_trace_pending(e.fk, 101, false);
	g_assert_false(freezer_pass(fe, false));
	g_assert_true(fake_kf_frozen(e.fk, 101));
	assert_content(&e, g, "freezer.state", "FROZEN\n");
	/* A thaw lets both go. */
	wr_ok(&e, g, "freezer.state", "THAWED");
	freezer_pass(fe, false);
	g_assert_false(fake_kf_traced(e.fk, 100) || fake_kf_traced(e.fk, 101));
	teardown(&e, fe);
}

/* A thread its own parent traces (PTRACE_TRACEME) is stopped with SIGSTOP
 * once its tracer is held stopped, which then cannot resume it; the group
 * is FROZEN. At the thaw it gets a SIGCONT before its tracer is let go. */
static void test_traced_by_parent(void)
{
	struct freezer_enforcer *fe;
	struct env e;
	uint64_t g;

	setup(&e, &fe);
	g = mkdir_ok(&e, e.top[0], "g");
	wr_ok(&e, g, "tasks", "200");
	fake_kf_set_tracer(e.fk, 200, 100);	/* its tracer, outside the group */
	wr_ok(&e, g, "freezer.state", "FROZEN");
	g_assert_true(freezer_pass(fe, false));	/* the tracer first */
	g_assert_true(fake_kf_frozen(e.fk, 100));
	freezer_pass(fe, false);
	g_assert_true(fake_kf_sig_stopped(e.fk, 200));
	g_assert_false(fake_kf_tracer_resumes(e.fk, 200));
	g_assert_false(freezer_pass(fe, false));
	g_assert_cmpuint(freezer_stats(fe)->refused, ==, 0);
	g_assert_cmpuint(freezer_stats(fe)->frozen, ==, 1);
	assert_content(&e, g, "freezer.state", "FROZEN\n");
	wr_ok(&e, g, "freezer.state", "THAWED");
	freezer_pass(fe, false);
	g_assert_cmpint(fake_kf_conts(e.fk, 200), ==, 1);
	g_assert_false(fake_kf_traced(e.fk, 100));
	g_assert_true(fake_kf_tracer_resumes(e.fk, 200));
	teardown(&e, fe);
}

/* A thread whose tracer its user could not stop (root's, of user 1234's
 * thread) is refused: the tracer is left alone and the group FREEZING. */
static void test_traced_by_another_user(void)
{
	struct freezer_enforcer *fe;
	struct env e;
	uint64_t g;

	setup(&e, &fe);
	g = mkdir_ok(&e, e.top[0], "g");
	wr_ok(&e, g, "tasks", "200");
	fake_kf_set_uids(e.fk, 200, &(struct task_uids){ 1234, 1234, 1234, 1234 });
	fake_kf_set_tracer(e.fk, 200, 100);
	wr_ok(&e, g, "freezer.state", "FROZEN");
	freezer_pass(fe, false);
	freezer_pass(fe, false);
	g_assert_false(fake_kf_traced(e.fk, 100));
	g_assert_false(fake_kf_sig_stopped(e.fk, 200));
	g_assert_cmpuint(freezer_stats(fe)->refused, ==, 1);
	assert_content(&e, g, "freezer.state", "FREEZING\n");
	teardown(&e, fe);
}

/* A signal taken by the stop is given back at the thaw, and the daemon's
 * stop lets every thread go. */
static void test_signal_and_release(void)
{
	struct freezer_enforcer *fe;
	struct env e;
	uint64_t g;

	setup(&e, &fe);
	g = group_of_100(&e);
	wr_ok(&e, g, "tasks", "200");
	fake_kf_send_signal(e.fk, 100, SIGUSR1);
	wr_ok(&e, g, "freezer.state", "FROZEN");
	freezer_pass(fe, false);
	g_assert_true(fake_kf_frozen(e.fk, 100));
	wr_ok(&e, g, "freezer.state", "THAWED");
	freezer_pass(fe, false);
	g_assert_cmpint(fake_kf_given_back(e.fk, 100), ==, SIGUSR1);
	g_assert_cmpint(fake_kf_given_back(e.fk, 101), ==, 0);

	wr_ok(&e, g, "freezer.state", "FROZEN");
	freezer_pass(fe, false);
	g_assert_cmpuint(freezer_stats(fe)->frozen, ==, 3);
	tracees_release_all(tr, 0);
	g_assert_false(fake_kf_traced(e.fk, 100));
	g_assert_false(fake_kf_traced(e.fk, 101));
	g_assert_false(fake_kf_traced(e.fk, P200));
	g_assert_false(tracees_tracing(tr));
	teardown(&e, fe);
}

/* ---- v2: cgroup.freeze and cgroup.events' frozen ------------------------ */

static unsigned frozen_changes;

static void count_frozen(void *data, struct cgroup *cgrp, bool frozen)
{
	(void)data;
	(void)cgrp;
	(void)frozen;
	frozen_changes++;
}

/* A v2 hierarchy; a holds process 100 (threads 100, 101), a/b 200. */
static void setup_v2(struct env *e, struct freezer_enforcer **fe, uint64_t *a, uint64_t *b)
{
	env_setup_root(e, &cgroup2_face, ctl_bit("cpu"));
	fake_kf_add_process(e->fk, INIT, 1);
	fake_kf_add_process(e->fk, P100, 2);
	fake_kf_add_process(e->fk, P200, 1);
	tr = tracees_new(fake_kf_facade(e->fk));
	*fe = freezer_enforcer_new(e->core, tr);
	g_assert_nonnull(*fe);
	*a = mkdir_ok(e, e->top[0], "a");
	*b = mkdir_ok(e, *a, "b");
	wr_ok(e, *a, "cgroup.procs", "100");
	wr_ok(e, *b, "cgroup.procs", "200");
}

static void test_v2_freeze(void)
{
	struct cg_subscriber sub = { .frozen = count_frozen };
	struct freezer_enforcer *fe;
	struct env e;
	uint64_t a, b, c;

	setup_v2(&e, &fe, &a, &b);
	cg_subscribe(e.core, &sub);
	frozen_changes = 0;
	g_assert_cmpint(wr(&e, a, "cgroup.freeze", "2"), ==, -ERANGE);
	g_assert_cmpint(wr(&e, a, "cgroup.freeze", "x"), ==, -EINVAL);
	wr_ok(&e, a, "cgroup.freeze", "1");
	assert_content(&e, a, "cgroup.freeze", "1\n");
	assert_content(&e, b, "cgroup.freeze", "0\n");
	/* Wanted, not done yet. */
	assert_content(&e, a, "cgroup.events", "populated 1\nfrozen 0\n");
	g_assert_false(freezer_pass(fe, false));
	g_assert_true(fake_kf_frozen(e.fk, 100));
	g_assert_true(fake_kf_frozen(e.fk, 101));
	g_assert_true(fake_kf_frozen(e.fk, P200));
	assert_content(&e, a, "cgroup.events", "populated 1\nfrozen 1\n");
	assert_content(&e, b, "cgroup.events", "populated 1\nfrozen 1\n");
	g_assert_cmpuint(frozen_changes, ==, 2);	/* poll() woken in a and b */

	/* A child forked meanwhile freezes; a thread moved out runs. */
	fake_kf_fork(e.fk, 100, 300, 300);
	wr_ok(&e, e.top[0], "cgroup.procs", "200");
	freezer_pass(fe, false);
	g_assert_true(fake_kf_frozen(e.fk, 300));
	g_assert_false(fake_kf_traced(e.fk, P200));
	assert_content(&e, b, "cgroup.events", "populated 0\nfrozen 1\n");
	/* A new group of a frozen one shows frozen. */
	c = mkdir_ok(&e, b, "c");
	freezer_pass(fe, false);
	assert_content(&e, c, "cgroup.events", "populated 0\nfrozen 1\n");

	/* 0 under a frozen ancestor thaws nothing. */
	wr_ok(&e, b, "cgroup.freeze", "0");
	freezer_pass(fe, false);
	assert_content(&e, b, "cgroup.events", "populated 0\nfrozen 1\n");
	/* b frozen itself, a thawed: a's threads run, b stays frozen. */
	frozen_changes = 0;
	wr_ok(&e, b, "cgroup.freeze", "1");
	wr_ok(&e, a, "cgroup.freeze", "0");
	freezer_pass(fe, false);
	g_assert_false(fake_kf_traced(e.fk, 100));
	g_assert_false(fake_kf_traced(e.fk, 300));
	assert_content(&e, a, "cgroup.events", "populated 1\nfrozen 0\n");
	assert_content(&e, b, "cgroup.events", "populated 0\nfrozen 1\n");
	assert_content(&e, c, "cgroup.events", "populated 0\nfrozen 1\n");
	/* a's thaw, and b's write under a frozen a (the kernel's
	 * cgroup_freeze() notifies a change that applied nothing). */
	g_assert_cmpuint(frozen_changes, ==, 2);
	/* A thread moved in freezes; one slow to stop keeps frozen 0. */
	fake_kf_hold_stop(e.fk, 101, true);
	wr_ok(&e, c, "cgroup.procs", "100");
	g_assert_true(freezer_pass(fe, false));
	assert_content(&e, b, "cgroup.events", "populated 1\nfrozen 0\n");
	fake_kf_hold_stop(e.fk, 101, false);
	g_assert_false(freezer_pass(fe, false));
	assert_content(&e, b, "cgroup.events", "populated 1\nfrozen 1\n");
	assert_content(&e, c, "cgroup.events", "populated 1\nfrozen 1\n");
	/* The daemon's stop lets every thread go. */
	tracees_release_all(tr, 0);
	g_assert_false(fake_kf_traced(e.fk, 100));
	g_assert_false(fake_kf_traced(e.fk, 101));
	cg_unsubscribe(e.core, &sub);
	teardown(&e, fe);
}

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/freezer/no-freezer", test_no_freezer);
	g_test_add_func("/freezer/files", test_files);
	g_test_add_func("/freezer/hierarchy", test_hierarchy);
	g_test_add_func("/freezer/freeze-thaw", test_freeze_thaw);
	g_test_add_func("/freezer/membership", test_membership);
	g_test_add_func("/freezer/slow-stop", test_slow_stop);
	g_test_add_func("/freezer/debugged", test_debugged);
	g_test_add_func("/freezer/trace-pending", test_trace_pending);
	g_test_add_func("/freezer/vfork-waiter", test_vfork_waiter);
	g_test_add_func("/freezer/traced-by-parent", test_traced_by_parent);
	g_test_add_func("/freezer/traced-by-another-user", test_traced_by_another_user);
	g_test_add_func("/freezer/signal-and-release", test_signal_and_release);
	g_test_add_func("/freezer/v2-freeze", test_v2_freeze);
	return g_test_run();
}
