/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The quota enforcer's thread: the one tracer of every throttled thread,
 * woken when a pass is due (a period ends, a sample, a predicted run-out)
 * or kicked. */
#include "enforce/quota.h"

#include <errno.h>
#include <poll.h>
#include <time.h>
#include <sys/eventfd.h>
#include <unistd.h>

struct quota_thread {
	struct quota_enforcer *qe;
	int stop_fd;
	GThread *thread;
};

/* How long a stopping daemon waits for threads on their way to a stop, to
 * resume them itself (giving back the signal they held). */
#define RELEASE_TIMEOUT_MS 1000

/* CLOCK_MONOTONIC, as quota_pass() takes it. */
static uint64_t monotonic_ns(void)
{
	return (uint64_t)g_get_monotonic_time() * 1000;
}

static gpointer quota_loop(gpointer data)
{
	struct quota_thread *th = data;
	struct pollfd pfd[2] = {
		{ .fd = quota_kick_fd(th->qe), .events = POLLIN },
		{ .fd = th->stop_fd, .events = POLLIN },
	};
	uint64_t due = 0;	/* the first pass at once: a restored state's caps */

	for (;;) {
		uint64_t now = monotonic_ns();
		struct timespec ts, *timeout = NULL;

		if (due != QUOTA_NO_PASS) {
			uint64_t wait = due > now ? due - now : 0;

			ts = (struct timespec){ (time_t)(wait / 1000000000ULL),
						(long)(wait % 1000000000ULL) };
			timeout = &ts;
		}
		if (ppoll(pfd, 2, timeout, NULL) < 0 && errno != EINTR)
			break;
		if (pfd[1].revents)
			break;
		if (pfd[0].revents)
			quota_kick_clear(th->qe);
		due = quota_pass(th->qe, monotonic_ns());
	}
	quota_release_all(th->qe, RELEASE_TIMEOUT_MS);
	return NULL;
}

struct quota_thread *quota_thread_start(struct quota_enforcer *qe)
{
	struct quota_thread *th;

	if (!qe)
		return NULL;
	th = g_new0(struct quota_thread, 1);
	th->qe = qe;
	th->stop_fd = eventfd(0, EFD_CLOEXEC);
	if (th->stop_fd < 0) {
		g_free(th);
		return NULL;
	}
	th->thread = g_thread_new("quota", quota_loop, th);
	return th;
}

void quota_thread_stop(struct quota_thread *th)
{
	uint64_t one = 1;

	if (!th)
		return;
	if (write(th->stop_fd, &one, sizeof(one)) != sizeof(one))
		g_warning("quota thread: cannot stop it: %s", g_strerror(errno));
	g_thread_join(th->thread);
	close(th->stop_fd);
	g_free(th);
}
