/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests of the control files through cg_file_write/cg_file_read: the
 * cpu and cpuset controllers and the core's own files, against the kernel's
 * behaviour recorded in docs/kernel-oracle.md. The fake facade has CPUs
 * 0-3 and memory node 0 (the oracle's machine had CPUs 0-1), so CPU 4 is
 * the first absent one here. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "core/cgroup.h"
#include "core/css_set.h"
#include "ctl/ctl.h"
#include "fake-kfacade.h"
#include "core/internal.h"
#include "core/task.h"
#include "test-env.h"
#include "v1/face.h"

#define WRITER 1
static const struct cg_cred writer_cred = { .pid = WRITER };

/* ---- tables ------------------------------------------------------------- */

/* One row: these bytes written (len -1: strlen) give err (0: the whole
 * length is returned), and the file then reads want. */
struct row {
	const char *in;
	int len;
	int err;
	const char *want;
};

/* Writes reset before each row (when not NULL), then the row; checks the
 * return and what file reads afterwards (also on other_file, if given). */
static void run_table(struct env *e, uint64_t id, const char *file, const char *reset,
		      const struct row *rows, unsigned n, const char *other_file)
{
	for (unsigned i = 0; i < n; i++) {
		const struct row *r = &rows[i];
		size_t len = r->len < 0 ? strlen(r->in) : (size_t)r->len;
		char *esc = g_strescape(r->in, NULL);
		ssize_t ret;
		char *got;

		if (reset)
			wr_ok(e, id, file, reset);
		ret = wrn(e, id, file, r->in, len, WRITER);
		EXPECT_INT(ret, r->err ? r->err : (ssize_t)len, "%s <- \"%s\" returns", file, esc);
		got = rd(e, id, file);
		if (strcmp(got, r->want) != 0) {
			char *g = g_strescape(got, NULL), *w = g_strescape(r->want, NULL);

			FAILF("%s <- \"%s\": reads \"%s\", want \"%s\"", file, esc, g, w);
			g_free(g);
			g_free(w);
		}
		g_free(got);
		if (other_file) {
			got = rd(e, id, other_file);
			if (strcmp(got, r->want) != 0) {
				char *g = g_strescape(got, NULL), *w = g_strescape(r->want, NULL);

				FAILF("%s <- \"%s\": %s reads \"%s\", want \"%s\"", file, esc,
				      other_file, g, w);
				g_free(g);
				g_free(w);
			}
			g_free(got);
		}
		g_free(esc);
	}
}

/* One step of a script: write value to file of group id, expect err (0:
 * accepted). Not fatal, so that every step is checked. */
static void step(struct env *e, uint64_t id, const char *name, const char *file,
		 const char *value, int err)
{
	ssize_t ret = wr(e, id, file, value);

	EXPECT_INT(ret, err ? err : (ssize_t)strlen(value), "%s/%s <- %s", name, file, value);
}

/* ---- cpu ---------------------------------------------------------------- */

static void test_cpu_defaults(void)
{
	struct env e;
	uint64_t c;

	env_setup(&e);
	c = mkdir_ok(&e, e.top[0], "c");
	assert_content(&e, c, "cpu.shares", "1024\n");
	assert_content(&e, c, "cpu.cfs_period_us", "100000\n");
	assert_content(&e, c, "cpu.cfs_quota_us", "-1\n");
	assert_content(&e, e.top[0], "cpu.shares", "1024\n");
	assert_content(&e, e.top[0], "cpu.cfs_period_us", "100000\n");
	assert_content(&e, e.top[0], "cpu.cfs_quota_us", "-1\n");
	/* Not inherited. */
	wr_ok(&e, c, "cpu.shares", "2048");
	wr_ok(&e, c, "cpu.cfs_quota_us", "50000");
	c = mkdir_ok(&e, c, "k");
	assert_content(&e, c, "cpu.shares", "1024\n");
	assert_content(&e, c, "cpu.cfs_quota_us", "-1\n");
	assert_content(&e, c, "cpu.cfs_period_us", "100000\n");
	env_teardown(&e);
}

static const struct row shares_rows[] = {
	{ "0", -1, 0, "2\n" },
	{ "1", -1, 0, "2\n" },
	{ "2", -1, 0, "2\n" },
	{ "3", -1, 0, "3\n" },
	{ "262144", -1, 0, "262144\n" },
	{ "262145", -1, 0, "262144\n" },
	{ "1000000", -1, 0, "262144\n" },
	{ "18446744073709551615", -1, 0, "262144\n" },
	{ "9223372036854775807", -1, 0, "262144\n" },
	{ "9223372036854775808", -1, 0, "262144\n" },
	{ "18014398509481989", -1, 0, "262144\n" },	/* 2^54 + 5 */
	{ "17592186044416", -1, 0, "262144\n" },	/* 2^44 */
	{ "4398046511104", -1, 0, "262144\n" },		/* 2^42 */
	{ "100\n", -1, 0, "100\n" },
	{ "+100", -1, 0, "100\n" },
	{ "100\0junk", 8, 0, "100\n" },
	{ "0x100", -1, 0, "256\n" },
	{ "010", -1, 0, "8\n" },
	{ "08", -1, -EINVAL, "1024\n" },
	{ "-1", -1, -EINVAL, "1024\n" },
	{ "abc", -1, -EINVAL, "1024\n" },
	{ " 100 ", -1, -EINVAL, "1024\n" },
	{ " 100", -1, -EINVAL, "1024\n" },
	{ "100 ", -1, -EINVAL, "1024\n" },
	{ "100\n\n", -1, -EINVAL, "1024\n" },
	{ "\n", -1, -EINVAL, "1024\n" },
	{ "100abc", -1, -EINVAL, "1024\n" },
	{ "18446744073709551616", -1, -ERANGE, "1024\n" },
	{ "", 0, 0, "1024\n" },
};

static void test_cpu_shares(void)
{
	struct env e;
	uint64_t c;

	env_setup(&e);
	c = mkdir_ok(&e, e.top[0], "c");
	run_table(&e, c, "cpu.shares", "1024", shares_rows, G_N_ELEMENTS(shares_rows), NULL);
	/* The root group has no weight of its own: EINVAL, even for its value. */
	g_assert_cmpint(wr(&e, e.top[0], "cpu.shares", "1024"), ==, -EINVAL);
	g_assert_cmpint(wr(&e, e.top[0], "cpu.shares", "2048"), ==, -EINVAL);
	assert_content(&e, e.top[0], "cpu.shares", "1024\n");
	env_teardown(&e);
}

/* "0512" padded with zeros to 4095 and 4096 bytes is octal 512 = 330;
 * one more byte is E2BIG and changes nothing. */
static void test_cpu_shares_long_writes(void)
{
	struct env e;
	uint64_t c;
	static const size_t sizes[] = { 4095, 4096 };
	static const size_t too_big[] = { 4097, 8192, 100000 };

	env_setup(&e);
	c = mkdir_ok(&e, e.top[0], "c");
	for (unsigned i = 0; i < G_N_ELEMENTS(sizes); i++) {
		char *buf = g_strnfill(sizes[i], '0');

		memcpy(buf + sizes[i] - 3, "512", 3);
		wr_ok(&e, c, "cpu.shares", "1024");
		g_assert_cmpint(wrn(&e, c, "cpu.shares", buf, sizes[i], WRITER), ==, sizes[i]);
		assert_content(&e, c, "cpu.shares", "330\n");
		g_free(buf);
	}
	wr_ok(&e, c, "cpu.shares", "1024");
	for (unsigned i = 0; i < G_N_ELEMENTS(too_big); i++) {
		char *buf = g_strnfill(too_big[i], '0');

		memcpy(buf + too_big[i] - 3, "512", 3);
		g_assert_cmpint(wrn(&e, c, "cpu.shares", buf, too_big[i], WRITER), ==, -E2BIG);
		assert_content(&e, c, "cpu.shares", "1024\n");
		g_free(buf);
	}
	env_teardown(&e);
}

static const struct row period_rows[] = {
	{ "1000", -1, 0, "1000\n" },
	{ "1001", -1, 0, "1001\n" },
	{ "100000", -1, 0, "100000\n" },
	{ "1000000", -1, 0, "1000000\n" },
	{ "5000\n", -1, 0, "5000\n" },
	{ "0x1000", -1, 0, "4096\n" },
	{ "999", -1, -EINVAL, "100000\n" },
	{ "1000001", -1, -EINVAL, "100000\n" },
	{ "0", -1, -EINVAL, "100000\n" },
	{ "-1", -1, -EINVAL, "100000\n" },
	{ "abc", -1, -EINVAL, "100000\n" },
	{ " 5000", -1, -EINVAL, "100000\n" },
	{ "4294967296", -1, -EINVAL, "100000\n" },
	{ "18446744073709551615", -1, -EINVAL, "100000\n" },
	{ "18446744073709551616", -1, -ERANGE, "100000\n" },
	{ "", 0, 0, "100000\n" },
};

static void test_cpu_cfs_period(void)
{
	struct env e;
	uint64_t c;

	env_setup(&e);
	c = mkdir_ok(&e, e.top[0], "c");
	run_table(&e, c, "cpu.cfs_period_us", "100000", period_rows, G_N_ELEMENTS(period_rows),
		  NULL);
	assert_content(&e, c, "cpu.cfs_quota_us", "-1\n");
	env_teardown(&e);
}

static const struct row quota_rows[] = {
	{ "-1", -1, 0, "-1\n" },
	{ "-2", -1, 0, "-1\n" },
	{ "-9223372036854775808", -1, 0, "-1\n" },
	{ "-1\n", -1, 0, "-1\n" },
	{ "1000", -1, 0, "1000\n" },
	{ "1001", -1, 0, "1001\n" },
	{ "50000", -1, 0, "50000\n" },
	{ "1000000", -1, 0, "1000000\n" },
	{ "+5000", -1, 0, "5000\n" },
	{ "5000\n", -1, 0, "5000\n" },
	{ "0x1000", -1, 0, "4096\n" },
	{ "17592186044415", -1, 0, "17592186044415\n" },	/* 2^44 - 1 */
	{ "0", -1, -EINVAL, "-1\n" },
	{ "999", -1, -EINVAL, "-1\n" },
	{ "-0", -1, -EINVAL, "-1\n" },
	{ "17592186044416", -1, -EINVAL, "-1\n" },
	{ "17592186044415000", -1, -EINVAL, "-1\n" },
	{ "9223372036854775807", -1, -EINVAL, "-1\n" },
	{ "abc", -1, -EINVAL, "-1\n" },
	{ " 5000", -1, -EINVAL, "-1\n" },
	{ "9223372036854775808", -1, -ERANGE, "-1\n" },
	{ "18446744073709551615", -1, -ERANGE, "-1\n" },
	{ "-9223372036854775809", -1, -ERANGE, "-1\n" },
	{ "", 0, 0, "-1\n" },
};

static void test_cpu_cfs_quota(void)
{
	struct env e;
	uint64_t c;

	env_setup(&e);
	c = mkdir_ok(&e, e.top[0], "c");
	run_table(&e, c, "cpu.cfs_quota_us", "-1", quota_rows, G_N_ELEMENTS(quota_rows), NULL);
	/* A negative quota read back is -1, whatever was written. */
	wr_ok(&e, c, "cpu.cfs_quota_us", "50000");
	wr_ok(&e, c, "cpu.cfs_quota_us", "-12345");
	assert_content(&e, c, "cpu.cfs_quota_us", "-1\n");
	env_teardown(&e);
}

static void test_cpu_cfs_root(void)
{
	struct env e;

	env_setup(&e);
	g_assert_cmpint(wr(&e, e.top[0], "cpu.cfs_quota_us", "50000"), ==, -EINVAL);
	g_assert_cmpint(wr(&e, e.top[0], "cpu.cfs_quota_us", "-1"), ==, -EINVAL);
	g_assert_cmpint(wr(&e, e.top[0], "cpu.cfs_period_us", "100000"), ==, -EINVAL);
	assert_content(&e, e.top[0], "cpu.cfs_quota_us", "-1\n");
	assert_content(&e, e.top[0], "cpu.cfs_period_us", "100000\n");
	env_teardown(&e);
}

/* The oracle's v1 rule: a child's quota/period is at most that of its
 * nearest limited ancestor; every violation is EINVAL and changes nothing. */
static void test_cpu_cfs_hierarchy(void)
{
	struct env e;
	uint64_t h, c, gc, h2, c2;

	env_setup(&e);
	h = mkdir_ok(&e, e.top[0], "h");
	c = mkdir_ok(&e, h, "c");
	gc = mkdir_ok(&e, c, "gc");
	h2 = mkdir_ok(&e, e.top[0], "h2");
	c2 = mkdir_ok(&e, h2, "c");

	step(&e, h, "h", "cpu.cfs_quota_us", "50000", 0);		/* 0.5 */
	step(&e, c, "h/c", "cpu.cfs_quota_us", "100000", -EINVAL);
	step(&e, c, "h/c", "cpu.cfs_quota_us", "50000", 0);
	step(&e, c, "h/c", "cpu.cfs_quota_us", "50001", -EINVAL);
	assert_content(&e, c, "cpu.cfs_quota_us", "50000\n");
	step(&e, c, "h/c", "cpu.cfs_period_us", "50000", -EINVAL);	/* 1.0 */
	step(&e, c, "h/c", "cpu.cfs_period_us", "200000", 0);	/* 0.25 */
	assert_content(&e, c, "cpu.cfs_period_us", "200000\n");
	step(&e, c, "h/c", "cpu.cfs_quota_us", "-1", 0);		/* unlimited child */
	step(&e, gc, "h/c/gc", "cpu.cfs_quota_us", "60000", -EINVAL);	/* h's limit */
	step(&e, gc, "h/c/gc", "cpu.cfs_quota_us", "40000", 0);
	step(&e, h, "h", "cpu.cfs_quota_us", "30000", -EINVAL);	/* below gc's 0.4 */
	assert_content(&e, h, "cpu.cfs_quota_us", "50000\n");
	step(&e, h, "h", "cpu.cfs_quota_us", "-1", 0);		/* always ok */

	step(&e, c2, "h2/c", "cpu.cfs_quota_us", "80000", 0);
	step(&e, h2, "h2", "cpu.cfs_quota_us", "50000", -EINVAL);
	step(&e, h2, "h2", "cpu.cfs_quota_us", "80000", 0);		/* equal is ok */
	step(&e, h2, "h2", "cpu.cfs_period_us", "200000", -EINVAL);	/* 0.4 < 0.8 */
	assert_content(&e, h2, "cpu.cfs_period_us", "100000\n");

	/* Out of range and over the parent: both EINVAL. */
	step(&e, c2, "h2/c", "cpu.cfs_period_us", "999", -EINVAL);
	step(&e, c2, "h2/c", "cpu.cfs_period_us", "1000", -EINVAL);	/* ratio 80 */
	step(&e, c2, "h2/c", "cpu.cfs_quota_us", "500", -EINVAL);
	step(&e, c2, "h2/c", "cpu.cfs_quota_us", "17592186044416", -EINVAL);
	step(&e, c2, "h2/c", "cpu.cfs_quota_us", "2000000000", -EINVAL);
	assert_content(&e, c2, "cpu.cfs_quota_us", "80000\n");
	assert_content(&e, c2, "cpu.cfs_period_us", "100000\n");
	env_teardown(&e);
}

/* Large quotas: the kernel compares ratios computed in microseconds,
 * (quota_us << 20) / period_us. Measured on this machine's cgroupfs:
 *   h  period 1000000, quota 17592186045 (2^44 ns < quota): ok;
 *   h/c quota 1000000 (period 100000, ratio 10 <= h's 17592): ok;
 *   h2 quota 50000; h2/c period 1000000, quota 17592186045: EINVAL. */
static void test_cpu_cfs_hierarchy_large_quota(void)
{
	struct env e;
	uint64_t h, c, h2, c2;

	env_setup(&e);
	h = mkdir_ok(&e, e.top[0], "h");
	c = mkdir_ok(&e, h, "c");
	h2 = mkdir_ok(&e, e.top[0], "h2");
	c2 = mkdir_ok(&e, h2, "c");
	step(&e, h, "h", "cpu.cfs_period_us", "1000000", 0);
	step(&e, h, "h", "cpu.cfs_quota_us", "17592186045", 0);
	step(&e, c, "h/c", "cpu.cfs_quota_us", "1000000", 0);
	step(&e, h2, "h2", "cpu.cfs_quota_us", "50000", 0);
	step(&e, c2, "h2/c", "cpu.cfs_period_us", "1000000", 0);
	step(&e, c2, "h2/c", "cpu.cfs_quota_us", "17592186045", -EINVAL);
	expect_content(&e, c2, "cpu.cfs_quota_us", "-1\n");
	env_teardown(&e);
}

static void test_cpu_stat(void)
{
	static const char stat[] = "nr_periods 0\nnr_throttled 0\nthrottled_time 0\n"
				   "nr_bursts 0\nburst_time 0\n";
	struct env e;
	uint64_t c;

	env_setup(&e);
	c = mkdir_ok(&e, e.top[0], "c");
	assert_content(&e, c, "cpu.stat", stat);
	assert_content(&e, e.top[0], "cpu.stat", stat);
	/* Root may open a 0444 file for writing; the write is EINVAL. */
	g_assert_cmpint(wr(&e, c, "cpu.stat", "0"), ==, -EINVAL);
	g_assert_cmpint(wr(&e, c, "cpuset.effective_cpus", "0"), ==, -EINVAL);
	g_assert_cmpint(wr(&e, e.top[0], "cgroup.sane_behavior", "0"), ==, -EINVAL);
	assert_content(&e, c, "cpu.stat", stat);
	env_teardown(&e);
}

/* Measured on the kernel's v1: an idle group's shares read 3 and take no
 * write (EINVAL); leaving idle gives 1024 back, not the shares before. */
static void test_cpu_idle_shares(void)
{
	struct env e;
	uint64_t c;

	env_setup(&e);
	c = mkdir_ok(&e, e.top[0], "c");
	wr_ok(&e, c, "cpu.shares", "2048");
	wr_ok(&e, c, "cpu.idle", "1");
	assert_content(&e, c, "cpu.shares", "3\n");
	g_assert_cmpint(wr(&e, c, "cpu.shares", "2048"), ==, -EINVAL);
	g_assert_cmpint(wr(&e, c, "cpu.shares", "3"), ==, -EINVAL);
	wr_ok(&e, c, "cpu.idle", "1");
	assert_content(&e, c, "cpu.shares", "3\n");
	wr_ok(&e, c, "cpu.idle", "0");
	assert_content(&e, c, "cpu.shares", "1024\n");
	wr_ok(&e, c, "cpu.shares", "2048");
	wr_ok(&e, c, "cpu.idle", "0");
	assert_content(&e, c, "cpu.shares", "2048\n");
	env_teardown(&e);
}

/* Without CAP_SYS_NICE cpu.idle 1 is refused (EPERM), the group as it
 * was; 0 stays writable. */
static void test_cpu_idle_unprivileged(void)
{
	struct env e;
	uint64_t c;

	env_setup(&e);
	fake_kf_set_privileged(e.fk, false);
	c = mkdir_ok(&e, e.top[0], "c");
	wr_ok(&e, c, "cpu.shares", "2048");
	g_assert_cmpint(wr(&e, c, "cpu.idle", "1"), ==, -EPERM);
	assert_content(&e, c, "cpu.idle", "0\n");
	assert_content(&e, c, "cpu.shares", "2048\n");
	wr_ok(&e, c, "cpu.idle", "0");
	env_teardown(&e);
}

/* Where it may not ptrace its tasks (the Yama LSM), a quota and a freeze
 * are refused with EPERM, the group as it was; lifting them is not. */
static void test_untraceable(void)
{
	struct env e;
	uint64_t c;

	env_setup_root(&e, &cgroup1_face, ctl_bit("cpu") | ctl_bit("freezer"));
	fake_kf_set_may_trace(e.fk, false);
	c = mkdir_ok(&e, e.top[0], "c");
	g_assert_cmpint(wr(&e, c, "cpu.cfs_quota_us", "50000"), ==, -EPERM);
	assert_content(&e, c, "cpu.cfs_quota_us", "-1\n");
	wr_ok(&e, c, "cpu.cfs_quota_us", "-1");
	wr_ok(&e, c, "cpu.cfs_period_us", "200000");
	g_assert_cmpint(wr(&e, c, "freezer.state", "FROZEN"), ==, -EPERM);
	assert_content(&e, c, "freezer.state", "THAWED\n");
	wr_ok(&e, c, "freezer.state", "THAWED");
	env_teardown(&e);
}

/* ---- the core's files --------------------------------------------------- */

/* notify_on_release and cgroup.clone_children: u64, any non-zero is 1. */
static void check_flag_file(struct env *e, uint64_t id, const char *file)
{
	static const char *const one[] = {
		"1", "1\n", "2", "0x1", "01", "9223372036854775807", "18446744073709551615",
	};
	static const char *const einval[] = { "-1", "-0", "abc", " 1 ", "\n", "1abc", "true" };

	for (unsigned i = 0; i < G_N_ELEMENTS(one); i++) {
		const struct row r = { one[i], -1, 0, "1\n" };

		run_table(e, id, file, "0", &r, 1, NULL);
	}
	{
		const struct row r[] = {
			{ "1\0x", 3, 0, "1\n" },
			{ "0", -1, 0, "0\n" },
			{ "", 0, 0, "0\n" },
			{ "18446744073709551616", -1, -ERANGE, "0\n" },
		};

		run_table(e, id, file, "0", r, G_N_ELEMENTS(r), NULL);
	}
	/* Errors leave the value as it was, 0 or 1. */
	for (unsigned v = 0; v < 2; v++) {
		const char *reset = v ? "1" : "0", *want = v ? "1\n" : "0\n";

		for (unsigned i = 0; i < G_N_ELEMENTS(einval); i++) {
			const struct row r = { einval[i], -1, -EINVAL, want };

			run_table(e, id, file, reset, &r, 1, NULL);
		}
		{
			const struct row r = { "", 0, 0, want };

			run_table(e, id, file, reset, &r, 1, NULL);
		}
	}
}

static void test_flag_files(void)
{
	struct env e;
	uint64_t c;

	env_setup_full(&e, false, false);
	c = mkdir_ok(&e, e.top[0], "c");
	assert_content(&e, c, "notify_on_release", "0\n");
	assert_content(&e, c, "cgroup.clone_children", "0\n");
	assert_content(&e, e.top[0], "notify_on_release", "0\n");
	assert_content(&e, e.top[0], "cgroup.clone_children", "0\n");
	check_flag_file(&e, c, "notify_on_release");
	check_flag_file(&e, c, "cgroup.clone_children");
	check_flag_file(&e, e.top[0], "cgroup.clone_children");
	env_teardown(&e);
}

/* At mkdir a child takes both flags from its parent, independently. */
static void test_flag_inheritance(void)
{
	struct env e;
	uint64_t n, cl, k;

	env_setup_full(&e, false, false);
	n = mkdir_ok(&e, e.top[0], "n");
	cl = mkdir_ok(&e, e.top[0], "cl");
	wr_ok(&e, n, "notify_on_release", "1");
	wr_ok(&e, cl, "cgroup.clone_children", "1");

	k = mkdir_ok(&e, n, "k");
	assert_content(&e, k, "notify_on_release", "1\n");
	assert_content(&e, k, "cgroup.clone_children", "0\n");
	k = mkdir_ok(&e, k, "gk");
	assert_content(&e, k, "notify_on_release", "1\n");

	k = mkdir_ok(&e, cl, "k");
	assert_content(&e, k, "notify_on_release", "0\n");
	assert_content(&e, k, "cgroup.clone_children", "1\n");

	/* Only at mkdir: changing the parent later leaves the child alone. */
	wr_ok(&e, n, "notify_on_release", "0");
	assert_content(&e, n, "notify_on_release", "0\n");
	k = mkdir_ok(&e, n, "k2");
	assert_content(&e, k, "notify_on_release", "0\n");
	assert_content(&e, n, "cgroup.clone_children", "0\n");
	k = mkdir_ok(&e, e.top[0], "fresh");	/* the root has neither flag */
	assert_content(&e, k, "notify_on_release", "0\n");
	assert_content(&e, k, "cgroup.clone_children", "0\n");
	env_teardown(&e);
}

/* release_agent: root only, stripped, read back with "\n". */
static void test_release_agent(void)
{
	struct env e;
	uint64_t c;
	unsigned ra;

	env_setup(&e);
	c = mkdir_ok(&e, e.top[0], "c");
	assert_content(&e, e.top[0], "release_agent", "\n");
	assert_content(&e, e.top[0], "cgroup.sane_behavior", "0\n");
	g_assert_cmpint(wr(&e, e.top[0], "release_agent", "  /sbin/agent arg \n"), ==, 19);
	assert_content(&e, e.top[0], "release_agent", "/sbin/agent arg\n");
	g_assert_cmpint(wrn(&e, e.top[0], "release_agent", "", 0, WRITER), ==, 0);
	assert_content(&e, e.top[0], "release_agent", "/sbin/agent arg\n");
	g_assert_cmpint(wrn(&e, e.top[0], "release_agent", "/x\0/y", 5, WRITER), ==, 5);
	assert_content(&e, e.top[0], "release_agent", "/x\n");
	wr_ok(&e, e.top[0], "release_agent", "\n");
	assert_content(&e, e.top[0], "release_agent", "\n");

	/* Not in a child: no such file, and its index there is ENOENT. */
	cg_write_lock(&e.core->lock);
	g_assert_null(cgroup_file_by_name(cgroup_by_id(e.core, c), "release_agent", NULL));
	g_assert_null(cgroup_file_by_name(cgroup_by_id(e.core, c), "cgroup.sane_behavior", NULL));
	cg_write_unlock(&e.core->lock);
	ra = file_index(&e, e.top[0], "release_agent");
	g_assert_cmpint(cg_file_write(e.core, c, ra, "/bin/x", 6, &writer_cred), ==, -ENOENT);
	env_teardown(&e);
}

/* Writes longer than a page: E2BIG, nothing changes; a page is fine. */
static void test_write_limits(void)
{
	struct env e;
	uint64_t c;
	char *big = g_strnfill(100000, ' ');

	env_setup(&e);
	fake_kf_add_process(e.fk, 200, 1);
	c = mkdir_ok(&e, e.top[0], "c");
	memcpy(big + 4096 - 4, "200\n", 4);	/* white space, then 200 */
	g_assert_cmpint(wrn(&e, c, "tasks", big, 4097, WRITER), ==, -E2BIG);
	assert_content(&e, c, "tasks", "");
	g_assert_false(lists(&e, c, "tasks", 200));
	g_assert_cmpint(wrn(&e, c, "tasks", big, 4096, WRITER), ==, 4096);
	assert_content(&e, c, "tasks", "200\n");
	g_assert_false(lists(&e, e.top[0], "tasks", 200));
	g_assert_cmpint(wrn(&e, c, "cpuset.cpus", big, 8192, WRITER), ==, -E2BIG);
	g_assert_cmpint(wrn(&e, c, "cpu.shares", big, 100000, WRITER), ==, -E2BIG);
	assert_content(&e, c, "cpuset.cpus", "0-3\n");
	assert_content(&e, c, "cpu.shares", "1024\n");
	g_free(big);
	env_teardown(&e);
}

/* Files with their own max_write_len (measured on the kernel): cpuset.cpus
 * 100 + 6 * NR_CPUS, cpuset.mems 100 + 6 * MAX_NUMNODES, release_agent
 * PATH_MAX - 1; the length is checked before the group, as by kernfs. */
static void test_max_write_len(void)
{
	/* Reset to reset (reading reset_read), then "0" padded to max bytes. */
	static const struct { const char *file; size_t max; const char *reset, *reset_read; } limits[] = {
		{ "cpuset.cpus", 100 + 6 * FAKE_KF_NR_CPUS, "1", "1\n" },
		{ "cpuset.mems", 100 + 6 * 1024, "\n", "\n" },
		{ "release_agent", 4095, "1", "1\n" },
	};
	struct env e;
	uint64_t c;
	char *big = g_strnfill(8192, ' ');

	env_setup(&e);
	c = mkdir_ok(&e, e.top[0], "c");
	big[0] = '0';
	for (unsigned i = 0; i < G_N_ELEMENTS(limits); i++) {
		uint64_t id = strcmp(limits[i].file, "release_agent") ? c : e.top[0];

		wr_ok(&e, id, limits[i].file, limits[i].reset);
		g_assert_cmpint(wrn(&e, id, limits[i].file, big, limits[i].max + 1, WRITER), ==, -E2BIG);
		assert_content(&e, id, limits[i].file, limits[i].reset_read);
		g_assert_cmpint(wrn(&e, id, limits[i].file, big, limits[i].max, WRITER), ==,
				limits[i].max);
		assert_content(&e, id, limits[i].file, "0\n");
	}
	/* A removed group's file: E2BIG for too long, else ENODEV. */
	unsigned shares = file_index(&e, c, "cpu.shares");

	g_assert_cmpint(cg_rmdir(e.core, e.top[0], "c", &root_cred), ==, 0);
	g_assert_cmpint(cg_file_write(e.core, c, shares, big, 4097, &writer_cred), ==, -E2BIG);
	g_assert_cmpint(cg_file_write(e.core, c, shares, big, 4096, &writer_cred), ==, -ENODEV);
	g_free(big);
	env_teardown(&e);
}

/* An embedded NUL ends the command; the whole length is returned. */
static void test_embedded_nul(void)
{
	struct env e;
	uint64_t c;

	env_setup(&e);
	c = mkdir_ok(&e, e.top[0], "c");
	g_assert_cmpint(wrn(&e, c, "cpu.shares", "100\0junk", 8, WRITER), ==, 8);
	assert_content(&e, c, "cpu.shares", "100\n");
	g_assert_cmpint(wrn(&e, c, "cpu.cfs_quota_us", "5000\0-1", 7, WRITER), ==, 7);
	assert_content(&e, c, "cpu.cfs_quota_us", "5000\n");
	g_assert_cmpint(wrn(&e, c, "cpuset.cpus", "0\0junk", 6, WRITER), ==, 6);
	assert_content(&e, c, "cpuset.cpus", "0\n");
	g_assert_cmpint(wrn(&e, c, "notify_on_release", "1\0x", 3, WRITER), ==, 3);
	assert_content(&e, c, "notify_on_release", "1\n");
	/* Nothing before the NUL: as empty as "\0" can be, which is EINVAL. */
	g_assert_cmpint(wrn(&e, c, "cpu.shares", "\0" "100", 4, WRITER), ==, -EINVAL);
	assert_content(&e, c, "cpu.shares", "100\n");
	env_teardown(&e);
}

/* A removed group's files: ENODEV, also after a new group takes its name. */
static void test_removed_group(void)
{
	struct env e;
	uint64_t c, c2;
	unsigned shares, stat;
	GString *out = g_string_new(NULL);

	env_setup(&e);
	c = mkdir_ok(&e, e.top[0], "c");
	shares = file_index(&e, c, "cpu.shares");
	stat = file_index(&e, c, "cpu.stat");
	g_assert_cmpint(cg_rmdir(e.core, e.top[0], "c", &root_cred), ==, 0);
	g_assert_cmpint(cg_file_write(e.core, c, shares, "500", 3, &writer_cred), ==, -ENODEV);
	g_assert_cmpint(cg_file_read(e.core, c, shares, out), ==, -ENODEV);
	g_assert_cmpint(cg_file_read(e.core, c, stat, out), ==, -ENODEV);
	c2 = mkdir_ok(&e, e.top[0], "c");
	g_assert_cmpuint(c2, !=, c);
	g_assert_cmpint(cg_file_write(e.core, c, shares, "500", 3, &writer_cred), ==, -ENODEV);
	g_assert_cmpint(cg_file_read(e.core, c, shares, out), ==, -ENODEV);
	assert_content(&e, c2, "cpu.shares", "1024\n");
	g_assert_cmpuint(out->len, ==, 0);
	/* A file index past the hierarchy's files. */
	g_assert_cmpint(cg_file_read(e.core, c2, 10000, out), ==, -ENOENT);
	g_string_free(out, TRUE);
	env_teardown(&e);
}

/* ---- cpuset ------------------------------------------------------------- */

static void test_cpuset_defaults(void)
{
	struct env e;
	uint64_t c;

	env_setup_full(&e, false, false);
	c = mkdir_ok(&e, e.top[0], "c");
	assert_content(&e, c, "cpuset.cpus", "\n");
	assert_content(&e, c, "cpuset.mems", "\n");
	assert_content(&e, c, "cpuset.effective_cpus", "\n");
	assert_content(&e, c, "cpuset.effective_mems", "\n");
	assert_content(&e, e.top[0], "cpuset.cpus", FAKE_KF_ONLINE_CPUS "\n");
	assert_content(&e, e.top[0], "cpuset.mems", FAKE_KF_ONLINE_MEMS "\n");
	assert_content(&e, e.top[0], "cpuset.effective_cpus", "0-3\n");
	assert_content(&e, e.top[0], "cpuset.effective_mems", "0\n");
	/* The root's sets are the system's: not writable. */
	g_assert_cmpint(wr(&e, e.top[0], "cpuset.cpus", "0-1"), ==, -EACCES);
	g_assert_cmpint(wr(&e, e.top[0], "cpuset.mems", "0"), ==, -EACCES);
	assert_content(&e, e.top[0], "cpuset.cpus", "0-3\n");
	env_teardown(&e);
}

/* The oracle's cpuset.cpus table, on 4 CPUs (parent 0-3, reset to 0). */
static const struct row cpus_rows[] = {
	{ "0", -1, 0, "0\n" },
	{ "1", -1, 0, "1\n" },
	{ "1-1", -1, 0, "1\n" },
	{ "00", -1, 0, "0\n" },
	{ "01", -1, 0, "1\n" },
	{ "0-1", -1, 0, "0-1\n" },
	{ "0,1", -1, 0, "0-1\n" },
	{ "1,0", -1, 0, "0-1\n" },
	{ "0-1\n", -1, 0, "0-1\n" },
	{ "0,,1", -1, 0, "0-1\n" },
	{ "0-1,1", -1, 0, "0-1\n" },
	{ "0 1", -1, 0, "0-1\n" },
	{ "0\t1", -1, 0, "0-1\n" },
	{ "0-1:2/2", -1, 0, "0-1\n" },
	{ " 0 ", -1, 0, "0\n" },
	{ " 0", -1, 0, "0\n" },
	{ "0 ", -1, 0, "0\n" },
	{ ",0", -1, 0, "0\n" },
	{ "0,", -1, 0, "0\n" },
	{ "0\0junk", 6, 0, "0\n" },
	{ "0-1:1/2", -1, 0, "0\n" },
	{ "0-3", -1, 0, "0-3\n" },
	{ "3,2,0", -1, 0, "0,2-3\n" },
	{ "0-3:1/2", -1, 0, "0,2\n" },
	{ "N", -1, 0, "3\n" },
	{ "all", -1, 0, "0-3\n" },
	{ "\n", -1, 0, "\n" },
	{ " ", -1, 0, "\n" },
	{ "", 0, 0, "0\n" },
	{ "1-0", -1, -EINVAL, "0\n" },
	{ "0-", -1, -EINVAL, "0\n" },
	{ "-1", -1, -EINVAL, "0\n" },
	{ "abc", -1, -EINVAL, "0\n" },
	{ "0x1", -1, -EINVAL, "0\n" },
	{ "0-1:1", -1, -EINVAL, "0\n" },
	{ "4", -1, -ERANGE, "0\n" },
	{ "0-4", -1, -ERANGE, "0\n" },
	{ "4096", -1, -ERANGE, "0\n" },
	{ "99999999999", -1, -EOVERFLOW, "0\n" },
};

static void test_cpuset_cpus(void)
{
	struct env e;
	uint64_t c;

	env_setup_full(&e, false, false);
	c = mkdir_ok(&e, e.top[0], "c");
	run_table(&e, c, "cpuset.cpus", "0", cpus_rows, G_N_ELEMENTS(cpus_rows),
		  "cpuset.effective_cpus");
	env_teardown(&e);
}

/* White space the kernel skips between regions (its isspace() includes '\n'
 * and Latin-1 NBSP 0xa0). Measured on this machine: "0,\n1" -> 0-1,
 * "0 \n1" -> 0-1, "0\xa0" "1" -> 0-1. */
static void test_cpuset_cpus_whitespace(void)
{
	static const struct row rows[] = {
		{ "0,\n1", -1, 0, "0-1\n" },
		{ "0 \n1", -1, 0, "0-1\n" },
		{ "0\xa0" "1", -1, 0, "0-1\n" },
		{ "\xa0" "1", -1, 0, "1\n" },
		{ "1\xa0", -1, 0, "1\n" },
	};
	struct env e;
	uint64_t c;

	env_setup_full(&e, false, false);
	c = mkdir_ok(&e, e.top[0], "c");
	run_table(&e, c, "cpuset.cpus", "0", rows, G_N_ELEMENTS(rows), "cpuset.effective_cpus");
	env_teardown(&e);
}

static const struct row mems_rows[] = {
	{ "0", -1, 0, "0\n" },
	{ "0,0", -1, 0, "0\n" },
	{ "0-0", -1, 0, "0\n" },
	{ " 0 ", -1, 0, "0\n" },
	{ "0\n", -1, 0, "0\n" },
	{ "0-1:1/2", -1, 0, "0\n" },
	{ "\n", -1, 0, "\n" },
	{ "", 0, 0, "0\n" },
	{ "1", -1, -EINVAL, "0\n" },		/* offline node */
	{ "0-1", -1, -EINVAL, "0\n" },
	{ "64", -1, -EINVAL, "0\n" },
	{ "1023", -1, -EINVAL, "0\n" },
	{ "1-0", -1, -EINVAL, "0\n" },
	{ "abc", -1, -EINVAL, "0\n" },
	{ "1024", -1, -ERANGE, "0\n" },		/* >= MAX_NUMNODES */
};

static void test_cpuset_mems(void)
{
	struct env e;
	uint64_t c;

	env_setup_full(&e, false, false);
	c = mkdir_ok(&e, e.top[0], "c");
	run_table(&e, c, "cpuset.mems", "0", mems_rows, G_N_ELEMENTS(mems_rows),
		  "cpuset.effective_mems");
	env_teardown(&e);
}

/* A child is a subset of its parent (EACCES); a parent cannot shrink below
 * a child (EBUSY). */
static void test_cpuset_hierarchy(void)
{
	struct env e;
	uint64_t sub, kid;

	env_setup_full(&e, false, false);
	sub = mkdir_ok(&e, e.top[0], "sub");
	kid = mkdir_ok(&e, sub, "kid");
	step(&e, sub, "sub", "cpuset.cpus", "0", 0);
	step(&e, kid, "sub/kid", "cpuset.cpus", "1", -EACCES);
	step(&e, kid, "sub/kid", "cpuset.cpus", "0-1", -EACCES);
	step(&e, kid, "sub/kid", "cpuset.cpus", "0", 0);
	step(&e, sub, "sub", "cpuset.cpus", "1", -EBUSY);
	step(&e, sub, "sub", "cpuset.cpus", "\n", -EBUSY);
	step(&e, sub, "sub", "cpuset.cpus", "0-2", 0);		/* growing is fine */
	step(&e, kid, "sub/kid", "cpuset.cpus", "1", 0);
	step(&e, sub, "sub", "cpuset.cpus", "1", 0);
	assert_content(&e, sub, "cpuset.cpus", "1\n");
	assert_content(&e, kid, "cpuset.cpus", "1\n");

	/* mems: the same two rules. */
	step(&e, kid, "sub/kid", "cpuset.mems", "0", -EACCES);	/* parent's empty */
	step(&e, sub, "sub", "cpuset.mems", "0", 0);
	step(&e, kid, "sub/kid", "cpuset.mems", "0", 0);
	step(&e, sub, "sub", "cpuset.mems", "\n", -EBUSY);
	assert_content(&e, sub, "cpuset.mems", "0\n");
	assert_content(&e, kid, "cpuset.effective_mems", "0\n");
	env_teardown(&e);
}

/* Emptying a group that has tasks: EBUSY; shrinking it is fine. */
static void test_cpuset_empty_populated(void)
{
	struct env e;
	uint64_t g;

	env_setup_full(&e, false, false);
	fake_kf_add_process(e.fk, 200, 1);
	g = mkdir_ok(&e, e.top[0], "g");
	wr_ok(&e, g, "cpuset.cpus", "0-1");
	wr_ok(&e, g, "cpuset.mems", "0");
	wr_ok(&e, g, "tasks", "200");
	step(&e, g, "g", "cpuset.cpus", "\n", -EBUSY);
	step(&e, g, "g", "cpuset.mems", "\n", -EBUSY);
	step(&e, g, "g", "cpuset.cpus", " ", -EBUSY);
	assert_content(&e, g, "cpuset.cpus", "0-1\n");
	assert_content(&e, g, "cpuset.mems", "0\n");
	step(&e, g, "g", "cpuset.cpus", "1", 0);
	assert_content(&e, g, "cpuset.effective_cpus", "1\n");
	/* Once the task has left, the group may be emptied. */
	wr_ok(&e, e.top[0], "tasks", "200");
	step(&e, g, "g", "cpuset.cpus", "\n", 0);
	step(&e, g, "g", "cpuset.mems", "\n", 0);
	assert_content(&e, g, "cpuset.cpus", "\n");
	assert_content(&e, g, "cpuset.effective_mems", "\n");
	env_teardown(&e);
}

/* A task that has exited no longer populates its group (the kernel drops it
 * from the group at exit). Measured on this machine: a cpuset group whose
 * only task was killed can have cpuset.cpus emptied at once. */
static void test_cpuset_empty_after_exit(void)
{
	struct env e;
	uint64_t g;

	env_setup_full(&e, false, false);
	fake_kf_add_process(e.fk, 200, 1);
	g = mkdir_ok(&e, e.top[0], "g");
	wr_ok(&e, g, "cpuset.cpus", "0-1");
	wr_ok(&e, g, "cpuset.mems", "0");
	wr_ok(&e, g, "tasks", "200");
	fake_kf_exit(e.fk, 200);
	step(&e, g, "g", "cpuset.cpus", "\n", 0);
	expect_content(&e, g, "cpuset.cpus", "\n");
	g_assert_cmpuint(nr_tasks(&e), ==, 0);
	g_assert_cmpuint(nr_css_sets(&e), ==, 1);
	env_teardown(&e);
}

/* effective_* follow the configured sets (v1, no hotplug). */
static void test_cpuset_effective(void)
{
	struct env e;
	uint64_t p, k;

	env_setup_full(&e, false, false);
	p = mkdir_ok(&e, e.top[0], "p");
	k = mkdir_ok(&e, p, "k");
	wr_ok(&e, p, "cpuset.cpus", "1-3");
	wr_ok(&e, p, "cpuset.mems", "0");
	assert_content(&e, p, "cpuset.effective_cpus", "1-3\n");
	assert_content(&e, p, "cpuset.effective_mems", "0\n");
	assert_content(&e, k, "cpuset.effective_cpus", "\n");
	wr_ok(&e, k, "cpuset.cpus", "2");
	assert_content(&e, k, "cpuset.effective_cpus", "2\n");
	wr_ok(&e, p, "cpuset.cpus", "2-3");
	assert_content(&e, p, "cpuset.effective_cpus", "2-3\n");
	assert_content(&e, k, "cpuset.effective_cpus", "2\n");
	wr_ok(&e, k, "cpuset.cpus", "\n");
	assert_content(&e, k, "cpuset.effective_cpus", "\n");
	env_teardown(&e);
}

/* With clone_children a new group starts with its parent's cpus and mems;
 * without, empty. */
static void test_cpuset_clone_children(void)
{
	struct env e;
	uint64_t p, p2, k;

	env_setup_full(&e, false, false);
	p = mkdir_ok(&e, e.top[0], "p");
	p2 = mkdir_ok(&e, e.top[0], "p2");
	wr_ok(&e, p, "cpuset.cpus", "1-2");
	wr_ok(&e, p, "cpuset.mems", "0");
	wr_ok(&e, p2, "cpuset.cpus", "1-2");
	wr_ok(&e, p2, "cpuset.mems", "0");
	wr_ok(&e, p, "cgroup.clone_children", "1");

	k = mkdir_ok(&e, p, "k");
	assert_content(&e, k, "cpuset.cpus", "1-2\n");
	assert_content(&e, k, "cpuset.mems", "0\n");
	assert_content(&e, k, "cpuset.effective_cpus", "1-2\n");
	assert_content(&e, k, "cpuset.effective_mems", "0\n");
	assert_content(&e, k, "cgroup.clone_children", "1\n");

	k = mkdir_ok(&e, p2, "k");
	assert_content(&e, k, "cpuset.cpus", "\n");
	assert_content(&e, k, "cpuset.mems", "\n");
	assert_content(&e, k, "cpuset.effective_cpus", "\n");
	assert_content(&e, k, "cgroup.clone_children", "0\n");
	env_teardown(&e);

	/* A hierarchy made with clone_children (main's default). */
	env_setup(&e);
	assert_content(&e, e.top[0], "cgroup.clone_children", "1\n");
	k = mkdir_ok(&e, e.top[0], "k");
	assert_content(&e, k, "cpuset.cpus", "0-3\n");
	assert_content(&e, k, "cpuset.mems", "0\n");
	assert_content(&e, k, "cgroup.clone_children", "1\n");
	k = mkdir_ok(&e, k, "kk");
	assert_content(&e, k, "cpuset.cpus", "0-3\n");
	env_teardown(&e);
}

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	/* A failed check fails its case; the next cases still run. */
	g_test_set_nonfatal_assertions();
	g_test_add_func("/cpu/defaults", test_cpu_defaults);
	g_test_add_func("/cpu/shares", test_cpu_shares);
	g_test_add_func("/cpu/shares-long-writes", test_cpu_shares_long_writes);
	g_test_add_func("/cpu/cfs-period", test_cpu_cfs_period);
	g_test_add_func("/cpu/cfs-quota", test_cpu_cfs_quota);
	g_test_add_func("/cpu/cfs-root", test_cpu_cfs_root);
	g_test_add_func("/cpu/cfs-hierarchy", test_cpu_cfs_hierarchy);
	g_test_add_func("/cpu/cfs-hierarchy-large-quota", test_cpu_cfs_hierarchy_large_quota);
	g_test_add_func("/cpu/stat", test_cpu_stat);
	g_test_add_func("/cpu/idle-shares", test_cpu_idle_shares);
	g_test_add_func("/cpu/idle-unprivileged", test_cpu_idle_unprivileged);
	g_test_add_func("/cpu/untraceable", test_untraceable);
	g_test_add_func("/core/flag-files", test_flag_files);
	g_test_add_func("/core/flag-inheritance", test_flag_inheritance);
	g_test_add_func("/core/release-agent", test_release_agent);
	g_test_add_func("/core/write-limits", test_write_limits);
	g_test_add_func("/core/max-write-len", test_max_write_len);
	g_test_add_func("/core/embedded-nul", test_embedded_nul);
	g_test_add_func("/core/removed-group", test_removed_group);
	g_test_add_func("/cpuset/defaults", test_cpuset_defaults);
	g_test_add_func("/cpuset/cpus", test_cpuset_cpus);
	g_test_add_func("/cpuset/cpus-whitespace", test_cpuset_cpus_whitespace);
	g_test_add_func("/cpuset/mems", test_cpuset_mems);
	g_test_add_func("/cpuset/hierarchy", test_cpuset_hierarchy);
	g_test_add_func("/cpuset/empty-populated", test_cpuset_empty_populated);
	g_test_add_func("/cpuset/empty-after-exit", test_cpuset_empty_after_exit);
	g_test_add_func("/cpuset/effective", test_cpuset_effective);
	g_test_add_func("/cpuset/clone-children", test_cpuset_clone_children);
	return g_test_run();
}
