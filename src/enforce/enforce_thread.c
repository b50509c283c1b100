/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The enforcement thread: see enforce/enforce_thread.h. */
#include "enforce/enforce_thread.h"

#include <errno.h>
#include <poll.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "lib/worker.h"

struct enforce_thread {
	struct tracees *tr;
	struct freezer_enforcer *fe;
	struct quota_enforcer *qe;
	struct idle_enforcer *ie;
	struct worker *w;
};

/* How long a stopping daemon waits for threads on their way to a stop,
 * to resume them itself (giving back the signal they held). */
#define RELEASE_TIMEOUT_MS 1000
/* Threads on their way to a freeze are looked at again after 1, 2, 4 ...
 * ms, at most this often (one in uninterruptible sleep stops only when it
 * wakes). */
#define FREEZER_POLL_MAX_MS 64
#define ENFORCE_THREAD_NICE (-20)
#define NO_PASS UINT64_MAX
#define MS 1000000ULL

/* CLOCK_MONOTONIC, as quota_pass() takes it. */
static uint64_t monotonic_ns(void)
{
	return (uint64_t)g_get_monotonic_time() * 1000;
}

/* The freezer's side of the loop. */
struct freezer_clock {
	uint64_t due, next_recheck;
	unsigned poll_ms;
};

static void freezer_turn(struct enforce_thread *th, struct freezer_clock *fc, uint64_t now)
{
	bool recheck = now >= fc->next_recheck, waiting;

	waiting = freezer_pass(th->fe, recheck);
	if (recheck)
		fc->next_recheck = now + FREEZER_RECHECK_MS * MS;
	fc->poll_ms = waiting ? MIN(MAX(fc->poll_ms * 2, FREEZER_POLL_MS), FREEZER_POLL_MAX_MS) : 0;
	if (waiting)
		fc->due = now + fc->poll_ms * MS;
	else if (tracees_nr_held(th->tr, TRACEE_FROZEN) || freezer_refusing(th->fe))
		fc->due = now + FREEZER_RECHECK_MS * MS;	/* exits, refusals */
	else
		fc->due = NO_PASS;
}

static void enforce_loop(void *data, int stop_fd)
{
	struct enforce_thread *th = data;
	struct pollfd pfd[4] = {
		{ .fd = stop_fd, .events = POLLIN },
		{ .fd = th->fe ? freezer_kick_fd(th->fe) : -1, .events = POLLIN },
		{ .fd = th->qe ? quota_kick_fd(th->qe) : -1, .events = POLLIN },
		{ .fd = th->ie ? idle_kick_fd(th->ie) : -1, .events = POLLIN },
	};
	/* The first passes at once: a restored state's frozen and capped
	 * groups, and its idle ones. */
	struct freezer_clock fc = { th->fe ? 0 : NO_PASS, 0, 0 };
	uint64_t quota_due = th->qe ? 0 : NO_PASS;

	/* On time on a loaded machine: a throttled group runs again only
	 * when this thread gets a CPU after its period ends (measured in
	 * docs/benchmarks.md). Without CAP_SYS_NICE it keeps its nice. */
	if (setpriority(PRIO_PROCESS, (id_t)gettid(), ENFORCE_THREAD_NICE) < 0)
		g_debug("enforce thread: nice %d: %s", ENFORCE_THREAD_NICE, g_strerror(errno));
	if (th->ie)
		idle_pass(th->ie);
	for (;;) {
		uint64_t now = monotonic_ns(), due = MIN(fc.due, quota_due);
		struct timespec ts, *timeout = NULL;

		if (due != NO_PASS) {
			uint64_t wait = due > now ? due - now : 0;

			ts = (struct timespec){ (time_t)(wait / 1000000000ULL),
						(long)(wait % 1000000000ULL) };
			timeout = &ts;
		}
		if (ppoll(pfd, 4, timeout, NULL) < 0 && errno != EINTR)
			break;
		if (pfd[0].revents)
			break;
		if (pfd[3].revents) {
			idle_kick_clear(th->ie);
			idle_pass(th->ie);
		}
		now = monotonic_ns();
		/* The quota first: a throttled group whose period ended is
		 * late already. */
		if (pfd[2].revents) {
			quota_kick_clear(th->qe);
			quota_due = now;
		}
		if (quota_due <= now)
			quota_due = quota_pass(th->qe, now);
		if (pfd[1].revents) {
			freezer_kick_clear(th->fe);
			fc.due = now;
			fc.poll_ms = 0;
		}
		if (fc.due <= now)
			freezer_turn(th, &fc, now);
	}
	tracees_release_all(th->tr, RELEASE_TIMEOUT_MS);
	if (th->ie)
		idle_release_all(th->ie);
}

struct enforce_thread *enforce_thread_start(struct tracees *tr, struct freezer_enforcer *fe,
					    struct quota_enforcer *qe, struct idle_enforcer *ie)
{
	struct enforce_thread *th;

	if (!fe && !qe && !ie)
		return NULL;
	th = g_new0(struct enforce_thread, 1);
	*th = (struct enforce_thread){ tr, fe, qe, ie, NULL };
	th->w = worker_start("enforce", enforce_loop, th);
	if (!th->w) {
		g_free(th);
		return NULL;
	}
	return th;
}

void enforce_thread_stop(struct enforce_thread *th)
{
	if (!th)
		return;
	worker_stop(th->w);
	g_free(th);
}
