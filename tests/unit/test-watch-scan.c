/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests of the scan source (kernel/watch_scan.c) on a made-up /proc,
 * and of the choice of a source at start (kernel/watch_select.c). */
#include <errno.h>

#include <glib.h>

#include "kernel/watch_scan.h"
#include "kernel/watch_sources.h"

/* A made-up system: threads by tid. */
struct fthread {
	pid_t tid, tgid, parent;	/* parent: the thread that forked it */
	uint64_t start, ino;
	uint64_t image;
};

struct fsys {
	GHashTable *threads;	/* tid -> struct fthread * */
	uint64_t now, next_ino;
	unsigned watched;	/* open handles */
	unsigned max_watched;	/* then -EMFILE */
	unsigned listings;	/* threads() calls */
};

static struct fthread *fsys_add(struct fsys *s, pid_t tid, pid_t tgid, pid_t parent)
{
	struct fthread *t = g_new0(struct fthread, 1);

	*t = (struct fthread){ tid, tgid, parent, s->now, ++s->next_ino, 1 };
	g_hash_table_replace(s->threads, GINT_TO_POINTER(tid), t);
	return t;
}

static struct fthread *fsys_get(struct fsys *s, pid_t tid)
{
	return g_hash_table_lookup(s->threads, GINT_TO_POINTER(tid));
}

static int cmp_pid(const void *a, const void *b)
{
	return *(const pid_t *)a - *(const pid_t *)b;
}

static int f_threads(void *data, pid_t tgid, GArray *tids)
{
	struct fsys *s = data;
	GHashTableIter iter;
	struct fthread *t;

	s->listings++;
	if (!fsys_get(s, tgid))
		return -ESRCH;
	g_hash_table_iter_init(&iter, s->threads);
	while (g_hash_table_iter_next(&iter, NULL, (gpointer *)&t))
		if (t->tgid == tgid)
			g_array_append_val(tids, t->tid);
	g_array_sort(tids, cmp_pid);
	return 0;
}

static int f_children(void *data, pid_t tgid, pid_t tid, GArray *pids)
{
	struct fsys *s = data;
	GHashTableIter iter;
	struct fthread *t;

	(void)tgid;
	g_hash_table_iter_init(&iter, s->threads);
	while (g_hash_table_iter_next(&iter, NULL, (gpointer *)&t))
		if (t->parent == tid && t->tid == t->tgid)
			g_array_append_val(pids, t->tid);
	g_array_sort(pids, cmp_pid);
	return 0;
}

static int f_start(void *data, pid_t tgid, pid_t tid, uint64_t *ticks)
{
	struct fthread *t = fsys_get(data, tid);

	(void)tgid;
	if (!t)
		return -ESRCH;
	*ticks = t->start;
	return 0;
}

static uint64_t f_now(void *data)
{
	return ((struct fsys *)data)->now;
}

static int f_image(void *data, pid_t tgid, uint64_t *mark, unsigned *nthreads)
{
	struct fsys *s = data;
	struct fthread *t = fsys_get(s, tgid);
	GHashTableIter iter;

	if (!t)
		return -ESRCH;
	*mark = t->image;
	*nthreads = 0;
	g_hash_table_iter_init(&iter, s->threads);
	while (g_hash_table_iter_next(&iter, NULL, (gpointer *)&t))
		*nthreads += t->tgid == tgid;
	return 0;
}

static int f_watch(void *data, pid_t tid, const struct task_ident *id)
{
	struct fsys *s = data;
	struct fthread *t = fsys_get(s, tid);

	if (!t || t->ino != id->ino)
		return -ESRCH;
	if (s->watched == s->max_watched)
		return -EMFILE;
	s->watched++;
	return tid;
}

static bool f_gone(void *data, int handle, pid_t tid, const struct task_ident *id)
{
	struct fthread *t = fsys_get(data, tid);

	(void)handle;
	return !t || t->ino != id->ino;
}

static void f_unwatch(void *data, int handle)
{
	(void)handle;
	((struct fsys *)data)->watched--;
}

static const struct scan_proc fake_proc = {
	.threads = f_threads, .children = f_children, .start = f_start, .now = f_now,
	.image = f_image, .watch = f_watch, .gone = f_gone, .unwatch = f_unwatch,
};

struct fx {
	struct fsys sys;
	struct watch_source *ws;
};

static void fx_setup(struct fx *f)
{
	f->sys = (struct fsys){ g_hash_table_new_full(NULL, NULL, NULL, g_free), 100, 0, 0, 1000, 0 };
	/* A long period: the tests scan with watch_scan_now(). */
	f->ws = watch_scan_new(100000, &fake_proc, &f->sys);
	g_assert_nonnull(f->ws);
}

static void fx_teardown(struct fx *f)
{
	f->ws->ops->free(f->ws);
	g_assert_cmpuint(f->sys.watched, ==, 0);
	g_hash_table_unref(f->sys.threads);
}

static void hold(struct fx *f, pid_t tid)
{
	struct fthread *t = fsys_get(&f->sys, tid);

	f->ws->ops->hold(f->ws, tid, &(struct task_ident){ t->ino, t->tgid });
}

static void release(struct fx *f, uint64_t ino, pid_t tgid)
{
	f->ws->ops->release(f->ws, &(struct task_ident){ ino, tgid });
}

/* One scan's reports, as "F600<500 X601 E700" (fork of 600 by 500, exit,
 * exec), space-separated. */
static char *scan_once(struct fx *f)
{
	struct task_event ev[64];
	GString *out = g_string_new(NULL);
	int n;

	watch_scan_now(f->ws);
	n = f->ws->ops->events(f->ws, ev, G_N_ELEMENTS(ev));
	g_assert_cmpint(n, >=, 0);
	for (int i = 0; i < n; i++) {
		if (out->len)
			g_string_append_c(out, ' ');
		if (ev[i].what == TASK_EVENT_FORK)
			g_string_append_printf(out, "F%d/%d<%d", ev[i].tid, ev[i].tgid, ev[i].parent);
		else if (ev[i].what == TASK_EVENT_EXIT)
			g_string_append_printf(out, "X%d#%" G_GUINT64_FORMAT, ev[i].tid, ev[i].ino);
		else
			g_string_append_printf(out, "E%d", ev[i].tid);
	}
	return g_string_free(out, FALSE);
}

#define assert_scan(f, want)                          \
	do {                                          \
		char *got_ = scan_once(f);            \
		g_assert_cmpstr(got_, ==, want);      \
		g_free(got_);                         \
	} while (0)

/* A child of a held thread, its own child and thread, found in one scan:
 * each after its parent; reported once. */
static void test_children_in_order(void)
{
	struct fx f;

	fx_setup(&f);
	fsys_add(&f.sys, 500, 500, 1);
	hold(&f, 500);
	assert_scan(&f, "");
	f.sys.now++;
	fsys_add(&f.sys, 600, 600, 500);
	fsys_add(&f.sys, 601, 600, 600);	/* a thread of 600 */
	fsys_add(&f.sys, 700, 700, 601);	/* forked by that thread */
	assert_scan(&f, "F600/600<500 F601/600<600 F700/700<601");
	hold(&f, 600);
	hold(&f, 601);
	hold(&f, 700);
	assert_scan(&f, "");
	release(&f, fsys_get(&f.sys, 600)->ino, 600);
	release(&f, fsys_get(&f.sys, 601)->ino, 600);
	release(&f, fsys_get(&f.sys, 700)->ino, 700);
	release(&f, fsys_get(&f.sys, 500)->ino, 500);
	assert_scan(&f, "");
	fx_teardown(&f);
}

/* What a thread had before it was held (children, threads) is not new;
 * what it made after is, even before the first scan. */
static void test_hold_sees_only_newer(void)
{
	struct fx f;

	fx_setup(&f);
	fsys_add(&f.sys, 500, 500, 1);
	fsys_add(&f.sys, 501, 500, 500);
	fsys_add(&f.sys, 600, 600, 500);
	f.sys.now++;
	hold(&f, 500);
	fsys_add(&f.sys, 502, 500, 500);
	fsys_add(&f.sys, 601, 601, 500);
	assert_scan(&f, "F502/500<500 F601/601<500");
	release(&f, fsys_get(&f.sys, 500)->ino, 500);
	fx_teardown(&f);
}

/* An exit names the identity and comes once, before a fork that reuses
 * its id in the same scan. */
static void test_exit_before_reuse(void)
{
	struct fx f;
	uint64_t old;

	fx_setup(&f);
	fsys_add(&f.sys, 500, 500, 1);
	fsys_add(&f.sys, 501, 500, 500);
	hold(&f, 500);
	hold(&f, 501);
	assert_scan(&f, "");
	old = fsys_get(&f.sys, 501)->ino;
	f.sys.now++;
	fsys_add(&f.sys, 501, 501, 500);	/* the id again: a child */
	{
		char *want = g_strdup_printf("X501#%" G_GUINT64_FORMAT " F501/501<500", old);

		assert_scan(&f, want);
		g_free(want);
	}
	assert_scan(&f, "");	/* the exit is told once */
	release(&f, old, 500);
	release(&f, fsys_get(&f.sys, 500)->ino, 500);
	fx_teardown(&f);
}

/* A held process whose image changed exec'd. */
static void test_exec(void)
{
	struct fx f;

	fx_setup(&f);
	fsys_add(&f.sys, 500, 500, 1);
	hold(&f, 500);
	assert_scan(&f, "");
	fsys_get(&f.sys, 500)->image = 2;
	assert_scan(&f, "E500");
	assert_scan(&f, "");
	release(&f, fsys_get(&f.sys, 500)->ino, 500);
	fx_teardown(&f);
}

/* More reports than a call takes wait for the next call, in order, and
 * the source's fd polls readable meanwhile. */
static void test_rest_kept(void)
{
	struct fx f;
	struct task_event ev[2];
	GPollFD pfd;

	fx_setup(&f);
	fsys_add(&f.sys, 500, 500, 1);
	hold(&f, 500);
	assert_scan(&f, "");
	f.sys.now++;
	for (pid_t c = 600; c < 605; c++)
		fsys_add(&f.sys, c, c, 500);
	watch_scan_now(f.ws);
	g_assert_cmpint(f.ws->ops->events(f.ws, ev, 2), ==, 2);
	g_assert_cmpint(ev[0].tid, ==, 600);
	g_assert_cmpint(ev[1].tid, ==, 601);
	pfd = (GPollFD){ .fd = f.ws->ops->event_fd(f.ws), .events = G_IO_IN };
	g_assert_cmpint(g_poll(&pfd, 1, 5000), ==, 1);
	g_assert_cmpint(f.ws->ops->events(f.ws, ev, 2), ==, 2);
	g_assert_cmpint(ev[0].tid, ==, 602);
	g_assert_cmpint(f.ws->ops->events(f.ws, ev, 2), ==, 1);
	g_assert_cmpint(ev[0].tid, ==, 604);
	release(&f, fsys_get(&f.sys, 500)->ino, 500);
	fx_teardown(&f);
}

/* Held twice, let go at the second release; its handle closed by the
 * next scan, not by the release (which runs under the core lock). */
static void test_hold_counted(void)
{
	struct fx f;
	uint64_t ino;

	fx_setup(&f);
	fsys_add(&f.sys, 500, 500, 1);
	ino = fsys_get(&f.sys, 500)->ino;
	hold(&f, 500);
	hold(&f, 500);
	assert_scan(&f, "");
	g_assert_cmpuint(f.sys.watched, ==, 1);
	release(&f, ino, 500);
	f.sys.now++;
	fsys_add(&f.sys, 600, 600, 500);
	assert_scan(&f, "F600/600<500");
	release(&f, ino, 500);
	g_assert_cmpuint(f.sys.watched, ==, 1);
	fsys_add(&f.sys, 601, 601, 500);
	assert_scan(&f, "");
	g_assert_cmpuint(f.sys.watched, ==, 0);
	fx_teardown(&f);
}

/* Out of descriptors, a held thread is still followed (asked without
 * one), not taken for gone. */
static void test_no_handle(void)
{
	struct fx f;
	uint64_t ino;

	fx_setup(&f);
	f.sys.max_watched = 0;
	fsys_add(&f.sys, 500, 500, 1);
	ino = fsys_get(&f.sys, 500)->ino;
	hold(&f, 500);
	assert_scan(&f, "");
	f.sys.now++;
	fsys_add(&f.sys, 600, 600, 500);
	assert_scan(&f, "F600/600<500");
	g_hash_table_remove(f.sys.threads, GINT_TO_POINTER(500));
	{
		char *want = g_strdup_printf("X500#%" G_GUINT64_FORMAT, ino);

		assert_scan(&f, want);
		g_free(want);
	}
	release(&f, ino, 500);
	fx_teardown(&f);
}

/* A held process of one thread is listed once, not every scan, until it
 * has more. */
static void test_single_thread_listed_once(void)
{
	struct fx f;

	fx_setup(&f);
	fsys_add(&f.sys, 500, 500, 1);
	hold(&f, 500);
	assert_scan(&f, "");
	assert_scan(&f, "");
	assert_scan(&f, "");
	g_assert_cmpuint(f.sys.listings, ==, 1);
	f.sys.now++;
	fsys_add(&f.sys, 501, 500, 500);
	assert_scan(&f, "F501/500<500");
	g_assert_cmpuint(f.sys.listings, ==, 2);
	release(&f, fsys_get(&f.sys, 500)->ino, 500);
	fx_teardown(&f);
}

/* ---- the choice at start ---------------------------------------------- */

static struct watch_source dummy_a, dummy_b;

static struct watch_source *make_fails(GString *why)
{
	g_string_append(why, "it cannot");
	return NULL;
}

static struct watch_source *make_a(GString *why)
{
	(void)why;
	return &dummy_a;
}

static struct watch_source *make_b(GString *why)
{
	(void)why;
	return &dummy_b;
}

static void test_choose(void)
{
	const struct watch_candidate fails_then_b[] = {
		{ WATCH_CONNECTOR, "conn", make_fails, NULL },
		{ WATCH_SCAN, "scanning", make_b, "it misses some" },
	};
	const struct watch_candidate a_then_b[] = {
		{ WATCH_CONNECTOR, "conn", make_a, NULL },
		{ WATCH_SCAN, "scanning", make_b, "it misses some" },
	};
	GString *line = g_string_new(NULL);
	enum watch_mode mode;

	/* auto: the first that works, and why not the better ones. */
	g_assert_true(watch_choose(WATCH_AUTO, fails_then_b, 2, line) == &dummy_b);
	g_assert_cmpstr(line->str, ==, "tracking forks by scanning: it cannot; it misses some");
	g_assert_true(watch_choose(WATCH_AUTO, a_then_b, 2, line) == &dummy_a);
	g_assert_cmpstr(line->str, ==, "tracking forks by conn");
	/* forced: that one or none. */
	g_assert_null(watch_choose(WATCH_CONNECTOR, fails_then_b, 2, line));
	g_assert_cmpstr(line->str, ==, "tracking=connector cannot work here: it cannot");
	g_assert_true(watch_choose(WATCH_SCAN, a_then_b, 2, line) == &dummy_b);
	g_assert_null(watch_choose(WATCH_PTRACE, a_then_b, 2, line));
	g_assert_cmpstr(line->str, ==, "tracking=ptrace: this cgfused has no such source");
	g_assert_cmpint(watch_mode_parse("scan", &mode), ==, 0);
	g_assert_cmpint(mode, ==, WATCH_SCAN);
	g_assert_cmpint(watch_mode_parse("auto", &mode), ==, 0);
	g_assert_cmpint(mode, ==, WATCH_AUTO);
	g_assert_cmpint(watch_mode_parse("netlink", &mode), ==, -EINVAL);
	g_string_free(line, TRUE);
}

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/watch-scan/children-in-order", test_children_in_order);
	g_test_add_func("/watch-scan/hold-sees-only-newer", test_hold_sees_only_newer);
	g_test_add_func("/watch-scan/exit-before-reuse", test_exit_before_reuse);
	g_test_add_func("/watch-scan/exec", test_exec);
	g_test_add_func("/watch-scan/rest-kept", test_rest_kept);
	g_test_add_func("/watch-scan/hold-counted", test_hold_counted);
	g_test_add_func("/watch-scan/no-handle", test_no_handle);
	g_test_add_func("/watch-scan/single-thread-listed-once", test_single_thread_listed_once);
	g_test_add_func("/watch-select/choose", test_choose);
	return g_test_run();
}
