/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests of the controllers' default-hierarchy (v2) files: cpu, cpuset
 * and pids on a hierarchy whose face shows dfl_files, driven through the
 * core's file functions, on the v2 face (src/v2), every controller
 * enabled where a group is made. Each
 * expectation is the kernel's (docs/kernel-oracle.md, "v2 controllers"):
 * kernel/sched/core.c cpu_files, kernel/cgroup/cpuset.c dfl_files,
 * kernel/cgroup/pids.c pids_files, and the shares <-> weight conversions
 * checked against this machine's v1 cpu.shares. The fake facade has CPUs
 * 0-3 and node 0. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <glib.h>
#include <glib/gstdio.h>

#include "core/cgroup.h"
#include "core/internal.h"
#include "ctl/ctl.h"
#include "fake-kfacade.h"
#include "state/state.h"
#include "test-env.h"
#include "v2/face.h"

#define MS 1000000ULL

/* A core on e's facade with one default hierarchy (the v2 face): cpu,
 * cpuset and pids (cpuacct has no v2 files; it is the core's cpu.stat). */
static void new_core(struct env *e)
{
	unsigned nr = 0;

	while (cgfused_controllers[nr])
		nr++;
	e->core = cg_core_new(cgfused_controllers, nr, fake_kf_facade(e->fk));
	e->root[0] = cg_root_new(e->core, &cgroup2_face,
				 ctl_bit("cpu") | ctl_bit("cpuset") | ctl_bit("pids"), false);
	e->top[0] = e->root[0]->top->id;
}

static void setup(struct env *e)
{
	memset(e, 0, sizeof(*e));
	e->writer = 1;
	e->fk = fake_kf_new();
	new_core(e);
}

/* A group under parent with every controller, which parent enables for
 * its children first (a parent with members cannot: the no-internal-
 * process rule; the tests make their groups before they fill them). */
static uint64_t mk(struct env *e, uint64_t parent, const char *name)
{
	wr_ok(e, parent, "cgroup.subtree_control", "+cpu +cpuset +pids");
	return mkdir_ok(e, parent, name);
}

static bool has_file(struct env *e, uint64_t id, const char *name)
{
	bool has;

	cg_write_lock(&e->core->lock);
	has = cgroup_file_by_name(cgroup_by_id(e->core, id), name, NULL) != NULL;
	cg_write_unlock(&e->core->lock);
	return has;
}

/* The css of controller ss in group id. */
static struct css *css_of(struct env *e, uint64_t id, const struct cgroup_subsys *ss)
{
	struct css *css;

	cg_write_lock(&e->core->lock);
	css = cgroup_by_id(e->core, id)->subsys[__builtin_ctz(ctl_bit(ss->name))];
	cg_write_unlock(&e->core->lock);
	return css;
}

/* What the allocator weighs the group by: its shares. */
static uint64_t shares(struct env *e, uint64_t id)
{
	return cpu_cgrp_subsys.weight(css_of(e, id, &cpu_cgrp_subsys));
}

static void join(struct env *e, uint64_t id, pid_t tgid)
{
	char pid[16];

	snprintf(pid, sizeof(pid), "%d", tgid);
	wr_ok(e, id, "cgroup.procs", pid);
}

/* Writes value, expects err (0: accepted), then the file to read want. */
static void step(struct env *e, uint64_t id, const char *file, const char *value, int err,
		 const char *want)
{
	ssize_t ret = wr(e, id, file, value);
	char *esc = g_strescape(value, NULL), *got;

	EXPECT_INT(ret, err ? err : (ssize_t)strlen(value), "%s <- \"%s\"", file, esc);
	got = rd(e, id, file);
	if (strcmp(got, want) != 0) {
		char *g = g_strescape(got, NULL), *w = g_strescape(want, NULL);

		FAILF("%s <- \"%s\": reads \"%s\", want \"%s\"", file, esc, g, w);
		g_free(g);
		g_free(w);
	}
	g_free(got);
	g_free(esc);
}

/* One row of a table: in written (after a reset) gives err (0: taken),
 * and the file then reads want; shares: what the group weighs then. */
struct row {
	const char *in;
	int err;
	const char *want;
	uint64_t shares;
};

/* Each row written to file of a new group after reset. */
static void run_rows(const char *file, const char *reset, const struct row *rows, unsigned n)
{
	struct env e;
	uint64_t c;

	setup(&e);
	c = mk(&e, e.top[0], "c");
	for (unsigned i = 0; i < n; i++) {
		wr_ok(&e, c, file, reset);
		step(&e, c, file, rows[i].in, rows[i].err, rows[i].want);
		EXPECT_INT(shares(&e, c), rows[i].shares, "shares after %s <- %s", file, rows[i].in);
	}
	env_teardown(&e);
}

/* ---- which files where -------------------------------------------------- */

static void test_files(void)
{
	static const char *const everywhere[] = {
		"cpu.stat", "cpu.stat.local", "cpuset.cpus.effective", "cpuset.mems.effective",
	};
	static const char *const not_on_root[] = {
		"cpu.weight", "cpu.weight.nice", "cpu.idle", "cpu.max", "cpu.max.burst",
		"cpuset.cpus", "cpuset.mems", "cpuset.cpus.partition",
		"pids.max", "pids.current", "pids.peak", "pids.events", "pids.events.local",
	};
	static const char *const v1_only[] = {
		"cpu.shares", "cpu.cfs_quota_us", "cpu.cfs_period_us", "cpu.rt_runtime_us",
		"cpuacct.usage", "cpuacct.stat", "cpuset.effective_cpus", "cpuset.cpu_exclusive",
		"cpuset.memory_pressure_enabled", "cpuset.sched_load_balance",
	};
	struct env e;
	uint64_t c;

	setup(&e);
	c = mk(&e, e.top[0], "c");
	for (unsigned i = 0; i < G_N_ELEMENTS(everywhere); i++) {
		if (!has_file(&e, e.top[0], everywhere[i]) || !has_file(&e, c, everywhere[i]))
			FAILF("%s: missing in the root or a group", everywhere[i]);
	}
	for (unsigned i = 0; i < G_N_ELEMENTS(not_on_root); i++) {
		if (has_file(&e, e.top[0], not_on_root[i]) || !has_file(&e, c, not_on_root[i]))
			FAILF("%s: in the root, or missing in a group", not_on_root[i]);
	}
	for (unsigned i = 0; i < G_N_ELEMENTS(v1_only); i++) {
		if (has_file(&e, e.top[0], v1_only[i]) || has_file(&e, c, v1_only[i]))
			FAILF("%s: a v1 file on the default hierarchy", v1_only[i]);
	}
	if (!has_file(&e, e.top[0], "cpuset.cpus.isolated") || has_file(&e, c, "cpuset.cpus.isolated"))
		FAILF("cpuset.cpus.isolated: only in the root");
	env_teardown(&e);
}

/* ---- cpu ---------------------------------------------------------------- */

static void test_cpu_defaults(void)
{
	struct env e;
	uint64_t c;

	setup(&e);
	c = mk(&e, e.top[0], "c");
	expect_content(&e, c, "cpu.weight", "100\n");
	expect_content(&e, c, "cpu.weight.nice", "0\n");
	expect_content(&e, c, "cpu.idle", "0\n");
	expect_content(&e, c, "cpu.max", "max 100000\n");
	expect_content(&e, c, "cpu.max.burst", "0\n");
	expect_content(&e, c, "cpu.stat.local", "throttled_usec 0\n");
	g_assert_cmpuint(shares(&e, c), ==, 1024);
	env_teardown(&e);
}

/* cpu_weight_write_u64(): 1..10000 (ERANGE outside), kstrtoull base 0;
 * the shares are DIV_ROUND_CLOSEST(w * 1024, 100). */
static void test_cpu_weight(void)
{
	static const struct row rows[] = {
		{ "1", 0, "1\n", 10 },
		{ "10000", 0, "10000\n", 102400 },
		{ "150", 0, "150\n", 1536 },
		{ "200\n", 0, "200\n", 2048 },
		{ "+50", 0, "50\n", 512 },
		{ "0x64", 0, "100\n", 1024 },
		{ "0", -ERANGE, "100\n", 1024 },
		{ "10001", -ERANGE, "100\n", 1024 },
		{ "18446744073709551615", -ERANGE, "100\n", 1024 },
		{ "18446744073709551616", -ERANGE, "100\n", 1024 },
		{ "-1", -EINVAL, "100\n", 1024 },
		{ " 100", -EINVAL, "100\n", 1024 },
		{ "abc", -EINVAL, "100\n", 1024 },
		{ "1.5", -EINVAL, "100\n", 1024 },
	};
	run_rows("cpu.weight", "100", rows, G_N_ELEMENTS(rows));
}

/* cpu_weight_nice_write_s64(): -20..19 (ERANGE outside), the shares of
 * sched_prio_to_weight; reading gives the nice whose weight is nearest. */
static void test_cpu_weight_nice(void)
{
	static const struct {
		const char *in;
		int err;
		const char *nice, *weight;
		uint64_t shares;
	} rows[] = {
		{ "-20", 0, "-20\n", "8668\n", 88761 },
		{ "19", 0, "19\n", "1\n", 15 },
		{ "5", 0, "5\n", "33\n", 335 },
		{ "-2\n", 0, "-2\n", "155\n", 1586 },
		{ "0", 0, "0\n", "100\n", 1024 },
		{ "20", -ERANGE, "0\n", "100\n", 1024 },
		{ "-21", -ERANGE, "0\n", "100\n", 1024 },
		{ "abc", -EINVAL, "0\n", "100\n", 1024 },
		{ "", 0, "0\n", "100\n", 1024 },
	};
	struct env e;
	uint64_t c;

	setup(&e);
	c = mk(&e, e.top[0], "c");
	for (unsigned i = 0; i < G_N_ELEMENTS(rows); i++) {
		wr_ok(&e, c, "cpu.weight", "100");
		step(&e, c, "cpu.weight.nice", rows[i].in, rows[i].err, rows[i].nice);
		expect_content(&e, c, "cpu.weight", rows[i].weight);
		EXPECT_INT(shares(&e, c), rows[i].shares, "shares after weight.nice <- %s", rows[i].in);
	}
	/* The nice nearest to a weight: 150 (1536) is nearer 1586 (-2) than
	 * 1277 (-1); 10000 (102400) is -20. */
	wr_ok(&e, c, "cpu.weight", "150");
	expect_content(&e, c, "cpu.weight.nice", "-2\n");
	wr_ok(&e, c, "cpu.weight", "10000");
	expect_content(&e, c, "cpu.weight.nice", "-20\n");
	/* Writing the weight a nice gave keeps the nice's exact shares (no
	 * file can tell 335 from the kernel's 338); another weight sets its
	 * own. */
	wr_ok(&e, c, "cpu.weight.nice", "5");
	wr_ok(&e, c, "cpu.weight", "33");
	g_assert_cmpuint(shares(&e, c), ==, 335);
	expect_content(&e, c, "cpu.weight.nice", "5\n");
	wr_ok(&e, c, "cpu.weight", "34");
	g_assert_cmpuint(shares(&e, c), ==, 348);
	env_teardown(&e);
}

/* sched_group_set_idle(): an idle group weighs 3 (weight reads 1, nice
 * 19) and takes no weight (EINVAL); leaving idle gives 100 back. */
static void test_cpu_idle(void)
{
	struct env e;
	uint64_t c;

	setup(&e);
	c = mk(&e, e.top[0], "c");
	wr_ok(&e, c, "cpu.weight", "500");
	step(&e, c, "cpu.idle", "1", 0, "1\n");
	g_assert_cmpuint(shares(&e, c), ==, 3);
	expect_content(&e, c, "cpu.weight", "1\n");
	expect_content(&e, c, "cpu.weight.nice", "19\n");
	step(&e, c, "cpu.weight", "1", -EINVAL, "1\n");
	step(&e, c, "cpu.weight", "200", -EINVAL, "1\n");
	step(&e, c, "cpu.weight.nice", "0", -EINVAL, "19\n");
	step(&e, c, "cpu.idle", "1", 0, "1\n");
	g_assert_cmpuint(shares(&e, c), ==, 3);
	step(&e, c, "cpu.idle", "2", -EINVAL, "1\n");
	step(&e, c, "cpu.idle", "-1", -EINVAL, "1\n");
	step(&e, c, "cpu.idle", "0", 0, "0\n");
	expect_content(&e, c, "cpu.weight", "100\n");
	/* Not idle, 0 again changes nothing. */
	wr_ok(&e, c, "cpu.weight", "300");
	step(&e, c, "cpu.idle", "0", 0, "0\n");
	expect_content(&e, c, "cpu.weight", "300\n");
	env_teardown(&e);
}

/* cpu_max_write(): "$MAX [$PERIOD]" as cpu_period_quota_parse() scans it,
 * then tg_set_bandwidth()'s ranges; the weight is another setting. */
static void test_cpu_max(void)
{
	static const struct row rows[] = {
		{ "50000 100000", 0, "50000 100000\n", 1024 },
		{ "50000", 0, "50000 100000\n", 1024 },
		{ "max", 0, "max 100000\n", 1024 },
		{ "max 200000\n", 0, "max 200000\n", 1024 },
		{ "1000 1000", 0, "1000 1000\n", 1024 },
		{ "1000000 1000000", 0, "1000000 1000000\n", 1024 },
		{ "17592186044415 100000", 0, "17592186044415 100000\n", 1024 },
		{ "  7000\t20000", 0, "7000 20000\n", 1024 },
		{ "50000abc 100000", 0, "50000 100000\n", 1024 },
		{ "max abc", 0, "max 100000\n", 1024 },
		{ "max 100000 junk", 0, "max 100000\n", 1024 },
		{ "999 100000", -EINVAL, "max 100000\n", 1024 },
		{ "1000 999", -EINVAL, "max 100000\n", 1024 },
		{ "1000 1000001", -EINVAL, "max 100000\n", 1024 },
		{ "17592186044416 100000", -EINVAL, "max 100000\n", 1024 },
		{ "0 100000", -EINVAL, "max 100000\n", 1024 },
		{ "0x1000 100000", -EINVAL, "max 100000\n", 1024 },
		{ "-1", -EINVAL, "max 100000\n", 1024 },
		{ "MAX", -EINVAL, "max 100000\n", 1024 },
		{ "abc 100000", -EINVAL, "max 100000\n", 1024 },
		{ "\n", -EINVAL, "max 100000\n", 1024 },
		{ "max 18446744073709552", -EINVAL, "max 100000\n", 1024 },
	};
	run_rows("cpu.max", "max 100000", rows, G_N_ELEMENTS(rows));
}

/* Where it may not ptrace its tasks (the Yama LSM), a quota and a freeze
 * are refused with EPERM, the group as it was; lifting them is not. */
static void test_untraceable(void)
{
	struct env e;
	uint64_t c;

	setup(&e);
	fake_kf_set_may_trace(e.fk, false);
	c = mk(&e, e.top[0], "c");
	g_assert_cmpint(wr(&e, c, "cpu.max", "50000 100000"), ==, -EPERM);
	expect_content(&e, c, "cpu.max", "max 100000\n");
	wr_ok(&e, c, "cpu.max", "max 200000");
	g_assert_cmpint(wr(&e, c, "cgroup.freeze", "1"), ==, -EPERM);
	expect_content(&e, c, "cgroup.freeze", "0\n");
	wr_ok(&e, c, "cgroup.freeze", "0");
	env_teardown(&e);
}

/* The default hierarchy refuses no child quota over its parent's
 * (tg_cfs_schedulable_down() on dfl takes the smaller); the burst stays
 * within the quota. */
static void test_cpu_max_hierarchy_burst(void)
{
	struct env e;
	uint64_t p, c;

	setup(&e);
	p = mk(&e, e.top[0], "p");
	c = mk(&e, p, "c");
	wr_ok(&e, p, "cpu.max", "20000 100000");
	step(&e, c, "cpu.max", "80000 100000", 0, "80000 100000\n");
	step(&e, p, "cpu.max", "10000", 0, "10000 100000\n");
	step(&e, c, "cpu.max.burst", "80000", 0, "80000\n");
	step(&e, c, "cpu.max.burst", "80001", -EINVAL, "80000\n");
	step(&e, c, "cpu.max", "70000", -EINVAL, "80000 100000\n");
	step(&e, c, "cpu.max", "max", 0, "max 100000\n");
	step(&e, c, "cpu.max.burst", "1000000000", 0, "1000000000\n");
	step(&e, c, "cpu.max.burst", "-1", -EINVAL, "1000000000\n");
	step(&e, c, "cpu.max", "1000000", -EINVAL, "max 100000\n");
	step(&e, c, "cpu.max.burst", "0", 0, "0\n");
	env_teardown(&e);
}

/* The same group, by name, in a restarted core. */
static uint64_t child_id(struct env *e, const char *name)
{
	uint64_t id;

	cg_write_lock(&e->core->lock);
	id = cgroup_child(cgroup_by_id(e->core, e->top[0]), name)->id;
	cg_write_unlock(&e->core->lock);
	return id;
}

/* A clean stop's snapshot keeps the v2 settings exactly: weight.nice is
 * replayed before weight, so that a weight set by a nice keeps its
 * shares (335, not the 338 weight 33 alone gives) and a weight set by
 * itself keeps its own (1536, not the 1586 its nice -2 gives); an idle
 * group's weight and nice replay before idle takes writes away. */
static void test_cpu_state(void)
{
	static const struct {
		const char *name, *file, *value;
		uint64_t shares;
	} groups[] = {
		{ "nice5", "cpu.weight.nice", "5", 335 },
		{ "w150", "cpu.weight", "150", 1536 },
		{ "idle", "cpu.idle", "1", 3 },
		{ "max", "cpu.max", "50000 200000", 1024 },
	};
	char *dir = g_dir_make_tmp("test-v2-ctl.XXXXXX", NULL), *path;
	struct cg_state *st;
	struct env e;

	g_assert_nonnull(dir);
	path = g_build_filename(dir, "s.state", NULL);
	setup(&e);
	st = state_open(e.core, path, "boot-1", NULL);
	g_assert_nonnull(st);
	for (unsigned i = 0; i < G_N_ELEMENTS(groups); i++)
		wr_ok(&e, mk(&e, e.top[0], groups[i].name), groups[i].file, groups[i].value);
	wr_ok(&e, child_id(&e, "max"), "cpu.max.burst", "30000");
	g_assert_cmpint(state_snapshot(st), ==, 0);
	state_free(st);
	cg_core_free(e.core);
	new_core(&e);
	st = state_open(e.core, path, "boot-1", NULL);
	g_assert_nonnull(st);
	for (unsigned i = 0; i < G_N_ELEMENTS(groups); i++)
		EXPECT_INT(shares(&e, child_id(&e, groups[i].name)), groups[i].shares,
			   "%s's shares after a restart", groups[i].name);
	expect_content(&e, child_id(&e, "idle"), "cpu.idle", "1\n");
	expect_content(&e, child_id(&e, "max"), "cpu.max", "50000 200000\n");
	expect_content(&e, child_id(&e, "max"), "cpu.max.burst", "30000\n");
	state_free(st);
	env_teardown(&e);
	for (unsigned i = 0; i < 3; i++) {
		char *f = g_strconcat(path, (const char *[]){ "", ".log", ".log2" }[i], NULL);

		g_unlink(f);
		g_free(f);
	}
	g_rmdir(dir);
	g_free(path);
	g_free(dir);
}

/* ---- cpuset ------------------------------------------------------------- */

static void test_cpuset_defaults(void)
{
	struct env e;
	uint64_t c, k;

	setup(&e);
	c = mk(&e, e.top[0], "c");
	expect_content(&e, e.top[0], "cpuset.cpus.effective", "0-3\n");
	expect_content(&e, e.top[0], "cpuset.mems.effective", "0\n");
	expect_content(&e, e.top[0], "cpuset.cpus.isolated", "\n");
	/* Nothing asked for: the parent's sets in effect. */
	expect_content(&e, c, "cpuset.cpus", "\n");
	expect_content(&e, c, "cpuset.mems", "\n");
	expect_content(&e, c, "cpuset.cpus.effective", "0-3\n");
	expect_content(&e, c, "cpuset.mems.effective", "0\n");
	expect_content(&e, c, "cpuset.cpus.partition", "member\n");
	wr_ok(&e, c, "cpuset.cpus", "1-2");
	k = mk(&e, c, "k");
	expect_content(&e, k, "cpuset.cpus", "\n");
	expect_content(&e, k, "cpuset.cpus.effective", "1-2\n");
	/* A task may join a group that asked for nothing. */
	fake_kf_add_process(e.fk, 100, 1);
	join(&e, k, 100);
	env_teardown(&e);
}

/* update_cpumask() on v2: any CPUs of the machine, whatever the parent's;
 * the effective ones are within the parent's, or the parent's. */
static void test_cpuset_cpus(void)
{
	struct env e;
	uint64_t c, k;
	GString *aff = g_string_new(NULL);

	setup(&e);
	c = mk(&e, e.top[0], "c");
	k = mk(&e, c, "k");
	step(&e, c, "cpuset.cpus", "1-2", 0, "1-2\n");
	expect_content(&e, c, "cpuset.cpus.effective", "1-2\n");
	step(&e, k, "cpuset.cpus", "0-3", 0, "0-3\n");
	expect_content(&e, k, "cpuset.cpus.effective", "1-2\n");
	step(&e, k, "cpuset.cpus", "3", 0, "3\n");
	expect_content(&e, k, "cpuset.cpus.effective", "1-2\n");
	step(&e, k, "cpuset.cpus", "2-3", 0, "2-3\n");
	expect_content(&e, k, "cpuset.cpus.effective", "2\n");
	/* The parent shrinking below its child's: allowed (v1: EBUSY). */
	step(&e, c, "cpuset.cpus", "1", 0, "1\n");
	expect_content(&e, k, "cpuset.cpus.effective", "1\n");
	step(&e, c, "cpuset.cpus", "\n", 0, "\n");
	expect_content(&e, c, "cpuset.cpus.effective", "0-3\n");
	expect_content(&e, k, "cpuset.cpus.effective", "2-3\n");
	/* Parsing as v1: absent CPUs, bad lists. */
	step(&e, k, "cpuset.cpus", "4", -ERANGE, "2-3\n");
	step(&e, k, "cpuset.cpus", "0-", -EINVAL, "2-3\n");
	step(&e, k, "cpuset.cpus", "abc", -EINVAL, "2-3\n");
	step(&e, k, "cpuset.cpus", " 1 \n", 0, "1\n");
	/* The allocator applies the effective set. */
	cpumask_print_list(cpuset_cgrp_subsys.cpus(css_of(&e, k, &cpuset_cgrp_subsys)), aff);
	g_assert_cmpstr(aff->str, ==, "1");
	g_string_free(aff, TRUE);
	/* Nodes the same way. */
	step(&e, k, "cpuset.mems", "0", 0, "0\n");
	expect_content(&e, k, "cpuset.mems.effective", "0\n");
	step(&e, k, "cpuset.mems", "1", -EINVAL, "0\n");
	step(&e, k, "cpuset.mems", "1024", -ERANGE, "0\n");
	step(&e, k, "cpuset.mems", "\n", 0, "\n");
	expect_content(&e, k, "cpuset.mems.effective", "0\n");
	env_teardown(&e);
}

/* v2 has no empty cpuset: a populated group may ask for nothing (v1:
 * EBUSY), its tasks then run on its parent's CPUs. */
static void test_cpuset_empty_populated(void)
{
	struct env e;
	uint64_t g;

	setup(&e);
	fake_kf_add_process(e.fk, 200, 1);
	g = mk(&e, e.top[0], "g");
	wr_ok(&e, g, "cpuset.cpus", "0-1");
	join(&e, g, 200);
	step(&e, g, "cpuset.cpus", "\n", 0, "\n");
	step(&e, g, "cpuset.mems", "\n", 0, "\n");
	expect_content(&e, g, "cpuset.cpus.effective", "0-3\n");
	env_teardown(&e);
}

static void test_cpuset_partition(void)
{
	struct env e;
	uint64_t a, b, m, q;

	setup(&e);
	a = mk(&e, e.top[0], "a");
	b = mk(&e, e.top[0], "b");
	m = mk(&e, e.top[0], "m");
	step(&e, a, "cpuset.cpus.partition", "root", 0,
	     "root invalid (cpuset.cpus and cpuset.cpus.exclusive are empty)\n");
	wr_ok(&e, a, "cpuset.cpus", "1");
	expect_content(&e, a, "cpuset.cpus.partition", "root\n");
	expect_content(&e, a, "cpuset.cpus.effective", "1\n");
	/* Its CPUs are no longer its parent's, nor its siblings'. */
	expect_content(&e, e.top[0], "cpuset.cpus.effective", "0,2-3\n");
	expect_content(&e, m, "cpuset.cpus.effective", "0,2-3\n");
	/* A sibling asking for them is not refused; the partition is invalid
	 * until they part again. */
	step(&e, b, "cpuset.cpus", "1-2", 0, "1-2\n");
	expect_content(&e, a, "cpuset.cpus.partition",
		       "root invalid (Cpu list in cpuset.cpus not exclusive)\n");
	expect_content(&e, e.top[0], "cpuset.cpus.effective", "0-3\n");
	expect_content(&e, a, "cpuset.cpus.effective", "1\n");
	step(&e, b, "cpuset.cpus", "2", 0, "2\n");
	expect_content(&e, a, "cpuset.cpus.partition", "root\n");
	/* A second partition beside it, isolated. */
	step(&e, b, "cpuset.cpus.partition", "isolated", 0, "isolated\n");
	expect_content(&e, e.top[0], "cpuset.cpus.effective", "0,3\n");
	expect_content(&e, e.top[0], "cpuset.cpus.isolated", "2\n");
	/* The top keeps a CPU for its own tasks. */
	step(&e, m, "cpuset.cpus", "0,3", 0, "0,3\n");
	step(&e, m, "cpuset.cpus.partition", "root", 0,
	     "root invalid (Parent unable to distribute cpu downstream)\n");
	step(&e, m, "cpuset.cpus", "3", 0, "3\n");
	expect_content(&e, m, "cpuset.cpus.partition", "root\n");
	expect_content(&e, e.top[0], "cpuset.cpus.effective", "0\n");
	step(&e, m, "cpuset.cpus.partition", "member", 0, "member\n");
	expect_content(&e, e.top[0], "cpuset.cpus.effective", "0,3\n");
	/* Inside a partition: a child's CPUs come from it. */
	wr_ok(&e, a, "cpuset.cpus", "0-1");
	expect_content(&e, a, "cpuset.cpus.partition", "root\n");
	q = mk(&e, a, "q");
	wr_ok(&e, q, "cpuset.cpus", "1");
	step(&e, q, "cpuset.cpus.partition", "root", 0, "root\n");
	expect_content(&e, a, "cpuset.cpus.effective", "0\n");
	expect_content(&e, q, "cpuset.cpus.effective", "1\n");
	/* Its parent no longer valid: invalid too, and back. */
	wr_ok(&e, b, "cpuset.cpus", "0,2");
	expect_content(&e, a, "cpuset.cpus.partition",
		       "root invalid (Cpu list in cpuset.cpus not exclusive)\n");
	expect_content(&e, q, "cpuset.cpus.partition",
		       "root invalid (Parent is an invalid partition root)\n");
	expect_content(&e, q, "cpuset.cpus.effective", "1\n");
	wr_ok(&e, b, "cpuset.cpus", "2");
	expect_content(&e, q, "cpuset.cpus.partition", "root\n");
	/* Under a member. */
	q = mk(&e, m, "q");
	wr_ok(&e, q, "cpuset.cpus", "3");
	step(&e, q, "cpuset.cpus.partition", "root", 0,
	     "root invalid (Parent is not a partition root)\n");
	step(&e, q, "cpuset.cpus.partition", "isolated", 0,
	     "isolated invalid (Parent is not a partition root)\n");
	/* Words as the kernel takes them. */
	step(&e, q, "cpuset.cpus.partition", " member\n", 0, "member\n");
	step(&e, q, "cpuset.cpus.partition", "Root", -EINVAL, "member\n");
	step(&e, q, "cpuset.cpus.partition", "root invalid", -EINVAL, "member\n");
	step(&e, q, "cpuset.cpus.partition", "", 0, "member\n");
	/* A partition removed gives its CPUs back. */
	expect_content(&e, e.top[0], "cpuset.cpus.effective", "3\n");
	g_assert_cmpint(cg_rmdir(e.core, e.top[0], "b", &root_cred), ==, 0);
	expect_content(&e, e.top[0], "cpuset.cpus.effective", "2-3\n");
	expect_content(&e, e.top[0], "cpuset.cpus.isolated", "\n");
	env_teardown(&e);
}

/* A partition may take all its parent's CPUs when no task of the parent
 * but its own would be left without (partition_is_populated() leaves it
 * out), also when it became valid through its parent's change. */
static void test_cpuset_partition_takes_all(void)
{
	struct env e;
	uint64_t p, q;

	setup(&e);
	p = mk(&e, e.top[0], "p");
	q = mk(&e, p, "q");
	fake_kf_add_process(e.fk, 100, 1);
	join(&e, q, 100);
	wr_ok(&e, q, "cpuset.cpus", "1");
	step(&e, q, "cpuset.cpus.partition", "root", 0,
	     "root invalid (Parent is not a partition root)\n");
	wr_ok(&e, p, "cpuset.cpus", "1");
	step(&e, p, "cpuset.cpus.partition", "root", 0, "root\n");
	expect_content(&e, q, "cpuset.cpus.partition", "root\n");
	expect_content(&e, q, "cpuset.cpus.effective", "1\n");
	expect_content(&e, p, "cpuset.cpus.effective", "\n");
	expect_content(&e, e.top[0], "cpuset.cpus.effective", "0,2-3\n");
	/* Nothing runs on none, but p enables controllers for q: the
	 * no-internal-process rule refuses first (cgroup_migrate_vet_dst()). */
	fake_kf_add_process(e.fk, 200, 1);
	g_assert_cmpint(wr(&e, p, "cgroup.procs", "200"), ==, -EBUSY);
	env_teardown(&e);
}

/* ---- pids --------------------------------------------------------------- */

/* Takes in the waiting reports, forks then the exits of the children
 * they killed (as test-pids.c). */
static void settle(struct env *e)
{
	for (int i = 0; i < 2; i++)
		g_free(rd(e, e->top[0], "cpu.stat.local"));
}

/* pids_event() on the default hierarchy: pids.events counts the forks a
 * group's own or a descendant's limit refused, pids.events.local those
 * its own did; the forking group's count (v1's pids.events) is not
 * shown. */
static void test_pids_events(void)
{
	struct env e;
	uint64_t a, b, c;

	setup(&e);
	a = mk(&e, e.top[0], "A");
	b = mk(&e, a, "B");
	c = mk(&e, a, "C");
	expect_content(&e, a, "pids.max", "max\n");
	wr_ok(&e, a, "pids.max", "3");
	wr_ok(&e, b, "pids.max", "1");
	fake_kf_add_process(e.fk, 100, 1);
	fake_kf_add_process(e.fk, 200, 1);
	join(&e, b, 100);
	join(&e, c, 200);
	fake_kf_fork(e.fk, 100, 110, 110);	/* over B's 1 */
	fake_kf_fork(e.fk, 200, 210, 210);	/* A: 3 */
	fake_kf_fork(e.fk, 200, 220, 220);	/* over A's 3 */
	settle(&e);
	g_assert_cmpint(max_events(&e, b, "pids.events"), ==, 1);
	g_assert_cmpint(max_events(&e, b, "pids.events.local"), ==, 1);
	g_assert_cmpint(max_events(&e, c, "pids.events"), ==, 0);
	g_assert_cmpint(max_events(&e, c, "pids.events.local"), ==, 0);
	g_assert_cmpint(max_events(&e, a, "pids.events"), ==, 2);
	g_assert_cmpint(max_events(&e, a, "pids.events.local"), ==, 1);
	expect_content(&e, a, "pids.current", "3\n");
	/* As on v1, the two killed children were there for a moment. */
	expect_content(&e, a, "pids.peak", "5\n");
	step(&e, a, "pids.max", "4194304", 0, "4194304\n");
	step(&e, a, "pids.max", "4194305", -EINVAL, "4194304\n");
	step(&e, a, "pids.max", "-1", -EINVAL, "4194304\n");
	step(&e, a, "pids.max", " max\n", 0, "max\n");
	env_teardown(&e);
}

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/v2/files", test_files);
	g_test_add_func("/v2/cpu/defaults", test_cpu_defaults);
	g_test_add_func("/v2/untraceable", test_untraceable);
	g_test_add_func("/v2/cpu/weight", test_cpu_weight);
	g_test_add_func("/v2/cpu/weight-nice", test_cpu_weight_nice);
	g_test_add_func("/v2/cpu/idle", test_cpu_idle);
	g_test_add_func("/v2/cpu/max", test_cpu_max);
	g_test_add_func("/v2/cpu/max-hierarchy-burst", test_cpu_max_hierarchy_burst);
	g_test_add_func("/v2/cpu/state", test_cpu_state);
	g_test_add_func("/v2/cpuset/defaults", test_cpuset_defaults);
	g_test_add_func("/v2/cpuset/cpus", test_cpuset_cpus);
	g_test_add_func("/v2/cpuset/empty-populated", test_cpuset_empty_populated);
	g_test_add_func("/v2/cpuset/partition", test_cpuset_partition);
	g_test_add_func("/v2/cpuset/partition-takes-all", test_cpuset_partition_takes_all);
	g_test_add_func("/v2/pids/events", test_pids_events);
	return g_test_run();
}
