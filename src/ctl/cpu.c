/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cpu: CFS group weight (cpu.shares) and bandwidth (cpu.cfs_period_us,
 * cpu.cfs_quota_us), with the kernel's parsing, clamping and checks
 * (kernel/sched/core.c). The allocator (src/alloc/alloc.c) makes the shares
 * real. Bandwidth is stored and validated; nothing is throttled, so
 * cpu.stat's counters are truly zero. */
#include <errno.h>

#include "ctl/ctl.h"

#define NSEC_PER_USEC 1000ULL
#define MIN_SHARES 2ULL
#define MAX_SHARES (1ULL << 18)
#define SCHED_FIXEDPOINT_SHIFT 10
#define RUNTIME_INF (~0ULL)
#define BW_SHIFT 20
#define BW_UNIT (1ULL << BW_SHIFT)
#define MIN_CFS_QUOTA_PERIOD (1000ULL * NSEC_PER_USEC)	/* 1 ms */
#define MAX_CFS_QUOTA_PERIOD (1000000ULL * NSEC_PER_USEC)	/* 1 s */
#define MAX_CFS_RUNTIME (((1ULL << (64 - BW_SHIFT)) - 1) * NSEC_PER_USEC)
#define DEFAULT_CFS_PERIOD (100000ULL * NSEC_PER_USEC)

/* The kernel's task_group, as far as cgfused keeps it. Weights are kept
 * scaled like the kernel's (scale_load) so that overflow behaves the same. */
struct task_group {
	struct css css;
	uint64_t shares;		/* scale_load()ed */
	uint64_t period;		/* ns */
	uint64_t quota;			/* ns, RUNTIME_INF for none */
};

static struct task_group *css_tg(struct css *css)
{
	return (struct task_group *)css;
}

static struct css *cpu_css_alloc(struct css *parent)
{
	struct task_group *tg = g_new0(struct task_group, 1);

	(void)parent;
	tg->shares = 1024ULL << SCHED_FIXEDPOINT_SHIFT;
	tg->period = DEFAULT_CFS_PERIOD;
	tg->quota = RUNTIME_INF;
	return &tg->css;
}

static void cpu_css_free(struct css *css)
{
	g_free(css_tg(css));
}

static uint64_t cpu_shares_read_u64(struct css *css, const struct cftype *cft)
{
	uint64_t w = css_tg(css)->shares;

	(void)cft;
	/* scale_load_down() */
	return w ? MAX(2ULL, w >> SCHED_FIXEDPOINT_SHIFT) : 0;
}

static int cpu_shares_write_u64(struct css *css, const struct cftype *cft, uint64_t shareval)
{
	uint64_t shares;

	(void)cft;
	if (!css->parent)
		return -EINVAL;
	if (shareval > (~0ULL >> SCHED_FIXEDPOINT_SHIFT))
		shareval = MAX_SHARES;
	shares = shareval << SCHED_FIXEDPOINT_SHIFT;
	shares = CLAMP(shares, MIN_SHARES << SCHED_FIXEDPOINT_SHIFT,
		       MAX_SHARES << SCHED_FIXEDPOINT_SHIFT);
	css_tg(css)->shares = shares;
	return 0;
}

/* The allocator weighs a group by its shares, as CFS weighs its entity. */
static uint64_t cpu_weight(struct css *css)
{
	return cpu_shares_read_u64(css, NULL);
}

static uint64_t to_ratio(uint64_t period, uint64_t runtime)
{
	if (runtime == RUNTIME_INF)
		return BW_UNIT;
	if (period == 0)
		return 0;
	return (runtime << BW_SHIFT) / period;
}

/* A proposed period and quota for one group, checked against the tree;
 * in µs, as __cfs_schedulable() does it (so large quotas cannot overflow
 * the ratio where the kernel's do not). */
struct cfs_schedulable_data {
	struct task_group *tg;
	uint64_t period, quota;
};

static uint64_t normalize_cfs_quota(struct task_group *tg, struct cfs_schedulable_data *d)
{
	uint64_t period = tg->period / NSEC_PER_USEC, quota = tg->quota;

	if (tg == d->tg) {
		period = d->period;
		quota = d->quota;
	} else if (quota != RUNTIME_INF) {
		quota /= NSEC_PER_USEC;
	}
	if (quota == RUNTIME_INF)
		return RUNTIME_INF;
	return to_ratio(period, quota);
}

/* tg_cfs_schedulable_down() on the legacy hierarchy: with the proposed
 * values in place, no group may have more bandwidth than its parent. */
static int cfs_schedulable_down(struct css *css, uint64_t parent_quota,
				struct cfs_schedulable_data *d)
{
	uint64_t quota = normalize_cfs_quota(css_tg(css), d);
	GHashTableIter iter;
	struct cgroup *child;
	int ret;

	if (quota == RUNTIME_INF)
		quota = parent_quota;
	else if (parent_quota != RUNTIME_INF && quota > parent_quota)
		return -EINVAL;
	cgroup_for_each_child(child, &iter, css->cgroup)
		if ((ret = cfs_schedulable_down(css_in(css, child), quota, d)))
			return ret;
	return 0;
}

static int tg_set_cfs_bandwidth(struct task_group *tg, uint64_t period, uint64_t quota)
{
	struct cfs_schedulable_data d = { tg, period, quota };

	if (quota != RUNTIME_INF) {
		d.period /= NSEC_PER_USEC;
		d.quota /= NSEC_PER_USEC;
	}
	struct css *top = &tg->css;
	int ret;

	if (!tg->css.parent)
		return -EINVAL;
	if (quota < MIN_CFS_QUOTA_PERIOD || period < MIN_CFS_QUOTA_PERIOD)
		return -EINVAL;
	if (period > MAX_CFS_QUOTA_PERIOD)
		return -EINVAL;
	if (quota != RUNTIME_INF && quota > MAX_CFS_RUNTIME)
		return -EINVAL;
	while (top->parent)
		top = top->parent;
	ret = cfs_schedulable_down(top, RUNTIME_INF, &d);
	if (ret == 0) {
		tg->period = period;
		tg->quota = quota;
	}
	return ret;
}

static uint64_t cpu_cfs_period_read_u64(struct css *css, const struct cftype *cft)
{
	(void)cft;
	return css_tg(css)->period / NSEC_PER_USEC;
}

static int cpu_cfs_period_write_u64(struct css *css, const struct cftype *cft, uint64_t us)
{
	struct task_group *tg = css_tg(css);

	(void)cft;
	if (us > ~0ULL / NSEC_PER_USEC)
		return -EINVAL;
	return tg_set_cfs_bandwidth(tg, us * NSEC_PER_USEC, tg->quota);
}

static int64_t cpu_cfs_quota_read_s64(struct css *css, const struct cftype *cft)
{
	uint64_t quota = css_tg(css)->quota;

	(void)cft;
	return quota == RUNTIME_INF ? -1 : (int64_t)(quota / NSEC_PER_USEC);
}

static int cpu_cfs_quota_write_s64(struct css *css, const struct cftype *cft, int64_t us)
{
	struct task_group *tg = css_tg(css);
	uint64_t quota;

	(void)cft;
	if (us < 0)
		quota = RUNTIME_INF;
	else if ((uint64_t)us <= ~0ULL / NSEC_PER_USEC)
		quota = (uint64_t)us * NSEC_PER_USEC;
	else
		return -EINVAL;
	return tg_set_cfs_bandwidth(tg, tg->period, quota);
}

static int cpu_stat_show(struct css *css, const struct cftype *cft, GString *out)
{
	(void)css;
	(void)cft;
	g_string_append(out, "nr_periods 0\nnr_throttled 0\nthrottled_time 0\n"
			     "nr_bursts 0\nburst_time 0\n");
	return 0;
}

static const struct cftype cpu_legacy_files[] = {
	{ .name = "shares", .read_u64 = cpu_shares_read_u64, .write_u64 = cpu_shares_write_u64 },
	{ .name = "cfs_period_us", .read_u64 = cpu_cfs_period_read_u64,
	  .write_u64 = cpu_cfs_period_write_u64 },
	{ .name = "cfs_quota_us", .read_s64 = cpu_cfs_quota_read_s64,
	  .write_s64 = cpu_cfs_quota_write_s64 },
	{ .name = "stat", .seq_show = cpu_stat_show },
	{ 0 }
};

const struct cgroup_subsys cpu_cgrp_subsys = {
	.name = "cpu",
	.css_alloc = cpu_css_alloc,
	.css_free = cpu_css_free,
	.legacy_files = cpu_legacy_files,
	.weight = cpu_weight,
};
