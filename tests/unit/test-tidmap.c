/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The per-task tables' open-addressing map (src/lib/tidmap.c), against a
 * GHashTable doing the same; the entries are a slab pool's (slab.h). */
#include "lib/tidmap.h"

struct entry {
	guint64 payload;
	pid_t id;
};

/* Every entry of the reference is found, the map holds no other, and a
 * walk sees each once. */
static void check_same(struct tidmap *m, GHashTable *ref)
{
	GHashTable *seen = g_hash_table_new(NULL, NULL);
	GHashTableIter iter;
	struct entry *e;

	g_assert_cmpuint(tidmap_size(m), ==, g_hash_table_size(ref));
	g_hash_table_iter_init(&iter, ref);
	while (g_hash_table_iter_next(&iter, NULL, (gpointer *)&e))
		g_assert_true(tidmap_lookup(m, e->id) == e);
	for (guint pos = 0; (e = tidmap_next(m, &pos));) {
		g_assert_true(g_hash_table_lookup(ref, GINT_TO_POINTER(e->id)) == e);
		g_assert_true(g_hash_table_add(seen, e));
	}
	g_assert_cmpuint(g_hash_table_size(seen), ==, g_hash_table_size(ref));
	g_hash_table_unref(seen);
}

/* Random inserts, replacements and removals of ids from a small range
 * (long probe runs, removals inside them) and of spread ones. */
static void test_random(void)
{
	GRand *rand = g_rand_new_with_seed(12);
	GHashTable *ref = g_hash_table_new(NULL, NULL);
	struct slab_pool pool;
	struct tidmap m;

	slab_pool_init(&pool, sizeof(struct entry));
	tidmap_init(&m, &pool, offsetof(struct entry, id));
	for (int round = 0; round < 200000; round++) {
		pid_t id = round % 3 ? g_rand_int_range(rand, 1, 3000)
				     : g_rand_int_range(rand, 1, G_MAXINT32);
		struct entry *e;

		if (g_rand_int_range(rand, 0, 100) < 55) {
			struct entry *old = g_hash_table_lookup(ref, GINT_TO_POINTER(id));

			e = slab_alloc(&pool);
			e->id = id;
			e->payload = (guint64)round;
			/* A replaced entry is handed back, as the reference's. */
			g_assert_true(tidmap_insert(&m, e) == old);
			g_hash_table_insert(ref, GINT_TO_POINTER(id), e);
			if (old)
				slab_free(&pool, old);
		} else {
			e = g_hash_table_lookup(ref, GINT_TO_POINTER(id));
			g_assert_true(tidmap_remove(&m, id) == e);
			g_hash_table_remove(ref, GINT_TO_POINTER(id));
			if (e)
				slab_free(&pool, e);
		}
		g_assert_true(tidmap_lookup(&m, id) ==
			      g_hash_table_lookup(ref, GINT_TO_POINTER(id)));
		if (round % 20000 == 0)
			check_same(&m, ref);
	}
	check_same(&m, ref);
	tidmap_clear(&m);
	g_hash_table_unref(ref);
	slab_pool_clear(&pool);
	g_rand_free(rand);
}

/* 100,000 entries, then all removed: the slots are given back. */
static void test_grows_and_shrinks(void)
{
	enum { N = 100000 };
	struct entry **all = g_new0(struct entry *, N);
	struct slab_pool pool;
	struct tidmap m;

	slab_pool_init(&pool, sizeof(struct entry));
	tidmap_init(&m, &pool, offsetof(struct entry, id));
	g_assert_null(tidmap_lookup(&m, 1));
	g_assert_null(tidmap_remove(&m, 1));
	for (int i = 0; i < N; i++) {
		all[i] = slab_alloc(&pool);
		all[i]->id = i + 1;
		g_assert_null(tidmap_insert(&m, all[i]));
	}
	g_assert_cmpuint(tidmap_size(&m), ==, N);
	/* At most 3/4 full: 131,072 or 262,144 slots for 100,000. */
	g_assert_cmpuint(1u << (32 - m.shift), ==, 262144);
	for (int i = 0; i < N; i++)
		g_assert_true(tidmap_lookup(&m, i + 1) == all[i]);
	g_assert_null(tidmap_lookup(&m, N + 1));
	for (int i = 0; i < N - 10; i++)
		g_assert_true(tidmap_remove(&m, i + 1) == all[i]);
	g_assert_cmpuint(tidmap_size(&m), ==, 10);
	g_assert_cmpuint(1u << (32 - m.shift), <=, 128);
	for (int i = N - 10; i < N; i++)
		g_assert_true(tidmap_remove(&m, i + 1) == all[i]);
	g_assert_null(m.slots);
	g_assert_cmpuint(tidmap_size(&m), ==, 0);
	for (int i = 0; i < N; i++)
		slab_free(&pool, all[i]);
	g_assert_null(pool.slabs);
	g_free(all);
}

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/tidmap/random", test_random);
	g_test_add_func("/tidmap/grows-and-shrinks", test_grows_and_shrinks);
	return g_test_run();
}
