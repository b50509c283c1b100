/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Shared CPU masks, reference counted. */
#include "alloc/alloc_cpus.h"

struct shared_cpus {
	struct cpumask mask;		/* first: the mask's address is the copy's */
	unsigned refs;
	GHashTable *pool;
};

static guint mask_hash(gconstpointer p)
{
	const struct cpumask *m = p;
	uint64_t h = 0;

	for (unsigned i = 0; i < G_N_ELEMENTS(m->bits); i++)
		h = (h ^ m->bits[i]) * 0x9e3779b97f4a7c15ULL;
	return (guint)(h >> 32);
}

static gboolean mask_equal(gconstpointer a, gconstpointer b)
{
	return cpumask_equal(a, b);
}

GHashTable *cpus_pool_new(void)
{
	return g_hash_table_new(mask_hash, mask_equal);
}

const struct cpumask *cpus_ref(const struct cpumask *m)
{
	if (m)
		((struct shared_cpus *)m)->refs++;
	return m;
}

void cpus_unref(const struct cpumask *m)
{
	struct shared_cpus *c = (struct shared_cpus *)m;

	if (c && --c->refs == 0) {
		g_hash_table_remove(c->pool, &c->mask);
		g_free(c);
	}
}

void cpus_keep(GHashTable *pool, const struct cpumask **field, const struct cpumask *m)
{
	struct shared_cpus *c = m ? g_hash_table_lookup(pool, m) : NULL;

	if (m && !c) {
		c = g_new0(struct shared_cpus, 1);
		c->mask = *m;
		c->pool = pool;
		g_hash_table_add(pool, &c->mask);
	}
	cpus_ref(m ? &c->mask : NULL);
	cpus_unref(*field);
	*field = m ? &c->mask : NULL;
}
