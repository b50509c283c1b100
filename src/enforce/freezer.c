/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The freezer's enforcer: see enforce/freezer.h. */
#include "enforce/freezer.h"

#include <errno.h>
#include <string.h>
#include <stdatomic.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "core/notify.h"
#include "core/task_watch.h"
#include "ctl/ctl.h"
#include "ctl/freezer.h"

/* A thread to freeze, as copied under the lock. */
struct frozen_want {
	pid_t tid;
	struct task_ident ident;
};

/* A thread this enforcer traces. */
struct tracee {
	pid_t tid;
	uint64_t ino;
	bool stopped;			/* its stop was reported */
	bool confirmed;			/* told to the controller */
	bool wanted;			/* this pass: still to be frozen */
	int sig;			/* to give back when resumed */
};

struct freezer_enforcer {
	struct cg_core *core;
	struct cg_subscriber sub;
	const struct cg_file *state_file;	/* freezer.state, to tell its writes */
	struct freezer_confirm *fc;
	/* Set under the core lock by the subscriber. */
	atomic_bool stale;		/* what is to be frozen may have changed */
	atomic_uint nr_traced;		/* the thread's count, for the subscriber */
	atomic_bool exited;		/* a tracked thread exited: maybe a tracee */
	int kick_fd;
	atomic_bool kicked;
	/* The thread's own. */
	GArray *want;			/* struct frozen_want */
	GHashTable *tracees;		/* tid -> struct tracee * */
	GHashTable *refused;		/* tid -> ino: not traceable when tried */
	struct freezer_stats st;
	/* What cgfused.stat shows. */
	GMutex shown_lock;		/* after the core lock */
	struct freezer_stats shown;
};

int freezer_kick_fd(struct freezer_enforcer *fe)
{
	return fe->kick_fd;
}

static void kick(struct freezer_enforcer *fe)
{
	uint64_t one = 1;

	atomic_store(&fe->stale, true);
	if (atomic_exchange(&fe->kicked, true))
		return;
	if (write(fe->kick_fd, &one, sizeof(one)) < 0)
		g_warning("freezer: cannot wake: %s", g_strerror(errno));
}

void freezer_kick_clear(struct freezer_enforcer *fe)
{
	uint64_t n;

	atomic_store(&fe->kicked, false);
	if (read(fe->kick_fd, &n, sizeof(n)) < 0 && errno != EAGAIN)
		g_warning("freezer: %s", g_strerror(errno));
}

/* ---- the core's events, under its lock: record and kick --------------- */

/* Whether a change of memberships may matter: a group freezes, or a
 * thread is traced (it may have moved out). */
static bool relevant(struct freezer_enforcer *fe)
{
	return freezer_any_freezing(fe->fc) || atomic_load(&fe->nr_traced) > 0;
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

static void on_task_exit(void *data, struct task *t)
{
	struct freezer_enforcer *fe = data;

	(void)t;
	if (atomic_load(&fe->nr_traced) > 0) {
		atomic_store(&fe->exited, true);
		kick(fe);
	}
}

static void on_changed(void *data, struct cgroup *cgrp, unsigned file)
{
	struct freezer_enforcer *fe = data;

	if (file < cgrp->root->files->len &&
	    g_ptr_array_index(cgrp->root->files, file) == fe->state_file)
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

/* The threads to freeze now, after the kernel's reports are taken in (a
 * child forked in a frozen group is then in it). */
static void copy_wanted(struct freezer_enforcer *fe)
{
	unsigned slot;

	cg_catch_up_if_pending(fe->core);
	if (!atomic_exchange(&fe->stale, false))
		return;
	g_array_set_size(fe->want, 0);
	slot = cg_read_lock(&fe->core->lock);
	freezer_for_each_frozen_task(fe->fc, add_want, fe->want);
	cg_read_unlock(&fe->core->lock, slot);
}

static void drop(struct freezer_enforcer *fe, struct tracee *t)
{
	if (t->confirmed)
		freezer_confirm_gone(fe->fc, t->tid);
	g_hash_table_remove(fe->tracees, GINT_TO_POINTER(t->tid));
	atomic_store(&fe->nr_traced, g_hash_table_size(fe->tracees));
}

/* Takes in every stop and exit the kernel reports. */
static void take_reports(struct freezer_enforcer *fe)
{
	struct kfacade *kf = fe->core->kf;
	struct trace_report r;

	while (kf->ops->trace_report(kf, &r) > 0) {
		struct tracee *t = g_hash_table_lookup(fe->tracees, GINT_TO_POINTER(r.tid));

		if (!t)
			continue;
		if (r.what == TRACE_GONE) {
			drop(fe, t);
			continue;
		}
		t->stopped = true;
		t->sig = r.sig;
	}
}

static void thaw(struct freezer_enforcer *fe, struct tracee *t)
{
	struct kfacade *kf = fe->core->kf;

	kf->ops->trace_thaw(kf, t->tid, t->sig);
	fe->st.thaws++;
	drop(fe, t);
}

static void freeze(struct freezer_enforcer *fe, const struct frozen_want *w, bool recheck)
{
	struct kfacade *kf = fe->core->kf;
	gpointer refused_ino;
	struct tracee *t;
	int ret;

	if (g_hash_table_lookup_extended(fe->refused, GINT_TO_POINTER(w->tid), NULL,
					 &refused_ino) &&
	    GPOINTER_TO_SIZE(refused_ino) == w->ident.ino && !recheck)
		return;
	/* The id may be another thread's by now: the facade's identity. */
	if (!kf->ops->task_alive(kf, w->tid, &w->ident))
		return;
	ret = kf->ops->trace_freeze(kf, w->tid);
	if (ret == -EPERM) {
		g_hash_table_insert(fe->refused, GINT_TO_POINTER(w->tid),
				    GSIZE_TO_POINTER(w->ident.ino));
		return;
	}
	g_hash_table_remove(fe->refused, GINT_TO_POINTER(w->tid));
	if (ret < 0)
		return;
	t = g_new0(struct tracee, 1);
	t->tid = w->tid;
	t->ino = w->ident.ino;
	t->wanted = true;
	g_hash_table_insert(fe->tracees, GINT_TO_POINTER(t->tid), t);
	atomic_store(&fe->nr_traced, g_hash_table_size(fe->tracees));
	fe->st.freezes++;
}

static void publish(struct freezer_enforcer *fe)
{
	GHashTableIter iter;
	struct tracee *t;

	fe->st.frozen = fe->st.freezing = 0;
	g_hash_table_iter_init(&iter, fe->tracees);
	while (g_hash_table_iter_next(&iter, NULL, (gpointer *)&t)) {
		if (t->stopped && !t->confirmed) {
			freezer_confirm_stopped(fe->fc, t->tid, t->ino);
			t->confirmed = true;
		}
		if (t->stopped)
			fe->st.frozen++;
		else
			fe->st.freezing++;
	}
	fe->st.refused = g_hash_table_size(fe->refused);
	g_mutex_lock(&fe->shown_lock);
	fe->shown = fe->st;
	g_mutex_unlock(&fe->shown_lock);
}

/* Forgets refusals of threads no more to be frozen. */
static void prune_refused(struct freezer_enforcer *fe)
{
	GHashTable *wanted;
	GHashTableIter iter;
	gpointer tid;

	if (!g_hash_table_size(fe->refused))
		return;
	wanted = g_hash_table_new(NULL, NULL);
	for (guint i = 0; i < fe->want->len; i++)
		g_hash_table_add(wanted, GINT_TO_POINTER(
			g_array_index(fe->want, struct frozen_want, i).tid));
	g_hash_table_iter_init(&iter, fe->refused);
	while (g_hash_table_iter_next(&iter, &tid, NULL))
		if (!g_hash_table_contains(wanted, tid))
			g_hash_table_iter_remove(&iter);
	g_hash_table_unref(wanted);
}

bool freezer_pass(struct freezer_enforcer *fe, bool recheck)
{
	GPtrArray *leaving = g_ptr_array_new();
	GHashTableIter iter;
	struct tracee *t;

	fe->st.passes++;
	take_reports(fe);
	copy_wanted(fe);
	g_hash_table_iter_init(&iter, fe->tracees);
	while (g_hash_table_iter_next(&iter, NULL, (gpointer *)&t))
		t->wanted = false;
	for (guint i = 0; i < fe->want->len; i++) {
		const struct frozen_want *w = &g_array_index(fe->want, struct frozen_want, i);

		t = g_hash_table_lookup(fe->tracees, GINT_TO_POINTER(w->tid));
		if (t)
			t->wanted = t->ino == w->ident.ino;
		else
			freeze(fe, w, recheck);
	}
	prune_refused(fe);
	take_reports(fe);	/* the stops that came meanwhile */
	/* Those that left (a thawed group, a move out) are resumed once
	 * stopped; one still on its way to a stop, at a later pass. */
	g_hash_table_iter_init(&iter, fe->tracees);
	while (g_hash_table_iter_next(&iter, NULL, (gpointer *)&t))
		if (!t->wanted && t->stopped)
			g_ptr_array_add(leaving, t);
	for (guint i = 0; i < leaving->len; i++)
		thaw(fe, leaving->pdata[i]);
	g_ptr_array_unref(leaving);
	publish(fe);
	/* The kernel reports an exit before the thread is a zombie that its
	 * tracer can reap (and only then is its parent told): look again. */
	return fe->st.freezing > 0 || atomic_exchange(&fe->exited, false);
}

bool freezer_tracing(struct freezer_enforcer *fe)
{
	return g_hash_table_size(fe->tracees) != 0;
}

void freezer_release_all(struct freezer_enforcer *fe, unsigned timeout_ms)
{
	gint64 end = g_get_monotonic_time() + (gint64)timeout_ms * 1000;

	g_array_set_size(fe->want, 0);
	for (;;) {
		GPtrArray *stopped = g_ptr_array_new();
		GHashTableIter iter;
		struct tracee *t;

		take_reports(fe);
		g_hash_table_iter_init(&iter, fe->tracees);
		while (g_hash_table_iter_next(&iter, NULL, (gpointer *)&t))
			if (t->stopped)
				g_ptr_array_add(stopped, t);
		for (guint i = 0; i < stopped->len; i++)
			thaw(fe, stopped->pdata[i]);
		g_ptr_array_unref(stopped);
		if (!g_hash_table_size(fe->tracees) || g_get_monotonic_time() >= end)
			break;
		g_usleep(FREEZER_POLL_MS * 1000);
	}
	publish(fe);
}

const struct freezer_stats *freezer_stats(struct freezer_enforcer *fe)
{
	return &fe->st;
}

/* freezer.state of the hierarchy that has the freezer, or NULL. */
static const struct cg_file *state_file(struct cg_core *core, struct freezer_confirm **fc)
{
	for (guint r = 0; r < core->roots->len; r++) {
		struct cg_root *root = core->roots->pdata[r];

		for (guint i = 0; i < root->files->len; i++) {
			const struct cg_file *f = root->files->pdata[i];

			if (f->ss == &freezer_cgrp_subsys && strcmp(f->name, "freezer.state") == 0) {
				*fc = freezer_confirm_of(root->top->subsys[f->ssid]);
				return f;
			}
		}
	}
	return NULL;
}

struct freezer_enforcer *freezer_enforcer_new(struct cg_core *core)
{
	struct freezer_confirm *fc = NULL;
	const struct cg_file *f = state_file(core, &fc);
	struct freezer_enforcer *fe;

	if (!f)
		return NULL;
	fe = g_new0(struct freezer_enforcer, 1);
	fe->core = core;
	fe->state_file = f;
	fe->fc = fc;
	fe->kick_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	fe->want = g_array_new(FALSE, FALSE, sizeof(struct frozen_want));
	fe->tracees = g_hash_table_new_full(NULL, NULL, NULL, g_free);
	fe->refused = g_hash_table_new(NULL, NULL);
	g_mutex_init(&fe->shown_lock);
	atomic_store(&fe->stale, true);	/* a restored state may freeze already */
	fe->sub = (struct cg_subscriber){
		.data = fe, .attach = on_attach, .fork = on_fork, .exit = on_task_exit,
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
	/* Any left were set free by the kernel when the thread ended. */
	g_hash_table_unref(fe->tracees);
	g_hash_table_unref(fe->refused);
	g_array_unref(fe->want);
	g_mutex_clear(&fe->shown_lock);
	close(fe->kick_fd);
	g_free(fe);
}
