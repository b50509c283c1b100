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
 * at 0.15x: its reader count is such a word (../shared/KERNEL-NOTES.md,
 * "Shared counters and locks"; tests/bench/lock-bench measures all three).
 * Two readers whose threads drew the same slot wait for each other, never
 * for a writer that is not there.
 *
 * Not recursive: a reader must not take the write side, nor a writer
 * either side again.
 *
 * Lock order (a lock may be taken while holding those above it, never
 * those below it while holding it):
 *   1. state's job_lock (state_snapshot: one writer of the state files);
 *   2. the task queue's pull_lock (task_queue.c: one reader of the
 *      kernel's reports at a time, held across its system calls and its
 *      short read-side looks at the tasks); never taken holding this lock;
 *   3. this lock: its writer mutex, then the slots in order; a reader
 *      holds one slot;
 *   4. leaves, taken under it or alone, holding nothing while held: the
 *      task queue's lock (the parsed reports: taken by the puller with or
 *      without the read side, by the applier under the write side; never
 *      held into a system call, so a writer never waits on one through
 *      it), the allocator's events_lock and shown_lock, the freezer
 *      enforcer's shown_lock, the state's sync_lock, the freezer's
 *      confirm lock, fs.c's open-file lock. state's job_lock is only ever
 *      tried (g_mutex_trylock) under this lock; cgrules' engine lock is
 *      never held into it.
 * Nothing slow under it: no /proc read, fork, fsync or walk of every
 * thread. The kernel's fork, exit and exec reports are read, and the
 * threads they name identified, with it let go (task_queue.h); a resync
 * checks liveness on a copy of the tids; the write side only applies
 * them. The allocator's passes, which do walk every managed thread and
 * read /proc, hold no lock meanwhile and give the CPU up every 0.2 ms
 * (alloc.c, BREATH_NS). */
#ifndef CGFUSED_CORE_LOCK_H
#define CGFUSED_CORE_LOCK_H

#include <glib.h>
#include <stdbool.h>

/* More than the threads that read at once (FUSE's workers, 10 idle at
 * most by default, and the daemon's own): a write takes each of them. */
#define CG_LOCK_SLOTS 16

struct cg_lock_slot {
	GMutex mutex;
} __attribute__((aligned(64)));		/* a cache line each */

struct cg_lock {
	struct cg_lock_slot slot[CG_LOCK_SLOTS];
	GMutex writer;			/* writers queue here, one at a time */
	GArray *deferred;		/* the writer's cg_write_defer() work, or NULL */
};

void cg_lock_init(struct cg_lock *l);
void cg_lock_clear(struct cg_lock *l);

/* The read side returns the slot it took, for the unlock. */
unsigned cg_read_lock(struct cg_lock *l);
void cg_read_unlock(struct cg_lock *l, unsigned slot);

void cg_write_lock(struct cg_lock *l);
/* Whether some thread holds the write side now: for tests' assertions. */
bool cg_write_held(struct cg_lock *l);
/* Lets go of the write side, then runs the work deferred meanwhile. */
void cg_write_unlock(struct cg_lock *l);

/* Called with the write side held: fn(data) runs in this thread right
 * after cg_write_unlock() let the lock go, in the order deferred. For the
 * system calls a change decides under the lock and which must not run
 * under it (a kill of a child forked over pids.max); fn runs unlocked and
 * the objects it was told about may be gone by then. */
void cg_write_defer(struct cg_lock *l, void (*fn)(void *data), void *data);

#endif
