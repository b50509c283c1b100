/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Shared CPU masks and sets of them, reference counted. */
#include "alloc/alloc_cpus.h"

#include <string.h>

struct shared_cpus {
	struct cpumask mask;		/* first: the mask's address is the copy's */
	unsigned refs;
	GHashTable *pool;
};

struct shared_set {
	struct cpus_set set;		/* first: the set's address is the copy's */
	unsigned refs;
	struct cpus_pool *pool;
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

/* The masks are shared copies: their addresses tell them apart. */
static guint set_hash(gconstpointer p)
{
	const struct cpus_set *set = p;
	uint64_t h = 0;

	for (unsigned i = 0; i < CPUS_NR; i++)
		h = (h ^ (uintptr_t)set->m[i]) * 0x9e3779b97f4a7c15ULL;
	h = (h ^ (unsigned)set->autogroup) * 0x9e3779b97f4a7c15ULL;
	return (guint)(h >> 32);
}

static gboolean set_equal(gconstpointer a, gconstpointer b)
{
	const struct cpus_set *x = a, *y = b;

	return !memcmp(x->m, y->m, sizeof(x->m)) && x->autogroup == y->autogroup;
}

void cpus_pool_init(struct cpus_pool *pool)
{
	pool->masks = g_hash_table_new(mask_hash, mask_equal);
	pool->sets = g_hash_table_new(set_hash, set_equal);
}

void cpus_pool_clear(struct cpus_pool *pool)
{
	g_hash_table_destroy(pool->sets);
	g_hash_table_destroy(pool->masks);
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

void cpus_keep(struct cpus_pool *pool, const struct cpumask **field, const struct cpumask *m)
{
	struct shared_cpus *c = m ? g_hash_table_lookup(pool->masks, m) : NULL;

	if (m && !c) {
		c = g_new0(struct shared_cpus, 1);
		c->mask = *m;
		c->pool = pool->masks;
		g_hash_table_add(pool->masks, &c->mask);
	}
	cpus_ref(m ? &c->mask : NULL);
	cpus_unref(*field);
	*field = m ? &c->mask : NULL;
}

const struct cpus_set *cpus_set_ref(const struct cpus_set *set)
{
	if (set)
		((struct shared_set *)set)->refs++;
	return set;
}

void cpus_set_unref(const struct cpus_set *set)
{
	struct shared_set *c = (struct shared_set *)set;

	if (!c || --c->refs)
		return;
	g_hash_table_remove(c->pool->sets, &c->set);
	for (unsigned i = 0; i < CPUS_NR; i++)
		cpus_unref(c->set.m[i]);
	g_free(c);
}

/* Makes *set a reference to the pool's copy of want (whose masks are
 * shared copies the caller holds a reference to for the call). */
static void intern(struct cpus_pool *pool, const struct cpus_set **set,
		   const struct cpus_set *want)
{
	struct shared_set *c = NULL;
	bool none = !want->autogroup;

	for (unsigned i = 0; i < CPUS_NR; i++)
		none &= !want->m[i];
	if (!none && !(c = g_hash_table_lookup(pool->sets, want))) {
		c = g_new0(struct shared_set, 1);
		c->set = *want;
		c->pool = pool;
		for (unsigned i = 0; i < CPUS_NR; i++)
			cpus_ref(want->m[i]);
		g_hash_table_add(pool->sets, &c->set);
	}
	cpus_set_ref(c ? &c->set : NULL);
	cpus_set_unref(*set);
	*set = c ? &c->set : NULL;
}

void cpus_set_keep(struct cpus_pool *pool, const struct cpus_set **set, enum cpus_which w,
		   const struct cpumask *m)
{
	struct cpus_set want = { { NULL }, 0 };

	if (*set)
		want = **set;
	/* A reference of want's for the call, dropped below. */
	want.m[w] = NULL;
	cpus_keep(pool, &want.m[w], m);
	intern(pool, set, &want);
	cpus_unref(want.m[w]);
}

void cpus_set_autogroup(struct cpus_pool *pool, const struct cpus_set **set, int autogroup)
{
	struct cpus_set want = { { NULL }, 0 };

	if (*set)
		want = **set;
	want.autogroup = autogroup;
	intern(pool, set, &want);
}
