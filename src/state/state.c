/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The state's files: the log its subscriber hooks append to, snapshots,
 * compaction and the thread that syncs the log. */
#include "state/state.h"

#include <errno.h>
#include <inttypes.h>
#include <malloc.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>

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

void (*state_step_hook)(const char *step);

/* Where a compaction's writing has got to (for tests that crash there). */
static void step(const char *name)
{
	if (state_step_hook)
		state_step_hook(name);
}

char *state_boot_id(void)
{
	char *id = NULL;

	if (!g_file_get_contents("/proc/sys/kernel/random/boot_id", &id, NULL, NULL))
		return g_strdup("");
	return g_strstrip(id);
}

char *state_default_path(const char *mountpoint)
{
	char *abs = g_canonicalize_filename(mountpoint, NULL);
	GString *name = g_string_new(NULL);

	/* Only root may write in STATE_DIR. */
	if (geteuid() == 0)
		g_string_append(name, STATE_DIR "/");
	else
		g_string_append_printf(name, "%s/cgfused/", g_get_user_state_dir());

	for (const char *p = abs + 1; *p; p++) {
		if (*p == '/')
			g_string_append_c(name, '-');
		else if (*p == '-' || *p == '%')
			g_string_append_printf(name, "%%%02X", *p);
		else
			g_string_append_c(name, *p);
	}
	if (!abs[1])
		g_string_append(name, "-");	/* the root directory */
	g_string_append(name, ".state");
	g_free(abs);
	return g_string_free(name, FALSE);
}

static void log_header(GString *out, uint64_t generation)
{
	gsize start = rec_begin(out, STATE_LOG_MAGIC);

	rec_num(out, STATE_VERSION);
	rec_num(out, generation);
	rec_end(out, start);
}

/* Called locked: the whole state, as a snapshot of generation gen (memory
 * only). Its number of records in *nr. */
static GString *serialise(struct cg_state *st, uint64_t gen, unsigned *nr)
{
	GString *out = g_string_new(NULL);
	gsize start = rec_begin(out, STATE_SNAPSHOT_MAGIC);

	*nr = 0;
	rec_num(out, STATE_VERSION);
	rec_num(out, gen);
	rec_str(out, st->boot_id);
	rec_end(out, start);
	snap_groups(out, st->core, nr);
	snap_tasks(out, st->core, nr);
	return out;
}

/* The snapshot into a temporary file, synced and renamed over FILE, the
 * directory synced. Outside the lock. 0 or -errno. */
static int write_snapshot(struct cg_state *st, const GString *snap)
{
	int fd = state_file_create(&st->dir, st->tmp_name), ret = fd < 0 ? fd : 0;

	if (ret == 0)
		ret = state_file_write_all(fd, snap->str, snap->len);
	step("tmp-written");
	if (ret == 0 && fsync(fd) < 0)
		ret = -errno;
	if (fd >= 0)
		close(fd);
	step("tmp-synced");
	if (ret == 0 && renameat(st->dir.fd, st->tmp_name, st->dir.fd, st->name) < 0)
		ret = -errno;
	step("renamed");
	if (ret == 0 && fsync(st->dir.fd) < 0)
		ret = -errno;
	else if (ret && fd >= 0)
		unlinkat(st->dir.fd, st->tmp_name, 0);	/* ours: made just now */
	step("dir-synced");
	return ret;
}

/* Empties log i as the one of generation gen, durably. 0 or -errno. */
static int reset_log(struct cg_state *st, int i, uint64_t gen)
{
	GString *head = g_string_new(NULL);
	int ret;

	log_header(head, gen);
	ret = state_log_reset(&st->logs[i], head->str, head->len);
	g_string_free(head, TRUE);
	return ret;
}

/* Called locked, when the other log is ready: a snapshot's build begun,
 * for the sync thread (or the caller of finish_compaction()). false if a
 * compaction is still being built or written. */
static bool start_compaction(struct cg_state *st)
{
	if (!g_atomic_int_get(&st->next_ready) || st->build)
		return false;
	g_mutex_lock(&st->sync_lock);
	st->build = snap_build_new(st->core);
	st->wake = true;
	g_cond_signal(&st->sync_cond);
	g_mutex_unlock(&st->sync_lock);
	return true;
}

/* Called locked, the build complete: the records switched to the other
 * log, whose generation the snapshot is. The build is the caller's. */
static void switch_logs(struct cg_state *st)
{
	unsigned nr = snap_build_records(st->build);
	int old = st->cur;

	st->generation++;
	g_atomic_int_set(&st->cur, !old);
	g_atomic_int_set(&st->next_ready, 0);
	st->log_records = 0;
	st->compact_at = MAX(STATE_COMPACT_MIN, STATE_COMPACT_RATIO * nr);
	g_mutex_lock(&st->sync_lock);
	st->build = NULL;
	st->pending_old = old;
	g_mutex_unlock(&st->sync_lock);
}

/* A step held the lock held_us; its thread's CPU time from cpu_ns (taken
 * outside the lock: on a busy machine the hold is that CPU time and any
 * wait for a CPU meanwhile). */
static void note_hold(struct cg_state *st, gint64 held_us, uint64_t cpu_ns, uint64_t *longest)
{
	uint64_t ns = (uint64_t)held_us * 1000;

	*longest = MAX(*longest, ns);
	atomic_fetch_add(&st->hold_sum_ns, ns);
	atomic_fetch_add(&st->steps, 1);
	if (ns > atomic_load(&st->hold_max_ns))
		atomic_store(&st->hold_max_ns, ns);
	cpu_ns = thread_cpu_ns() - cpu_ns;
	if (cpu_ns > atomic_load(&st->step_cpu_max_ns))
		atomic_store(&st->step_cpu_max_ns, cpu_ns);
}

unsigned state_step_groups;

/* Ahead of the records: the hooks only copy into what is allocated. A
 * full disk is tried again each second. The sync thread's, without the
 * lock. */
static struct state_log *reserve_log(struct cg_state *st)
{
	struct state_log *log = &st->logs[g_atomic_int_get(&st->cur)];

	g_atomic_int_set(&st->grow, 0);
	state_log_reserve(log);
	return log;
}

struct build_step {
	struct cg_state *st;
	struct snap_build *b;
	bool locked;			/* the caller holds the lock: all at once */
	unsigned round;			/* visits again of what changed */
	bool last;			/* out: the build is complete, the logs switched */
	gint64 held;			/* out: the step's hold (µs) */
};

/* Called locked: a step of the build. */
static void build_step(struct cg_core *core, void *data)
{
	struct build_step *c = data;
	gint64 t0 = g_get_monotonic_time();

	(void)core;
	c->last = snap_build_step(c->b, c->locked ? G_MAXINT64 : t0 + STATE_STEP_US,
				  c->locked ? 0 : state_step_groups);
	/* What changed since its visit is visited again, in steps while it
	 * is much; the last, with the switch, in this hold. */
	if (c->last && (snap_build_refill(c->b) <= STATE_LAST_GROUPS ||
			++c->round >= STATE_ROUNDS || c->locked)) {
		snap_build_step(c->b, G_MAXINT64, 0);
		switch_logs(c->st);
	} else {
		c->last = false;
	}
	c->held = g_get_monotonic_time() - t0;
}

/* With job_lock held: the snapshot begun by start_compaction() built a
 * step at a time, each under the core lock for STATE_STEP_US (all at
 * once when the caller holds the lock: locked), the logs switched in the
 * last step, and the snapshot's text made without the lock. */
static GString *build_snapshot(struct cg_state *st, struct snap_build *b, bool locked)
{
	GString *snap = g_string_new(NULL);
	struct build_step c = { st, b, locked, 0, false, 0 };
	uint64_t longest = 0;
	unsigned nr;
	gsize start;

	for (;;) {
		uint64_t cpu0 = thread_cpu_ns();

		if (locked)
			build_step(st->core, &c);
		else
			cg_core_write(st->core, build_step, &c);
		note_hold(st, c.held, cpu0, &longest);
		if (c.last)
			break;
		step("step");
		/* The log goes on meanwhile: its room too. */
		if (g_atomic_int_get(&st->grow))
			reserve_log(st);
		g_usleep(STATE_GAP_US);
	}
	atomic_store(&st->hold_last_ns, longest);
	atomic_fetch_add(&st->compactions, 1);
	step("switched");
	start = rec_begin(snap, STATE_SNAPSHOT_MAGIC);
	rec_num(snap, STATE_VERSION);
	rec_num(snap, st->generation);
	rec_str(snap, st->boot_id);
	rec_end(snap, start);
	nr = snap_build_append(b, snap);
	snap_build_free(b);
	g_mutex_lock(&st->sync_lock);
	st->pending_records = nr;
	g_mutex_unlock(&st->sync_lock);
	return snap;
}

/* Said once, then counted until a compaction succeeds again. */
static int job_failed(struct cg_state *st, const char *file, int err)
{
	failcount_fail(&st->job_fails, "state: cannot write %s: %s", file, g_strerror(-err));
	return err;
}

/* With job_lock held, outside the core lock: a pending snapshot written
 * (the log it folded in synced first: a crash of the machine must not
 * keep the other log's records without these), then the log it folded in
 * emptied as the next one. Either is tried again after a failure.
 * 0 or -errno. */
static int finish_compaction(struct cg_state *st, bool locked)
{
	struct snap_build *b;
	GString *snap;
	unsigned nr;
	int old, ret = 0;

	g_mutex_lock(&st->sync_lock);
	b = st->build;
	g_mutex_unlock(&st->sync_lock);
	if (b) {
		snap = build_snapshot(st, b, locked);
		g_mutex_lock(&st->sync_lock);
		st->pending = snap;
		g_mutex_unlock(&st->sync_lock);
	}
	g_mutex_lock(&st->sync_lock);
	snap = st->pending;
	nr = st->pending_records;
	old = st->pending_old;
	g_mutex_unlock(&st->sync_lock);
	if (snap) {
		step("begin");
		if (fdatasync(st->logs[old].fd) < 0)
			ret = -errno;
		step("old-log-synced");
		if (ret == 0)
			ret = write_snapshot(st, snap);
		if (ret)
			return job_failed(st, st->path, ret);
		g_mutex_lock(&st->sync_lock);
		st->pending = NULL;
		g_mutex_unlock(&st->sync_lock);
		g_string_free(snap, TRUE);
		g_atomic_int_set(&st->snapshot_records, (gint)nr);
	} else if (g_atomic_int_get(&st->next_ready)) {
		return 0;
	}
	/* No switch can happen before next_ready is set: cur stays. */
	old = !g_atomic_int_get(&st->cur);
	ret = reset_log(st, old, st->generation + 1);
	step("next-log-ready");
	if (ret)
		return job_failed(st, st->log_path[old], ret);
	g_atomic_int_set(&st->next_ready, 1);
	failcount_ok(&st->job_fails, "state: compaction");
	return 0;
}

/* Wakes the sync thread to allocate the log's next chunk ahead. */
static void kick_growth(struct cg_state *st)
{
	if (g_atomic_int_get(&st->grow) || !state_log_wants_growth(&st->logs[st->cur]))
		return;
	g_mutex_lock(&st->sync_lock);
	g_atomic_int_set(&st->grow, 1);
	st->wake = true;
	g_cond_signal(&st->sync_cond);
	g_mutex_unlock(&st->sync_lock);
}

/* Called locked: whole records copied into the mapped log, before the
 * change is answered; durable within a second (the sync thread). Before
 * the sync thread runs (at start-up, and in tests), a compaction is
 * written here. A
 * change that could be refused was (prepare) if its record would not
 * fit; one that could not be (rmdir, rename, chmod, a fork) uses the
 * room kept for it, or is lost when there is none, with a warning. */
static void append(struct cg_state *st, GString *recs, unsigned nr)
{
	int ret = state_log_append(&st->logs[st->cur], recs->str, recs->len);

	if (ret) {
		failcount_fail(&st->write_fails, "state: cannot append to %s: %s",
			       st->log_path[st->cur], g_strerror(-ret));
		return;
	}
	failcount_ok(&st->write_fails, "state: appending to the log");
	g_atomic_int_set(&st->dirty, 1);
	st->log_records += nr;
	kick_growth(st);
	/* Not when state_snapshot() holds job_lock: it finishes this one. */
	if (st->log_records >= st->compact_at && start_compaction(st) && !st->sync_thread &&
	    g_mutex_trylock(&st->job_lock)) {
		finish_compaction(st, true);
		g_mutex_unlock(&st->job_lock);
	}
}

/* The longest a record of a group can be, but for its strings: its type,
 * hierarchy (escaped), five numbers and its checksum. */
static size_t rec_max(const struct cgroup *cgrp)
{
	return 128 + 3 * strlen(cgrp->root->name);
}

/* The veto: a change is made only if its record fits in the log's
 * allocated room, keeping STATE_LOG_KEEP for the records no change can
 * refuse; else it is refused as a write to a full disk is (ENOSPC). */
static int on_prepare(void *data, const struct cg_change *change)
{
	struct cg_state *st = data;
	size_t need = rec_max(change->cgrp);

	switch (change->kind) {
	case CG_CHANGE_MKDIR:
		need += 3 * strlen(change->name);
		break;
	case CG_CHANGE_WRITE: {
		const struct cg_file *f = g_ptr_array_index(change->cgrp->root->files,
							    change->file);

		if (f->cft->flags & CFTYPE_NO_STATE)
			return 0;	/* not recorded */
		need += 3 * (strlen(f->name) + change->len);
		break;
	}
	case CG_CHANGE_ATTACH:
		need *= MAX(change->nr_tasks, 1);
		break;
	}
	return state_log_room(&st->logs[st->cur], need + STATE_LOG_KEEP);
}

/* The subscriber hooks (core/notify.h). */

static void on_mkdir(void *data, struct cgroup *cgrp)
{
	struct cg_state *st = data;

	if (st->build)
		snap_build_changed(st->build, cgrp);
	g_string_truncate(st->buf, 0);
	rec_mkdir(st->buf, cgrp);
	append(st, st->buf, 1);
}

static void on_removing(void *data, struct cgroup *cgrp)
{
	struct cg_state *st = data;

	if (st->build)
		snap_build_removed(st->build, cgrp);
}

static void on_rmdir(void *data, struct cgroup *parent, const char *name)
{
	struct cg_state *st = data;

	g_string_truncate(st->buf, 0);
	rec_group(st->buf, "rmdir", parent);
	rec_str(st->buf, name);
	rec_end(st->buf, 0);
	append(st, st->buf, 1);
}

static void on_rename(void *data, struct cgroup *cgrp, const char *old_name)
{
	struct cg_state *st = data;

	if (st->build)
		snap_build_changed(st->build, cgrp);
	/* The group by its parent, its old name and its new one. */
	g_string_truncate(st->buf, 0);
	rec_group(st->buf, "rename", cgrp->parent);
	rec_str(st->buf, old_name);
	rec_str(st->buf, cgrp->name);
	rec_end(st->buf, 0);
	append(st, st->buf, 1);
}

static void on_write(void *data, struct cgroup *cgrp, unsigned file, const char *text)
{
	struct cg_state *st = data;

	if (st->build)
		snap_build_written(st->build, cgrp);
	g_string_truncate(st->buf, 0);
	rec_write(st->buf, cgrp, file, text);
	append(st, st->buf, 1);
}

static void on_setattr(void *data, struct cgroup *cgrp, unsigned file)
{
	struct cg_state *st = data;

	if (st->build)
		snap_build_changed(st->build, cgrp);
	g_string_truncate(st->buf, 0);
	rec_attr(st->buf, cgrp, file);
	append(st, st->buf, 1);
}

/* One write(2) for all the moves of one attach: they all went to one group
 * of root. A child that joined its parent's groups (root NULL) has a
 * record per hierarchy. */
static void log_moves(struct cg_state *st, struct task *const *tasks, unsigned n,
		      const struct cg_root *root)
{
	unsigned nr = 0;

	if (st->build)
		snap_build_moved(st->build, tasks, n);
	g_string_truncate(st->buf, 0);
	for (guint r = 0; r < st->core->roots->len; r++) {
		const struct cg_root *rt = g_ptr_array_index(st->core->roots, r);

		if (root && rt != root)
			continue;
		/* The root group too: it undoes an older record. */
		g_string_truncate(st->group, 0);
		rec_group_id(st->group, css_set_cgroup(tasks[0]->cset, rt));
		for (unsigned i = 0; i < n; i++, nr++)
			rec_task(st->buf, tasks[i], st->group);
	}
	append(st, st->buf, nr);
}

static void on_attach(void *data, struct task *const *tasks, unsigned n,
		      const struct cg_root *root)
{
	log_moves(data, tasks, n, root);
}

static void on_fork(void *data, struct task *parent, struct task *child)
{
	(void)parent;
	log_moves(data, &child, 1, NULL);
}

/* Nothing is logged (replay checks each member's identity), but a
 * snapshot being built drops its record. */
static void on_task_exit(void *data, struct task *t)
{
	struct cg_state *st = data;

	if (st->build)
		snap_build_exit(st->build, t);
}

/* Compactions made, their steps, how long the core lock was held by a
 * step (on average; the longest of all, and of the last compaction) and
 * the most CPU time a step took (read side: atomics only). */
static void on_stat(void *data, GString *out)
{
	struct cg_state *st = data;

	unsigned steps = atomic_load(&st->steps);

	g_string_append_printf(out, "state_compactions %u\nstate_compaction_steps %u\n"
			       "state_compaction_hold_mean_us %" PRIu64
			       "\nstate_compaction_hold_max_us %" PRIu64
			       "\nstate_compaction_hold_last_us %" PRIu64
			       "\nstate_compaction_step_cpu_max_us %" PRIu64 "\n",
			       atomic_load(&st->compactions), steps,
			       steps ? atomic_load(&st->hold_sum_ns) / steps / 1000 : 0,
			       atomic_load(&st->hold_max_ns) / 1000,
			       atomic_load(&st->hold_last_ns) / 1000,
			       atomic_load(&st->step_cpu_max_ns) / 1000);
}

/* The sync thread. */

static gpointer sync_main(gpointer data)
{
	struct cg_state *st = data;

	g_mutex_lock(&st->sync_lock);
	while (!st->stop) {
		gint64 until = g_get_monotonic_time() + G_TIME_SPAN_SECOND;
		struct state_log *log;
		bool job;

		while (!st->stop && !st->wake &&
		       g_cond_wait_until(&st->sync_cond, &st->sync_lock, until))
			;
		st->wake = false;
		job = st->build || st->pending || !g_atomic_int_get(&st->next_ready);
		g_mutex_unlock(&st->sync_lock);
		log = reserve_log(st);
		if (g_atomic_int_compare_and_exchange(&st->dirty, 1, 0))
			fdatasync(log->fd);
		/* Records that went to the other log before a switch are
		 * synced by the compaction, first. */
		if (job) {
			g_mutex_lock(&st->job_lock);
			finish_compaction(st, false);
			g_mutex_unlock(&st->job_lock);
		}
		g_mutex_lock(&st->sync_lock);
	}
	g_mutex_unlock(&st->sync_lock);
	return NULL;
}

void state_sync_start(struct cg_state *st)
{
	st->sync_thread = g_thread_new("cgfused-state", sync_main, st);
}

/* Opening. */

/* Log i, which must be cgfused's (state_file.h), opened or made. Emptied
 * after a snapshot's rename: beside a snapshot, an empty log (or zeros)
 * is what a crash there leaves. Without a snapshot, a new log is never
 * empty (an empty log there would be nobody's): it gets the header of
 * generation i, which replays as nothing. */
static int open_log(struct cg_state *st, int i, bool snapshot, GError **err)
{
	bool created;
	int fd = state_file_open_rw(&st->dir, st->log_name[i], STATE_LOG_MAGIC, snapshot,
				    &created, err);

	if (fd < 0)
		return -1;
	st->logs[i].fd = fd;
	if (created && !snapshot) {
		GString *head = g_string_new(NULL);
		int ret;

		log_header(head, (uint64_t)i);
		ret = state_file_write_all(fd, head->str, head->len);
		g_string_free(head, TRUE);
		if (ret < 0) {
			g_set_error(err, G_FILE_ERROR, g_file_error_from_errno(-ret),
				    "cannot write state log %s: %s", st->log_path[i],
				    g_strerror(-ret));
			return -1;
		}
	}
	return 0;
}

/* The directory, checked, and the files in it, which must be cgfused's
 * (state_file.h). The logs are ours (to write and trim) only once FILE.log
 * is locked: a log another daemon holds is closed again at once, and
 * FILE.log2 is not touched. */
static int open_files(struct cg_state *st, const char *path, GError **err)
{
	int snapshot;

	if (g_str_has_suffix(path, "/")) {
		g_set_error(err, G_FILE_ERROR, G_FILE_ERROR_ISDIR, "state file %s names a "
			    "directory: name a file in it", path);
		return -1;
	}
	st->name = g_path_get_basename(path);
	st->log_name[0] = g_strconcat(st->name, ".log", NULL);
	st->log_name[1] = g_strconcat(st->name, ".log2", NULL);
	st->tmp_name = g_strconcat(st->name, ".tmp", NULL);
	if (!state_dir_open(&st->dir, path, err))
		return -1;
	/* Replayed by path from here: the directory lets nobody else change
	 * what the names lead to. */
	st->path = g_build_filename(st->dir.path, st->name, NULL);
	st->log_path[0] = g_strconcat(st->path, ".log", NULL);
	st->log_path[1] = g_strconcat(st->path, ".log2", NULL);
	snapshot = state_file_check(&st->dir, st->name, STATE_SNAPSHOT_MAGIC, err);
	if (snapshot < 0)
		return -1;
	/* One a crash left is unlinked at the first compaction; a link or
	 * anything not ours is not. */
	if (state_file_check(&st->dir, st->tmp_name, NULL, err) < 0)
		return -1;
	if (open_log(st, 0, snapshot, err) < 0)
		return -1;
	if (flock(st->logs[0].fd, LOCK_EX | LOCK_NB) < 0) {
		int e = errno;

		close(st->logs[0].fd);
		st->logs[0].fd = -1;
		g_set_error(err, G_FILE_ERROR, g_file_error_from_errno(e),
			    e == EWOULDBLOCK ? "state file %s is in use by another cgfused "
			    "(each daemon needs its own: -o state=FILE)" : "cannot lock %s: %s",
			    st->path, g_strerror(e));
		return -1;
	}
	return open_log(st, 1, snapshot, err);
}

/* Said only when something was left out: a normal start is quiet. */
static void report_load(const struct cg_state *st, const struct state_load *load)
{
	GString *what = g_string_new(NULL);

	if (load->torn)
		g_string_append(what, "; a torn or damaged line (and what followed) ignored");
	if (load->log_ignored)
		g_string_append(what, "; a log of another generation ignored");
	if (load->tasks_ignored)
		g_string_append(what, "; members not restored: the machine rebooted");
	if (what->len)
		g_message("state %s: %u records applied, %u refused%s", st->path, load->applied,
			  load->refused, what->str);
	g_string_free(what, TRUE);
}

/* At start-up, under the lock, before anyone can change the core or wait
 * for it (no mount served yet): the replayed state as the snapshot of the
 * next generation, then FILE.log emptied as its log and FILE.log2 as the
 * next one. Until the rename the older files stand; after it, logs of
 * older generations are ignored. */
static int first_snapshot(struct cg_core *core, void *data)
{
	struct cg_state *st = data;
	unsigned nr;
	GString *snap = serialise(st, ++st->generation, &nr);
	int ret = write_snapshot(st, snap);

	(void)core;
	g_string_free(snap, TRUE);
	if (ret == 0)
		ret = reset_log(st, 0, st->generation);
	if (ret == 0)
		ret = reset_log(st, 1, st->generation + 1);
	if (ret)
		return ret;
	st->cur = 0;
	st->next_ready = 1;
	st->snapshot_records = (gint)nr;
	st->compact_at = MAX(STATE_COMPACT_MIN, STATE_COMPACT_RATIO * nr);
	return 0;
}

struct cg_state *state_open(struct cg_core *core, const char *path, const char *boot_id,
			    GError **err)
{
	struct cg_state *st = g_new0(struct cg_state, 1);
	struct state_load load = { 0 };
	int ret;

	st->core = core;
	st->logs[0].fd = st->logs[1].fd = -1;
	st->buf = g_string_sized_new(4096);
	st->group = g_string_new(NULL);
	st->dir.fd = -1;
	st->boot_id = boot_id ? g_strdup(boot_id) : state_boot_id();
	g_mutex_init(&st->sync_lock);
	g_mutex_init(&st->job_lock);
	g_cond_init(&st->sync_cond);
	st->sub = (struct cg_subscriber){
		.data = st, .prepare = on_prepare, .mkdir = on_mkdir,
		.removing = on_removing, .rmdir = on_rmdir, .rename = on_rename,
		.write = on_write, .setattr = on_setattr, .attach = on_attach, .fork = on_fork,
		.exit = on_task_exit, .stat = on_stat,
	};
	if (open_files(st, path, err) < 0) {
		state_free(st);
		return NULL;
	}
	ret = state_replay(core, st->path, st->boot_id, &load);
	if (ret < 0) {
		const char *file = load.bad_log ? st->log_path[load.bad_log - 1] : st->path;

		if (ret == -EBADMSG)
			g_set_error(err, G_FILE_ERROR, G_FILE_ERROR_INVAL, "%s is not a cgfused "
				    "state file (or is damaged); left as it is: move it away or "
				    "choose another with -o state=FILE", file);
		else
			g_set_error(err, G_FILE_ERROR, g_file_error_from_errno(-ret),
				    "cannot read state %s: %s", file, g_strerror(-ret));
		state_free(st);
		return NULL;
	}
	st->generation = load.generation;
	report_load(st, &load);
	/* Logging starts with the snapshot: no change falls between. */
	ret = cg_subscribe_after(core, &st->sub, first_snapshot, st);
	if (ret < 0) {
		g_set_error(err, G_FILE_ERROR, g_file_error_from_errno(-ret),
			    "cannot write state %s: %s", path, g_strerror(-ret));
		state_free(st);
		return NULL;
	}
	/* What the replay and the first snapshot freed (the id map, the
	 * snapshot's text) is left resident inside malloc's arena: give the
	 * whole free pages back. */
	malloc_trim(0);
	return st;
}

struct start {
	struct cg_state *st;
	bool started;
};

static void start_locked(struct cg_core *core, void *data)
{
	struct start *s = data;

	task_catch_up(core);		/* exited members are not saved */
	s->started = start_compaction(s->st);
}

/* The core serialised under its lock, written outside it; a compaction
 * still being written is finished first (job_lock keeps the sync thread
 * out meanwhile; a hook may start another in between, finished in turn). */
int state_snapshot(struct cg_state *st)
{
	struct start s = { st, false };
	int ret;

	g_mutex_lock(&st->job_lock);
	do {
		ret = finish_compaction(st, false);
		if (ret)
			break;
		task_pull_if_pending(st->core);
		cg_core_write(st->core, start_locked, &s);
	} while (!s.started);
	if (ret == 0)
		ret = finish_compaction(st, false);
	g_mutex_unlock(&st->job_lock);
	return ret;
}

void state_free(struct cg_state *st)
{
	if (st->sync_thread) {
		g_mutex_lock(&st->sync_lock);
		st->stop = true;
		g_cond_signal(&st->sync_cond);
		g_mutex_unlock(&st->sync_lock);
		g_thread_join(st->sync_thread);
	}
	cg_unsubscribe(st->core, &st->sub);
	/* FILE.log last: its lock goes with it. */
	for (int i = 1; i >= 0; i--) {
		if (st->logs[i].fd < 0)
			continue;
		/* The log's zero tail goes; if it cannot, the reader stops at it. */
		if (state_log_close(&st->logs[i]) < 0)
			g_warning("state: cannot trim %s", st->log_path[i]);
		close(st->logs[i].fd);
	}
	if (st->pending)
		g_string_free(st->pending, TRUE);	/* unwritten, as kill -9 leaves it */
	if (st->build)
		snap_build_free(st->build);
	g_mutex_clear(&st->sync_lock);
	g_mutex_clear(&st->job_lock);
	g_cond_clear(&st->sync_cond);
	g_string_free(st->buf, TRUE);
	g_string_free(st->group, TRUE);
	g_free(st->boot_id);
	state_dir_close(&st->dir);
	g_free(st->tmp_name);
	for (int i = 0; i < 2; i++) {
		g_free(st->log_name[i]);
		g_free(st->log_path[i]);
	}
	g_free(st->name);
	g_free(st->path);
	g_free(st);
}

/* The records a snapshot of core holds, header aside. */
static void snapshot_body_locked(struct cg_core *core, void *data)
{
	unsigned nr = 0;

	snap_groups(data, core, &nr);
	snap_tasks(data, core, &nr);
}

static GString *snapshot_body(struct cg_core *core)
{
	GString *out = g_string_new(NULL);

	cg_core_write(core, snapshot_body_locked, out);
	return out;
}

bool state_remove_if_pristine(struct cg_state *st, struct cg_core *fresh)
{
	GString *now = snapshot_body(st->core), *then = snapshot_body(fresh);
	bool pristine = g_string_equal(now, then);

	g_string_free(now, TRUE);
	g_string_free(then, TRUE);
	/* Still ours (FILE.log's lock is held): the logs first, so that a
	 * crash in between leaves a snapshot that stands alone. */
	if (pristine && ((unlinkat(st->dir.fd, st->log_name[1], 0) < 0 && errno != ENOENT) ||
			 unlinkat(st->dir.fd, st->log_name[0], 0) < 0 ||
			 unlinkat(st->dir.fd, st->name, 0) < 0))
		g_warning("state: cannot remove %s: %s", st->path, g_strerror(errno));
	return pristine;
}

unsigned state_log_records(const struct cg_state *st)
{
	return st->log_records;
}

unsigned state_snapshot_records(const struct cg_state *st)
{
	return (unsigned)g_atomic_int_get(&st->snapshot_records);
}
