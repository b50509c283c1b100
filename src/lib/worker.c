/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A worker thread's shape: see lib/worker.h. */
#include "lib/worker.h"

#include <errno.h>
#include <glib.h>
#include <poll.h>
#include <stdint.h>
#include <sys/eventfd.h>
#include <unistd.h>

struct worker {
	void (*fn)(void *data, int stop_fd);
	void *data;
	int stop_fd;
	GThread *thread;
};

static gpointer run(gpointer data)
{
	struct worker *w = data;

	w->fn(w->data, w->stop_fd);
	return NULL;
}

struct worker *worker_start(const char *name, void (*fn)(void *data, int stop_fd), void *data)
{
	struct worker *w = g_new0(struct worker, 1);

	w->fn = fn;
	w->data = data;
	w->stop_fd = eventfd(0, EFD_CLOEXEC);
	if (w->stop_fd < 0) {
		g_warning("%s thread: no eventfd: %s", name, g_strerror(errno));
		g_free(w);
		return NULL;
	}
	w->thread = g_thread_new(name, run, w);
	return w;
}

bool worker_wait(int fd, int stop_fd)
{
	struct pollfd pfd[2] = {
		{ .fd = fd, .events = POLLIN },
		{ .fd = stop_fd, .events = POLLIN },
	};

	while (poll(pfd, 2, -1) < 0) {
		if (errno != EINTR) {
			g_warning("worker thread: poll: %s", g_strerror(errno));
			return false;
		}
	}
	return !pfd[1].revents;
}

void worker_stop(struct worker *w)
{
	uint64_t one = 1;

	if (!w)
		return;
	if (write(w->stop_fd, &one, sizeof(one)) != sizeof(one))
		g_warning("worker: cannot stop it: %s", g_strerror(errno));
	g_thread_join(w->thread);
	close(w->stop_fd);
	g_free(w);
}
