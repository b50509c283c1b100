/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The ptrace task-watch source: see kernel/watch_ptrace.h and
 * docs/design.md. Only the tracer thread touches the tracees and their
 * table; the other threads queue requests to it (and wait for the answer)
 * and read the events and freeze reports it queues. */
#include "kernel/watch_ptrace.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kernel/kfacade_sched.h"
#include "kernel/proc_list.h"
#include "kernel/task_cputime.h"
#include "lib/worker.h"

#define WATCH_OPTIONS (PTRACE_O_TRACEFORK | PTRACE_O_TRACEVFORK | PTRACE_O_TRACECLONE | \
		       PTRACE_O_TRACEEXEC | PTRACE_O_TRACEEXIT)
/* Events waiting for the core at most; past that they are lost (the core
 * then checks its threads, as after a connector overrun). */
#define MAX_QUEUED 65536
/* Wait reports taken per turn of the loop, between requests. */
#define REAP_BATCH 256
/* A stop whose SIGCHLD another thread took (one that does not block it) is
 * found this much later at the latest. */
#define RESCAN_MS 100
/* As the enforcement thread's (enforce/enforce_thread.c): the quota's
 * stops and resumes are this thread's work now, and every fork of a
 * member waits for it. */
#define TRACER_NICE (-20)
/* After a fork of the daemon, the held threads are seized again once the
 * parent (the earlier tracer) lets them go: tried this long at most. */
#define RESEIZE_MAX_US (10 * G_USEC_PER_SEC)
/* A child stopped before its fork was seen waits this long at most: its
 * parent may have been killed before its fork's event stop. */
#define PARK_MAX_US (G_USEC_PER_SEC)

/* One thread this process traces. */
struct tracee {
	pid_t tid, tgid;
	unsigned gen;		/* which thread of that tid (holds name it) */
	unsigned holds;		/* hold()s not released */
	bool watched;		/* to trace with WATCH_OPTIONS (else: a freeze's) */
	bool options_set;	/* WATCH_OPTIONS are in effect */
	bool forked;		/* its fork was reported (auto-attached child) */
	bool parked;		/* stopped before its fork was seen: kept so */
	bool wait_claim;	/* a held thread's new thread: parked until held */
	gint64 parked_at;	/* since when (monotonic us) */
	bool listening;		/* resumed with PTRACE_LISTEN: in a group-stop */
	bool freeze;		/* trace_freeze() asked, not thawed */
	bool frozen;		/* its freeze stop was reported */
	bool group_stop;	/* that stop is a group-stop */
	bool detach;		/* to let go at its next stop */
	bool exiting;		/* its exit was reported */
	bool reseize;		/* held before watch_start or a fork of the daemon: to seize */
	uint64_t held_ns;	/* reseize: since when it is not followed (boot time) */
	uint64_t born_seq;	/* an unclaimed child: its fork's event number */
};

/* A hold() of one thread identity: which tracee it holds. */
struct hold {
	pid_t tid;
	unsigned gen;
	unsigned count;
};

enum req_op { REQ_HOLD, REQ_RELEASE, REQ_FREEZE, REQ_THAW };

struct req {
	enum req_op op;
	pid_t tid;
	struct task_ident id;
	int sig;
	int ret;
	bool done;
};

struct watch_ptrace {
	struct watch_source base;
	GMutex lock;		/* everything below up to the tracer's own */
	GCond done;
	GQueue reqs;		/* struct req *, for the tracer thread */
	int req_fd;		/* eventfd: reqs has some */
	pid_t owner;		/* the process the tracer thread is in */
	struct worker *w;
	GArray *events;		/* struct task_event, for events() */
	guint events_head;
	bool lost;
	int event_fd;		/* eventfd: events has some */
	uint64_t seq;		/* events queued so far */
	uint64_t delivered;	/* of them, handed out by events() */
	uint64_t prepared;	/* handed out before the last events(): opened */
	GArray *reports;	/* struct trace_report, for trace_report() */
	unsigned nr_freeze;	/* tracees a freeze asked for, not thawed */
	uint64_t nr_events, nr_lost, nr_refused;
	unsigned nr_traced;
	bool started;		/* watch_start(): holds trace (before: noted) */

	/* The tracer thread's own (and the caller's before it runs). */
	GHashTable *by_tid;	/* tid -> struct tracee */
	GHashTable *holds;	/* pidfs inode -> struct hold */
	GQueue unclaimed;	/* tids of children no hold() claimed yet */
	unsigned nr_parked;
	unsigned nr_reseize;
	gint64 reseize_until;
	unsigned gen;		/* the last tracee's */
	int sig_fd;		/* signalfd: SIGCHLD */
};

static struct watch_ptrace *to_wp(struct watch_source *ws)
{
	return (struct watch_ptrace *)ws;
}

static struct tracee *lookup(struct watch_ptrace *wp, pid_t tid)
{
	return g_hash_table_lookup(wp->by_tid, GINT_TO_POINTER(tid));
}

static struct tracee *tracee_add(struct watch_ptrace *wp, pid_t tid, pid_t tgid, bool watched)
{
	struct tracee *t = g_new0(struct tracee, 1);

	t->tid = tid;
	t->tgid = tgid;
	t->gen = ++wp->gen;
	t->watched = watched;
	g_hash_table_insert(wp->by_tid, GINT_TO_POINTER(tid), t);
	return t;
}

/* The figure cgfused.stat shows; from the tracer thread, unlocked. */
static void count_traced(struct watch_ptrace *wp)
{
	g_mutex_lock(&wp->lock);
	wp->nr_traced = g_hash_table_size(wp->by_tid);
	g_mutex_unlock(&wp->lock);
}

static void tracee_remove(struct watch_ptrace *wp, struct tracee *t)
{
	if (t->freeze) {
		g_mutex_lock(&wp->lock);
		wp->nr_freeze--;
		g_mutex_unlock(&wp->lock);
	}
	g_hash_table_remove(wp->by_tid, GINT_TO_POINTER(t->tid));
}

static void queue_event(struct watch_ptrace *wp, const struct task_event *ev)
{
	uint64_t one = 1;

	g_mutex_lock(&wp->lock);
	if (wp->events->len - wp->events_head >= MAX_QUEUED) {
		wp->lost = true;
		wp->nr_lost++;
	} else {
		g_array_append_val(wp->events, *ev);
		wp->seq++;
		wp->nr_events++;
	}
	if (write(wp->event_fd, &one, sizeof(one)) < 0)
		g_debug("ptrace watch: event eventfd: %s", g_strerror(errno));
	g_mutex_unlock(&wp->lock);
}

static void queue_report(struct watch_ptrace *wp, pid_t tid, int what, int sig)
{
	struct trace_report r = { .tid = tid, .what = what, .sig = sig };

	g_mutex_lock(&wp->lock);
	g_array_append_val(wp->reports, r);
	g_mutex_unlock(&wp->lock);
}

/* Lets t go at its next stop (PTRACE_DETACH needs one). */
static void let_go(struct tracee *t)
{
	t->detach = true;
	/* Fails only for a thread on its way out: reaped soon. */
	(void)ptrace(PTRACE_INTERRUPT, t->tid, 0, 0);
}

/* What a stopped tracee does next. event and sig as waitpid() said. */
static void on_stop(struct watch_ptrace *wp, struct tracee *t, int event, int sig)
{
	/* A group-stop (SIGSTOP, Ctrl-Z) shows as PTRACE_EVENT_STOP with the
	 * stopping signal; an interrupt or a new child's first stop, with
	 * SIGTRAP. A signal-delivery-stop holds its signal: given back. */
	bool group = event == PTRACE_EVENT_STOP && sig != SIGTRAP;
	int give = event == 0 ? sig : 0;

	t->listening = false;
	if (t->watched && !t->options_set &&
	    ptrace(PTRACE_SETOPTIONS, t->tid, 0, (void *)(long)WATCH_OPTIONS) == 0)
		t->options_set = true;
	if (t->freeze) {
		t->frozen = true;
		t->group_stop = group;
		queue_report(wp, t->tid, TRACE_STOPPED, give);
		return;
	}
	if (t->watched && ((!t->forked && t->born_seq == 0) || t->wait_claim) && !t->holds &&
	    !t->detach) {
		t->parked = true;	/* a child whose fork comes next, or its hold */
		t->parked_at = g_get_monotonic_time();
		wp->nr_parked++;
		return;
	}
	if (t->detach || !t->watched) {
		/* From a group-stop it stays stopped, as job control wants. */
		(void)ptrace(PTRACE_DETACH, t->tid, 0, (void *)(long)give);
		tracee_remove(wp, t);
		return;
	}
	if (group) {
		/* Stopped for its parent and shell, and woken by SIGCONT. */
		t->listening = ptrace(PTRACE_LISTEN, t->tid, 0, 0) == 0;
		return;
	}
	(void)ptrace(PTRACE_CONT, t->tid, 0, (void *)(long)give);
}

static unsigned long event_msg(pid_t tid)
{
	unsigned long msg = 0;

	(void)ptrace(PTRACE_GETEVENTMSG, tid, 0, &msg);
	return msg;
}

/* Whether thread tid belongs to process tgid (it is still stopped). */
static bool thread_of(pid_t tid, pid_t tgid)
{
	char path[64];
	struct stat st;

	snprintf(path, sizeof(path), "/proc/%d/task/%d", tgid, tid);
	return stat(path, &st) == 0;
}

/* t forked (or cloned) a child, which the kernel attached to us. The
 * creator is named: with CLONE_PARENT the child's parent is another. */
static void on_fork(struct watch_ptrace *wp, struct tracee *t, int event)
{
	pid_t child = (pid_t)event_msg(t->tid);
	struct tracee *c = lookup(wp, child);
	struct task_event ev = { .what = TASK_EVENT_FORK, .tid = child, .parent = t->tid };

	if (child <= 0)
		return;
	ev.tgid = event == PTRACE_EVENT_CLONE && thread_of(child, t->tgid) ? t->tgid : child;
	if (!c) {
		c = tracee_add(wp, child, ev.tgid, true);
		count_traced(wp);
	}
	c->tgid = ev.tgid;
	c->options_set = true;	/* inherited */
	c->forked = true;
	queue_event(wp, &ev);
	if (!c->holds) {
		c->born_seq = wp->seq;
		g_queue_push_tail(&wp->unclaimed, GINT_TO_POINTER(child));
	}
	/* A thread that ran before the core opened it could exec, and its
	 * id, which the core opens it by, would be gone: the process would
	 * leave its group. It waits for its hold (a second at most). */
	c->wait_claim = ev.tgid == t->tgid && t->holds && !c->holds;
	if (c->parked && c->wait_claim) {
		c->parked_at = g_get_monotonic_time();
	} else if (c->parked) {
		c->parked = false;
		wp->nr_parked--;
		on_stop(wp, c, PTRACE_EVENT_STOP, SIGTRAP);
	}
}

/* A parked thread goes on from its stop, as on_stop says now. */
static void unpark(struct watch_ptrace *wp, struct tracee *t)
{
	t->parked = false;
	t->wait_claim = false;
	wp->nr_parked--;
	on_stop(wp, t, PTRACE_EVENT_STOP, SIGTRAP);
}

/* Holds that named from (any thread of that tid) name to now. */
static void move_holds(struct watch_ptrace *wp, pid_t from, unsigned from_gen, struct tracee *to)
{
	GHashTableIter iter;
	struct hold *h;

	g_hash_table_iter_init(&iter, wp->holds);
	while (g_hash_table_iter_next(&iter, NULL, (gpointer *)&h))
		if (h->tid == from && h->gen == from_gen) {
			h->tid = to->tid;
			h->gen = to->gen;
			to->holds += h->count;
		}
}

/* An execve by thread former of process tgid, now its leader: the old
 * leader is gone, and its death is not reported. */
static struct tracee *on_exec(struct watch_ptrace *wp, pid_t tgid)
{
	pid_t former = (pid_t)event_msg(tgid);
	struct tracee *t = lookup(wp, former), *old;
	struct task_event ev = { .what = TASK_EVENT_EXEC, .tid = tgid, .tgid = tgid };

	if (former > 0 && former != tgid && t) {
		unsigned old_gen = 0;

		if ((old = lookup(wp, tgid))) {
			old_gen = old->gen;
			if (old->freeze)
				queue_report(wp, tgid, TRACE_GONE, 0);
			tracee_remove(wp, old);
		}
		g_hash_table_steal(wp->by_tid, GINT_TO_POINTER(former));
		t->tid = tgid;
		t->holds = 0;
		g_hash_table_insert(wp->by_tid, GINT_TO_POINTER(tgid), t);
		move_holds(wp, former, t->gen, t);
		if (old_gen)
			move_holds(wp, tgid, old_gen, t);
		count_traced(wp);
	}
	t = lookup(wp, tgid);
	if (t && t->watched)
		queue_event(wp, &ev);
	return t;
}

/* The thread is about to exit: its last CPU figures are still in /proc. */
static void on_exit_stop(struct watch_ptrace *wp, struct tracee *t)
{
	struct task_event ev = { .what = TASK_EVENT_EXIT, .tid = t->tid, .tgid = t->tgid };
	struct proc_task_cputime ct;

	if (!t->watched || t->exiting)
		return;
	if (task_cputime_read(t->tgid, t->tid, &ct) == 0) {
		ev.final = (struct task_cputime){ ct.run_ns, ct.wait_ns, ct.utime_ticks,
						  ct.stime_ticks, ct.processor, false };
		ev.final_valid = true;
	}
	t->exiting = true;
	queue_event(wp, &ev);
}

static void on_gone(struct watch_ptrace *wp, struct tracee *t)
{
	struct task_event ev = { .what = TASK_EVENT_EXIT, .tid = t->tid, .tgid = t->tgid };

	/* Killed (SIGKILL skips the exit stop), or reaped after it. */
	if (t->watched && !t->exiting)
		queue_event(wp, &ev);
	if (t->freeze)
		queue_report(wp, t->tid, TRACE_GONE, 0);
	if (t->parked)
		wp->nr_parked--;
	tracee_remove(wp, t);
	count_traced(wp);
}

static void on_wait(struct watch_ptrace *wp, pid_t tid, int status)
{
	int event = status >> 16, sig = WSTOPSIG(status);
	struct tracee *t;

	if (WIFSTOPPED(status) && event == PTRACE_EVENT_EXEC) {
		t = on_exec(wp, tid);
	} else if (!(t = lookup(wp, tid)) && WIFSTOPPED(status)) {
		/* A new child's first stop, seen before its parent's event. */
		t = tracee_add(wp, tid, tid, true);
		t->options_set = true;
		count_traced(wp);
	}
	if (!t)
		return;
	if (!WIFSTOPPED(status)) {
		on_gone(wp, t);
		return;
	}
	if (event == PTRACE_EVENT_FORK || event == PTRACE_EVENT_VFORK ||
	    event == PTRACE_EVENT_CLONE) {
		on_fork(wp, t, event);
	} else if (event == PTRACE_EVENT_EXIT) {
		on_exit_stop(wp, t);
		/* A frozen thread that exits is let out: reported gone. */
		(void)ptrace(PTRACE_CONT, t->tid, 0, 0);
		return;
	}
	on_stop(wp, t, event, sig);
}

/* Takes in the tracees' stops and deaths; true if more may wait. */
static bool reap(struct watch_ptrace *wp)
{
	for (unsigned i = 0; i < REAP_BATCH; i++) {
		int status;
		/* __WNOTHREAD: the daemon's other threads' children are theirs. */
		pid_t tid = waitpid(-1, &status, __WALL | __WNOTHREAD | WNOHANG);

		if (tid <= 0)
			return false;
		on_wait(wp, tid, status);
	}
	return true;
}

/* Children whose fork the core was handed before its last events(), and
 * did not hold when it prepared them: not its business, let go. */
static void release_unclaimed(struct watch_ptrace *wp)
{
	uint64_t prepared;

	g_mutex_lock(&wp->lock);
	prepared = wp->prepared;
	g_mutex_unlock(&wp->lock);
	while (!g_queue_is_empty(&wp->unclaimed)) {
		pid_t tid = GPOINTER_TO_INT(g_queue_peek_head(&wp->unclaimed));
		struct tracee *t = lookup(wp, tid);

		if (t && t->born_seq > prepared)
			break;
		g_queue_pop_head(&wp->unclaimed);
		if (!t || !t->born_seq)
			continue;
		t->born_seq = 0;
		if (t->holds || t->freeze || t->exiting)
			continue;
		if (t->parked) {
			t->detach = true;	/* at its stop already */
			unpark(wp, t);
		} else {
			let_go(t);
		}
	}
}

/* Children parked too long: their fork is not coming. */
static void unpark_stale(struct watch_ptrace *wp)
{
	gint64 now = g_get_monotonic_time();
	GHashTableIter iter;
	struct tracee *t;
	GSList *due = NULL;

	if (!wp->nr_parked)
		return;
	g_hash_table_iter_init(&iter, wp->by_tid);
	while (g_hash_table_iter_next(&iter, NULL, (gpointer *)&t))
		if (t->parked && now - t->parked_at >= PARK_MAX_US)
			due = g_slist_prepend(due, t);
	for (GSList *l = due; l; l = l->next) {
		t = l->data;
		if (!t->forked)
			t->detach = !t->holds;	/* never reported: not the core's */
		t->forked = true;
		unpark(wp, t);	/* a reported one: let go when unclaimed */
	}
	g_slist_free(due);
}

/* "TracerPid:" of /proc/TID/status: who traces the thread, 0 if none. */
static pid_t tracer_of(pid_t tid)
{
	char path[64], *data = NULL, *line;
	pid_t tracer = 0;

	snprintf(path, sizeof(path), "/proc/%d/status", tid);
	if (!g_file_get_contents(path, &data, NULL, NULL))
		return 0;
	if ((line = strstr(data, "\nTracerPid:")))
		tracer = (pid_t)g_ascii_strtoll(line + 11, NULL, 10);
	g_free(data);
	return tracer;
}

static void add_hold(struct watch_ptrace *wp, struct tracee *t, pid_t tid,
		     const struct task_ident *id);

static int do_hold(struct watch_ptrace *wp, pid_t tid, const struct task_ident *id)
{
	struct tracee *t = lookup(wp, tid);

	if (!t) {
		if (ptrace(PTRACE_SEIZE, tid, 0, (void *)(long)WATCH_OPTIONS) < 0) {
			int err = errno;
			pid_t tracer;

			if (err != EPERM)
				return -err;
			tracer = tracer_of(tid);
			g_mutex_lock(&wp->lock);
			wp->nr_refused++;
			g_mutex_unlock(&wp->lock);
			if (tracer) {
				g_message("thread %d is traced by process %d (a debugger?): it cannot "
					  "be followed, and is not moved", tid, tracer);
				return -EBUSY;
			}
			g_message("thread %d cannot be traced (%s): it cannot be followed, and is "
				  "not moved", tid, g_strerror(err));
			return -EPERM;
		}
		t = tracee_add(wp, tid, id->tgid, true);
		t->options_set = true;
		t->forked = true;	/* no fork of it to wait for */
		count_traced(wp);
	} else if (!t->watched) {
		t->watched = true;	/* traced for a freeze: options at its stop */
		t->forked = true;
		if (t->frozen &&
		    ptrace(PTRACE_SETOPTIONS, tid, 0, (void *)(long)WATCH_OPTIONS) == 0)
			t->options_set = true;
	}
	add_hold(wp, t, tid, id);
	return 0;
}

/* A hold before watch_start(), on the caller's thread (there is no tracer
 * thread yet): noted, and seized by the serving process's tracer thread
 * (seize_again). A debugger's thread is refused as do_hold() does. */
static int note_hold(struct watch_ptrace *wp, pid_t tid, const struct task_ident *id)
{
	struct tracee *t = lookup(wp, tid);
	pid_t tracer;

	if (!t) {
		if ((tracer = tracer_of(tid))) {
			g_mutex_lock(&wp->lock);
			wp->nr_refused++;
			g_mutex_unlock(&wp->lock);
			g_message("thread %d is traced by process %d (a debugger?): it cannot "
				  "be followed, and is not moved", tid, tracer);
			return -EBUSY;
		}
		t = tracee_add(wp, tid, id->tgid, true);
		t->options_set = t->forked = t->reseize = true;
		t->held_ns = ksched_boottime_ns(NULL);
		wp->nr_reseize++;
		count_traced(wp);
	}
	add_hold(wp, t, tid, id);
	return 0;
}

/* The hold's count, on tracee t of thread tid. */
static void add_hold(struct watch_ptrace *wp, struct tracee *t, pid_t tid,
		     const struct task_ident *id)
{
	struct hold *h = g_hash_table_lookup(wp->holds, &id->ino);

	t->born_seq = 0;
	t->wait_claim = false;
	t->detach = false;	/* a release's interrupt ends as a plain stop */
	if (h && (h->tid != tid || h->gen != t->gen)) {
		/* The identity moved (an exec took the leader's id). */
		struct tracee *was = lookup(wp, h->tid);

		if (was && was->gen == h->gen)
			was->holds -= h->count;
		t->holds += h->count;
		h->tid = tid;
		h->gen = t->gen;
	}
	if (!h) {
		h = g_new0(struct hold, 1);
		h->tid = tid;
		h->gen = t->gen;
		g_hash_table_insert(wp->holds, g_memdup2(&id->ino, sizeof(id->ino)), h);
	}
	h->count++;
	t->holds++;
	if (t->parked && t->forked)
		unpark(wp, t);	/* claimed: on from its first stop */
}

static void do_release(struct watch_ptrace *wp, const struct task_ident *id)
{
	struct hold *h = g_hash_table_lookup(wp->holds, &id->ino);
	struct tracee *t;

	if (!h)
		return;
	t = lookup(wp, h->tid);
	if (t && t->gen != h->gen)
		t = NULL;
	if (t)
		t->holds--;
	if (--h->count == 0)
		g_hash_table_remove(wp->holds, &id->ino);
	/* A frozen one goes at its thaw, an exiting one at its death; one
	 * not seized yet is dropped by seize_again. */
	if (t && !t->holds && !t->freeze && !t->exiting) {
		if (t->reseize)
			t->detach = true;
		else
			let_go(t);
	}
}

static int do_freeze(struct watch_ptrace *wp, pid_t tid)
{
	struct tracee *t = lookup(wp, tid);

	if (!t) {
		/* No options: no event stop, as kfacade_trace.c's. */
		if (ptrace(PTRACE_SEIZE, tid, 0, 0) < 0) {
			int err = errno;

			/* Ours already: a child auto-attached whose stop is not
			 * taken yet. Not EPERM, which would have the enforcer
			 * hold this thread as "another tracer". */
			if (err == EPERM && tracer_of(tid) == gettid())
				return -EAGAIN;
			return -err;
		}
		t = tracee_add(wp, tid, tid, false);
		t->options_set = true;
		count_traced(wp);
	}
	if (t->freeze)
		return 0;
	t->freeze = true;
	t->detach = false;
	g_mutex_lock(&wp->lock);
	wp->nr_freeze++;
	g_mutex_unlock(&wp->lock);
	if (t->parked && t->forked) {
		unpark(wp, t);	/* stopped already: frozen at this stop */
		return 0;
	}
	/* Fails only for a thread exiting meanwhile: reported gone. */
	(void)ptrace(PTRACE_INTERRUPT, tid, 0, 0);
	return 0;
}

static int do_thaw(struct watch_ptrace *wp, pid_t tid, int sig)
{
	struct tracee *t = lookup(wp, tid);
	long ret;

	if (!t || !t->frozen)
		return -ESRCH;
	t->frozen = false;
	t->freeze = false;
	g_mutex_lock(&wp->lock);
	wp->nr_freeze--;
	g_mutex_unlock(&wp->lock);
	if (!t->holds && !t->born_seq) {
		ret = ptrace(PTRACE_DETACH, tid, 0, (void *)(long)sig);
		tracee_remove(wp, t);
		count_traced(wp);
	} else if (t->group_stop) {
		ret = ptrace(PTRACE_LISTEN, tid, 0, 0);
		t->listening = ret == 0;
	} else {
		ret = ptrace(PTRACE_CONT, tid, 0, (void *)(long)sig);
	}
	return ret < 0 ? -errno : 0;
}

static void serve(struct watch_ptrace *wp)
{
	GQueue todo = G_QUEUE_INIT;
	struct req *r;
	uint64_t n;

	g_mutex_lock(&wp->lock);
	if (read(wp->req_fd, &n, sizeof(n)) < 0 && errno != EAGAIN)
		g_debug("ptrace watch: requests: %s", g_strerror(errno));
	todo = wp->reqs;
	g_queue_init(&wp->reqs);
	g_mutex_unlock(&wp->lock);
	for (GList *l = todo.head; l; l = l->next) {
		r = l->data;
		if (r->op == REQ_HOLD)
			r->ret = do_hold(wp, r->tid, &r->id);
		else if (r->op == REQ_RELEASE)
			do_release(wp, &r->id);
		else if (r->op == REQ_FREEZE)
			r->ret = do_freeze(wp, r->tid);
		else
			r->ret = do_thaw(wp, r->tid, r->sig);
	}
	g_mutex_lock(&wp->lock);
	while ((r = g_queue_pop_head(&todo)))
		r->done = true;
	g_cond_broadcast(&wp->done);
	g_mutex_unlock(&wp->lock);
}

/* The children thread tid of process tgid forked since since_ns (boot
 * time), while it was not traced (before watch_start, or while the parent
 * of a fork of the daemon traced it): seized now and reported as forked,
 * each before its own children, so that they join tid's groups as if
 * their forks had been seen. Older ones are the state replay's (it places
 * those born after the member joined). Another tracer's are left. */
static void seize_children(struct watch_ptrace *wp, pid_t tgid, pid_t tid, uint64_t since_ns)
{
	uint64_t tick_ns = 1000000000ULL / (uint64_t)sysconf(_SC_CLK_TCK);
	GArray *kids = g_array_new(FALSE, FALSE, sizeof(pid_t));

	if (proc_children(tgid, tid, kids) < 0)
		g_array_set_size(kids, 0);
	for (guint i = 0; i < kids->len; i++) {
		pid_t c = g_array_index(kids, pid_t, i);
		struct task_event ev = { .what = TASK_EVENT_FORK, .tid = c, .tgid = c, .parent = tid };
		struct proc_task_cputime ct;
		struct tracee *t;

		/* /proc's start time is rounded down to a tick. */
		if (lookup(wp, c) || task_stat_read(c, c, &ct) < 0 ||
		    (ct.starttime + 1) * tick_ns < since_ns ||
		    ptrace(PTRACE_SEIZE, c, 0, (void *)(long)WATCH_OPTIONS) < 0)
			continue;
		t = tracee_add(wp, c, c, true);
		t->options_set = t->forked = true;
		queue_event(wp, &ev);
		t->born_seq = wp->seq;
		g_queue_push_tail(&wp->unclaimed, GINT_TO_POINTER(c));
		seize_children(wp, c, c, since_ns);
	}
	g_array_unref(kids);
}

/* The held threads noted before watch_start (note_hold) or that an earlier
 * process traced (see after_fork), seized (the latter once it let them
 * go: EPERM until then), and their children forked meanwhile with them. */
static void seize_again(struct watch_ptrace *wp)
{
	bool late = g_get_monotonic_time() >= wp->reseize_until;
	GArray *seized;
	GHashTableIter iter;
	struct tracee *t;

	if (!wp->nr_reseize)
		return;
	seized = g_array_new(FALSE, FALSE, sizeof(struct tracee));	/* copies */
	g_hash_table_iter_init(&iter, wp->by_tid);
	while (g_hash_table_iter_next(&iter, NULL, (gpointer *)&t)) {
		int err = 0;

		if (!t->reseize)
			continue;
		if (t->holds && !t->detach &&
		    ptrace(PTRACE_SEIZE, t->tid, 0, (void *)(long)WATCH_OPTIONS) < 0)
			err = errno;
		if (err == EPERM && !late)
			continue;	/* the earlier tracer has it yet */
		wp->nr_reseize--;
		t->reseize = false;
		if (!err && t->freeze)
			(void)ptrace(PTRACE_INTERRUPT, t->tid, 0, 0);	/* asked meanwhile */
		if (!err && t->holds && !t->detach)
			g_array_append_val(seized, *t);
		if (err)
			g_message("thread %d could not be traced again: its children are not "
				  "followed (%s)", t->tid, g_strerror(err));
		if (err || !t->holds || t->detach)
			g_hash_table_iter_remove(&iter);
	}
	/* Not in the walk: they are added to the table. */
	for (guint i = 0; i < seized->len; i++) {
		t = &g_array_index(seized, struct tracee, i);
		seize_children(wp, t->tgid, t->tid, t->held_ns);
	}
	g_array_unref(seized);
	count_traced(wp);
}

static void tracer_loop(void *data, int stop_fd)
{
	struct watch_ptrace *wp = data;
	struct pollfd pfd[3] = {
		{ .fd = stop_fd, .events = POLLIN },
		{ .fd = wp->req_fd, .events = POLLIN },
		{ .fd = wp->sig_fd, .events = POLLIN },
	};
	bool more = false;

	if (setpriority(PRIO_PROCESS, (id_t)gettid(), TRACER_NICE) < 0)
		g_debug("ptrace watch: nice %d: %s", TRACER_NICE, g_strerror(errno));
	seize_again(wp);	/* the holds noted before it ran, at once */
	for (;;) {
		struct signalfd_siginfo si;
		int timeout = more ? 0 : g_hash_table_size(wp->by_tid) ? RESCAN_MS : -1;

		if (poll(pfd, G_N_ELEMENTS(pfd), timeout) < 0 && errno != EINTR)
			break;
		if (pfd[0].revents)
			break;
		while (pfd[2].revents && read(wp->sig_fd, &si, sizeof(si)) == sizeof(si))
			;
		if (pfd[1].revents)
			serve(wp);
		more = reap(wp);
		release_unclaimed(wp);
		unpark_stale(wp);
		seize_again(wp);
	}
	/* Its tracees are detached by the kernel as this thread ends. */
}

/* The tracer thread started in an earlier process (before the fork of
 * daemonizing) stayed there, and so did its tracees: this process's takes
 * over the held ones, with descriptors of its own. Called with the lock
 * held, while this process has no tracer thread. */
static void after_fork(struct watch_ptrace *wp)
{
	GHashTableIter iter;
	struct tracee *t;
	int fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);

	/* The same number: the core may poll the old one. */
	if (fd >= 0) {
		dup3(fd, wp->event_fd, O_CLOEXEC);
		close(fd);
	}
	close(wp->req_fd);
	wp->req_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	g_array_set_size(wp->reports, 0);
	wp->nr_freeze = 0;
	wp->nr_reseize = 0;
	g_hash_table_iter_init(&iter, wp->by_tid);
	while (g_hash_table_iter_next(&iter, NULL, (gpointer *)&t)) {
		if (!t->holds || t->exiting) {
			g_hash_table_iter_remove(&iter);
			continue;
		}
		*t = (struct tracee){ .tid = t->tid, .tgid = t->tgid, .gen = t->gen,
				      .holds = t->holds, .watched = true, .options_set = true,
				      .forked = true, .reseize = true,
				      .held_ns = ksched_boottime_ns(NULL) };
		wp->nr_reseize++;
	}
	wp->reseize_until = g_get_monotonic_time() + RESEIZE_MAX_US;
	g_queue_clear(&wp->unclaimed);
	wp->nr_parked = 0;
	/* The parent's thread and worker are not in this process. */
	wp->w = NULL;
}

/* This process's tracer thread, started if it has none: 0 or -EAGAIN.
 * Called with the lock held. */
static int tracer_ready(struct watch_ptrace *wp)
{
	if (wp->w && wp->owner != getpid())
		after_fork(wp);
	if (!wp->w) {
		wp->owner = getpid();
		if (wp->req_fd < 0 || !(wp->w = worker_start("ptrace-watch", tracer_loop, wp)))
			return -EAGAIN;
	}
	return 0;
}

/* Hands r to the tracer thread and waits for it to be done. */
static int call(struct watch_ptrace *wp, struct req *r)
{
	uint64_t one = 1;

	g_mutex_lock(&wp->lock);
	if (tracer_ready(wp) < 0) {
		g_mutex_unlock(&wp->lock);
		return -EAGAIN;
	}
	g_queue_push_tail(&wp->reqs, r);
	if (write(wp->req_fd, &one, sizeof(one)) < 0)
		g_debug("ptrace watch: request eventfd: %s", g_strerror(errno));
	while (!r->done)
		g_cond_wait(&wp->done, &wp->lock);
	g_mutex_unlock(&wp->lock);
	return r->ret;
}

/* Whether the holds are only noted yet: before watch_start, with no
 * tracer thread (the caller has the tables to itself then). */
static bool early(struct watch_ptrace *wp)
{
	bool ret;

	g_mutex_lock(&wp->lock);
	ret = !wp->started && !wp->w;
	g_mutex_unlock(&wp->lock);
	return ret;
}

static int wp_hold(struct watch_source *ws, pid_t tid, const struct task_ident *id)
{
	struct req r = { .op = REQ_HOLD, .tid = tid, .id = *id };

	return early(to_wp(ws)) ? note_hold(to_wp(ws), tid, id) : call(to_wp(ws), &r);
}

static void wp_release(struct watch_source *ws, const struct task_ident *id)
{
	struct req r = { .op = REQ_RELEASE, .id = *id };

	if (early(to_wp(ws)))
		do_release(to_wp(ws), id);
	else
		call(to_wp(ws), &r);
}

/* The serving process: its tracer thread seizes what was noted. */
static void wp_start(struct watch_source *ws)
{
	struct watch_ptrace *wp = to_wp(ws);

	g_mutex_lock(&wp->lock);
	wp->started = true;
	wp->reseize_until = g_get_monotonic_time() + RESEIZE_MAX_US;
	if (tracer_ready(wp) < 0)
		g_warning("ptrace watch: no tracer thread");
	g_mutex_unlock(&wp->lock);
}

static int wp_trace_freeze(struct watch_source *ws, pid_t tid)
{
	struct req r = { .op = REQ_FREEZE, .tid = tid };

	return call(to_wp(ws), &r);
}

static int wp_trace_thaw(struct watch_source *ws, pid_t tid, int sig)
{
	struct req r = { .op = REQ_THAW, .tid = tid, .sig = sig };

	return call(to_wp(ws), &r);
}

static int wp_trace_report(struct watch_source *ws, struct trace_report *r)
{
	struct watch_ptrace *wp = to_wp(ws);
	int ret = 1;

	g_mutex_lock(&wp->lock);
	if (wp->reports->len) {
		*r = g_array_index(wp->reports, struct trace_report, 0);
		g_array_remove_index(wp->reports, 0);
	} else {
		ret = wp->nr_freeze ? 0 : -ECHILD;
	}
	g_mutex_unlock(&wp->lock);
	return ret;
}

static int wp_events(struct watch_source *ws, struct task_event *ev, unsigned max)
{
	struct watch_ptrace *wp = to_wp(ws);
	unsigned n;
	uint64_t count;

	g_mutex_lock(&wp->lock);
	/* The core prepared (opened) what it was handed before this call. */
	wp->prepared = wp->delivered;
	if (wp->lost) {
		wp->lost = false;
		g_mutex_unlock(&wp->lock);
		return -EOVERFLOW;
	}
	n = MIN(max, wp->events->len - wp->events_head);
	if (n)
		memcpy(ev, &g_array_index(wp->events, struct task_event, wp->events_head),
		       n * sizeof(*ev));
	wp->events_head += n;
	wp->delivered += n;
	if (wp->events_head == wp->events->len) {
		g_array_set_size(wp->events, 0);
		wp->events_head = 0;
		if (read(wp->event_fd, &count, sizeof(count)) < 0 && errno != EAGAIN)
			g_debug("ptrace watch: event eventfd: %s", g_strerror(errno));
	}
	g_mutex_unlock(&wp->lock);
	return (int)n;
}

static int wp_event_fd(struct watch_source *ws)
{
	struct watch_ptrace *wp = to_wp(ws);

	/* The core's watcher asks first thing after daemonizing: the held
	 * threads are seized again in this process at once. */
	g_mutex_lock(&wp->lock);
	if (wp->w && wp->owner != getpid() && tracer_ready(wp) < 0)
		g_warning("ptrace watch: no tracer thread after the fork");
	g_mutex_unlock(&wp->lock);
	return wp->event_fd;
}

static void wp_stat(struct watch_source *ws, GString *out)
{
	struct watch_ptrace *wp = to_wp(ws);

	g_mutex_lock(&wp->lock);
	g_string_append_printf(out, "task_watch_traced %u\ntask_watch_refused %" G_GUINT64_FORMAT
			       "\ntask_watch_events %" G_GUINT64_FORMAT "\ntask_watch_lost %"
			       G_GUINT64_FORMAT "\n", wp->nr_traced, wp->nr_refused,
			       wp->nr_events, wp->nr_lost);
	g_mutex_unlock(&wp->lock);
}

static void wp_free(struct watch_source *ws)
{
	struct watch_ptrace *wp = to_wp(ws);

	if (wp->w && wp->owner == getpid())
		worker_stop(wp->w);	/* its tracees are let go as it ends */
	close(wp->req_fd);
	close(wp->event_fd);
	close(wp->sig_fd);
	g_hash_table_unref(wp->by_tid);
	g_hash_table_unref(wp->holds);
	g_queue_clear(&wp->unclaimed);
	g_queue_clear(&wp->reqs);
	g_array_unref(wp->events);
	g_array_unref(wp->reports);
	g_cond_clear(&wp->done);
	g_mutex_clear(&wp->lock);
	g_free(wp);
}

static const struct watch_source_ops ptrace_ops = {
	.name = "ptrace",
	.events = wp_events,
	.event_fd = wp_event_fd,
	.hold = wp_hold,
	.release = wp_release,
	.start = wp_start,
	.trace_freeze = wp_trace_freeze,
	.trace_report = wp_trace_report,
	.trace_thaw = wp_trace_thaw,
	.stat = wp_stat,
	.free = wp_free,
};

/* Whether this process may trace the tasks it manages: Yama's scope and
 * CAP_SYS_PTRACE (as the freezer asks), then a child of its own seized,
 * for what no file says (a seccomp filter, an LSM). false with why. */
static bool ptrace_probe(GString *why)
{
	pid_t child;
	int err = 0;

	if (!ksched_may_trace(NULL)) {
		g_string_append(why, "Yama's ptrace_scope lets this process trace none of the "
				"tasks it manages");
		return false;
	}
	child = fork();
	if (child < 0) {
		g_string_append_printf(why, "no probe child (%s)", g_strerror(errno));
		return false;
	}
	if (child == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		for (;;)
			pause();
	}
	if (ptrace(PTRACE_SEIZE, child, 0, (void *)(long)WATCH_OPTIONS) < 0)
		err = errno;
	kill(child, SIGKILL);	/* a tracee too: it dies, reaped below */
	while (waitpid(child, NULL, 0) < 0 && errno == EINTR)
		;
	if (err)
		g_string_append_printf(why, "a child of its own cannot be traced (%s)",
				       g_strerror(err));
	return !err;
}

struct watch_source *watch_ptrace_new(GString *why)
{
	struct watch_ptrace *wp;
	sigset_t chld;

	if (!ptrace_probe(why))
		return NULL;
	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	/* Blocked, or a thread that does not block it takes (and drops) the
	 * tracer's wake-up. */
	pthread_sigmask(SIG_BLOCK, &chld, NULL);
	wp = g_new0(struct watch_ptrace, 1);
	wp->base.ops = &ptrace_ops;
	wp->req_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	wp->event_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	wp->sig_fd = signalfd(-1, &chld, SFD_CLOEXEC | SFD_NONBLOCK);
	g_mutex_init(&wp->lock);
	g_cond_init(&wp->done);
	g_queue_init(&wp->reqs);
	g_queue_init(&wp->unclaimed);
	wp->by_tid = g_hash_table_new_full(NULL, NULL, NULL, g_free);
	wp->holds = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, g_free);
	wp->events = g_array_new(FALSE, FALSE, sizeof(struct task_event));
	wp->reports = g_array_new(FALSE, FALSE, sizeof(struct trace_report));
	if (wp->req_fd < 0 || wp->event_fd < 0 || wp->sig_fd < 0) {
		g_string_append_printf(why, "%s", g_strerror(errno));
		wp_free(&wp->base);
		return NULL;
	}
	return &wp->base;
}
