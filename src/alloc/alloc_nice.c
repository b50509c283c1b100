/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Nice mapping: dithering inside buckets, one scale across them. */
#include "alloc/alloc_nice.h"

#include <glib.h>
#include <math.h>

int weight_to_nice(double w)
{
	int best = NICE_MAX;
	double best_d = INFINITY;

	for (int nice = NICE_MIN; nice <= NICE_MAX; nice++) {
		double d = fabs(log(w / nice_to_weight(nice)));

		if (d < best_d) {
			best_d = d;
			best = nice;
		}
	}
	return best;
}

/* Dithers one bucket at scale s; returns its total weight. */
static double map_bucket(struct nice_bucket *b, double s, bool in_time)
{
	double want = b->weight * s;
	int heavy = NICE_MAX - 1;

	if (b->min_nice >= NICE_MAX) {
		b->nice_heavy = NICE_MAX;
		b->nr_heavy = b->nr;
		return (double)b->nr * nice_to_weight(NICE_MAX);
	}
	/* The lightest nice that is still at least as heavy as wanted. */
	while (heavy > b->min_nice && nice_to_weight(heavy) < want)
		heavy--;
	b->nice_heavy = heavy;
	if (nice_to_weight(heavy) < want) {
		b->nr_heavy = b->nr;	/* the top of the allowed range */
	} else {
		double hi = nice_to_weight(heavy), lo = nice_to_weight(heavy + 1);
		double m = b->nr * (want - lo) / (hi - lo);

		m = CLAMP(m, 0, (double)b->nr);
		/* A count a rounding error away from whole is whole: no flicker. */
		b->nr_heavy = in_time && b->counted && !b->raise_only && fabs(m - round(m)) > 1e-9 ? m : round(m);
	}
	return b->nr_heavy * nice_to_weight(heavy) +
	       (b->nr - b->nr_heavy) * nice_to_weight(heavy + 1);
}

/* The largest relative error of the counted buckets at scale s (only
 * those, listed in counted[n], are mapped: with thousands of sleeping
 * buckets the search would cost them a map each per scale tried, and even
 * a look at each). */
static double error_at(struct nice_bucket *const *counted, unsigned n, double s, bool in_time)
{
	double worst = 0;

	for (unsigned i = 0; i < n; i++) {
		struct nice_bucket *b = counted[i];
		double got = map_bucket(b, s, in_time);

		worst = MAX(worst, fabs(got / (b->weight * s * b->nr) - 1));
	}
	return worst;
}

#define SCALE_STEPS 96

double nice_map_buckets(struct nice_bucket *b, unsigned n, bool in_time, double *scale)
{
	/* Scales that keep every runnable bucket inside its range: not below
	 * weight 15 (nice 19), not above its min_nice's weight. */
	double lo = 0, hi = INFINITY, best_s = 1, best_err = INFINITY, err;
	const double step = 1.25;
	struct nice_bucket **counted = g_new(struct nice_bucket *, n);
	unsigned nc = 0;

	/* Only runnable buckets bound it: a sleeping one that does not fit is
	 * clamped to the range, not allowed to push a running thread of
	 * another group off its weight against the session's other tasks. */
	for (unsigned i = 0; i < n; i++) {
		if (!b[i].counted)
			continue;
		counted[nc++] = &b[i];
		if (b[i].nr == 0 || b[i].weight <= 0)
			continue;
		lo = MAX(lo, nice_to_weight(NICE_MAX) / b[i].weight);
		hi = MIN(hi, nice_to_weight(b[i].min_nice) / b[i].weight);
	}
	if (lo > hi)		/* the range cannot hold them all: favour the heavy */
		lo = hi;
	/* A nice that only goes up is not raised further than the ratios
	 * need: the heaviest stays at the floor, at the top of the range. */
	for (unsigned i = 0; i < nc && isfinite(hi); i++)
		if (counted[i]->raise_only && counted[i]->nr && counted[i]->weight > 0)
			lo = hi;
	/* Within a nice step around 1 (a top-level group then weighs its
	 * cpu.shares against other tasks, as in the kernel) where the range
	 * allows, else the step nearest to it that the range allows. */
	double from = MAX(lo, 1 / sqrt(step)), to = MIN(hi, sqrt(step));

	if (from > to) {
		if (lo > sqrt(step)) {
			from = lo;
			to = MIN(hi, lo * step);
		} else {
			to = hi;
			from = MAX(lo, hi / step);
		}
	}
	if (from <= 1 && 1 <= to) {
		best_s = 1;
		best_err = error_at(counted, nc, 1, in_time);
	}
	for (unsigned k = 0; k <= SCALE_STEPS; k++) {
		double s = from * pow(to / from, (double)k / SCALE_STEPS);
		err = error_at(counted, nc, s, in_time);

		/* Ties go to the scale nearest 1. */
		if (err < best_err - 1e-12 ||
		    (err < best_err + 1e-12 && fabs(log(s)) < fabs(log(best_s)))) {
			best_err = err;
			best_s = s;
		}
	}
	for (unsigned i = 0; i < n; i++)
		if (!b[i].counted)
			map_bucket(&b[i], best_s, in_time);
	err = error_at(counted, nc, best_s, in_time);
	g_free(counted);
	*scale = best_s;
	return err;
}

int nice_map_one(double w, int min_nice, double scale)
{
	struct nice_bucket b = { .weight = w, .nr = 1, .min_nice = min_nice };

	map_bucket(&b, scale, false);
	return nice_bucket_pick(&b, 0, 0);
}

unsigned nice_bucket_heavy(const struct nice_bucket *b, unsigned pass)
{
	double whole = floor(b->nr_heavy), frac = b->nr_heavy - whole;

	/* floor((p + 1) f) - floor(p f) is 1 on a fraction f of the passes,
	 * spread evenly. */
	return (unsigned)whole + (unsigned)(floor((pass + 1.0) * frac) - floor(pass * frac));
}

int nice_bucket_pick(const struct nice_bucket *b, unsigned rank, unsigned pass)
{
	if (b->nr == 0)
		return b->nice_heavy;
	return (rank + pass) % b->nr < nice_bucket_heavy(b, pass)
		       ? b->nice_heavy : MIN(b->nice_heavy + 1, NICE_MAX);
}
