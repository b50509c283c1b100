/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cpu: CFS group weight (cpu.shares), bandwidth (cpu.cfs_period_us,
 * cpu.cfs_quota_us, cpu.cfs_burst_us), cpu.idle and RT bandwidth
 * (cpu.rt_period_us, cpu.rt_runtime_us), with the kernel's parsing,
 * clamping and checks (kernel/sched/core.c, rt.c). The allocator
 * (src/alloc/alloc.c) makes the shares real. The rest is stored and
 * validated; nothing is throttled, so cpu.stat's counters are truly zero. */
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
/* The global RT limit (sysctl kernel.sched_rt_period_us / _runtime_us) at
 * its default, which is also the root group's RT bandwidth. */
#define GLOBAL_RT_PERIOD (1000000ULL * NSEC_PER_USEC)
#define GLOBAL_RT_RUNTIME (950000ULL * NSEC_PER_USEC)

/* The kernel's task_group, as far as cgfused keeps it. Weights are kept
 * scaled like the kernel's (scale_load) so that overflow behaves the same. */
struct task_group {
	struct css css;
	uint64_t shares;		/* scale_load()ed */
	uint64_t period;		/* ns */
	uint64_t quota;			/* ns, RUNTIME_INF for none */
	uint64_t burst;			/* ns */
	int64_t idle;			/* 0 or 1 */
	uint64_t rt_period;		/* ns */
	uint64_t rt_runtime;		/* ns, RUNTIME_INF for none */
};

static struct task_group *css_tg(struct css *css)
{
	return (struct task_group *)css;
}

static struct css *cpu_css_alloc(struct css *parent)
{
	struct task_group *tg = g_new0(struct task_group, 1);

	tg->shares = 1024ULL << SCHED_FIXEDPOINT_SHIFT;
	tg->period = DEFAULT_CFS_PERIOD;
	tg->quota = RUNTIME_INF;
	/* A new group gets no RT time; the root has the global limit. */
	tg->rt_period = GLOBAL_RT_PERIOD;
	tg->rt_runtime = parent ? 0 : GLOBAL_RT_RUNTIME;
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

static int tg_set_cfs_bandwidth(struct task_group *tg, uint64_t period, uint64_t quota,
				uint64_t burst)
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
	if (quota != RUNTIME_INF && (burst > quota || burst + quota > MAX_CFS_RUNTIME))
		return -EINVAL;
	while (top->parent)
		top = top->parent;
	ret = cfs_schedulable_down(top, RUNTIME_INF, &d);
	if (ret == 0) {
		tg->period = period;
		tg->quota = quota;
		tg->burst = burst;
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
	return tg_set_cfs_bandwidth(tg, us * NSEC_PER_USEC, tg->quota, tg->burst);
}

/* A quota or RT runtime as its file shows it: -1 for none. */
static int64_t runtime_to_us(uint64_t ns)
{
	return ns == RUNTIME_INF ? -1 : (int64_t)(ns / NSEC_PER_USEC);
}

/* And as written: any negative number is none. */
static int runtime_from_us(int64_t us, uint64_t *ns)
{
	if (us < 0)
		*ns = RUNTIME_INF;
	else if ((uint64_t)us <= ~0ULL / NSEC_PER_USEC)
		*ns = (uint64_t)us * NSEC_PER_USEC;
	else
		return -EINVAL;
	return 0;
}

static int64_t cpu_cfs_quota_read_s64(struct css *css, const struct cftype *cft)
{
	(void)cft;
	return runtime_to_us(css_tg(css)->quota);
}

static int cpu_cfs_quota_write_s64(struct css *css, const struct cftype *cft, int64_t us)
{
	struct task_group *tg = css_tg(css);
	uint64_t quota;

	(void)cft;
	if (runtime_from_us(us, &quota))
		return -EINVAL;
	return tg_set_cfs_bandwidth(tg, tg->period, quota, tg->burst);
}

static uint64_t cpu_cfs_burst_read_u64(struct css *css, const struct cftype *cft)
{
	(void)cft;
	return css_tg(css)->burst / NSEC_PER_USEC;
}

static int cpu_cfs_burst_write_u64(struct css *css, const struct cftype *cft, uint64_t us)
{
	struct task_group *tg = css_tg(css);

	(void)cft;
	if (us > ~0ULL / NSEC_PER_USEC)
		return -EINVAL;
	return tg_set_cfs_bandwidth(tg, tg->period, tg->quota, us * NSEC_PER_USEC);
}

static int64_t cpu_idle_read_s64(struct css *css, const struct cftype *cft)
{
	(void)cft;
	return css_tg(css)->idle;
}

/* sched_group_set_idle(): stored (not yet applied: cgfused(8)). */
static int cpu_idle_write_s64(struct css *css, const struct cftype *cft, int64_t idle)
{
	(void)cft;
	if (!css->parent || idle < 0 || idle > 1)
		return -EINVAL;
	css_tg(css)->idle = idle;
	return 0;
}

/* tg_rt_schedulable() over the whole tree, with the proposed period and
 * runtime in place for d->tg: no group has more runtime than its period
 * or more than the global limit, and a group's children together have no
 * more than it has. (The kernel's EBUSY for emptying the runtime of a
 * group with RT tasks has no counterpart: cgfused manages no RT task.) */
struct rt_schedulable_data {
	struct task_group *tg;
	uint64_t period, runtime;
};

static void rt_bandwidth(struct task_group *tg, const struct rt_schedulable_data *d,
			 uint64_t *period, uint64_t *runtime)
{
	*period = tg == d->tg ? d->period : tg->rt_period;
	*runtime = tg == d->tg ? d->runtime : tg->rt_runtime;
}

static int rt_schedulable_down(struct css *css, const struct rt_schedulable_data *d)
{
	uint64_t period, runtime, total, sum = 0;
	GHashTableIter iter;
	struct cgroup *child;
	int ret;

	rt_bandwidth(css_tg(css), d, &period, &runtime);
	if (runtime > period && runtime != RUNTIME_INF)
		return -EINVAL;
	total = to_ratio(period, runtime);
	if (total > to_ratio(GLOBAL_RT_PERIOD, GLOBAL_RT_RUNTIME))
		return -EINVAL;
	cgroup_for_each_child(child, &iter, css->cgroup) {
		rt_bandwidth(css_tg(css_in(css, child)), d, &period, &runtime);
		sum += to_ratio(period, runtime);
	}
	if (sum > total)
		return -EINVAL;
	cgroup_for_each_child(child, &iter, css->cgroup)
		if ((ret = rt_schedulable_down(css_in(css, child), d)))
			return ret;
	return 0;
}

static int tg_set_rt_bandwidth(struct task_group *tg, uint64_t period, uint64_t runtime)
{
	struct rt_schedulable_data d = { tg, period, runtime };
	struct css *top = &tg->css;
	int ret;

	/* The root without RT time would keep the kernel's RT threads from
	 * running: refused. */
	if (!tg->css.parent && runtime == 0)
		return -EINVAL;
	if (period == 0)
		return -EINVAL;
	if (runtime != RUNTIME_INF && runtime > MAX_CFS_RUNTIME)
		return -EINVAL;
	while (top->parent)
		top = top->parent;
	ret = rt_schedulable_down(top, &d);
	if (ret == 0) {
		tg->rt_period = period;
		tg->rt_runtime = runtime;
	}
	return ret;
}

static uint64_t cpu_rt_period_read_u64(struct css *css, const struct cftype *cft)
{
	(void)cft;
	return css_tg(css)->rt_period / NSEC_PER_USEC;
}

static int cpu_rt_period_write_u64(struct css *css, const struct cftype *cft, uint64_t us)
{
	struct task_group *tg = css_tg(css);

	(void)cft;
	if (us > ~0ULL / NSEC_PER_USEC)
		return -EINVAL;
	return tg_set_rt_bandwidth(tg, us * NSEC_PER_USEC, tg->rt_runtime);
}

static int64_t cpu_rt_runtime_read_s64(struct css *css, const struct cftype *cft)
{
	(void)cft;
	return runtime_to_us(css_tg(css)->rt_runtime);
}

static int cpu_rt_runtime_write_s64(struct css *css, const struct cftype *cft, int64_t us)
{
	struct task_group *tg = css_tg(css);
	uint64_t runtime;

	(void)cft;
	if (runtime_from_us(us, &runtime))
		return -EINVAL;
	return tg_set_rt_bandwidth(tg, tg->rt_period, runtime);
}

static int cpu_stat_show(struct css *css, const struct cftype *cft, GString *out)
{
	(void)css;
	(void)cft;
	g_string_append(out, "nr_periods 0\nnr_throttled 0\nthrottled_time 0\n"
			     "nr_bursts 0\nburst_time 0\n");
	return 0;
}

static int cpu_stat_local_show(struct css *css, const struct cftype *cft, GString *out)
{
	(void)css;
	(void)cft;
	g_string_append(out, "throttled_time 0\n");
	return 0;
}

static const struct cftype cpu_legacy_files[] = {
	{ .name = "shares", .read_u64 = cpu_shares_read_u64, .write_u64 = cpu_shares_write_u64 },
	{ .name = "idle", .read_s64 = cpu_idle_read_s64, .write_s64 = cpu_idle_write_s64 },
	/* In this order: the state replays a group's settings in table order,
	 * and each is checked against those before it (a burst against the
	 * quota, an RT runtime against the period). */
	{ .name = "cfs_period_us", .read_u64 = cpu_cfs_period_read_u64,
	  .write_u64 = cpu_cfs_period_write_u64 },
	{ .name = "cfs_quota_us", .read_s64 = cpu_cfs_quota_read_s64,
	  .write_s64 = cpu_cfs_quota_write_s64 },
	{ .name = "cfs_burst_us", .read_u64 = cpu_cfs_burst_read_u64,
	  .write_u64 = cpu_cfs_burst_write_u64 },
	{ .name = "stat", .seq_show = cpu_stat_show },
	{ .name = "stat.local", .seq_show = cpu_stat_local_show },
	{ .name = "rt_period_us", .read_u64 = cpu_rt_period_read_u64,
	  .write_u64 = cpu_rt_period_write_u64 },
	{ .name = "rt_runtime_us", .read_s64 = cpu_rt_runtime_read_s64,
	  .write_s64 = cpu_rt_runtime_write_s64 },
	{ 0 }
};

const struct cgroup_subsys cpu_cgrp_subsys = {
	.name = "cpu",
	.threaded = true,
	.css_alloc = cpu_css_alloc,
	.css_free = cpu_css_free,
	.legacy_files = cpu_legacy_files,
	.weight = cpu_weight,
};
