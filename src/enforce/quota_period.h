/* SPDX-License-Identifier: GPL-2.0-or-later */
/* One capped group's bandwidth, period by period: the arithmetic of the
 * quota enforcer (enforce/quota.h), no system call, no lock. */
#ifndef CGFUSED_ENFORCE_QUOTA_PERIOD_H
#define CGFUSED_ENFORCE_QUOTA_PERIOD_H

#include <stdbool.h>
#include <stdint.h>

#include "ctl/cpu.h"

/* A throttle is decided this long before the quota runs out at the
 * group's rate: what a sample, an interrupt and the stop of a running
 * thread take (measured: docs/design.md). */
#define QUOTA_LEAD_NS 200000ULL
/* Samples come every tenth of a period, within these bounds. */
#define QUOTA_SAMPLE_MIN_NS 1000000ULL
#define QUOTA_SAMPLE_MAX_NS 10000000ULL
/* The shortest wait before a predicted run-out. */
#define QUOTA_WAIT_MIN_NS 100000ULL
/* A debt is kept up to a period's worth or this, whichever is more: with
 * short periods a late sample of several busy threads overruns by more
 * than a period, and forgetting that lets the group run over its quota;
 * the bound keeps a stalled daemon's debt from throttling for long. */
#define QUOTA_DEBT_MAX_NS 100000000ULL

struct quota_period {
	uint64_t quota, period, burst;	/* ns, as cpu.cfs_*_us say */
	uint64_t start;			/* this period's start */
	int64_t runtime;		/* this period's budget: the quota, less
					 * the last one's debt, plus what burst
					 * kept */
	uint64_t usage0;		/* the group's usage at the start */
	uint64_t rate_usage, rate_now;	/* where the rate was last measured */
	double rate;			/* CPU ns per ns, lately */
	bool throttled;
	bool throttled_in_period;	/* counted in nr_throttled */
	uint64_t mark;			/* throttled: time counted up to */
};

void quota_period_init(struct quota_period *p, uint64_t quota, uint64_t period,
		       uint64_t burst, uint64_t now, uint64_t usage);
/* The group has used usage (ns, all time) at now: ends the periods that
 * ended, throttles or unthrottles, and adds what happened to d (the
 * group's cpu.stat, but throttled_time_local). Returns when the group
 * should be looked at next. */
uint64_t quota_period_update(struct quota_period *p, uint64_t now, uint64_t usage,
			     struct cfs_bandwidth_stat *d);
/* Whether the group should be sampled at now: not while it is throttled
 * (its threads are stopped) but for the period's end. */
bool quota_period_wants_sample(const struct quota_period *p, uint64_t now);

#endif
