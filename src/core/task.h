/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Tasks (threads) the core tracks: those that were ever attached, until they
 * exit. Every other thread of the system is implicitly in init_css_set and
 * has no struct task. All functions are called locked (the write side)
 * unless they say otherwise. */
#ifndef CGFUSED_TASK_H
#define CGFUSED_TASK_H

#include "core/cgroup.h"
#include "core/css_set.h"

/* What a task was charged up to (task_charge): the figures of struct
 * task_cputime that charging reads, of the tick counts their low 32 bits:
 * task_charge takes their deltas modulo 2^32, right while a thread ran less
 * than 2^31 ticks between two charges (248 days of CPU at USER_HZ 100). */
struct task_charged {
	uint64_t run_ns;
	uint32_t utime, stime;
};

/* One of these for every tracked task, so laid out without holes (80
 * bytes, in a slab of the core's task_pool: `gdb -batch -ex 'ptype /o
 * struct task' src/cgfused`). */
struct task {
	pid_t tid;
	int16_t charged_cpu;		/* the CPU it last ran on; -1: unknown */
	/* Forked over a limit (a controller's can_fork), or by a dying
	 * parent: killed, its exit report to come. Set only while the task
	 * is in init_css_set, before it joins its parent's groups. */
	bool dying;
	/* Moved back to the root: its identity is closed (the facade's
	 * task-watch source lets it go, so that a debugger can trace it) and
	 * opened again when it moves into a group (core/attach.c). */
	bool unwatched;
	struct task_ident ident;
	struct css_set *cset;
	struct list_head cg_list;	/* our node in cset->tasks */
	uint64_t joined_ns;		/* boot time when it joined cset */
	/* Its process's CPU time when charged was read (UINT64_MAX: unknown):
	 * while that has not moved, none of its threads ran, and a move need
	 * not read /proc (task_account). */
	uint64_t charged_proc_ns;
	struct task_charged charged;	/* its figures up to which it was charged */
};

/* Every task of a css_set. */
#define css_set_for_each_task(t, cset) list_for_each_entry(t, &(cset)->tasks, cg_list)

/* The tracked task with this id, or NULL (it is then in init_css_set). */
struct task *task_lookup(struct cg_core *core, pid_t tid);

/* The tracked task, or a new one in init_css_set for a live thread.
 * -ESRCH/-EINVAL from the facade. *created tells which. Its system calls
 * are task_read_new()'s: attach does them before taking the lock. */
int task_get(struct cg_core *core, pid_t tid, struct task **out, bool *created);

/* Not called locked: opens thread tid's identity and reads what a new
 * task starts with (its process's CPU time, UINT64_MAX if unknown, and its
 * own figures): 0 or task_open's -errno. */
int task_read_new(struct kfacade *kf, pid_t tid, struct task_ident *ident, uint64_t *proc_ns,
		  struct task_cputime *now);
/* The same without the hold (the facade's task_ident): for a move, which
 * holds the identity (task_hold) only once the writer may move it. */
int task_read_unheld(struct kfacade *kf, pid_t tid, struct task_ident *ident, uint64_t *proc_ns,
		     struct task_cputime *now);
/* A new task in init_css_set from what task_read_new() read (the ident is
 * the task's now); tid must not be tracked. */
struct task *task_new(struct cg_core *core, pid_t tid, const struct task_ident *ident,
		      uint64_t proc_ns, const struct task_cputime *charged);

/* Charges what the thread ran since it was last charged (now: its figures
 * at this moment) to the cgroups of its css_set, through each controller's
 * charge method; the root's figures come from the whole system, so a thread
 * in init_css_set is only re-based. Figures older than the last charge
 * (a sample taken before a move) are ignored. */
void task_charge(struct cg_core *core, struct task *t, const struct task_cputime *now);

/* Samples the thread and charges it; false if it could not be read. */
bool task_account(struct cg_core *core, struct task *t);

/* Accounts every thread in the cgroups of a subtree (before its figures
 * are read). */
void task_account_subtree(struct cgroup *cgrp);

/* SIGKILL to the thread once the core lock is let go (cg_write_defer),
 * if it is still the thread t is. */
void task_kill_later(struct cg_core *core, const struct task *t);
/* Moves a task into cset (referenced by the caller, who keeps its ref). */
void task_set_css_set(struct cg_core *core, struct task *t, struct css_set *cset);

/* Stops tracking a task wherever it is (it has exited, or it was made for
 * an attach that failed). */
void task_drop(struct cg_core *core, struct task *t);
/* The tasks of a group whose thread is gone. The kernel reports a
 * thread's exit to the proc connector after its exit_notify(), so a
 * parent may have reaped a process before its last thread's report is
 * sent: a group is checked this way before it is found busy. In two
 * steps, so that no system call is made under the lock: the group's
 * members as the core lists them, copied with the read side held (NULL:
 * no such group, or none listed) ... */
GArray *task_members_copy(struct cg_core *core, uint64_t parent_id, const char *name);
/* ... checked with no lock held (those still alive taken out) ... */
void task_members_keep_gone(struct cg_core *core, GArray *members);
/* ... and, with the write side held, those of them still tracked as
 * the same thread dropped. Frees members. */
void task_members_drop(struct cg_core *core, GArray *members);

/* Applies what the kernel reported, as task_queue.c read it before the
 * lock was taken: children join their parent's groups, exited tasks are
 * forgotten. Memory work only: no system call. Called before anything
 * reads or changes memberships, so that no exited task is listed or
 * counted and every child is where the kernel would have put it; the
 * caller pulls the waiting reports first, unlocked
 * (task_pull_if_pending()). */
void task_catch_up(struct cg_core *core);
/* One batch of it, at most max queued items: whether more wait. The
 * task watcher lets the lock go between batches, so that the kills they
 * decided (of children forked over pids.max) are not held back by a fork
 * storm. */
#define TASK_CATCH_UP_BATCH 256
bool task_catch_up_batch(struct cg_core *core, unsigned max);

/* A walk of every tracked task: the one after *pos (0 to start), or NULL
 * at the end; the walk must not add or drop any. */
struct task *task_next(struct cg_core *core, guint *pos);
/* Every tracked task, in a new array: for walks that may drop some. */
GPtrArray *task_table_copy(struct cg_core *core);

/* The css_set a thread is in, tracked or not. */
struct css_set *task_css_set(struct cg_core *core, pid_t tid);

void task_table_free(struct cg_core *core);

#endif
