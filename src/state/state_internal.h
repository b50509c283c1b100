/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The state's own header, for src/state/state.c and the files split from
 * it (state_compact.c, state_hooks.c) alone: struct cg_state, its
 * tunables and the functions they share. */
#ifndef CGFUSED_STATE_INTERNAL_H
#define CGFUSED_STATE_INTERNAL_H

#include <glib.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "state/state.h"
#include "core/core_call.h"
#include "core/css_set.h"
#include "core/notify.h"
#include "core/task.h"
#include "core/task_catch_up.h"
#include "lib/clock.h"
#include "lib/failcount.h"
#include "state/state_file.h"
#include "state/state_log.h"
#include "state/state_rec.h"
#include "state/state_replay.h"
#include "state/state_snap.h"

/* A compaction's snapshot is built in steps that hold the core lock this
 * long each (then let it go a moment, for whoever waits), and made
 * complete in one last hold once no more than STATE_LAST_GROUPS groups
 * changed since their visit, or after STATE_ROUNDS visits of changes. */
#define STATE_STEP_US 500
#define STATE_GAP_US 50
#define STATE_LAST_GROUPS 128
#define STATE_ROUNDS 8

/* Two logs, FILE.log and FILE.log2, take turns: records go to the current
 * one; a compaction builds the snapshot of the core in steps (state_snap.h)
 * and, in the last one, under the lock, switches to the other log, made
 * empty of the current log's generation + 1 beforehand: the snapshot is of
 * that generation. It is written, synced and renamed over FILE outside the
 * lock (by the sync thread, as the steps are), and only
 * then is the log it folded in made the next one (generation + 2). Replay
 * applies the snapshot, then the log of its generation, then the one of
 * the next: a crash before the rename leaves the older snapshot and both
 * logs, after it the new snapshot and its log (the older log ignored). */
struct cg_state {
	struct cg_core *core;
	struct cg_subscriber sub;
	struct state_dir dir;		/* where the files are, checked */
	char *name, *log_name[2], *tmp_name;	/* the files in dir */
	char *path, *log_path[2];	/* the same, whole, for messages */
	char *boot_id;
	/* FILE.log (its fd locked, flock, while we live) and FILE.log2. */
	struct state_log logs[2];
	gint cur;			/* the log appended to (set locked) */
	uint64_t generation;		/* the current log's */
	unsigned log_records;		/* in the current log */
	gint snapshot_records;		/* in the last snapshot written */
	unsigned compact_at;		/* log records that make a compaction */
	struct failcount write_fails;	/* appends to the log */
	struct failcount job_fails;	/* compactions */
	GString *buf, *group;		/* the hooks' records, reused (locked) */
	gint dirty;			/* a log changed since the last sync */
	gint grow;			/* the log's room is to be grown */
	/* The other log is empty, of generation + 1: a compaction may switch. */
	gint next_ready;
	GThread *sync_thread;
	GMutex sync_lock;		/* never held across I/O */
	GCond sync_cond;
	bool stop, wake;		/* (sync_lock) */
	/* A compaction's snapshot still to write, its records and the log it
	 * folded in (sync_lock). */
	GString *pending;
	unsigned pending_records;
	int pending_old;
	/* The snapshot being built (set locked and under sync_lock; the
	 * hooks tell it of changes), until the switch. */
	struct snap_build *build;
	/* The longest the core lock was held by a compaction's step, the
	 * last compaction's longest, and how many were made (ns; atomics,
	 * for cgfused.stat). */
	_Atomic uint64_t hold_max_ns, hold_last_ns, step_cpu_max_ns, hold_sum_ns;
	atomic_uint compactions, steps;
	GMutex job_lock;		/* one writer of the files at a time */
};

/* state_compact.c */
void step(const char *name);
GString *serialise(struct cg_state *st, uint64_t gen, unsigned *nr);
int write_snapshot(struct cg_state *st, const GString *snap);
int reset_log(struct cg_state *st, int i, uint64_t gen);
bool start_compaction(struct cg_state *st);
int finish_compaction(struct cg_state *st, bool locked);

/* state_hooks.c */
void append(struct cg_state *st, GString *recs, unsigned nr);
/* The state's subscriber (its callbacks), for state_open(). */
struct cg_subscriber state_subscriber(struct cg_state *st);

/* state.c */
void log_header(GString *out, uint64_t generation);
struct state_log *reserve_log(struct cg_state *st);

#endif
