/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The freezer's thread: the one tracer of every frozen thread. */
#include "enforce/freezer.h"

#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <sys/eventfd.h>
#include <unistd.h>

struct freezer_thread {
	struct freezer_enforcer *fe;
	int stop_fd;
	GThread *thread;
};

/* How long a stopping daemon waits for threads on their way to a stop,
 * to resume them itself (giving back the signal they held). */
#define RELEASE_TIMEOUT_MS 1000
#define POLL_MAX_MS 64

static gpointer freezer_loop(gpointer data)
{
	struct freezer_thread *th = data;
	struct pollfd pfd[2] = {
		{ .fd = freezer_kick_fd(th->fe), .events = POLLIN },
		{ .fd = th->stop_fd, .events = POLLIN },
	};
	gint64 next_recheck = 0;
	/* The first pass at once: a restored state's frozen groups. Threads
	 * on their way to a stop are looked at again after 1, 2, 4 ... ms, at
	 * most every POLL_MAX_MS (one in uninterruptible sleep stops only
	 * when it wakes). */
	int poll_ms = 0;
	bool waiting = true;

	for (;;) {
		int timeout = -1;
		gint64 now;

		if (waiting)
			timeout = poll_ms;
		else if (freezer_tracing(th->fe) || freezer_stats(th->fe)->refused)
			timeout = FREEZER_RECHECK_MS;
		if (poll(pfd, 2, timeout) < 0 && errno != EINTR)
			break;
		if (pfd[1].revents)
			break;
		if (pfd[0].revents) {
			freezer_kick_clear(th->fe);
			poll_ms = 0;
		}
		now = g_get_monotonic_time();
		waiting = freezer_pass(th->fe, now >= next_recheck);
		poll_ms = waiting ? MIN(MAX(poll_ms * 2, FREEZER_POLL_MS), POLL_MAX_MS) : 0;
		if (now >= next_recheck)
			next_recheck = now + FREEZER_RECHECK_MS * 1000;
	}
	freezer_release_all(th->fe, RELEASE_TIMEOUT_MS);
	return NULL;
}

struct freezer_thread *freezer_thread_start(struct freezer_enforcer *fe)
{
	struct freezer_thread *th;

	if (!fe)
		return NULL;
	th = g_new0(struct freezer_thread, 1);
	th->fe = fe;
	th->stop_fd = eventfd(0, EFD_CLOEXEC);
	if (th->stop_fd < 0) {
		g_free(th);
		return NULL;
	}
	th->thread = g_thread_new("freezer", freezer_loop, th);
	return th;
}

void freezer_thread_stop(struct freezer_thread *th)
{
	uint64_t one = 1;

	if (!th)
		return;
	if (write(th->stop_fd, &one, sizeof(one)) != sizeof(one))
		g_warning("freezer thread: cannot stop it: %s", g_strerror(errno));
	g_thread_join(th->thread);
	close(th->stop_fd);
	g_free(th);
}
