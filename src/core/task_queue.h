/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The kernel's reports, read and made ready with the core lock let go.
 *
 * A puller (the task watcher, or an operation before it takes the core
 * lock) reads the waiting reports and does every system call they need:
 * a forked child's identity is opened, an exec's gone thread is found and
 * the new leader read, a loss of reports (ENOBUFS) has every tracked
 * thread checked and the system searched for children born in groups. It
 * queues the results, in the order the kernel reported them; task.c
 * applies them under the write side of the core lock, memory work only.
 *
 * Which children are worth an identity (a parent tracked in a group) is
 * decided under the read side of the core lock, counting the children of
 * forks queued but not applied yet ("born"), so that a grandchild reported
 * in the same batch as its parent is kept.
 *
 * Locks (the whole order: docs/design.md, "Locks and threads"): pull_lock, one puller at a time
 * so that the queue keeps the kernel's order, is taken holding no other
 * and held across the pull's system calls and its read side of the core
 * lock; the queue's mutex is a leaf, taken under either and never held
 * into a system call or another lock. */
#ifndef CGFUSED_TASK_QUEUE_H
#define CGFUSED_TASK_QUEUE_H

#include "core/cgroup.h"

/* A thread and the identity it had when it was looked at. */
struct task_seen {
	pid_t tid;
	struct task_ident ident;
};

/* A thread that may have been forked inside a group while its report was
 * lost, its identity opened (a resync's). */
struct task_orphan {
	pid_t tid;
	struct task_origin origin;
	bool opened;		/* ident is open: closed unless taken */
	struct task_ident ident;
};

enum task_item_kind {
	TASK_ITEM_EVENT,	/* a report (ev) */
	TASK_ITEM_RESYNC,	/* reports were lost: gone and orphans */
};

struct task_item {
	enum task_item_kind kind;
	struct task_event ev;
	/* The thread this item will make tracked, whose forks are worth an
	 * identity before it is applied (task_queue.c's born); 0: none. */
	pid_t born;
	/* FORK: the child's identity, opened (the parent was tracked in a
	 * group when the report was read). EXEC: the leader's, when a
	 * tracked thread of the process vanished, with what task_read_new()
	 * read of it. Closed by task_item_free() unless taken. */
	bool opened;
	struct task_ident ident;
	uint64_t proc_ns;
	struct task_cputime now;
	/* EXEC: the tracked threads of the process found gone, in the
	 * process list's order (struct task_seen). RESYNC: every tracked
	 * thread found gone. */
	GArray *gone;
	GArray *orphans;	/* RESYNC: struct task_orphan, oldest first */
};

struct task_queue;

struct task_queue *task_queue_new(void);
/* Frees what was never applied (closing the identities it opened). */
void task_queue_free(struct cg_core *core, struct task_queue *q);

/* Not called locked: reads one batch of reports (up to
 * TASK_CATCH_UP_BATCH) into the queue; whether more may wait. */
bool task_pull_batch(struct cg_core *core);
/* Not called locked: every waiting report. */
void task_pull(struct cg_core *core);
/* Not called locked: what a resync reads (which a restore needs too):
 * the tracked threads that are gone (with all, checked; else none) and
 * the untracked ones that may have been born in groups, queued as one
 * TASK_ITEM_RESYNC. */
void task_pull_resync(struct cg_core *core, bool all);
/* Not called locked: returns once no pull is under way, so that the
 * reports another puller has read are queued. */
void task_pull_wait(struct cg_core *core);

/* The oldest queued item, or NULL: called write-locked; the caller applies
 * it and frees it (task_item_free). A fork's child leaves "born". */
struct task_item *task_queue_pop(struct cg_core *core);
/* Whether items wait (any lock or none). */
bool task_queue_pending(struct cg_core *core);
void task_item_free(struct cg_core *core, struct task_item *it);

#endif
