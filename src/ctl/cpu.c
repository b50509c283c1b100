/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cpu: CFS group weight (cpu.shares), bandwidth (cpu.cfs_period_us,
 * cpu.cfs_quota_us, cpu.cfs_burst_us), cpu.idle and RT bandwidth
 * (cpu.rt_period_us, cpu.rt_runtime_us), with the kernel's parsing,
 * clamping and checks (kernel/sched/core.c, rt.c). The allocator
 * (src/alloc/alloc.c) makes the shares real, the quota enforcer
 * (src/enforce/quota.c) the bandwidth and cpu.stat's throttling figures
 * (through ctl/cpu.h), the idle enforcer (src/enforce/idle.c) cpu.idle.
 * The RT bandwidth is stored and validated.
 *
 * On the default hierarchy (v2) the same task_group is shown through
 * cpu.weight, cpu.weight.nice, cpu.max, cpu.max.burst, cpu.idle and
 * cpu.stat (kernel/sched/core.c cpu_files): cpu.weight and cpu.shares set
 * the same shares, cpu.max the same period and quota, so the allocator and
 * the enforcement treat both faces alike. */
#include <errno.h>
#include <stdatomic.h>
#include <string.h>
#include <unistd.h>

#include "ctl/cpu.h"
#include "ctl/ctl.h"
#include "kernel/sched_prio.h"

#define NSEC_PER_USEC 1000ULL
#define MIN_SHARES 2ULL
#define MAX_SHARES (1ULL << 18)
#define SCHED_FIXEDPOINT_SHIFT 10
#define WEIGHT_IDLEPRIO 3ULL
#define RUNTIME_INF CPU_RUNTIME_INF
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
	/* Bandwidth settings written: each write refills the runtime, the
	 * same values too (tg_set_cfs_bandwidth()). */
	uint64_t bw_writes;
	int64_t idle;			/* 0 or 1 */
	uint64_t rt_period;		/* ns */
	uint64_t rt_runtime;		/* ns, RUNTIME_INF for none */
	/* CPU time charged to the subtree (ns; never for the root), which
	 * the quota enforcer reads (cpu_usage()). */
	uint64_t usage;
	/* The quota enforcer's figures, added under the read side. */
	_Atomic uint64_t bw[sizeof(struct cfs_bandwidth_stat) / sizeof(uint64_t)];
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

/* A fresh task_group's settings and bandwidth figures; its usage is the
 * enforcer's running count, kept. */
static void cpu_css_reset(struct css *css)
{
	struct task_group *tg = css_tg(css);

	tg->shares = 1024ULL << SCHED_FIXEDPOINT_SHIFT;
	tg->period = DEFAULT_CFS_PERIOD;
	tg->quota = RUNTIME_INF;
	tg->burst = 0;
	tg->idle = 0;
	for (size_t i = 0; i < G_N_ELEMENTS(tg->bw); i++)
		atomic_store_explicit(&tg->bw[i], 0, memory_order_relaxed);
}

static void cpu_css_free(struct css *css)
{
	g_free(css_tg(css));
}

static uint64_t cpu_shares_read_u64(struct css *css, const struct cftype *cft)
{
	uint64_t w = css_tg(css)->shares;

	(void)cft;
	/* scale_load_down(): its floor of 2 is the writes' (MIN_SHARES, and
	 * an idle group's 3) here, so a plain shift. */
	return w >> SCHED_FIXEDPOINT_SHIFT;
}

/* sched_group_set_shares(), shares scale_load()ed: what cpu.shares,
 * cpu.weight and cpu.weight.nice write. An idle group keeps its minimal
 * weight (EINVAL), measured on the kernel's v1 too. */
static int sched_group_set_shares(struct task_group *tg, uint64_t shares)
{
	if (!tg->css.parent || tg->idle)
		return -EINVAL;
	tg->shares = CLAMP(shares, MIN_SHARES << SCHED_FIXEDPOINT_SHIFT,
			   MAX_SHARES << SCHED_FIXEDPOINT_SHIFT);
	return 0;
}

static int cpu_shares_write_u64(struct css *css, const struct cftype *cft, uint64_t shareval)
{
	(void)cft;
	if (shareval > (~0ULL >> SCHED_FIXEDPOINT_SHIFT))
		shareval = MAX_SHARES;
	return sched_group_set_shares(css_tg(css), shareval << SCHED_FIXEDPOINT_SHIFT);
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
	if (quota != RUNTIME_INF && (ret = css_may_trace(&tg->css, "a CPU quota")) < 0)
		return ret;
	while (top->parent)
		top = top->parent;
	/* On the default hierarchy a child may ask for more than its parent
	 * (it gets no more): tg_cfs_schedulable_down() refuses nothing. */
	ret = css_on_dfl(top) ? 0 : cfs_schedulable_down(top, RUNTIME_INF, &d);
	if (ret == 0) {
		tg->period = period;
		tg->quota = quota;
		tg->burst = burst;
		tg->bw_writes++;
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

/* Without CAP_SYS_NICE the kernel gives a thread SCHED_OTHER back from
 * SCHED_IDLE only within its RLIMIT_NICE (can_nice()), which no thread
 * yet to join the group can be held to: cgfused could not take idle back,
 * so it refuses to give it (the log says why, once). */
static int may_idle(struct css *css)
{
	static gsize said;
	struct kfacade *kf = css_kfacade(css);

	if (kf->ops->may_lower_nice(kf))
		return 0;
	return cg_refuse_once(&said, "cpu.idle 1", "without CAP_SYS_NICE cgfused could not "
			      "give SCHED_IDLE threads their policy back");
}

/* sched_group_set_idle(): an idle group weighs WEIGHT_IDLEPRIO (3), and
 * leaving idle gives the default weight back (not the one before); the
 * idle enforcer (src/enforce/idle.c) makes its threads SCHED_IDLE. */
static int cpu_idle_write_s64(struct css *css, const struct cftype *cft, int64_t idle)
{
	struct task_group *tg = css_tg(css);
	int ret;

	(void)cft;
	if (!css->parent || idle < 0 || idle > 1)
		return -EINVAL;
	if (tg->idle == idle)
		return 0;
	if (idle && (ret = may_idle(css)) < 0)
		return ret;
	tg->idle = idle;
	tg->shares = (idle ? WEIGHT_IDLEPRIO : 1024ULL) << SCHED_FIXEDPOINT_SHIFT;
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

uint64_t cpu_cfs_quota(struct css *css)
{
	return css_tg(css)->quota;
}

uint64_t cpu_cfs_period(struct css *css)
{
	return css_tg(css)->period;
}

uint64_t cpu_cfs_burst(struct css *css)
{
	return css_tg(css)->burst;
}

uint64_t cpu_cfs_writes(struct css *css)
{
	return css_tg(css)->bw_writes;
}

bool cpu_group_idle(struct css *css)
{
	return css_tg(css)->idle != 0;
}

uint64_t cpu_usage(struct css *css)
{
	return css_tg(css)->usage;
}

void cpu_bandwidth_stat(struct css *css, struct cfs_bandwidth_stat *out)
{
	uint64_t *v = (uint64_t *)out;

	for (size_t i = 0; i < G_N_ELEMENTS(css_tg(css)->bw); i++)
		v[i] = atomic_load_explicit(&css_tg(css)->bw[i], memory_order_relaxed);
}

void cpu_bandwidth_add(struct css *css, const struct cfs_bandwidth_stat *d)
{
	const uint64_t *v = (const uint64_t *)d;

	for (size_t i = 0; i < G_N_ELEMENTS(css_tg(css)->bw); i++)
		if (v[i])
			atomic_fetch_add_explicit(&css_tg(css)->bw[i], v[i], memory_order_relaxed);
}

static int cpu_stat_show(struct css *css, const struct cftype *cft, GString *out)
{
	struct cfs_bandwidth_stat st;

	(void)cft;
	cpu_bandwidth_stat(css, &st);
	g_string_append_printf(out, "nr_periods %" G_GUINT64_FORMAT "\n"
			       "nr_throttled %" G_GUINT64_FORMAT "\n"
			       "throttled_time %" G_GUINT64_FORMAT "\n"
			       "nr_bursts %" G_GUINT64_FORMAT "\n"
			       "burst_time %" G_GUINT64_FORMAT "\n",
			       st.nr_periods, st.nr_throttled, st.throttled_time,
			       st.nr_bursts, st.burst_time);
	return 0;
}

static int cpu_stat_local_show(struct css *css, const struct cftype *cft, GString *out)
{
	struct cfs_bandwidth_stat st;

	(void)cft;
	cpu_bandwidth_stat(css, &st);
	g_string_append_printf(out, "throttled_time %" G_GUINT64_FORMAT "\n",
			       st.throttled_time_local);
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

/* ---- the default hierarchy (v2): kernel/sched/core.c cpu_files ---------- */

#define CGROUP_WEIGHT_MIN 1ULL
#define CGROUP_WEIGHT_DFL 100ULL
#define CGROUP_WEIGHT_MAX 10000ULL

static uint64_t to_us(uint64_t ns)
{
	return ns / NSEC_PER_USEC;
}

static uint64_t div_round_closest(uint64_t n, uint64_t d)
{
	return (n + d / 2) / d;
}

/* sched_weight_from_cgroup(): weight 100 is shares 1024. */
static uint64_t sched_weight_from_cgroup(uint64_t cgrp_weight)
{
	return div_round_closest(cgrp_weight * 1024, CGROUP_WEIGHT_DFL);
}

/* sched_weight_to_cgroup(): clamped, so that shares 2 or 3 read 1. */
static uint64_t sched_weight_to_cgroup(uint64_t weight)
{
	return CLAMP(div_round_closest(weight * CGROUP_WEIGHT_DFL, 1024), CGROUP_WEIGHT_MIN,
		     CGROUP_WEIGHT_MAX);
}

static uint64_t cpu_weight_read_u64(struct css *css, const struct cftype *cft)
{
	return sched_weight_to_cgroup(cpu_shares_read_u64(css, cft));
}

/* cpu_weight_write_u64(). Writing the weight a group shows keeps its
 * exact shares (which the kernel rounds anew: shares 335 from nice 5 read
 * weight 33, which is 338): no file tells them apart, and the state's
 * replay, which writes no value a file already shows, then gives what the
 * live group had, from its log as from its snapshot. */
static int cpu_weight_write_u64(struct css *css, const struct cftype *cft, uint64_t w)
{
	struct task_group *tg = css_tg(css);

	if (w < CGROUP_WEIGHT_MIN || w > CGROUP_WEIGHT_MAX)
		return -ERANGE;
	if (!tg->idle && cpu_weight_read_u64(css, cft) == w)
		return 0;
	return sched_group_set_shares(tg, sched_weight_from_cgroup(w) << SCHED_FIXEDPOINT_SHIFT);
}

/* cpu_weight_nice_read_s64(): the nice whose weight is nearest. */
static int64_t cpu_weight_nice_read_s64(struct css *css, const struct cftype *cft)
{
	int64_t weight = (int64_t)cpu_shares_read_u64(css, cft), last_delta = INT64_MAX;
	int prio;

	for (prio = 0; prio < NICE_WIDTH; prio++) {
		int64_t delta = ABS(sched_prio_to_weight[prio] - weight);

		if (delta >= last_delta)
			break;
		last_delta = delta;
	}
	return prio - 1 + NICE_MIN;
}

static int cpu_weight_nice_write_s64(struct css *css, const struct cftype *cft, int64_t nice)
{
	(void)cft;
	if (nice < NICE_MIN || nice > NICE_MAX)
		return -ERANGE;
	return sched_group_set_shares(css_tg(css), (uint64_t)nice_to_weight((int)nice)
						   << SCHED_FIXEDPOINT_SHIFT);
}

static int cpu_max_show(struct css *css, const struct cftype *cft, GString *out)
{
	struct task_group *tg = css_tg(css);

	(void)cft;
	if (tg->quota == RUNTIME_INF)
		g_string_append(out, "max");
	else
		g_string_append_printf(out, "%" G_GUINT64_FORMAT, to_us(tg->quota));
	g_string_append_printf(out, " %" G_GUINT64_FORMAT "\n", to_us(tg->period));
	return 0;
}

/* The kernel's sscanf "%llu": blanks, then decimal digits (no sign),
 * stopping at the first other character; false if there is no digit. */
static bool scan_u64(const char *s, uint64_t *v)
{
	uint64_t n = 0;

	while (g_ascii_isspace(*s))
		s++;
	if (!g_ascii_isdigit(*s))
		return false;
	for (; g_ascii_isdigit(*s); s++)
		n = n > (UINT64_MAX - 9) / 10 ? UINT64_MAX : n * 10 + (uint64_t)(*s - '0');
	*v = n;
	return true;
}

/* cpu_period_quota_parse(): sscanf(buf, "%20s %llu", tok, period): a
 * token of at most 20 characters, the quota ("max" or µs), then the
 * period in µs, kept as it was when absent. */
static int cpu_period_quota_parse(const char *buf, uint64_t *period_us, uint64_t *quota_us)
{
	char tok[21];
	size_t n = 0;

	while (g_ascii_isspace(*buf))
		buf++;
	while (*buf && !g_ascii_isspace(*buf) && n < sizeof(tok) - 1)
		tok[n++] = *buf++;
	tok[n] = '\0';
	if (n == 0)
		return -EINVAL;
	scan_u64(buf, period_us);
	if (!scan_u64(tok, quota_us)) {
		if (strcmp(tok, "max") != 0)
			return -EINVAL;
		*quota_us = RUNTIME_INF;
	}
	return 0;
}

/* cpu_max_write(): the same period and quota as cpu.cfs_period_us and
 * cpu.cfs_quota_us, checked as tg_set_bandwidth() checks them. */
static int cpu_max_write(struct cg_file_ctx *ctx, char *buf, size_t nbytes)
{
	struct task_group *tg = css_tg(ctx->css);
	uint64_t period = tg->period / NSEC_PER_USEC, quota;
	int ret;

	(void)nbytes;
	ret = cpu_period_quota_parse(buf, &period, &quota);
	if (ret < 0)
		return ret;
	if (period > ~0ULL / NSEC_PER_USEC ||
	    (quota != RUNTIME_INF && quota > ~0ULL / NSEC_PER_USEC))
		return -EINVAL;
	return tg_set_cfs_bandwidth(tg, period * NSEC_PER_USEC,
				    quota == RUNTIME_INF ? RUNTIME_INF : quota * NSEC_PER_USEC,
				    tg->burst);
}

/* The group and every ancestor but the root (cpuacct_charge()). */
static void cpu_charge(struct css *css, const struct task_cputime *d)
{
	for (; css->parent; css = css->parent)
		css_tg(css)->usage += d->run_ns;
}

/* v2's cpu.stat after the core's usage lines: cpu_extra_stat_show(). */
static void cpu_extra_stat_show(struct css *css, GString *out)
{
	struct cfs_bandwidth_stat st;

	cpu_bandwidth_stat(css, &st);
	g_string_append_printf(out, "nr_periods %" G_GUINT64_FORMAT "\n"
			       "nr_throttled %" G_GUINT64_FORMAT "\n"
			       "throttled_usec %" G_GUINT64_FORMAT "\n"
			       "nr_bursts %" G_GUINT64_FORMAT "\n"
			       "burst_usec %" G_GUINT64_FORMAT "\n",
			       st.nr_periods, st.nr_throttled, to_us(st.throttled_time),
			       st.nr_bursts, to_us(st.burst_time));
}

/* v2's cpu.stat.local: cpu_local_stat_show(). */
static void cpu_local_stat_show(struct css *css, GString *out)
{
	struct cfs_bandwidth_stat st;

	cpu_bandwidth_stat(css, &st);
	g_string_append_printf(out, "throttled_usec %" G_GUINT64_FORMAT "\n",
			       to_us(st.throttled_time_local));
}

/* The kernel's cpu_files (cpu.stat and cpu.stat.local are the core's,
 * src/v2/base_files.c, with cpu's lines from the hooks above).
 * weight.nice comes before weight: the state replays a group's settings
 * in table order, and the finer one must be the last word (see
 * cpu_weight_write_u64()); idle after both, which it makes unwritable. */
static const struct cftype cpu_dfl_files[] = {
	{ .name = "weight.nice", .flags = CFTYPE_NOT_ON_ROOT,
	  .read_s64 = cpu_weight_nice_read_s64, .write_s64 = cpu_weight_nice_write_s64 },
	{ .name = "weight", .flags = CFTYPE_NOT_ON_ROOT,
	  .read_u64 = cpu_weight_read_u64, .write_u64 = cpu_weight_write_u64 },
	{ .name = "idle", .flags = CFTYPE_NOT_ON_ROOT,
	  .read_s64 = cpu_idle_read_s64, .write_s64 = cpu_idle_write_s64 },
	{ .name = "max", .flags = CFTYPE_NOT_ON_ROOT, .seq_show = cpu_max_show,
	  .write = cpu_max_write },
	{ .name = "max.burst", .flags = CFTYPE_NOT_ON_ROOT,
	  .read_u64 = cpu_cfs_burst_read_u64, .write_u64 = cpu_cfs_burst_write_u64 },
	{ 0 }
};

const struct cgroup_subsys cpu_cgrp_subsys = {
	.name = "cpu",
	.threaded = true,
	.css_alloc = cpu_css_alloc,
	.css_free = cpu_css_free,
	.css_reset = cpu_css_reset,
	.legacy_files = cpu_legacy_files,
	.dfl_files = cpu_dfl_files,
	.extra_stat_show = cpu_extra_stat_show,
	.local_stat_show = cpu_local_stat_show,
	.weight = cpu_weight,
	.charge = cpu_charge,
};
