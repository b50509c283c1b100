/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The scan source (watch_scan.h). */
#include "kernel/watch_scan.h"

#include <errno.h>
#include <string.h>
#include <sys/timerfd.h>
#include <unistd.h>

/* A child's children are walked this deep in one scan; at most this many
 * reports per scan (the rest are found by the next). */
#define SCAN_MAX_DEPTH 16
#define SCAN_MAX_EVENTS 4096

/* A thread the facade holds. */
struct held {
	pid_t tid;
	struct task_ident id;
	unsigned refs;
	int handle;		/* proc->watch()'s, or -errno (-1 until a scan) */
	uint64_t since;		/* when it was first held, clock ticks */
	bool exit_reported;
};

struct watch_scan {
	struct watch_source base;
	const struct scan_proc *proc;
	void *data;
	int tfd;
	unsigned period_ms;
	GMutex lock;		/* held, queue, unwatch: hold/release come from any
				 * thread; never held into a system call */
	GHashTable *held;	/* &id.ino -> struct held * */
	GArray *queue;		/* struct task_event, not yet handed out */
	/* Only the scan (the puller) touches these. */
	GHashTable *seen;	/* tids the last scan saw */
	GHashTable *walked;	/* tgids whose threads and children it listed */
	GHashTable *images;	/* tgid -> exec mark, of held processes */
	GHashTable *single;	/* tgids whose only thread was the leader */
	GArray *unwatch;	/* handles of released threads, to close */
	uint64_t scans, reports, scan_ns;
	/* This scan's. */
	GHashTable *now_seen, *now_walked, *now_single;
	unsigned budget;
};

static struct watch_scan *to_scan(struct watch_source *ws)
{
	return (struct watch_scan *)ws;
}

static void report(struct watch_scan *s, GArray *out, struct task_event ev)
{
	g_array_append_val(out, ev);
	s->budget--;
}

/* Whether tid is new since the last scan (and not held: a held thread
 * was reported, or attached). */
static bool is_new(struct watch_scan *s, GHashTable *held_tids, pid_t tid)
{
	return !g_hash_table_contains(s->seen, GINT_TO_POINTER(tid)) &&
	       !g_hash_table_contains(held_tids, GINT_TO_POINTER(tid));
}

/* Started at or after since (0: anything new counts). */
static bool born_since(struct watch_scan *s, pid_t tgid, pid_t tid, uint64_t since)
{
	uint64_t start;

	return !since || (s->proc->start(s->data, tgid, tid, &start) == 0 && start >= since);
}

static void walk(struct watch_scan *s, GHashTable *held_tids, pid_t tgid, uint64_t since,
		 unsigned depth, unsigned nthreads, GArray *out);

/* The children of thread tid of tgid: new ones reported, then walked. */
static void walk_children(struct watch_scan *s, GHashTable *held_tids, pid_t tgid, pid_t tid,
			  uint64_t since, unsigned depth, GArray *out)
{
	GArray *pids = g_array_new(FALSE, FALSE, sizeof(pid_t));

	s->proc->children(s->data, tgid, tid, pids);
	for (guint i = 0; i < pids->len; i++) {
		pid_t pid = g_array_index(pids, pid_t, i);
		bool fresh = is_new(s, held_tids, pid);

		if (!s->budget)
			break;
		g_hash_table_add(s->now_seen, GINT_TO_POINTER(pid));
		if (!fresh || !born_since(s, pid, pid, since))
			continue;
		report(s, out, (struct task_event){ .what = TASK_EVENT_FORK, .tid = pid,
						    .tgid = pid, .parent = tid });
		if (depth < SCAN_MAX_DEPTH)
			walk(s, held_tids, pid, 0, depth + 1, 0, out);
	}
	g_array_unref(pids);
}

/* Process tgid: its new threads reported, every thread's children. since:
 * only what started then or later is new (the process was held since the
 * last scan, which did not list it). nthreads: how many it has now, if
 * known (0: not): one, and the leader alone last time, needs no listing. */
static void walk(struct watch_scan *s, GHashTable *held_tids, pid_t tgid, uint64_t since,
		 unsigned depth, unsigned nthreads, GArray *out)
{
	GArray *tids = g_array_new(FALSE, FALSE, sizeof(pid_t));

	g_hash_table_add(s->now_walked, GINT_TO_POINTER(tgid));
	if (nthreads == 1 && g_hash_table_contains(s->single, GINT_TO_POINTER(tgid)))
		g_array_append_val(tids, tgid);
	else
		s->proc->threads(s->data, tgid, tids);
	if (tids->len == 1 && g_array_index(tids, pid_t, 0) == tgid)
		g_hash_table_add(s->now_single, GINT_TO_POINTER(tgid));
	for (guint i = 0; i < tids->len && s->budget; i++) {
		pid_t tid = g_array_index(tids, pid_t, i);

		if (tid != tgid && is_new(s, held_tids, tid) && born_since(s, tgid, tid, since))
			report(s, out, (struct task_event){ .what = TASK_EVENT_FORK, .tid = tid,
							    .tgid = tgid, .parent = tgid });
		g_hash_table_add(s->now_seen, GINT_TO_POINTER(tid));
	}
	for (guint i = 0; i < tids->len && s->budget; i++)
		walk_children(s, held_tids, tgid, g_array_index(tids, pid_t, i), since, depth, out);
	g_array_unref(tids);
}

static int cmp_pid(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;

	return (x > y) - (x < y);
}

/* A held process: since is 0 when the last scan listed it, else the
 * earliest hold of its threads. */
struct held_proc {
	pid_t tgid;
	uint64_t since;
};

/* A held thread as a scan looks at it, with s->lock let go. */
struct look {
	pid_t tid;
	struct task_ident id;
	uint64_t since;
	int handle;
	bool opened;		/* the handle was opened by this scan */
	bool gone;
};

/* The exits, the live held threads by tid, and their processes. The
 * system calls (a pidfd opened for what was held since the last scan, a
 * poll of each) run with s->lock let go: a release waits for it under the
 * core lock. */
static void check_held(struct watch_scan *s, GArray *out, GHashTable *held_tids,
		       GHashTable *procs, GArray *closing)
{
	GArray *looks = g_array_new(FALSE, FALSE, sizeof(struct look));
	GHashTableIter iter;
	struct held *h;

	g_mutex_lock(&s->lock);
	g_array_append_vals(closing, s->unwatch->data, s->unwatch->len);
	g_array_set_size(s->unwatch, 0);
	g_hash_table_iter_init(&iter, s->held);
	while (g_hash_table_iter_next(&iter, NULL, (gpointer *)&h))
		if (!h->exit_reported)
			g_array_append_val(looks, ((struct look){ h->tid, h->id, h->since,
								   h->handle, false, false }));
	g_mutex_unlock(&s->lock);
	for (guint i = 0; i < looks->len; i++) {
		struct look *l = &g_array_index(looks, struct look, i);

		if (l->handle < 0) {
			l->handle = s->proc->watch(s->data, l->tid, &l->id);
			l->opened = l->handle >= 0;
		}
		/* Out of descriptors (EMFILE): asked without one, and again
		 * next scan. */
		l->gone = l->handle == -ESRCH || s->proc->gone(s->data, l->handle, l->tid, &l->id);
	}
	g_mutex_lock(&s->lock);
	for (guint i = 0; i < looks->len; i++) {
		struct look *l = &g_array_index(looks, struct look, i);
		struct held_proc *p;

		h = g_hash_table_lookup(s->held, &l->id.ino);
		if (l->opened && (!h || h->handle >= 0))
			g_array_append_val(closing, l->handle);	/* released meanwhile */
		else if (l->opened)
			h->handle = l->handle;
		if (!h)
			continue;
		if (l->gone) {
			h->exit_reported = true;
			/* Its id, if seen again, is a new thread's. */
			g_hash_table_remove(s->seen, GINT_TO_POINTER(l->tid));
			report(s, out, (struct task_event){ .what = TASK_EVENT_EXIT, .tid = l->tid,
							    .tgid = l->id.tgid, .ino = l->id.ino });
			continue;
		}
		g_hash_table_add(held_tids, GINT_TO_POINTER(l->tid));
		p = g_hash_table_lookup(procs, GINT_TO_POINTER(l->id.tgid));
		if (!p) {
			p = g_new0(struct held_proc, 1);
			p->tgid = l->id.tgid;
			p->since = g_hash_table_contains(s->walked, GINT_TO_POINTER(p->tgid)) ? 0 : l->since;
			g_hash_table_insert(procs, GINT_TO_POINTER(p->tgid), p);
		} else if (p->since) {
			p->since = MIN(p->since, l->since);
		}
	}
	g_mutex_unlock(&s->lock);
	g_array_unref(looks);
}

/* A held process whose image changed since the last scan exec'd. Its
 * number of threads, or 0 if unknown. */
static unsigned check_exec(struct watch_scan *s, GHashTable *images, pid_t tgid, GArray *out)
{
	unsigned nthreads = 0;
	gpointer old;
	uint64_t mark;
	bool had;

	if (s->proc->image(s->data, tgid, &mark, &nthreads) < 0)
		return 0;
	had = g_hash_table_lookup_extended(s->images, GINT_TO_POINTER(tgid), NULL, &old);
	if (had && *(uint64_t *)old != mark)
		report(s, out, (struct task_event){ .what = TASK_EVENT_EXEC, .tid = tgid,
						    .tgid = tgid });
	g_hash_table_insert(images, GINT_TO_POINTER(tgid), g_memdup2(&mark, sizeof(mark)));
	return nthreads;
}

static void scan(struct watch_scan *s)
{
	GHashTable *held_tids = g_hash_table_new(NULL, NULL);
	GHashTable *procs = g_hash_table_new_full(NULL, NULL, NULL, g_free);
	GHashTable *images = g_hash_table_new_full(NULL, NULL, NULL, g_free);
	GArray *out = g_array_new(FALSE, FALSE, sizeof(struct task_event));
	GArray *tgids = g_array_new(FALSE, FALSE, sizeof(pid_t));
	int64_t start = g_get_monotonic_time();
	GArray *closing;
	GHashTableIter iter;
	gpointer key;

	s->budget = SCAN_MAX_EVENTS;
	s->now_seen = g_hash_table_new(NULL, NULL);
	s->now_walked = g_hash_table_new(NULL, NULL);
	s->now_single = g_hash_table_new(NULL, NULL);
	closing = g_array_new(FALSE, FALSE, sizeof(int));
	check_held(s, out, held_tids, procs, closing);
	for (guint i = 0; i < closing->len; i++)
		s->proc->unwatch(s->data, g_array_index(closing, int, i));
	g_array_unref(closing);
	g_hash_table_iter_init(&iter, procs);
	while (g_hash_table_iter_next(&iter, &key, NULL)) {
		pid_t tgid = GPOINTER_TO_INT(key);

		g_array_append_val(tgids, tgid);
	}
	g_array_sort(tgids, cmp_pid);
	for (guint i = 0; i < tgids->len && s->budget; i++) {
		struct held_proc *p = g_hash_table_lookup(procs, GINT_TO_POINTER(g_array_index(tgids, pid_t, i)));

		unsigned nthreads = check_exec(s, images, p->tgid, out);

		walk(s, held_tids, p->tgid, p->since, 0, nthreads, out);
	}
	g_hash_table_unref(s->seen);
	g_hash_table_unref(s->walked);
	g_hash_table_unref(s->images);
	g_hash_table_unref(s->single);
	s->single = s->now_single;
	s->seen = s->now_seen;
	s->walked = s->now_walked;
	s->images = images;
	g_mutex_lock(&s->lock);
	g_array_append_vals(s->queue, out->data, out->len);
	g_mutex_unlock(&s->lock);
	s->scans++;
	s->reports += out->len;
	s->scan_ns += (uint64_t)(g_get_monotonic_time() - start) * 1000;
	g_array_unref(out);
	g_array_unref(tgids);
	g_hash_table_unref(held_tids);
	g_hash_table_unref(procs);
}

/* Whether the timer fired since the last read. */
static bool timer_fired(struct watch_scan *s)
{
	uint64_t n;

	return read(s->tfd, &n, sizeof(n)) == sizeof(n) && n > 0;
}

void watch_scan_now(struct watch_source *ws)
{
	scan(to_scan(ws));
}

static int scan_events(struct watch_source *ws, struct task_event *ev, unsigned max)
{
	struct watch_scan *s = to_scan(ws);
	unsigned n;

	g_mutex_lock(&s->lock);
	n = s->queue->len;
	g_mutex_unlock(&s->lock);
	if (!n && timer_fired(s))
		scan(s);
	g_mutex_lock(&s->lock);
	n = MIN(max, s->queue->len);
	if (n) {
		memcpy(ev, s->queue->data, n * sizeof(*ev));
		g_array_remove_range(s->queue, 0, n);
	}
	if (s->queue->len) {
		/* Readable again at once: the rest is waiting. */
		struct itimerspec now = { { s->period_ms / 1000, (s->period_ms % 1000) * 1000000L },
					  { 0, 1 } };

		timerfd_settime(s->tfd, 0, &now, NULL);
	}
	g_mutex_unlock(&s->lock);
	return (int)n;
}

static int scan_event_fd(struct watch_source *ws)
{
	return to_scan(ws)->tfd;
}

static int scan_hold(struct watch_source *ws, pid_t tid, const struct task_ident *id)
{
	struct watch_scan *s = to_scan(ws);
	struct held *h;

	g_mutex_lock(&s->lock);
	h = g_hash_table_lookup(s->held, &id->ino);
	if (!h) {
		h = g_new0(struct held, 1);
		h->tid = tid;
		h->id = *id;
		h->handle = -1;
		h->since = s->proc->now(s->data);
		g_hash_table_insert(s->held, &h->id.ino, h);
	}
	h->refs++;
	g_mutex_unlock(&s->lock);
	return 0;
}

/* Called under the core lock: no system call (the handle is closed by the
 * next scan). */
static void scan_release(struct watch_source *ws, const struct task_ident *id)
{
	struct watch_scan *s = to_scan(ws);
	struct held *h;

	g_mutex_lock(&s->lock);
	h = g_hash_table_lookup(s->held, &id->ino);
	if (h && --h->refs == 0) {
		if (h->handle >= 0)
			g_array_append_val(s->unwatch, h->handle);
		g_hash_table_remove(s->held, &id->ino);
	}
	g_mutex_unlock(&s->lock);
}

static void scan_stat(struct watch_source *ws, GString *out)
{
	struct watch_scan *s = to_scan(ws);
	unsigned held;

	g_mutex_lock(&s->lock);
	held = g_hash_table_size(s->held);
	g_mutex_unlock(&s->lock);
	g_string_append_printf(out, "task_watch_period_ms %u\n"
			       "task_watch_held %u\n"
			       "task_watch_scans %" G_GUINT64_FORMAT "\n"
			       "task_watch_events %" G_GUINT64_FORMAT "\n"
			       "task_watch_scan_ns %" G_GUINT64_FORMAT "\n",
			       s->period_ms, held, s->scans, s->reports, s->scan_ns);
}

static void scan_free(struct watch_source *ws)
{
	struct watch_scan *s = to_scan(ws);
	GHashTableIter iter;
	struct held *h;

	g_hash_table_iter_init(&iter, s->held);
	while (g_hash_table_iter_next(&iter, NULL, (gpointer *)&h))
		if (h->handle >= 0)
			s->proc->unwatch(s->data, h->handle);
	for (guint i = 0; i < s->unwatch->len; i++)
		s->proc->unwatch(s->data, g_array_index(s->unwatch, int, i));
	g_array_unref(s->unwatch);
	g_hash_table_unref(s->held);
	g_hash_table_unref(s->seen);
	g_hash_table_unref(s->walked);
	g_hash_table_unref(s->images);
	g_hash_table_unref(s->single);
	g_array_unref(s->queue);
	g_mutex_clear(&s->lock);
	close(s->tfd);
	g_free(s);
}

static const struct watch_source_ops scan_ops = {
	.name = "scan",
	.late = true,
	.events = scan_events,
	.event_fd = scan_event_fd,
	.hold = scan_hold,
	.release = scan_release,
	.stat = scan_stat,
	.free = scan_free,
};

struct watch_source *watch_scan_new(unsigned period_ms, const struct scan_proc *proc, void *data)
{
	struct itimerspec every = { { period_ms / 1000, (period_ms % 1000) * 1000000L },
				    { period_ms / 1000, (period_ms % 1000) * 1000000L } };
	struct watch_scan *s;
	int tfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);

	if (tfd < 0)
		return NULL;
	if (timerfd_settime(tfd, 0, &every, NULL) < 0) {
		close(tfd);
		return NULL;
	}
	s = g_new0(struct watch_scan, 1);
	s->base.ops = &scan_ops;
	s->proc = proc;
	s->data = data;
	s->tfd = tfd;
	s->period_ms = period_ms;
	g_mutex_init(&s->lock);
	s->held = g_hash_table_new_full(g_int64_hash, g_int64_equal, NULL, g_free);
	s->queue = g_array_new(FALSE, FALSE, sizeof(struct task_event));
	s->seen = g_hash_table_new(NULL, NULL);
	s->walked = g_hash_table_new(NULL, NULL);
	s->images = g_hash_table_new_full(NULL, NULL, NULL, g_free);
	s->single = g_hash_table_new(NULL, NULL);
	s->unwatch = g_array_new(FALSE, FALSE, sizeof(int));
	return &s->base;
}
