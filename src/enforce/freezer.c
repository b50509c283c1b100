/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The freezer's enforcer: see enforce/freezer.h. */
#include "enforce/freezer.h"

#include <errno.h>
#include <string.h>
#include <stdatomic.h>

#include "core/core_call.h"
#include "core/css_set.h"
#include "core/notify.h"
#include "core/task.h"
#include "core/task_catch_up.h"
#include "ctl/ctl.h"
#include "ctl/freezer.h"
#include "lib/kick.h"

/* A thread to freeze, as copied under the lock. */
struct frozen_want {
	pid_t tid;
	struct task_ident ident;
};

struct freezer_enforcer {
	struct cg_core *core;
	struct tracees *tr;
	struct cg_subscriber sub;
	/* freezer.state (v1) or cgroup.freeze (v2), to tell its writes */
	const struct cg_file *state_file;
	struct freezer_confirm *fc;	/* v1: the controller's */
	struct cgroup *v2_top;		/* v2: the hierarchy's root */
	atomic_bool v2_freezing;	/* v2: a group has cgroup.freeze 1 */
	bool v2_shown;			/* v2: a group's events show frozen 1 */
	/* Set under the core lock by the subscriber. */
	atomic_bool stale;		/* what is to be frozen may have changed */
	atomic_bool exited;		/* a tracked thread exited: maybe a tracee */
	struct kick kick;
	/* The thread's own. */
	GArray *want;			/* struct frozen_want */
	GHashTable *confirmed;		/* tid -> ino: told to the controller */
	GHashTable *stopped;		/* this pass: tid -> ino, stopped for us */
	GHashTable *slow, *slow_next;	/* tids wanted and not stopped at a publish */
	struct freezer_stats st;
	/* What cgfused.stat shows. */
	GMutex shown_lock;		/* after the core lock */
	struct freezer_stats shown;
};

int freezer_kick_fd(struct freezer_enforcer *fe)
{
	return kick_fd(&fe->kick);
}

void freezer_kick_clear(struct freezer_enforcer *fe)
{
	kick_clear(&fe->kick);
}

static void kick(struct freezer_enforcer *fe)
{
	atomic_store(&fe->stale, true);
	kick_wake(&fe->kick);
}

/* ---- the core's events, under its lock: record and kick --------------- */

/* Whether a change of memberships may matter: a group freezes, or a
 * thread is traced (it may have moved out). */
static bool relevant(struct freezer_enforcer *fe)
{
	return (fe->fc ? freezer_any_freezing(fe->fc) : atomic_load(&fe->v2_freezing)) ||
	       tracees_nr_held(fe->tr, TRACEE_FROZEN);
}

static void on_attach(void *data, struct task *const *tasks, unsigned n,
		      const struct cg_root *root)
{
	(void)tasks;
	(void)n;
	(void)root;
	if (relevant(data))
		kick(data);
}

/* A child forked in a frozen group is frozen on sight. */
static void on_fork(void *data, struct task *parent, struct task *child)
{
	(void)parent;
	(void)child;
	if (relevant(data))
		kick(data);
}

/* v2: a new group of a frozen one shows frozen at once. */
static void on_mkdir(void *data, struct cgroup *cgrp)
{
	(void)cgrp;
	if (relevant(data))
		kick(data);
}

static void on_task_exit(void *data, struct task *t)
{
	struct freezer_enforcer *fe = data;

	(void)t;
	if (tracees_nr_held(fe->tr, TRACEE_FROZEN)) {
		atomic_store(&fe->exited, true);
		kick(fe);
	}
}

static void on_changed(void *data, struct cgroup *cgrp, unsigned file)
{
	struct freezer_enforcer *fe = data;

	if (file < cg_root_nr_files(cgrp->root) &&
	    cg_root_file(cgrp->root, file) == fe->state_file)
		kick(fe);
}

static void on_stat(void *data, GString *out)
{
	struct freezer_enforcer *fe = data;
	struct freezer_stats st;

	g_mutex_lock(&fe->shown_lock);
	st = fe->shown;
	g_mutex_unlock(&fe->shown_lock);
	g_string_append_printf(out,
		"freezer_frozen_threads %u\n"
		"freezer_freezing_threads %u\n"
		"freezer_refused_threads %u\n"
		"freezer_passes %" G_GUINT64_FORMAT "\n"
		"freezer_freezes %" G_GUINT64_FORMAT "\n"
		"freezer_thaws %" G_GUINT64_FORMAT "\n",
		st.frozen, st.freezing, st.refused, st.passes, st.freezes, st.thaws);
}

/* ---- passes, on the enforcer's thread ---------------------------------- */

static void add_want(void *data, pid_t tid, const struct task_ident *id)
{
	struct frozen_want w = { tid, *id };

	g_array_append_val((GArray *)data, w);
}

/* v2: every thread of the subtrees whose group or an ancestor has
 * cgroup.freeze 1 (read-locked). Returns whether any has. */
static bool v2_wanted(struct cgroup *cgrp, bool freeze, GArray *want)
{
	GHashTableIter iter;
	struct cgroup *child;
	bool any = cgrp->freeze;

	freeze |= cgrp->freeze;
	for (GList *l = freeze ? cgrp->csets.head : NULL; l; l = l->next) {
		struct task *t;

		css_set_for_each_task(t, (struct css_set *)l->data)
			add_want(want, t->tid, &t->ident);
	}
	cgroup_for_each_child(child, &iter, cgrp)
		any |= v2_wanted(child, freeze, want);
	return any;
}

/* The threads to freeze now, after the kernel's reports are taken in (a
 * child forked in a frozen group is then in it). */
static void copy_wanted_locked(struct cg_core *core, void *data)
{
	struct freezer_enforcer *fe = data;

	(void)core;
	if (fe->fc)
		freezer_for_each_frozen_task(fe->fc, add_want, fe->want);
	else
		atomic_store(&fe->v2_freezing, v2_wanted(fe->v2_top, false, fe->want));
}

static void copy_wanted(struct freezer_enforcer *fe)
{
	cg_catch_up_if_pending(fe->core);
	if (!atomic_exchange(&fe->stale, false))
		return;
	g_array_set_size(fe->want, 0);
	cg_core_read(fe->core, copy_wanted_locked, fe);
}

/* v2: cgroup.events' frozen of cgrp and below, as the kernel's
 * cgroup_update_frozen() has it: the group freezes (it or an ancestor has
 * cgroup.freeze 1) and every thread of its subtree is stopped for it. A
 * change wakes poll() (read-locked: the flag and the count are atomic).
 * Returns cgrp's. */
static bool v2_update_frozen(struct freezer_enforcer *fe, struct cgroup *cgrp, bool freeze)
{
	GHashTableIter iter;
	struct cgroup *child;
	bool frozen;

	freeze |= cgrp->freeze;
	frozen = freeze;
	for (GList *l = freeze ? cgrp->csets.head : NULL; l; l = l->next) {
		struct task *t;

		css_set_for_each_task(t, (struct css_set *)l->data)
			if (g_hash_table_lookup(fe->confirmed, GINT_TO_POINTER(t->tid)) !=
			    GSIZE_TO_POINTER(t->ident.ino))
				frozen = false;
	}
	cgroup_for_each_child(child, &iter, cgrp)
		frozen &= v2_update_frozen(fe, child, freeze);
	if (cgrp->parent && atomic_exchange(&cgrp->frozen, frozen) != frozen) {
		atomic_fetch_add(&cgrp->events_seq, 1);
		cg_notify_frozen(fe->core, cgrp, frozen);
	}
	fe->v2_shown |= frozen;
	return frozen;
}

static void v2_publish_locked(struct cg_core *core, void *data)
{
	struct freezer_enforcer *fe = data;

	(void)core;
	v2_update_frozen(fe, fe->v2_top, false);
}

static void v2_publish(struct freezer_enforcer *fe)
{
	if (!atomic_load(&fe->v2_freezing) && !fe->v2_shown)
		return;
	fe->v2_shown = false;
	cg_core_read(fe->core, v2_publish_locked, fe);
}

static void note_stopped(void *data, pid_t tid, uint64_t ino)
{
	g_hash_table_insert(data, GINT_TO_POINTER(tid), GSIZE_TO_POINTER(ino));
}

/* A thread waiting in vfork() for its child cannot stop before the child
 * execs or exits; the kernel counts it frozen (wait_for_vfork_done() is a
 * freezable sleep inside cgroup_enter_frozen()), and so is it here. Asked
 * of a thread that was not stopped at the last publish either, so that a
 * freeze's first pass reads nothing of threads about to stop. */
static void note_vfork_waiters(struct freezer_enforcer *fe)
{
	struct kfacade *kf = cg_core_kf(fe->core);
	GHashTable *t;

	for (guint i = 0; i < fe->want->len; i++) {
		const struct frozen_want *w = &g_array_index(fe->want, struct frozen_want, i);
		gpointer tid = GINT_TO_POINTER(w->tid);

		if (g_hash_table_contains(fe->stopped, tid))
			continue;
		if (g_hash_table_contains(fe->slow, tid) &&
		    kf->ops->task_in_vfork(kf, w->tid, &w->ident))
			note_stopped(fe->stopped, w->tid, w->ident.ino);
		g_hash_table_add(fe->slow_next, tid);
	}
	t = fe->slow;
	fe->slow = fe->slow_next;
	fe->slow_next = t;
	g_hash_table_remove_all(fe->slow_next);
}

/* Tells the controller which threads stopped for it, and which no more
 * are (thawed, moved out, gone). */
static void publish(struct freezer_enforcer *fe)
{
	struct tracees_count c;
	GHashTableIter iter;
	gpointer tid, ino;

	g_hash_table_remove_all(fe->stopped);
	tracees_for_each_stopped(fe->tr, TRACEE_FROZEN, note_stopped, fe->stopped);
	note_vfork_waiters(fe);
	g_hash_table_iter_init(&iter, fe->confirmed);
	while (g_hash_table_iter_next(&iter, &tid, &ino))
		if (g_hash_table_lookup(fe->stopped, tid) != ino) {
			if (fe->fc)
				freezer_confirm_gone(fe->fc, GPOINTER_TO_INT(tid));
			g_hash_table_iter_remove(&iter);
			fe->st.thaws++;
		}
	g_hash_table_iter_init(&iter, fe->stopped);
	while (g_hash_table_iter_next(&iter, &tid, &ino))
		if (!g_hash_table_contains(fe->confirmed, tid)) {
			if (fe->fc)
				freezer_confirm_stopped(fe->fc, GPOINTER_TO_INT(tid),
							GPOINTER_TO_SIZE(ino));
			g_hash_table_insert(fe->confirmed, tid, ino);
			fe->st.freezes++;
		}
	tracees_count(fe->tr, TRACEE_FROZEN, &c);
	fe->st.frozen = c.stopped;
	fe->st.freezing = c.stopping;
	fe->st.refused = c.refused;
	if (!fe->fc)
		v2_publish(fe);
	g_mutex_lock(&fe->shown_lock);
	fe->shown = fe->st;
	g_mutex_unlock(&fe->shown_lock);
}

bool freezer_pass(struct freezer_enforcer *fe, bool recheck)
{
	fe->st.passes++;
	tracees_take_reports(fe->tr);
	copy_wanted(fe);
	tracees_begin(fe->tr, TRACEE_FROZEN);
	for (guint i = 0; i < fe->want->len; i++) {
		const struct frozen_want *w = &g_array_index(fe->want, struct frozen_want, i);

		tracees_hold(fe->tr, w->tid, &w->ident, TRACEE_FROZEN, recheck);
	}
	/* Those that left (a thawed group, a move out) are resumed once
	 * stopped, unless throttled; one still on its way to a stop, at a
	 * later pass. */
	tracees_end(fe->tr, TRACEE_FROZEN);
	publish(fe);
	/* The kernel reports an exit before the thread is a zombie that its
	 * tracer can reap (and only then is its parent told): look again. */
	return tracees_stopping(fe->tr) || atomic_exchange(&fe->exited, false);
}

bool freezer_refusing(struct freezer_enforcer *fe)
{
	return fe->st.refused != 0;
}

const struct freezer_stats *freezer_stats(struct freezer_enforcer *fe)
{
	return &fe->st;
}

/* freezer.state of the hierarchy that has the freezer (its record in
 * *fc), or the default hierarchy's cgroup.freeze (its root in *v2_top);
 * NULL when neither is mounted. */
static const struct cg_file *state_file(struct cg_core *core, struct freezer_confirm **fc,
					struct cgroup **v2_top)
{
	for (guint r = 0; r < cg_core_nr_roots(core); r++) {
		struct cg_root *root = cg_core_root(core, r);

		for (guint i = 0; i < cg_root_nr_files(root); i++) {
			const struct cg_file *f = cg_root_file(root, i);

			if (f->ss == &freezer_cgrp_subsys && strcmp(f->name, "freezer.state") == 0) {
				*fc = freezer_confirm_of(cg_root_top(root)->subsys[f->ssid]);
				return f;
			}
			if (cg_root_dfl(root) && strcmp(f->name, "cgroup.freeze") == 0) {
				*v2_top = cg_root_top(root);
				return f;
			}
		}
	}
	return NULL;
}

struct freezer_enforcer *freezer_enforcer_new(struct cg_core *core, struct tracees *tr)
{
	struct freezer_confirm *fc = NULL;
	struct cgroup *v2_top = NULL;
	const struct cg_file *f = state_file(core, &fc, &v2_top);
	struct freezer_enforcer *fe;

	if (!f)
		return NULL;
	fe = g_new0(struct freezer_enforcer, 1);
	fe->core = core;
	fe->tr = tr;
	fe->state_file = f;
	fe->fc = fc;
	fe->v2_top = v2_top;
	if (kick_init(&fe->kick, "freezer") < 0)
		g_warning("freezer: no eventfd: %s", g_strerror(errno));
	fe->want = g_array_new(FALSE, FALSE, sizeof(struct frozen_want));
	fe->confirmed = g_hash_table_new(NULL, NULL);
	fe->stopped = g_hash_table_new(NULL, NULL);
	fe->slow = g_hash_table_new(NULL, NULL);
	fe->slow_next = g_hash_table_new(NULL, NULL);
	g_mutex_init(&fe->shown_lock);
	atomic_store(&fe->stale, true);	/* a restored state may freeze already */
	fe->sub = (struct cg_subscriber){
		.data = fe, .attach = on_attach, .fork = on_fork, .exit = on_task_exit,
		.mkdir = on_mkdir,
		.changed = on_changed, .stat = on_stat,
	};
	cg_subscribe(core, &fe->sub);
	return fe;
}

void freezer_enforcer_free(struct freezer_enforcer *fe)
{
	if (!fe)
		return;
	cg_unsubscribe(fe->core, &fe->sub);
	g_hash_table_unref(fe->confirmed);
	g_hash_table_unref(fe->stopped);
	g_hash_table_unref(fe->slow);
	g_hash_table_unref(fe->slow_next);
	g_array_unref(fe->want);
	g_mutex_clear(&fe->shown_lock);
	kick_destroy(&fe->kick);
	g_free(fe);
}
