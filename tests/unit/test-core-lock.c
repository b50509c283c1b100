/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests of src/core/core_lock.c: readers side by side, writers alone. */
#include <glib.h>
#include <stdatomic.h>
#include <stdbool.h>

#include "core/core_lock.h"

struct shared {
	struct cg_lock lock;
	atomic_int inside;		/* threads that hold the lock now */
	atomic_bool go;			/* the main thread lets holders go */
	long a, b;			/* a writer keeps them equal */
};

/* Waits up to 5 s for *flag to reach want. */
static bool wait_for(atomic_int *flag, int want)
{
	for (int i = 0; i < 5000; i++) {
		if (atomic_load(flag) == want)
			return true;
		g_usleep(1000);
	}
	return false;
}

static gpointer hold_read(gpointer p)
{
	struct shared *s = p;
	unsigned slot = cg_read_lock(&s->lock);

	atomic_fetch_add(&s->inside, 1);
	while (!atomic_load(&s->go))
		g_usleep(100);
	atomic_fetch_sub(&s->inside, 1);
	cg_read_unlock(&s->lock, slot);
	return NULL;
}

static gpointer hold_write(gpointer p)
{
	struct shared *s = p;

	cg_write_lock(&s->lock);
	atomic_fetch_add(&s->inside, 1);
	while (!atomic_load(&s->go))
		g_usleep(100);
	atomic_fetch_sub(&s->inside, 1);
	cg_write_unlock(&s->lock);
	return NULL;
}

static void test_readers_side_by_side(void)
{
	struct shared s = { 0 };
	GThread *t[3];

	cg_lock_init(&s.lock);
	for (int i = 0; i < 3; i++)
		t[i] = g_thread_new("reader", hold_read, &s);
	/* All three hold it at once: none waits for another. */
	g_assert_true(wait_for(&s.inside, 3));
	atomic_store(&s.go, true);
	for (int i = 0; i < 3; i++)
		g_thread_join(t[i]);
	cg_lock_clear(&s.lock);
}

/* first holds the lock; second must wait until first lets go. */
static void check_excludes(GThreadFunc first, GThreadFunc second)
{
	struct shared s = { 0 };
	struct shared *ps = &s;
	GThread *a, *b;

	cg_lock_init(&s.lock);
	a = g_thread_new("first", first, ps);
	g_assert_true(wait_for(&s.inside, 1));
	b = g_thread_new("second", second, ps);
	g_usleep(50000);
	g_assert_cmpint(atomic_load(&s.inside), ==, 1);	/* second still waits */
	atomic_store(&s.go, true);
	g_thread_join(a);
	g_thread_join(b);
	g_assert_cmpint(atomic_load(&s.inside), ==, 0);
	cg_lock_clear(&s.lock);
}

static void test_writer_excludes_readers(void)
{
	check_excludes(hold_write, hold_read);
}

static void test_reader_excludes_writer(void)
{
	check_excludes(hold_read, hold_write);
}

static void test_writer_excludes_writer(void)
{
	check_excludes(hold_write, hold_write);
}

#define ROUNDS 20000

static gpointer mixed(gpointer p)
{
	struct shared *s = p;
	long bad = 0;

	for (int i = 0; i < ROUNDS; i++) {
		if (i % 10 == 0) {
			cg_write_lock(&s->lock);
			s->a++;
			g_thread_yield();	/* a reader would see a != b now */
			s->b++;
			cg_write_unlock(&s->lock);
		} else {
			unsigned slot = cg_read_lock(&s->lock);

			bad += s->a != s->b;
			cg_read_unlock(&s->lock, slot);
		}
	}
	return GINT_TO_POINTER(bad != 0);
}

/* More threads than slots, so that some share one. */
static void test_mixed_load(void)
{
	struct shared s = { 0 };
	GThread *t[CG_LOCK_SLOTS + 4];

	cg_lock_init(&s.lock);
	for (unsigned i = 0; i < G_N_ELEMENTS(t); i++)
		t[i] = g_thread_new("mixed", mixed, &s);
	for (unsigned i = 0; i < G_N_ELEMENTS(t); i++)
		g_assert_null(g_thread_join(t[i]));
	g_assert_cmpint(s.a, ==, (long)G_N_ELEMENTS(t) * ROUNDS / 10);
	g_assert_cmpint(s.b, ==, s.a);
	cg_lock_clear(&s.lock);
}

struct deferred_probe {
	struct cg_lock *lock;
	GString *order;
};

/* Work deferred under the write side runs after the unlock: the lock is
 * free then (a reader gets it at once), and in the order deferred. */
static void deferred_step(void *data, char name)
{
	struct deferred_probe *p = data;
	unsigned slot = cg_read_lock(p->lock);

	cg_read_unlock(p->lock, slot);
	g_string_append_c(p->order, name);
}

static void deferred_a(void *data)
{
	deferred_step(data, 'a');
}

static void deferred_b(void *data)
{
	deferred_step(data, 'b');
}

static void test_deferred_after_unlock(void)
{
	struct cg_lock lock;
	struct deferred_probe p = { &lock, g_string_new(NULL) };

	cg_lock_init(&lock);
	cg_write_lock(&lock);
	cg_write_defer(&lock, deferred_a, &p);
	cg_write_defer(&lock, deferred_b, &p);
	g_assert_cmpstr(p.order->str, ==, "");
	cg_write_unlock(&lock);
	g_assert_cmpstr(p.order->str, ==, "ab");
	/* Once only. */
	cg_write_lock(&lock);
	cg_write_unlock(&lock);
	g_assert_cmpstr(p.order->str, ==, "ab");
	cg_lock_clear(&lock);
	g_string_free(p.order, TRUE);
}

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_set_nonfatal_assertions();
	g_test_add_func("/core-lock/readers-side-by-side", test_readers_side_by_side);
	g_test_add_func("/core-lock/writer-excludes-readers", test_writer_excludes_readers);
	g_test_add_func("/core-lock/reader-excludes-writer", test_reader_excludes_writer);
	g_test_add_func("/core-lock/writer-excludes-writer", test_writer_excludes_writer);
	g_test_add_func("/core-lock/mixed-load", test_mixed_load);
	g_test_add_func("/core-lock/deferred-after-unlock", test_deferred_after_unlock);
	return g_test_run();
}
