/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The state's subscriber (core/notify.h): each change's record appended
 * to the mapped log under the core lock, and its cgfused.stat lines. */
#include "state/state_internal.h"

#include <inttypes.h>
#include <stdatomic.h>
#include <string.h>

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
void append(struct cg_state *st, GString *recs, unsigned nr)
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
	return 128 + 3 * strlen(cg_root_name(cgrp->root));
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
		const struct cg_file *f = cg_root_file(change->cgrp->root, change->file);

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
	for (guint r = 0; r < cg_core_nr_roots(st->core); r++) {
		const struct cg_root *rt = cg_core_root(st->core, r);

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

struct cg_subscriber state_subscriber(struct cg_state *st)
{
	return (struct cg_subscriber){
		.data = st, .prepare = on_prepare, .mkdir = on_mkdir,
		.removing = on_removing, .rmdir = on_rmdir, .rename = on_rename,
		.write = on_write, .setattr = on_setattr, .attach = on_attach, .fork = on_fork,
		.exit = on_task_exit, .stat = on_stat,
	};
}
