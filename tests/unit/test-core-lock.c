/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests of src/core/core_lock.c: readers side by side, writers alone. */
#include <glib.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>

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

/* ---- the figures (cgfused.stat's lock_*) ------------------------------- */

/* Two sites: cg_write_lock() names its caller. */
static void hold_briefly(struct cg_lock *l)
{
	cg_write_lock(l);
	cg_write_unlock(l);
}

static void hold_for(struct cg_lock *l, gulong us)
{
	cg_write_lock(l);
	g_usleep(us);
	cg_write_unlock(l);
}

/* A write hold of a known length is the longest, under its caller's name,
 * and counted over 1 ms; a brief one is counted, but not over 1 ms unless
 * the machine stopped it that long (then it is the base's). */
static void test_write_hold_figures(void)
{
	struct cg_lock lock;
	struct cg_lock_figures base, f;
	gulong us;

	cg_lock_init(&lock);
	cg_lock_figures(&lock, &f);
	g_assert_cmpuint(f.write_holds, ==, 0);
	g_assert_null(f.write_hold_max_site);
	hold_briefly(&lock);
	cg_lock_figures(&lock, &base);
	g_assert_cmpuint(base.write_holds, ==, 1);
	g_assert_cmpstr(base.write_hold_max_site, ==, "hold_briefly");
	/* Longer than the brief one by far, whatever the load. */
	us = MAX(5000, base.write_hold_max_us * 2 + 5000);
	hold_for(&lock, us);
	hold_for(&lock, 1500);
	hold_briefly(&lock);
	cg_lock_figures(&lock, &f);
	g_assert_cmpuint(f.write_holds, ==, 4);
	g_assert_cmpuint(f.write_hold_max_us, >=, us);
	g_assert_cmpstr(f.write_hold_max_site, ==, "hold_for");
	g_assert_cmpuint(f.write_holds_over_1ms, >=, base.write_holds_over_1ms + 2);
	g_assert_cmpuint(f.write_holds_over_1ms, <=, base.write_holds_over_1ms + 3);
	/* Afresh: the start-up's holds gone, the next one counted. */
	cg_lock_figures_reset(&lock);
	cg_lock_figures(&lock, &f);
	g_assert_cmpuint(f.write_holds, ==, 0);
	g_assert_cmpuint(f.write_hold_max_us, ==, 0);
	g_assert_cmpuint(f.write_holds_over_1ms, ==, 0);
	g_assert_null(f.write_hold_max_site);
	hold_briefly(&lock);
	cg_lock_figures(&lock, &f);
	g_assert_cmpuint(f.write_holds, ==, 1);
	g_assert_cmpstr(f.write_hold_max_site, ==, "hold_briefly");
	cg_lock_clear(&lock);
}

struct waiter {
	struct cg_lock *lock;
	bool write;
	atomic_int tid;			/* set just before it takes the lock */
};

static gpointer take(gpointer p)
{
	struct waiter *w = p;

	atomic_store(&w->tid, gettid());
	if (w->write) {
		cg_write_lock(w->lock);
		cg_write_unlock(w->lock);
	} else {
		cg_read_unlock(w->lock, cg_read_lock(w->lock));
	}
	return NULL;
}

/* Whether thread tid sleeps on a mutex of l: in futex(2) on the address of
 * a slot's (the writer mutex is free here). Its state alone would not do:
 * under valgrind a thread also sleeps waiting for its turn to run. */
static bool sleeps_on(int tid, const struct cg_lock *l)
{
	char path[64], buf[256];
	unsigned long nr, addr;
	bool ret = false;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/task/%d/syscall", tid);
	f = fopen(path, "re");
	if (!f)
		return false;
	if (fgets(buf, sizeof(buf), f) && sscanf(buf, "%lu %lx", &nr, &addr) == 2)
		ret = nr == SYS_futex && addr >= (uintptr_t)&l->slot[0] &&
		      addr < (uintptr_t)&l->slot[CG_LOCK_SLOTS];
	fclose(f);
	return ret;
}

/* The holder's side held until a thread taking the other (write: the
 * write side) sleeps on it, and 2 ms more: that wait is recorded. */
static void wait_behind(struct cg_lock *lock, bool holder_writes, bool write)
{
	struct waiter w = { lock, write, 0 };
	unsigned slot = 0;
	GThread *t;
	int i;

	if (holder_writes)
		cg_write_lock(lock);
	else
		slot = cg_read_lock(lock);
	t = g_thread_new("waiter", take, &w);
	for (i = 0; i < 20000; i++) {	/* 20 s */
		int tid = atomic_load(&w.tid);

		if (tid && sleeps_on(tid, lock))
			break;
		g_usleep(1000);
	}
	g_assert_cmpint(i, <, 20000);
	g_usleep(2000);
	if (holder_writes)
		cg_write_unlock(lock);
	else
		cg_read_unlock(lock, slot);
	g_thread_join(t);
}

static void test_read_wait_figures(void)
{
	struct cg_lock lock;
	struct cg_lock_figures f;

	cg_lock_init(&lock);
	/* A read taken at once is no wait. */
	cg_read_unlock(&lock, cg_read_lock(&lock));
	cg_lock_figures(&lock, &f);
	g_assert_cmpuint(f.read_wait_max_us, ==, 0);
	g_assert_cmpuint(f.read_waits_over_1ms, ==, 0);
	wait_behind(&lock, true, false);
	cg_lock_figures(&lock, &f);
	g_assert_cmpuint(f.read_wait_max_us, >=, 2000);
	g_assert_cmpuint(f.read_waits_over_1ms, ==, 1);
	wait_behind(&lock, true, false);
	cg_lock_figures(&lock, &f);
	g_assert_cmpuint(f.read_waits_over_1ms, ==, 2);
	cg_lock_clear(&lock);
}

static void test_write_wait_figures(void)
{
	struct cg_lock lock;
	struct cg_lock_figures f;

	cg_lock_init(&lock);
	wait_behind(&lock, false, true);
	cg_lock_figures(&lock, &f);
	g_assert_cmpuint(f.write_wait_max_us, >=, 2000);
	g_assert_cmpuint(f.write_holds, ==, 1);
	g_assert_cmpstr(f.write_hold_max_site, ==, "take");
	g_assert_cmpuint(f.read_waits_over_1ms, ==, 0);
	cg_lock_clear(&lock);
}

static void nothing(void *data)
{
	(void)data;
}

/* A function that must be called with the write side held (here
 * cg_write_defer()) aborts when this thread does not hold it: neither
 * when nobody does (other_holds false), nor when another thread does. */
static void check_assert_write_held(bool other_holds)
{
	if (g_test_subprocess()) {
		struct shared s = { 0 };
		GThread *other = NULL;

		cg_lock_init(&s.lock);
		if (other_holds) {
			other = g_thread_new("holder", hold_write, &s);
			g_assert_true(wait_for(&s.inside, 1));
			g_assert_true(cg_write_held(&s.lock));
		}
		cg_write_defer(&s.lock, nothing, NULL);
		atomic_store(&s.go, true);
		if (other)
			g_thread_join(other);
		return;
	}
	g_test_trap_subprocess(NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
	g_test_trap_assert_failed();
	g_test_trap_assert_stderr("*cg_write_defer: called without the core lock's write side*");
}

static void test_assert_write_held_nobody(void)
{
	check_assert_write_held(false);
}

static void test_assert_write_held_other(void)
{
	check_assert_write_held(true);
}

/* Only the holder's thread is the holder, and only while it holds it. */
static void test_write_held_by_me(void)
{
	struct cg_lock l;

	cg_lock_init(&l);
	g_assert_false(cg_write_held_by_me(&l));
	cg_write_lock(&l);
	g_assert_true(cg_write_held_by_me(&l));
	cg_write_defer(&l, nothing, NULL);
	cg_write_unlock(&l);
	g_assert_false(cg_write_held_by_me(&l));
	cg_lock_clear(&l);
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
	g_test_add_func("/core-lock/write-hold-figures", test_write_hold_figures);
	g_test_add_func("/core-lock/read-wait-figures", test_read_wait_figures);
	g_test_add_func("/core-lock/write-wait-figures", test_write_wait_figures);
	g_test_add_func("/core-lock/assert-write-held/nobody", test_assert_write_held_nobody);
	g_test_add_func("/core-lock/assert-write-held/other", test_assert_write_held_other);
	g_test_add_func("/core-lock/write-held-by-me", test_write_held_by_me);
	return g_test_run();
}
