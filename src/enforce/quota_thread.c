/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The cpu controller's enforcer thread: the quota's, the one tracer of
 * every throttled thread, woken when a pass is due (a period ends, a
 * sample, a predicted run-out) or kicked; and cpu.idle's, at its kicks. */
#include "enforce/idle.h"
#include "enforce/quota.h"

#include <errno.h>
#include <poll.h>
#include <sys/resource.h>
#include <time.h>
#include <sys/eventfd.h>
#include <unistd.h>

struct quota_thread {
	struct quota_enforcer *qe;
	struct idle_enforcer *ie;
	int stop_fd;
	GThread *thread;
};

/* How long a stopping daemon waits for threads on their way to a stop, to
 * resume them itself (giving back the signal they held). */
#define RELEASE_TIMEOUT_MS 1000
#define QUOTA_THREAD_NICE (-20)

/* CLOCK_MONOTONIC, as quota_pass() takes it. */
static uint64_t monotonic_ns(void)
{
	return (uint64_t)g_get_monotonic_time() * 1000;
}

static gpointer quota_loop(gpointer data)
{
	/* On time on a loaded machine: a throttled group runs again only
	 * when this thread gets a CPU after its period ends (measured in
	 * docs/benchmarks.md). Without CAP_SYS_NICE it keeps its nice. */
	if (setpriority(PRIO_PROCESS, (id_t)gettid(), QUOTA_THREAD_NICE) < 0)
		g_debug("quota thread: nice %d: %s", QUOTA_THREAD_NICE, g_strerror(errno));
	struct quota_thread *th = data;
	struct pollfd pfd[3] = {
		{ .fd = quota_kick_fd(th->qe), .events = POLLIN },
		{ .fd = th->stop_fd, .events = POLLIN },
		{ .fd = idle_kick_fd(th->ie), .events = POLLIN },
	};
	uint64_t due = 0;	/* the first pass at once: a restored state's caps */

	idle_pass(th->ie);	/* and its idle groups */

	for (;;) {
		uint64_t now = monotonic_ns();
		struct timespec ts, *timeout = NULL;

		if (due != QUOTA_NO_PASS) {
			uint64_t wait = due > now ? due - now : 0;

			ts = (struct timespec){ (time_t)(wait / 1000000000ULL),
						(long)(wait % 1000000000ULL) };
			timeout = &ts;
		}
		if (ppoll(pfd, 3, timeout, NULL) < 0 && errno != EINTR)
			break;
		if (pfd[1].revents)
			break;
		if (pfd[2].revents) {
			idle_kick_clear(th->ie);
			idle_pass(th->ie);
			if (!pfd[0].revents && due > monotonic_ns())
				continue;
		}
		if (pfd[0].revents)
			quota_kick_clear(th->qe);
		due = quota_pass(th->qe, monotonic_ns());
	}
	quota_release_all(th->qe, RELEASE_TIMEOUT_MS);
	idle_release_all(th->ie);
	return NULL;
}

struct quota_thread *quota_thread_start(struct quota_enforcer *qe, struct idle_enforcer *ie)
{
	struct quota_thread *th;

	if (!qe || !ie)
		return NULL;
	th = g_new0(struct quota_thread, 1);
	th->qe = qe;
	th->ie = ie;
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
