/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The originals of what the allocator changes, kept in a file of its own
 * beside the state (FILE.orig), so that a daemon started after a kill -9
 * gives back, or goes on managing, what the last one changed.
 *
 * A thread's original nice and affinity are recorded when the allocator
 * first sees it, a session autogroup's nice when it first weighs it, and
 * forgotten when they are given back or the thread is gone; the records are
 * written (write(2), no fsync: they only matter in this boot, and a kill -9
 * loses no written page) before any change they allow. Keys: a thread's id
 * and its pidfs inode (unique in a boot, where a start time at tick
 * granularity is not: docs/kernel-notes.md), an autogroup's id; the header holds
 * the boot id, and a file of another boot is emptied.
 *
 * One record per line: "t TID INO NICE CPUS", "T TID INO" (forgotten),
 * "a ID TID INO NICE" (through thread TID), "A ID"; in the idle enforcer's
 * file (STATE.idle, enforce/idle.h), "i TID INO" (made SCHED_IDLE: its
 * original is SCHED_OTHER), "I TID INO". A file takes only its own kinds;
 * any other line is skipped and logged. The file is opened with
 * state_file.h's checks (a leaf of the state layer: GLib and libc only);
 * the state's lock on FILE.log keeps a second daemon away from it. Each file
 * is used by one thread only (the allocator's, the cpu enforcer's). */
#ifndef CGFUSED_ALLOC_ORIG_H
#define CGFUSED_ALLOC_ORIG_H

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "lib/cpumask.h"

#define ALLOC_ORIG_MAGIC "cgfused-orig"

struct orig_task {
	pid_t tid;
	uint64_t ino;
	int nice;
	struct cpumask cpus;
};

struct orig_autogroup {
	int id;
	pid_t tid;		/* a member, to reach it */
	uint64_t ino;
	int nice;
};

struct orig_idle {
	pid_t tid;
	uint64_t ino;
};

struct alloc_orig;

/* Opens STATE.orig (made if there is none) and takes in what a daemon of
 * this boot left there; the file is then written anew with it. NULL and err
 * when the file or its directory is refused (state_file.h) or unusable. */
struct alloc_orig *alloc_orig_open(const char *state, const char *boot_id, GError **err);
/* The same for the idle enforcer's STATE.idle. */
struct alloc_orig *alloc_orig_open_idle(const char *state, const char *boot_id, GError **err);
/* Closes it; with done (nothing left to give back) removes the file. */
void alloc_orig_close(struct alloc_orig *o, bool done);

/* What the last daemon left for thread tid (identity ino), or autogroup
 * id: true and *out once, then it is this daemon's record. */
bool alloc_orig_take_task(struct alloc_orig *o, pid_t tid, uint64_t ino,
			  struct orig_task *out);
bool alloc_orig_take_autogroup(struct alloc_orig *o, int id, struct orig_autogroup *out);
/* What was left and not taken (struct orig_task, struct orig_autogroup),
 * appended to the arrays; the file forgets it at the next flush. */
void alloc_orig_leftovers(struct alloc_orig *o, GArray *tasks, GArray *autogroups);
bool alloc_orig_has_leftovers(const struct alloc_orig *o);
/* The same for threads made idle: true once if tid (ino) was left, and
 * the rest (struct orig_idle) appended to an array. */
bool alloc_orig_take_idle(struct alloc_orig *o, pid_t tid, uint64_t ino);
void alloc_orig_idle_leftovers(struct alloc_orig *o, GArray *idle);
/* Every thread made idle the last daemon left and this one did not take
 * yet (struct orig_idle), appended; nothing is taken. */
void alloc_orig_idle_left(const struct alloc_orig *o, GArray *idle);

/* Records, written at the next flush. */
void alloc_orig_add_task(struct alloc_orig *o, const struct orig_task *t);
void alloc_orig_drop_task(struct alloc_orig *o, pid_t tid, uint64_t ino);
void alloc_orig_add_autogroup(struct alloc_orig *o, const struct orig_autogroup *ag);
void alloc_orig_drop_autogroup(struct alloc_orig *o, int id);
void alloc_orig_add_idle(struct alloc_orig *o, pid_t tid, uint64_t ino);
void alloc_orig_drop_idle(struct alloc_orig *o, pid_t tid, uint64_t ino);

/* Writes the records made since the last flush (one write). Kept for the
 * next one if it fails (said once). */
void alloc_orig_flush(struct alloc_orig *o);

/* Whether the file holds many more lines than live records (live: as the
 * caller counts them); then the caller writes it anew: begin, the live
 * records with alloc_orig_add_*, commit (a temporary file renamed over). */
bool alloc_orig_wants_rewrite(const struct alloc_orig *o, unsigned live);
void alloc_orig_rewrite_begin(struct alloc_orig *o);
void alloc_orig_rewrite_commit(struct alloc_orig *o);

#endif
