/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Turning target CFS weights into nice values (kernel/sched/core.c's
 * sched_prio_to_weight table), so that each group's total weight comes out
 * right although one nice step is a factor of 1.25.
 *
 * Threads are handed in buckets: threads of one leaf group with the same
 * target weight. Inside a bucket the mapping dithers between two adjacent
 * nice values: a fractional number of threads gets the heavier one, so
 * that the bucket's total is exact. The fraction is dithered in time: from
 * pass to pass the count of heavy threads alternates between the two
 * integers around it, in a sequence whose average is the fraction, and
 * which threads are heavy rotates, so that threads of one group stay equal
 * over time. Where time dithering is not possible (raise_only: nice only
 * goes up) or not needed (sleeping threads: a steady nice costs no calls)
 * the count is rounded, and a common scale for all buckets is searched so
 * that the largest relative error of any bucket is smallest.
 * Pure functions: no system calls. */
#ifndef CGFUSED_ALLOC_NICE_H
#define CGFUSED_ALLOC_NICE_H

#include <stdbool.h>

#include "kernel/sched_prio.h"

/* The nice whose weight is nearest to w on a log scale. */
int weight_to_nice(double w);

struct nice_bucket {
	double weight;		/* each thread's target weight */
	unsigned nr;		/* threads in the bucket */
	int min_nice;		/* the lowest nice allowed for them */
	bool counted;		/* runnable: its error counts in the search */
	/* A thread of it cannot be given a lower nice back (an unprivileged
	 * daemon, RLIMIT_NICE short of its own nice): not dithered in time. */
	bool raise_only;
	/* out: on average nr_heavy threads get nice_heavy, the others
	 * nice_heavy + 1 */
	int nice_heavy;
	double nr_heavy;
};

/* Chooses every bucket's nice values with one scale for all (dithered in
 * time, or not); the scale is kept within a nice step of 1 unless the nice
 * range forces it out for a counted (runnable) bucket; an uncounted one
 * that does not fit is clamped to the range. Returns the largest relative error of a counted
 * bucket's (average) total, and the scale chosen in *scale. */
double nice_map_buckets(struct nice_bucket *b, unsigned n, bool in_time, double *scale);

/* The nice of one sleeping thread of target weight w, not below min_nice,
 * at the scale a mapping of its session chose (nice_map_buckets): what a
 * bucket of its own would give it, not dithered. */
int nice_map_one(double w, int min_nice, double scale);

/* How many threads of a mapped bucket are heavy on pass number pass. */
unsigned nice_bucket_heavy(const struct nice_bucket *b, unsigned pass);

/* The nice of the thread at position rank (0..nr-1) of a mapped bucket, on
 * pass number pass. */
int nice_bucket_pick(const struct nice_bucket *b, unsigned rank, unsigned pass);

#endif
