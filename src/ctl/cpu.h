/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The cpu controller's bandwidth settings and figures, for the quota
 * enforcer (src/enforce/quota.c) and the cpu files of either face. The
 * settings are read under the core lock (either side); the figures are
 * atomics that the enforcer adds to under the read side. */
#ifndef CGFUSED_CTL_CPU_H
#define CGFUSED_CTL_CPU_H

#include <stdbool.h>
#include <stdint.h>

#include "core/cgroup.h"

#define CPU_RUNTIME_INF (~0ULL)	/* no quota */

/* cpu.stat's throttling figures (ns for the times), and cpu.stat.local's. */
struct cfs_bandwidth_stat {
	uint64_t nr_periods;		/* periods in which the group ran */
	uint64_t nr_throttled;		/* of those, periods it was throttled in */
	uint64_t throttled_time;	/* wall time throttled by its own quota */
	uint64_t nr_bursts, burst_time;	/* periods that used more than the quota */
	uint64_t throttled_time_local;	/* held by its own or an ancestor's */
};

/* The group's quota (ns per period, CPU_RUNTIME_INF for none), period
 * and burst (ns), and whether it is an idle group (cpu.idle). */
uint64_t cpu_cfs_quota(struct css *css);
uint64_t cpu_cfs_period(struct css *css);
uint64_t cpu_cfs_burst(struct css *css);
/* How many times its bandwidth was written: a write starts a new quota,
 * with a full runtime, even of the values it had. */
uint64_t cpu_cfs_writes(struct css *css);
bool cpu_group_idle(struct css *css);
/* CPU time charged to the group and its descendants so far (ns). */
uint64_t cpu_usage(struct css *css);

/* The figures so far, and adding to them. */
void cpu_bandwidth_stat(struct css *css, struct cfs_bandwidth_stat *out);
void cpu_bandwidth_add(struct css *css, const struct cfs_bandwidth_stat *d);

#endif
