/* SPDX-License-Identifier: GPL-2.0-or-later */
/* One capped group's bandwidth: see enforce/quota_period.h. */
#include "enforce/quota_period.h"

#include <glib.h>

/* The rate is measured over at least this long (samples closer than that
 * say little). */
#define RATE_MIN_NS 200000ULL

void quota_period_init(struct quota_period *p, uint64_t quota, uint64_t period,
		       uint64_t burst, uint64_t now, uint64_t usage)
{
	*p = (struct quota_period){
		.quota = quota, .period = period, .burst = burst, .start = now,
		.runtime = (int64_t)quota, .usage0 = usage,
		.rate_usage = usage, .rate_now = now,
	};
}

bool quota_period_wants_sample(const struct quota_period *p, uint64_t now)
{
	return !p->throttled || now >= p->start + p->period;
}

/* __refill_cfs_bandwidth_runtime(): the period that ends used used. What
 * it ran over its budget is taken from the next ones (see
 * QUOTA_DEBT_MAX_NS); what it left is kept up to the burst. */
static void end_period(struct quota_period *p, uint64_t used, struct cfs_bandwidth_stat *d)
{
	int64_t quota = (int64_t)p->quota, left = p->runtime - (int64_t)used;

	if (used || p->throttled_in_period)
		d->nr_periods++;
	if (used > p->quota && p->runtime > quota) {
		d->nr_bursts++;
		d->burst_time += MIN((int64_t)used, p->runtime) - quota;
	}
	p->runtime = MIN(left + quota, quota + (int64_t)p->burst);
	p->runtime = MAX(p->runtime, -(int64_t)MAX(p->period, QUOTA_DEBT_MAX_NS));
	p->throttled_in_period = false;
}

static uint64_t sample_interval(const struct quota_period *p)
{
	return CLAMP(p->period / 10, QUOTA_SAMPLE_MIN_NS, QUOTA_SAMPLE_MAX_NS);
}

uint64_t quota_period_update(struct quota_period *p, uint64_t now, uint64_t usage,
			     struct cfs_bandwidth_stat *d)
{
	int64_t remaining, lead;
	uint64_t next;
	bool over;

	usage = MAX(usage, p->usage0);	/* never less than was seen */
	if (now >= p->rate_now + RATE_MIN_NS) {
		p->rate = (double)(usage - MIN(usage, p->rate_usage)) / (double)(now - p->rate_now);
		p->rate_usage = usage;
		p->rate_now = now;
	}
	if (now >= p->start + p->period) {
		end_period(p, usage - p->usage0, d);
		p->usage0 = usage;
		/* A late pass (a loaded machine) does not owe the periods it
		 * missed: the next starts now. */
		p->start = now >= p->start + 2 * p->period ? now : p->start + p->period;
	}
	remaining = p->runtime - (int64_t)(usage - p->usage0);
	lead = (int64_t)(p->rate * (double)QUOTA_LEAD_NS);
	/* Throttled, it stays so until a period's refill: its rate is 0 then. */
	over = remaining <= lead || (p->throttled && p->throttled_in_period);
	if (over) {
		if (!p->throttled)
			p->mark = now;
		p->throttled = true;
		if (!p->throttled_in_period) {
			d->nr_throttled++;
			p->throttled_in_period = true;
		}
	}
	if (p->throttled) {
		d->throttled_time += now - p->mark;
		p->mark = now;
		p->throttled = over;
	}
	if (p->throttled)
		return p->start + p->period;
	next = now + sample_interval(p);
	if (p->rate > 0) {
		uint64_t wait = (uint64_t)((double)(remaining - lead) / p->rate);

		next = MIN(next, now + MAX(wait, QUOTA_WAIT_MIN_NS));
	}
	return MIN(next, p->start + p->period);
}
