/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The per-task structs' slab pool (src/lib/slab.c): objects stay apart
 * and keep their bytes, handles find them, and slabs are given back. */
#include "lib/slab.h"

#include <stdbool.h>
#include <string.h>

struct obj {
	guint32 serial;
	guint8 fill[68];		/* 72 bytes: struct task_sched's size */
};

static void obj_set(struct obj *o, guint32 serial)
{
	o->serial = serial;
	memset(o->fill, (int)(serial & 0xff), sizeof(o->fill));
}

static void obj_check(const struct obj *o, guint32 serial)
{
	g_assert_cmpuint(o->serial, ==, serial);
	for (gsize i = 0; i < sizeof(o->fill); i++)
		g_assert_cmpuint(o->fill[i], ==, serial & 0xff);
}

/* Slabs in use, by the pool's own index of them. */
static guint slabs_in_use(const struct slab_pool *p)
{
	return p->by_addr ? p->by_addr->len : 0;
}

/* Random allocations and frees: a new object is zeroed, no two live ones
 * share a byte (each keeps what was written in it), each handle is
 * distinct and finds its object. */
static void test_random(void)
{
	GRand *rand = g_rand_new_with_seed(7);
	GPtrArray *live = g_ptr_array_new();
	GHashTable *handles = g_hash_table_new(NULL, NULL);
	struct slab_pool p;
	guint32 serial = 0;

	slab_pool_init(&p, sizeof(struct obj));
	g_assert_cmpuint(p.size, ==, sizeof(struct obj));
	for (int round = 0; round < 100000; round++) {
		/* Waves: the live count climbs to thousands and falls to 0. */
		bool grow = (round / 5000) % 2 == 0;

		if (live->len && g_rand_int_range(rand, 0, 100) < (grow ? 30 : 70)) {
			guint i = (guint)g_rand_int_range(rand, 0, (gint32)live->len);
			struct obj *o = g_ptr_array_steal_index_fast(live, i);

			obj_check(o, o->serial);
			g_assert_true(g_hash_table_remove(handles,
							  GUINT_TO_POINTER(slab_handle(&p, o))));
			slab_free(&p, o);
		} else {
			struct obj *o = slab_alloc(&p), zero = { 0 };
			guint32 h = slab_handle(&p, o);

			g_assert_cmpint(memcmp(o, &zero, sizeof(zero)), ==, 0);
			g_assert_cmpuint(h, !=, 0);
			g_assert_true(slab_object(&p, h) == o);
			g_assert_true(g_hash_table_add(handles, GUINT_TO_POINTER(h)));
			obj_set(o, ++serial);
			g_ptr_array_add(live, o);
		}
		g_assert_cmpuint(p.len, ==, live->len);
		if (round % 997 == 0) {
			for (guint i = 0; i < live->len; i++) {
				struct obj *o = live->pdata[i];

				obj_check(o, o->serial);
				g_assert_true(slab_object(&p, slab_handle(&p, o)) == o);
			}
			/* Never a slab more than the objects need, plus the
			 * partly used ones. */
			g_assert_cmpuint(slabs_in_use(&p), <=, live->len);
		}
	}
	for (guint i = 0; i < live->len; i++)
		slab_free(&p, live->pdata[i]);
	g_assert_null(p.slabs);
	g_assert_cmpuint(p.len, ==, 0);
	slab_pool_clear(&p);
	g_hash_table_unref(handles);
	g_ptr_array_unref(live);
	g_rand_free(rand);
}

/* Objects fill slabs one after the other; a slab goes back as its last
 * object is freed (not before), and a new slab takes the lowest free
 * number, so that handles stay small. */
static void test_give_back(void)
{
	enum { N = 10 * SLAB_OBJS };
	struct obj *all[N];
	struct slab_pool p;

	slab_pool_init(&p, sizeof(struct obj));
	for (guint i = 0; i < N; i++) {
		all[i] = slab_alloc(&p);
		g_assert_cmpuint(slab_handle(&p, all[i]), ==, i + 1);
	}
	g_assert_cmpuint(slabs_in_use(&p), ==, 10);
	/* All but one object of slab 3, then that one. */
	for (guint i = 3 * SLAB_OBJS; i < 4 * SLAB_OBJS - 1; i++)
		slab_free(&p, all[i]);
	g_assert_cmpuint(slabs_in_use(&p), ==, 10);
	slab_free(&p, all[4 * SLAB_OBJS - 1]);
	g_assert_cmpuint(slabs_in_use(&p), ==, 9);
	g_assert_null(p.slabs->pdata[3]);
	/* The last slab's objects: the array of slabs is shortened too. */
	for (guint i = 9 * SLAB_OBJS; i < N; i++)
		slab_free(&p, all[i]);
	g_assert_cmpuint(p.slabs->len, ==, 9);
	/* The next objects go to a new slab numbered 3. */
	for (guint i = 0; i < SLAB_OBJS; i++) {
		all[3 * SLAB_OBJS + i] = slab_alloc(&p);
		g_assert_cmpuint(slab_handle(&p, all[3 * SLAB_OBJS + i]), ==,
				 3 * SLAB_OBJS + i + 1);
	}
	for (guint i = 0; i < 9 * SLAB_OBJS; i++)
		slab_free(&p, all[i]);
	g_assert_null(p.slabs);
	g_assert_null(p.partial);
	/* And it starts again from nothing. */
	all[0] = slab_alloc(&p);
	g_assert_cmpuint(slab_handle(&p, all[0]), ==, 1);
	slab_free(&p, all[0]);
	g_assert_null(p.slabs);
}

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/slab/random", test_random);
	g_test_add_func("/slab/give-back", test_give_back);
	return g_test_run();
}
