/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The allocator's thread. */
#include "alloc/alloc_thread.h"

#include <errno.h>
#include <poll.h>

#include "lib/worker.h"

struct alloc_thread {
	struct allocator *alloc;
	struct worker *w;
};

static void alloc_loop(void *data, int stop_fd)
{
	struct alloc_thread *th = data;
	struct pollfd pfd[2] = {
		{ .fd = alloc_kick_fd(th->alloc), .events = POLLIN },
		{ .fd = stop_fd, .events = POLLIN },
	};
	gint64 next_sample = g_get_monotonic_time(), last_pass = 0;

	for (;;) {
		gint64 now = g_get_monotonic_time();
		int timeout = (int)MAX(0, (next_sample - now) / 1000);

		/* Threads that widened their affinity more than once: read
		 * again soon (alloc.h). */
		if (alloc_rechecking(th->alloc))
			timeout = MIN(timeout, ALLOC_RECHECK_MS);

		if (poll(pfd, 2, timeout) < 0 && errno != EINTR)
			break;
		if (pfd[1].revents)
			break;
		now = g_get_monotonic_time();
		if (now >= next_sample) {
			alloc_kick_clear(th->alloc);
			alloc_pass(th->alloc, true);
			next_sample = now + ALLOC_PERIOD_MS * 1000;
			last_pass = now;
		} else if (pfd[0].revents) {
			gint64 wait = last_pass + ALLOC_KICK_GAP_MS * 1000 - now;

			if (wait > 0)
				g_usleep((gulong)wait);
			alloc_kick_clear(th->alloc);
			alloc_pass(th->alloc, false);
			last_pass = g_get_monotonic_time();
		} else {
			alloc_recheck(th->alloc);
		}
	}
}

struct alloc_thread *alloc_thread_start(struct allocator *a)
{
	struct alloc_thread *th = g_new0(struct alloc_thread, 1);

	th->alloc = a;
	th->w = worker_start("allocator", alloc_loop, th);
	if (!th->w) {
		g_free(th);
		return NULL;
	}
	return th;
}

void alloc_thread_stop(struct alloc_thread *th)
{
	if (!th)
		return;
	worker_stop(th->w);
	g_free(th);
}
