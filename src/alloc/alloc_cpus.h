/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Shared CPU masks. A mask is 128 bytes (CPUMASK_BITS), and the allocator
 * keeps four per managed thread (its own affinity, the one it has now, the
 * one given to it, its cpuset's), nearly always one of a few masks: each
 * thread holds a reference to a shared, never changed set of four, whose
 * masks are shared copies too; two copies from one pool are equal exactly
 * when they are the same pointer, and so are two sets. The set holds the
 * thread's session autogroup too (a session's threads share that). The
 * allocator thread's own: no locking. */
#ifndef CGFUSED_ALLOC_CPUS_H
#define CGFUSED_ALLOC_CPUS_H

#include <glib.h>

#include "lib/cpumask.h"

/* A pool of shared masks and sets (each freed once no one holds it). */
struct cpus_pool {
	GHashTable *masks;		/* struct cpumask */
	GHashTable *sets;		/* struct cpus_set */
};

void cpus_pool_init(struct cpus_pool *pool);
/* Frees the tables: every mask and set must have been let go. */
void cpus_pool_clear(struct cpus_pool *pool);

/* Makes *field a reference to pool's copy of m (NULL: none), and drops the
 * one it held. */
void cpus_keep(struct cpus_pool *pool, const struct cpumask **field, const struct cpumask *m);
/* One more reference to a shared copy (NULL-safe), and one less. */
const struct cpumask *cpus_ref(const struct cpumask *m);
void cpus_unref(const struct cpumask *m);

/* A thread's four masks (NULL: not known). */
enum cpus_which {
	CPUS_ORIG,			/* the affinity it had before we changed it */
	CPUS_NOW,			/* the affinity it has now */
	CPUS_APPLIED,			/* what we last gave it */
	CPUS_CPUSET,			/* its cpuset's CPUs when last placed */
	CPUS_NR
};

struct cpus_set {
	const struct cpumask *m[CPUS_NR];	/* shared copies */
	int autogroup;				/* its session autogroup id */
};

/* A set's mask; a NULL set has none. */
static inline const struct cpumask *cpus_get(const struct cpus_set *set, enum cpus_which w)
{
	return set ? set->m[w] : NULL;
}

static inline int cpus_autogroup(const struct cpus_set *set)
{
	return set ? set->autogroup : 0;
}

/* Makes *set a reference to pool's set that is *set with mask w a copy of
 * m (NULL: none; four NULL masks and autogroup 0 are the NULL set), and
 * drops the one it held. */
void cpus_set_keep(struct cpus_pool *pool, const struct cpus_set **set, enum cpus_which w,
		   const struct cpumask *m);
/* The same, with the autogroup id changed. */
void cpus_set_autogroup(struct cpus_pool *pool, const struct cpus_set **set, int autogroup);
/* One more reference to a shared set (NULL-safe), and one less. */
const struct cpus_set *cpus_set_ref(const struct cpus_set *set);
void cpus_set_unref(const struct cpus_set *set);

#endif
