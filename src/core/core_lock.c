/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The core lock: per-thread reader slots, writers take them all. */
#include "core/core_lock.h"

#include "lib/clock.h"

#define NS_1MS 1000000u

void cg_lock_init(struct cg_lock *l)
{
	for (unsigned i = 0; i < CG_LOCK_SLOTS; i++) {
		g_mutex_init(&l->slot[i].mutex);
		atomic_init(&l->slot[i].wait_max_ns, 0);
		atomic_init(&l->slot[i].waits_over_1ms, 0);
	}
	g_mutex_init(&l->writer);
	l->deferred = NULL;
	l->hold_start_ns = 0;
	l->hold_site = NULL;
	atomic_init(&l->holder, NULL);
	atomic_init(&l->writes.holds, 0);
	atomic_init(&l->writes.holds_over_1ms, 0);
	atomic_init(&l->writes.hold_max_ns, 0);
	atomic_init(&l->writes.hold_max_site, NULL);
	atomic_init(&l->writes.wait_max_ns, 0);
}

struct deferred_work {
	void (*fn)(void *data);
	void *data;
};

void cg_lock_clear(struct cg_lock *l)
{
	g_assert(!l->deferred);
	for (unsigned i = 0; i < CG_LOCK_SLOTS; i++)
		g_mutex_clear(&l->slot[i].mutex);
	g_mutex_clear(&l->writer);
}

__thread unsigned cg_lock_slot_plus_one;

/* Threads draw slots in turn, once each: the first CG_LOCK_SLOTS threads
 * that read have one of their own. */
unsigned cg_lock_draw_slot(void)
{
	static atomic_uint next;

	cg_lock_slot_plus_one = atomic_fetch_add_explicit(&next, 1, memory_order_relaxed) %
				CG_LOCK_SLOTS + 1;
	return cg_lock_slot_plus_one - 1;
}

/* A figure only its one writer changes: no read-modify-write needed. */
static void raise_max(atomic_uint_fast64_t *max, uint64_t v)
{
	if (v > atomic_load_explicit(max, memory_order_relaxed))
		atomic_store_explicit(max, v, memory_order_relaxed);
}

static void bump(atomic_uint_fast64_t *n)
{
	atomic_store_explicit(n, atomic_load_explicit(n, memory_order_relaxed) + 1,
			      memory_order_relaxed);
}

void cg_read_wait(struct cg_lock *l, unsigned slot)
{
	struct cg_lock_slot *s = &l->slot[slot];
	uint64_t t0 = mono_ns(), wait;

	g_mutex_lock(&s->mutex);
	wait = mono_ns() - t0;
	raise_max(&s->wait_max_ns, wait);
	if (wait > NS_1MS)
		bump(&s->waits_over_1ms);
}

/* Slots in order, so that two writers could never deadlock, although the
 * writer mutex already lets only one through. */
void cg_write_lock_at(struct cg_lock *l, const char *site)
{
	uint64_t t0 = mono_ns();

	g_mutex_lock(&l->writer);
	for (unsigned i = 0; i < CG_LOCK_SLOTS; i++)
		g_mutex_lock(&l->slot[i].mutex);
	l->hold_start_ns = mono_ns();
	l->hold_site = site;
	atomic_store_explicit(&l->holder, g_thread_self(), memory_order_relaxed);
	raise_max(&l->writes.wait_max_ns, l->hold_start_ns - t0);
}

bool cg_write_held(struct cg_lock *l)
{
	if (!g_mutex_trylock(&l->writer))
		return true;
	g_mutex_unlock(&l->writer);
	return false;
}

/* Only the holder wrote its own thread there: another thread reads NULL or
 * some other writer's, never its own. */
bool cg_write_held_by_me(struct cg_lock *l)
{
	return atomic_load_explicit(&l->holder, memory_order_relaxed) == g_thread_self();
}

void cg_write_unlock(struct cg_lock *l)
{
	struct cg_lock_writes *w = &l->writes;
	GArray *work = l->deferred;
	uint64_t held = mono_ns() - l->hold_start_ns;

	/* Under every slot still: a reader sees the figures whole. */
	bump(&w->holds);
	if (held > NS_1MS)
		bump(&w->holds_over_1ms);
	if (held > atomic_load_explicit(&w->hold_max_ns, memory_order_relaxed)) {
		atomic_store_explicit(&w->hold_max_ns, held, memory_order_relaxed);
		atomic_store_explicit(&w->hold_max_site, l->hold_site, memory_order_relaxed);
	}
	l->deferred = NULL;
	atomic_store_explicit(&l->holder, NULL, memory_order_relaxed);
	for (unsigned i = CG_LOCK_SLOTS; i-- > 0;)
		g_mutex_unlock(&l->slot[i].mutex);
	g_mutex_unlock(&l->writer);
	if (!work)
		return;
	for (guint i = 0; i < work->len; i++) {
		struct deferred_work *dw = &g_array_index(work, struct deferred_work, i);

		dw->fn(dw->data);
	}
	g_array_unref(work);
}

void cg_write_defer(struct cg_lock *l, void (*fn)(void *data), void *data)
{
	struct deferred_work w = { fn, data };

	cg_assert_write_held(l);
	if (!l->deferred)
		l->deferred = g_array_new(FALSE, FALSE, sizeof(w));
	g_array_append_val(l->deferred, w);
}

void cg_lock_figures(struct cg_lock *l, struct cg_lock_figures *f)
{
	const struct cg_lock_writes *w = &l->writes;
	uint64_t read_max = 0, read_over = 0;

	for (unsigned i = 0; i < CG_LOCK_SLOTS; i++) {
		uint64_t m = atomic_load_explicit(&l->slot[i].wait_max_ns, memory_order_relaxed);

		read_max = MAX(read_max, m);
		read_over += atomic_load_explicit(&l->slot[i].waits_over_1ms,
						  memory_order_relaxed);
	}
	*f = (struct cg_lock_figures){
		.write_holds = atomic_load_explicit(&w->holds, memory_order_relaxed),
		.write_hold_max_us = atomic_load_explicit(&w->hold_max_ns,
							  memory_order_relaxed) / 1000,
		.write_hold_max_site = atomic_load_explicit(&w->hold_max_site,
							    memory_order_relaxed),
		.write_holds_over_1ms = atomic_load_explicit(&w->holds_over_1ms,
							     memory_order_relaxed),
		.write_wait_max_us = atomic_load_explicit(&w->wait_max_ns,
							  memory_order_relaxed) / 1000,
		.read_wait_max_us = read_max / 1000,
		.read_waits_over_1ms = read_over,
	};
}

/* The writer's figures under the writer mutex (their one writer); a slot's
 * may be bumped by its reader meanwhile, which only keeps that wait. */
void cg_lock_figures_reset(struct cg_lock *l)
{
	g_mutex_lock(&l->writer);
	atomic_store_explicit(&l->writes.holds, 0, memory_order_relaxed);
	atomic_store_explicit(&l->writes.holds_over_1ms, 0, memory_order_relaxed);
	atomic_store_explicit(&l->writes.hold_max_ns, 0, memory_order_relaxed);
	atomic_store_explicit(&l->writes.hold_max_site, NULL, memory_order_relaxed);
	atomic_store_explicit(&l->writes.wait_max_ns, 0, memory_order_relaxed);
	g_mutex_unlock(&l->writer);
	for (unsigned i = 0; i < CG_LOCK_SLOTS; i++) {
		atomic_store_explicit(&l->slot[i].wait_max_ns, 0, memory_order_relaxed);
		atomic_store_explicit(&l->slot[i].waits_over_1ms, 0, memory_order_relaxed);
	}
}
