/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cpuacct: CPU accounting (kernel/sched/cpuacct.c). A group counts what its
 * threads and its descendants' threads ran while they were members: the
 * core charges each thread's CPU time to its groups (task_charge) when it
 * is sampled, moved or exits, and a read first samples the subtree's live
 * threads. The root counts the whole system, from /proc/schedstat and
 * /proc/stat. Per-CPU figures put each sample's time on the CPU the thread
 * last ran on (exact for a thread pinned by its cpuset). */
#include <errno.h>
#include <stdatomic.h>
#include <unistd.h>

#include "core/task.h"
#include "ctl/ctl.h"

#define NSEC_PER_SEC 1000000000ULL

enum cpuacct_stat_index { CPUACCT_STAT_USER, CPUACCT_STAT_SYSTEM, CPUACCT_STAT_NSTATS };

struct cpuacct {
	struct css css;
	uint64_t *usage;		/* [cpu]: ns on a CPU */
	uint64_t *stat[CPUACCT_STAT_NSTATS];	/* [cpu]: ns of user, system time */
	/* cputime_adjust()'s memory: cpuacct.stat never goes backwards, even
	 * after a reset of cpuacct.usage, as on the kernel. Raised by readers,
	 * side by side under the core lock's read side: an atomic maximum,
	 * written only when a read finds more than any before it. */
	_Atomic uint64_t prev_stat[CPUACCT_STAT_NSTATS];
	/* The root: the system's figures when cpuacct.usage was reset. */
	struct system_cputime *root_base;
};

static struct cpuacct *css_ca(struct css *css)
{
	return (struct cpuacct *)css;
}

static unsigned nr_cpus(struct css *css)
{
	struct kfacade *kf = css_kfacade(css);

	return MIN(kf->ops->nr_cpu_ids(kf), CPUMASK_BITS);
}

static struct css *cpuacct_css_alloc(struct css *parent)
{
	struct cpuacct *ca = g_new0(struct cpuacct, 1);

	(void)parent;
	return &ca->css;
}

static void cpuacct_css_online(struct css *css)
{
	struct cpuacct *ca = css_ca(css);
	unsigned n = nr_cpus(css);

	ca->usage = g_new0(uint64_t, n);
	for (int i = 0; i < CPUACCT_STAT_NSTATS; i++)
		ca->stat[i] = g_new0(uint64_t, n);
	if (!css->parent)
		ca->root_base = g_new0(struct system_cputime, 1);
}

static void cpuacct_css_free(struct css *css)
{
	struct cpuacct *ca = css_ca(css);

	g_free(ca->usage);
	for (int i = 0; i < CPUACCT_STAT_NSTATS; i++)
		g_free(ca->stat[i]);
	g_free(ca->root_base);
	g_free(ca);
}

/* cpuacct_charge(): the group and every ancestor but the root, which counts
 * the system by itself. */
static void cpuacct_charge(struct css *css, const struct task_cputime *d)
{
	unsigned cpu = d->cpu >= 0 && (unsigned)d->cpu < nr_cpus(css) ? (unsigned)d->cpu : 0;
	uint64_t tick_ns = NSEC_PER_SEC / (uint64_t)sysconf(_SC_CLK_TCK);

	for (; css->parent; css = css->parent) {
		struct cpuacct *ca = css_ca(css);

		ca->usage[cpu] += d->run_ns;
		ca->stat[CPUACCT_STAT_USER][cpu] += d->utime * tick_ns;
		ca->stat[CPUACCT_STAT_SYSTEM][cpu] += d->stime * tick_ns;
	}
}

/* A snapshot of a group's per-CPU figures, fresh. */
struct cpuacct_snapshot {
	unsigned nr;
	uint64_t usage[CPUMASK_BITS];
	uint64_t stat[CPUACCT_STAT_NSTATS][CPUMASK_BITS];
};

static uint64_t since(uint64_t now, uint64_t base)
{
	return now > base ? now - base : 0;
}

static void snapshot(struct css *css, struct cpuacct_snapshot *s)
{
	struct cpuacct *ca = css_ca(css);

	s->nr = nr_cpus(css);
	if (!css->parent) {
		struct kfacade *kf = css_kfacade(css);
		struct system_cputime *sys = g_new0(struct system_cputime, 1);
		struct system_cputime *b = ca->root_base;

		kf->ops->system_cputime(kf, sys);
		for (unsigned c = 0; c < s->nr; c++) {
			s->usage[c] = since(sys->run_ns[c], b->run_ns[c]);
			s->stat[CPUACCT_STAT_USER][c] = since(sys->user_ns[c], b->user_ns[c]);
			s->stat[CPUACCT_STAT_SYSTEM][c] = since(sys->system_ns[c], b->system_ns[c]);
		}
		g_free(sys);
		return;
	}
	for (unsigned c = 0; c < s->nr; c++) {
		s->usage[c] = ca->usage[c];
		for (int i = 0; i < CPUACCT_STAT_NSTATS; i++)
			s->stat[i][c] = ca->stat[i][c];
	}
}

static uint64_t sum(const uint64_t *v, unsigned n)
{
	uint64_t total = 0;

	for (unsigned c = 0; c < n; c++)
		total += v[c];
	return total;
}

/* cpuacct.usage, .usage_user, .usage_sys: private is the index, or -1. */
static uint64_t cpuusage_read(struct css *css, const struct cftype *cft)
{
	struct cpuacct_snapshot *s = g_new(struct cpuacct_snapshot, 1);
	uint64_t v;

	snapshot(css, s);
	v = cft->private < 0 ? sum(s->usage, s->nr) : sum(s->stat[cft->private], s->nr);
	g_free(s);
	return v;
}

/* Only 0 may be written: it resets the usage figures. */
static int cpuusage_write(struct css *css, const struct cftype *cft, uint64_t val)
{
	struct cpuacct *ca = css_ca(css);
	unsigned n = nr_cpus(css);

	(void)cft;
	if (val)
		return -EINVAL;
	if (!css->parent) {
		struct kfacade *kf = css_kfacade(css);

		kf->ops->system_cputime(kf, ca->root_base);
		return 0;
	}
	for (unsigned c = 0; c < n; c++) {
		ca->usage[c] = 0;
		for (int i = 0; i < CPUACCT_STAT_NSTATS; i++)
			ca->stat[i][c] = 0;
	}
	return 0;
}

/* cpuacct.usage_percpu(_user, _sys): "N N \n" over the possible CPUs. */
static int percpu_show(struct css *css, const struct cftype *cft, GString *out)
{
	struct cpuacct_snapshot *s = g_new(struct cpuacct_snapshot, 1);

	snapshot(css, s);
	for (unsigned c = 0; c < s->nr; c++)
		g_string_append_printf(out, "%" G_GUINT64_FORMAT " ",
				       cft->private < 0 ? s->usage[c] : s->stat[cft->private][c]);
	g_string_append_c(out, '\n');
	g_free(s);
	return 0;
}

static int usage_all_show(struct css *css, const struct cftype *cft, GString *out)
{
	struct cpuacct_snapshot *s = g_new(struct cpuacct_snapshot, 1);

	(void)cft;
	snapshot(css, s);
	g_string_append(out, "cpu user system\n");
	for (unsigned c = 0; c < s->nr; c++)
		g_string_append_printf(out, "%u %" G_GUINT64_FORMAT " %" G_GUINT64_FORMAT "\n", c,
				       s->stat[CPUACCT_STAT_USER][c], s->stat[CPUACCT_STAT_SYSTEM][c]);
	g_free(s);
	return 0;
}

/* Raises *prev to v if v is more; returns the maximum. */
static uint64_t atomic_max(_Atomic uint64_t *prev, uint64_t v)
{
	uint64_t old = atomic_load_explicit(prev, memory_order_relaxed);

	while (old < v && !atomic_compare_exchange_weak_explicit(prev, &old, v, memory_order_relaxed,
								 memory_order_relaxed))
		;
	return MAX(old, v);
}

/* cpuacct.stat: user and system time in USER_HZ, never going backwards. */
static int stats_show(struct css *css, const struct cftype *cft, GString *out)
{
	static const char *const names[] = { "user", "system" };
	struct cpuacct_snapshot *s = g_new(struct cpuacct_snapshot, 1);
	struct cpuacct *ca = css_ca(css);
	uint64_t tick_ns = NSEC_PER_SEC / (uint64_t)sysconf(_SC_CLK_TCK);

	(void)cft;
	snapshot(css, s);
	for (int i = 0; i < CPUACCT_STAT_NSTATS; i++) {
		uint64_t shown = atomic_max(&ca->prev_stat[i], sum(s->stat[i], s->nr));

		g_string_append_printf(out, "%s %" G_GUINT64_FORMAT "\n", names[i], shown / tick_ns);
	}
	g_free(s);
	return 0;
}

static const struct cftype cpuacct_files[] = {
	{ .name = "usage", .flags = CFTYPE_NO_STATE | CFTYPE_SAMPLES, .private = -1, .read_u64 = cpuusage_read, .write_u64 = cpuusage_write },
	{ .name = "usage_user", .flags = CFTYPE_SAMPLES, .private = CPUACCT_STAT_USER, .read_u64 = cpuusage_read },
	{ .name = "usage_sys", .flags = CFTYPE_SAMPLES, .private = CPUACCT_STAT_SYSTEM, .read_u64 = cpuusage_read },
	{ .name = "usage_percpu", .flags = CFTYPE_SAMPLES, .private = -1, .seq_show = percpu_show },
	{ .name = "usage_percpu_user", .flags = CFTYPE_SAMPLES, .private = CPUACCT_STAT_USER, .seq_show = percpu_show },
	{ .name = "usage_percpu_sys", .flags = CFTYPE_SAMPLES, .private = CPUACCT_STAT_SYSTEM, .seq_show = percpu_show },
	{ .name = "usage_all", .flags = CFTYPE_SAMPLES, .seq_show = usage_all_show },
	{ .name = "stat", .flags = CFTYPE_SAMPLES, .seq_show = stats_show },
	{ 0 }
};

const struct cgroup_subsys cpuacct_cgrp_subsys = {
	.name = "cpuacct",
	.legacy_only = true,
	.css_alloc = cpuacct_css_alloc,
	.css_online = cpuacct_css_online,
	.css_free = cpuacct_css_free,
	.legacy_files = cpuacct_files,
	.charge = cpuacct_charge,
};
