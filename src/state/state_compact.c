/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The state's compaction: a snapshot of the core built in steps under
 * the lock, the switch of logs, and its writing outside the lock. */
#include "state/state_internal.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <unistd.h>

void (*state_step_hook)(const char *step);

/* Where a compaction's writing has got to (for tests that crash there). */
void step(const char *name)
{
	if (state_step_hook)
		state_step_hook(name);
}

/* Called locked: the whole state, as a snapshot of generation gen (memory
 * only). Its number of records in *nr. */
GString *serialise(struct cg_state *st, uint64_t gen, unsigned *nr)
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
int write_snapshot(struct cg_state *st, const GString *snap)
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
int reset_log(struct cg_state *st, int i, uint64_t gen)
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
bool start_compaction(struct cg_state *st)
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
int finish_compaction(struct cg_state *st, bool locked)
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
