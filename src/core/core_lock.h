/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The core lock: the kernel's cgroup_mutex, made a reader-writer lock whose
 * readers write only a cache line of their own (the idea of the kernel's
 * percpu_rw_semaphore).
 *
 * Readers (control file reads, lookup, getattr, readdir, listings) change
 * nothing and run side by side; writers (every change) exclude everyone.
 * A reader takes the mutex of its thread's slot; a writer takes every
 * slot's. On this kind of machine a shared word that two threads both bump
 * runs at 0.22-0.27x one thread's rate, and a pthread rwlock's read side
 * at 0.15x: its reader count is such a word (docs/kernel-notes.md,
 * "Shared counters and locks"; tests/bench/lock-bench measures all three).
 * Two readers whose threads drew the same slot wait for each other, never
 * for a writer that is not there.
 *
 * Taken only in src/core: by the core's functions (cg_*, which lock for
 * their callers) and, for code outside that must look at or change the
 * core under it (the enforcers' copies, the state's snapshot steps, the
 * first snapshot with its subscription, cgrules' exec hook), by
 * cg_core_read(), cg_core_write(), cg_subscribe_after() and
 * cg_exec_hook_set() (core/core_call.h), which run the caller's function
 * under it. The unit tests and benchmarks drive it directly.
 *
 * Figures (cgfused.stat's lock_*, cg_lock_figures()): the write side's
 * holds, the longest with the name of the function that took it, those
 * over 1 ms and the longest wait for it, kept by the one writer; the read
 * side's longest wait and waits over 1 ms, kept in each slot by its
 * holder. A reader that gets its slot at once reads no clock: only a
 * wait costs two clock_gettime() (vDSO, no system call).
 *
 * Where it stands among the daemon's locks (the lock tree), that it is
 * not recursive, and what must not run under it: docs/design.md, "Locks
 * and threads". */
#ifndef CGFUSED_CORE_LOCK_H
#define CGFUSED_CORE_LOCK_H

#include <glib.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

/* More than the threads that read at once (FUSE's workers, 10 idle at
 * most by default, and the daemon's own): a write takes each of them. */
#define CG_LOCK_SLOTS 16

/* A slot's figures are written by the reader that holds it (two threads
 * that drew the same slot take turns), read by cg_lock_figures() from
 * another: relaxed atomics, in the slot's own cache line. */
struct cg_lock_slot {
	GMutex mutex;
	atomic_uint_fast64_t wait_max_ns;	/* the longest wait for it */
	atomic_uint_fast64_t waits_over_1ms;
} __attribute__((aligned(64)));		/* a cache line each */

/* The write side's figures, written only by the writer, holding the
 * writer mutex; read by cg_lock_figures() (relaxed). */
struct cg_lock_writes {
	atomic_uint_fast64_t holds;
	atomic_uint_fast64_t holds_over_1ms;
	atomic_uint_fast64_t hold_max_ns;
	_Atomic(const char *) hold_max_site;	/* who held it hold_max_ns */
	atomic_uint_fast64_t wait_max_ns;	/* the longest wait for it */
};

struct cg_lock {
	struct cg_lock_slot slot[CG_LOCK_SLOTS];
	GMutex writer;			/* writers queue here, one at a time */
	GArray *deferred;		/* the writer's cg_write_defer() work, or NULL */
	uint64_t hold_start_ns;		/* the writer's hold: since when, */
	const char *hold_site;		/* by whom */
	_Atomic(GThread *) holder;	/* the writer's thread, or NULL */
	struct cg_lock_writes writes;
};

void cg_lock_init(struct cg_lock *l);
void cg_lock_clear(struct cg_lock *l);

/* This thread's slot + 1 (0: none drawn yet), and the draw. */
extern __thread unsigned cg_lock_slot_plus_one;
unsigned cg_lock_draw_slot(void);
/* Takes the slot whose try failed, noting the wait in it. */
void cg_read_wait(struct cg_lock *l, unsigned slot);

/* The read side returns the slot it took, for the unlock. Inline, as the
 * kernel's percpu_down_read(): a reader that gets its slot at once costs
 * a mutex try and reads no clock. */
static inline unsigned cg_read_lock(struct cg_lock *l)
{
	unsigned slot = G_LIKELY(cg_lock_slot_plus_one) ? cg_lock_slot_plus_one - 1 :
			cg_lock_draw_slot();

	if (G_UNLIKELY(!g_mutex_trylock(&l->slot[slot].mutex)))
		cg_read_wait(l, slot);
	return slot;
}

static inline void cg_read_unlock(struct cg_lock *l, unsigned slot)
{
	g_mutex_unlock(&l->slot[slot].mutex);
}

/* site names the code that holds it, for the figures: a string that
 * lives as long as the lock (cg_write_lock() passes the caller's
 * __func__). */
#define cg_write_lock(l) cg_write_lock_at((l), __func__)
void cg_write_lock_at(struct cg_lock *l, const char *site);
/* Whether some thread holds the write side now: for tests' assertions. */
bool cg_write_held(struct cg_lock *l);
/* Whether this thread holds the write side. */
bool cg_write_held_by_me(struct cg_lock *l);

/* In a function that must be called with the write side held: aborts,
 * naming the function, when this thread does not hold it. Checked in a
 * debug build (configure --enable-debug) and in the unit tests' (which
 * build the core with CGFUSED_DEBUG); nothing otherwise. */
#ifdef CGFUSED_DEBUG
#define cg_assert_write_held(l) \
	do { \
		if (G_UNLIKELY(!cg_write_held_by_me(l))) \
			g_error("%s: called without the core lock's write side", G_STRFUNC); \
	} while (0)
#else
#define cg_assert_write_held(l) ((void)sizeof(l))
#endif
/* Lets go of the write side, then runs the work deferred meanwhile. */
void cg_write_unlock(struct cg_lock *l);

/* Called with the write side held: fn(data) runs in this thread right
 * after cg_write_unlock() let the lock go, in the order deferred. For the
 * system calls a change decides under the lock and which must not run
 * under it (a kill of a child forked over pids.max); fn runs unlocked and
 * the objects it was told about may be gone by then. */
void cg_write_defer(struct cg_lock *l, void (*fn)(void *data), void *data);

/* The lock's figures since cg_lock_init() (cgfused.stat): waits are
 * from the first try to the lock taken (a reader's, behind the writer
 * or a reader of the same slot), holds of the write side from taken to
 * let go (work it deferred not counted). Clock: CLOCK_MONOTONIC. */
struct cg_lock_figures {
	uint64_t write_holds;
	uint64_t write_hold_max_us;
	const char *write_hold_max_site;	/* NULL: no hold yet */
	uint64_t write_holds_over_1ms;
	uint64_t write_wait_max_us;
	uint64_t read_wait_max_us;
	uint64_t read_waits_over_1ms;
};

void cg_lock_figures(struct cg_lock *l, struct cg_lock_figures *f);
/* The figures start afresh (from when the mount is served: the holds of
 * the start-up, before anything is served, are no operation's wait). */
void cg_lock_figures_reset(struct cg_lock *l);

#endif
