/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The core lock: per-thread reader slots, writers take them all. */
#include "core/core_lock.h"

#include <stdatomic.h>

void cg_lock_init(struct cg_lock *l)
{
	for (unsigned i = 0; i < CG_LOCK_SLOTS; i++)
		g_mutex_init(&l->slot[i].mutex);
	g_mutex_init(&l->writer);
	l->deferred = NULL;
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

/* Threads draw slots in turn, once each: the first CG_LOCK_SLOTS threads
 * that read have one of their own. */
static unsigned thread_slot(void)
{
	static atomic_uint next;
	static __thread unsigned slot_plus_one;

	if (!slot_plus_one)
		slot_plus_one = atomic_fetch_add_explicit(&next, 1, memory_order_relaxed) %
				CG_LOCK_SLOTS + 1;
	return slot_plus_one - 1;
}

unsigned cg_read_lock(struct cg_lock *l)
{
	unsigned slot = thread_slot();

	g_mutex_lock(&l->slot[slot].mutex);
	return slot;
}

void cg_read_unlock(struct cg_lock *l, unsigned slot)
{
	g_mutex_unlock(&l->slot[slot].mutex);
}

/* Slots in order, so that two writers could never deadlock, although the
 * writer mutex already lets only one through. */
void cg_write_lock(struct cg_lock *l)
{
	g_mutex_lock(&l->writer);
	for (unsigned i = 0; i < CG_LOCK_SLOTS; i++)
		g_mutex_lock(&l->slot[i].mutex);
}

bool cg_write_held(struct cg_lock *l)
{
	if (!g_mutex_trylock(&l->writer))
		return true;
	g_mutex_unlock(&l->writer);
	return false;
}

void cg_write_unlock(struct cg_lock *l)
{
	GArray *work = l->deferred;

	l->deferred = NULL;
	for (unsigned i = CG_LOCK_SLOTS; i-- > 0;)
		g_mutex_unlock(&l->slot[i].mutex);
	g_mutex_unlock(&l->writer);
	if (!work)
		return;
	for (guint i = 0; i < work->len; i++) {
		struct deferred_work *w = &g_array_index(work, struct deferred_work, i);

		w->fn(w->data);
	}
	g_array_unref(work);
}

void cg_write_defer(struct cg_lock *l, void (*fn)(void *data), void *data)
{
	struct deferred_work w = { fn, data };

	if (!l->deferred)
		l->deferred = g_array_new(FALSE, FALSE, sizeof(w));
	g_array_append_val(l->deferred, w);
}
