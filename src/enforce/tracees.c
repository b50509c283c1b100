/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The threads held stopped, for every reason: see enforce/tracees.h. */
#include "enforce/tracees.h"

#include <errno.h>
#include <signal.h>
#include <stdatomic.h>

#include <glib.h>

/* A thread some reason wants held. */
struct tracee {
	pid_t tid;
	uint64_t ino;
	unsigned reasons;		/* held for */
	unsigned named;			/* named by the reasons' passes under way */
	/* Held as the tracer of threads held for these (see hold_tracer). */
	unsigned as_tracer, tracer_named;
	bool traced;			/* seized; else refused (a debugger has it) */
	bool again;			/* not yet: seized at the next pass (see seize) */
	bool stopped;			/* its stop was reported */
	int sig;			/* to give back when resumed */
	/* Not traced: the thread tracing it, held here so that the SIGSTOP
	 * sent to it (sent) keeps it stopped; 0 for a plain refusal. */
	pid_t tracer;
	bool sent;
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
			n[i] += (t->traced || t->tracer) && (t->reasons & (1u << i));
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
	while (g_hash_table_iter_next(&iter, NULL, (gpointer *)&t)) {
		t->named &= ~reason;
		t->tracer_named &= ~reason;
	}
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
	/* The tracer's own already, its first stop not taken in yet (a child
	 * whose fork report is on its way): on its way to a stop, tried again
	 * at each pass, which the enforcer makes soon. */
	t->again = ret == -EAGAIN;
	return ret == 0 || ret == -EPERM || t->again;
}

/* Holds thread tid, which traces a thread held for reason: seized and
 * stopped like any other (it may be held already, a member itself), or
 * only if the tracee's user could stop it (kill(2)'s rule: the tracee's
 * real or effective uid is its real or saved one). Returns it, or NULL. */
static struct tracee *hold_tracer(struct tracees *tr, pid_t tid, pid_t tracee,
				  unsigned reason)
{
	struct tracee *t = g_hash_table_lookup(tr->by_tid, GINT_TO_POINTER(tid));
	struct task_uids mine, its;

	if (!t) {
		if (tr->kf->ops->task_uids(tr->kf, tracee, &mine) < 0 ||
		    tr->kf->ops->task_uids(tr->kf, tid, &its) < 0 ||
		    !(mine.uid == its.uid || mine.uid == its.suid ||
		      mine.euid == its.uid || mine.euid == its.suid) ||
		    tr->kf->ops->trace_freeze(tr->kf, tid) < 0)
			return NULL;
		/* Its identity is learnt if it is named as a member (a
		 * traced thread's id is not reused until reaped here). */
		t = g_new0(struct tracee, 1);
		t->tid = tid;
		t->traced = true;
		g_hash_table_insert(tr->by_tid, GINT_TO_POINTER(tid), t);
	}
	if (!t->traced)
		return NULL;
	t->as_tracer |= reason;
	t->tracer_named |= reason;
	return t;
}

/* A thread another tracer has (its parent with PTRACE_TRACEME, say): held
 * with SIGSTOP, once its tracer is held stopped, so that nobody resumes it
 * until that tracer is let go; a SIGCONT before that makes the stop
 * harmless (tracees_settle). The kernel's freezer freezes traced tasks
 * too; here the tracer sees a SIGSTOP and a SIGCONT afterwards.
 * Returns false when t is a plain refusal (no tracer that may be held). */
static bool hold_traced(struct tracees *tr, struct tracee *t, unsigned reason)
{
	struct trace_status st;
	struct tracee *tracer;
	pid_t was = t->tracer;

	t->tracer = 0;
	if (tr->kf->ops->trace_status(tr->kf, t->tid, &st) < 0 || st.tracer <= 0 ||
	    (was && st.tracer != was) ||
	    !(tracer = hold_tracer(tr, st.tracer, t->tid, reason))) {
		t->sent = t->stopped = false;
		return false;
	}
	t->tracer = st.tracer;
	if (!tracer->stopped)
		return true;
	/* Stopped by its tracer already, or by our signal: it stays so. */
	t->stopped = st.stopped;
	if (!st.stopped && !t->sent)
		t->sent = tr->kf->ops->trace_signal(tr->kf, t->tid, SIGSTOP) == 0;
	return true;
}

void tracees_hold(struct tracees *tr, pid_t tid, const struct task_ident *id,
		  unsigned reason, bool retry)
{
	struct tracee *t = g_hash_table_lookup(tr->by_tid, GINT_TO_POINTER(tid));

	if (t && !t->ino && t->traced) {
		t->ino = id->ino;	/* a tracer held first, named now */
	} else if (t && t->ino != id->ino) {
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
		if (!t->traced && !t->again)
			hold_traced(tr, t, reason);
	} else if (!t->traced &&
		   (t->again || (t->tracer ? !hold_traced(tr, t, reason) : retry))) {
		/* Not yet the last time, its tracer let it go, or a refusal
		 * tried again. */
		if (!seize(tr, t, id)) {
			g_hash_table_remove(tr->by_tid, GINT_TO_POINTER(tid));
			return;
		}
		if (!t->traced && !t->again)
			hold_traced(tr, t, reason);
	}
	t->reasons |= reason;
	t->named |= reason;
}

void tracees_end(struct tracees *tr, unsigned reason)
{
	GHashTableIter iter;
	struct tracee *t;

	g_hash_table_iter_init(&iter, tr->by_tid);
	while (g_hash_table_iter_next(&iter, NULL, (gpointer *)&t)) {
		if (!(t->named & reason))
			t->reasons &= ~reason;
		if (!(t->tracer_named & reason))
			t->as_tracer &= ~reason;
	}
	tracees_settle(tr);
}

void tracees_settle(struct tracees *tr)
{
	GHashTableIter iter;
	struct tracee *t;

	tracees_take_reports(tr);	/* the stops that came meanwhile */
	/* Threads stopped by SIGSTOP get their SIGCONT while their tracer
	 * is still held: it then sees the stop but cannot make it last. */
	g_hash_table_iter_init(&iter, tr->by_tid);
	while (g_hash_table_iter_next(&iter, NULL, (gpointer *)&t))
		if (!t->reasons && !t->as_tracer && !t->traced && t->sent) {
			tr->kf->ops->trace_signal(tr->kf, t->tid, SIGCONT);
			g_hash_table_iter_remove(&iter);
		}
	g_hash_table_iter_init(&iter, tr->by_tid);
	while (g_hash_table_iter_next(&iter, NULL, (gpointer *)&t)) {
		if (t->reasons || t->as_tracer)
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
		t->reasons = t->as_tracer = 0;
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
		if (t->again)
			c->stopping++;
		else if (!t->traced && !t->tracer)
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
		if ((t->reasons & reason) && (t->traced || t->tracer) && t->stopped)
			fn(data, t->tid, t->ino);
}

static bool any(struct tracees *tr, bool stopping)
{
	GHashTableIter iter;
	struct tracee *t;

	g_hash_table_iter_init(&iter, tr->by_tid);
	while (g_hash_table_iter_next(&iter, NULL, (gpointer *)&t))
		if ((t->traced || (stopping && (t->tracer || t->again))) &&
		    !(stopping && t->stopped))
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
