/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The threads held stopped, for every reason: see enforce/tracees.h. */
#include "enforce/tracees.h"

#include <errno.h>
#include <stdatomic.h>

#include <glib.h>

/* A thread some reason wants held. */
struct tracee {
	pid_t tid;
	uint64_t ino;
	unsigned reasons;		/* held for */
	unsigned named;			/* named by the reasons' passes under way */
	bool traced;			/* seized; else refused (a debugger has it) */
	bool stopped;			/* its stop was reported */
	int sig;			/* to give back when resumed */
};

struct tracees {
	struct kfacade *kf;
	GHashTable *by_tid;		/* tid -> struct tracee * */
	atomic_uint nr_held[TRACEE_NR_REASONS];
};

static unsigned reason_index(unsigned reason)
{
	return (unsigned)__builtin_ctz(reason);
}

struct tracees *tracees_new(struct kfacade *kf)
{
	struct tracees *tr = g_new0(struct tracees, 1);

	tr->kf = kf;
	tr->by_tid = g_hash_table_new_full(NULL, NULL, NULL, g_free);
	for (unsigned i = 0; i < TRACEE_NR_REASONS; i++)
		atomic_init(&tr->nr_held[i], 0);
	return tr;
}

void tracees_free(struct tracees *tr)
{
	if (!tr)
		return;
	g_hash_table_unref(tr->by_tid);
	g_free(tr);
}

/* The counts the subscribers read. */
static void count_held(struct tracees *tr)
{
	unsigned n[TRACEE_NR_REASONS] = { 0 };
	GHashTableIter iter;
	struct tracee *t;

	g_hash_table_iter_init(&iter, tr->by_tid);
	while (g_hash_table_iter_next(&iter, NULL, (gpointer *)&t))
		for (unsigned i = 0; i < TRACEE_NR_REASONS; i++)
			n[i] += t->traced && (t->reasons & (1u << i));
	for (unsigned i = 0; i < TRACEE_NR_REASONS; i++)
		atomic_store(&tr->nr_held[i], n[i]);
}

void tracees_take_reports(struct tracees *tr)
{
	struct trace_report r;
	bool gone = false;

	while (tr->kf->ops->trace_report(tr->kf, &r) > 0) {
		struct tracee *t = g_hash_table_lookup(tr->by_tid, GINT_TO_POINTER(r.tid));

		if (!t || !t->traced)
			continue;
		if (r.what == TRACE_GONE) {
			g_hash_table_remove(tr->by_tid, GINT_TO_POINTER(r.tid));
			gone = true;
			continue;
		}
		t->stopped = true;
		t->sig = r.sig;
	}
	if (gone)
		count_held(tr);
}

void tracees_begin(struct tracees *tr, unsigned reason)
{
	GHashTableIter iter;
	struct tracee *t;

	g_hash_table_iter_init(&iter, tr->by_tid);
	while (g_hash_table_iter_next(&iter, NULL, (gpointer *)&t))
		t->named &= ~reason;
}

/* Seizes t's thread; false when it cannot be (t stays as a refusal when
 * it is not traceable). */
static bool seize(struct tracees *tr, struct tracee *t, const struct task_ident *id)
{
	int ret;

	/* The tid may be another thread's by now: the facade's identity. */
	if (!tr->kf->ops->task_alive(tr->kf, t->tid, id))
		return false;
	ret = tr->kf->ops->trace_freeze(tr->kf, t->tid);
	t->traced = ret == 0;
	return ret == 0 || ret == -EPERM;
}

void tracees_hold(struct tracees *tr, pid_t tid, const struct task_ident *id,
		  unsigned reason, bool retry)
{
	struct tracee *t = g_hash_table_lookup(tr->by_tid, GINT_TO_POINTER(tid));

	if (t && t->ino != id->ino) {
		/* A traced thread's id is not reused before it is reaped
		 * here: this is a new thread under an old refusal. */
		if (t->traced)
			return;
		g_hash_table_remove(tr->by_tid, GINT_TO_POINTER(tid));
		t = NULL;
	}
	if (!t) {
		t = g_new0(struct tracee, 1);
		t->tid = tid;
		t->ino = id->ino;
		if (!seize(tr, t, id)) {
			g_free(t);
			return;
		}
		g_hash_table_insert(tr->by_tid, GINT_TO_POINTER(tid), t);
	} else if (!t->traced && retry && !seize(tr, t, id)) {
		g_hash_table_remove(tr->by_tid, GINT_TO_POINTER(tid));
		return;
	}
	t->reasons |= reason;
	t->named |= reason;
}

void tracees_end(struct tracees *tr, unsigned reason)
{
	GHashTableIter iter;
	struct tracee *t;

	g_hash_table_iter_init(&iter, tr->by_tid);
	while (g_hash_table_iter_next(&iter, NULL, (gpointer *)&t))
		if (!(t->named & reason))
			t->reasons &= ~reason;
	tracees_settle(tr);
}

void tracees_settle(struct tracees *tr)
{
	GHashTableIter iter;
	struct tracee *t;

	tracees_take_reports(tr);	/* the stops that came meanwhile */
	g_hash_table_iter_init(&iter, tr->by_tid);
	while (g_hash_table_iter_next(&iter, NULL, (gpointer *)&t)) {
		if (t->reasons)
			continue;
		if (!t->traced) {
			g_hash_table_iter_remove(&iter);
		} else if (t->stopped) {
			tr->kf->ops->trace_thaw(tr->kf, t->tid, t->sig);
			g_hash_table_iter_remove(&iter);
		}
	}
	count_held(tr);
}

void tracees_release_all(struct tracees *tr, unsigned timeout_ms)
{
	gint64 end = g_get_monotonic_time() + (gint64)timeout_ms * 1000;
	GHashTableIter iter;
	struct tracee *t;

	g_hash_table_iter_init(&iter, tr->by_tid);
	while (g_hash_table_iter_next(&iter, NULL, (gpointer *)&t))
		t->reasons = 0;
	for (;;) {
		tracees_settle(tr);
		if (!g_hash_table_size(tr->by_tid) || g_get_monotonic_time() >= end)
			break;
		g_usleep(1000);
	}
}

void tracees_count(struct tracees *tr, unsigned reason, struct tracees_count *c)
{
	GHashTableIter iter;
	struct tracee *t;

	*c = (struct tracees_count){ 0 };
	g_hash_table_iter_init(&iter, tr->by_tid);
	while (g_hash_table_iter_next(&iter, NULL, (gpointer *)&t)) {
		if (!(t->reasons & reason))
			continue;
		if (!t->traced)
			c->refused++;
		else if (t->stopped)
			c->stopped++;
		else
			c->stopping++;
	}
}

void tracees_for_each_stopped(struct tracees *tr, unsigned reason,
			      void (*fn)(void *data, pid_t tid, uint64_t ino), void *data)
{
	GHashTableIter iter;
	struct tracee *t;

	g_hash_table_iter_init(&iter, tr->by_tid);
	while (g_hash_table_iter_next(&iter, NULL, (gpointer *)&t))
		if ((t->reasons & reason) && t->traced && t->stopped)
			fn(data, t->tid, t->ino);
}

static bool any(struct tracees *tr, bool stopping)
{
	GHashTableIter iter;
	struct tracee *t;

	g_hash_table_iter_init(&iter, tr->by_tid);
	while (g_hash_table_iter_next(&iter, NULL, (gpointer *)&t))
		if (t->traced && !(stopping && t->stopped))
			return true;
	return false;
}

bool tracees_tracing(struct tracees *tr)
{
	return any(tr, false);
}

bool tracees_stopping(struct tracees *tr)
{
	return any(tr, true);
}

unsigned tracees_nr_held(struct tracees *tr, unsigned reason)
{
	return atomic_load(&tr->nr_held[reason_index(reason)]);
}
