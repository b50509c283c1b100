/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Shared CPU masks. A mask is 128 bytes (CPUMASK_BITS), and the allocator
 * keeps four per managed thread (its own affinity, the one it has now, the
 * one given to it, its cpuset's), nearly always one of a few masks: each
 * thread holds references to shared, never changed copies instead, and two
 * copies from one pool are equal exactly when they are the same pointer.
 * The allocator thread's own: no locking. */
#ifndef CGFUSED_ALLOC_CPUS_H
#define CGFUSED_ALLOC_CPUS_H

#include <glib.h>

#include "lib/cpumask.h"

/* A pool of shared masks (freed once no mask of it is held). */
GHashTable *cpus_pool_new(void);

/* Makes *field a reference to pool's copy of m (NULL: none), and drops the
 * one it held. */
void cpus_keep(GHashTable *pool, const struct cpumask **field, const struct cpumask *m);
/* One more reference to a shared copy (NULL-safe), and one less. */
const struct cpumask *cpus_ref(const struct cpumask *m);
void cpus_unref(const struct cpumask *m);

#endif
