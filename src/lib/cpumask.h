/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Fixed-size bit masks for CPUs and memory nodes, with the kernel's list
 * syntax ("0-3,8", "0-7:2/4", "N", "all"; lib/bitmap-str.c). */
#ifndef CGFUSED_CPUMASK_H
#define CGFUSED_CPUMASK_H

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

#define CPUMASK_BITS 1024

struct cpumask {
	uint64_t bits[CPUMASK_BITS / 64];
};

/* bitmap_parselist(): parses into *mask, whose bits are numbered below
 * nbits. 0, -EINVAL, -ERANGE (a bit >= nbits) or -EOVERFLOW. */
int cpumask_parselist(const char *buf, struct cpumask *mask, unsigned nbits);
/* Appends the list form ("0-1,3") without a newline. */
void cpumask_print_list(const struct cpumask *mask, GString *out);

bool cpumask_empty(const struct cpumask *m);
bool cpumask_equal(const struct cpumask *a, const struct cpumask *b);
bool cpumask_subset(const struct cpumask *sub, const struct cpumask *super);
void cpumask_and(struct cpumask *dst, const struct cpumask *a, const struct cpumask *b);
void cpumask_or(struct cpumask *dst, const struct cpumask *a, const struct cpumask *b);
/* dst = a & ~b */
void cpumask_andnot(struct cpumask *dst, const struct cpumask *a, const struct cpumask *b);
bool cpumask_test(const struct cpumask *m, unsigned bit);
/* The highest set bit + 1 (0 for an empty mask). */
unsigned cpumask_last_plus_one(const struct cpumask *m);

#endif
