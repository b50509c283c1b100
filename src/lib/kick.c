/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A worker thread's wake-up: see lib/kick.h. */
#include "lib/kick.h"

#include <errno.h>
#include <glib.h>
#include <stdint.h>
#include <sys/eventfd.h>
#include <unistd.h>

int kick_init(struct kick *k, const char *who)
{
	k->who = who;
	atomic_init(&k->kicked, false);
	k->fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	return k->fd < 0 ? -errno : 0;
}

void kick_destroy(struct kick *k)
{
	if (k->fd >= 0)
		close(k->fd);
	k->fd = -1;
}

void kick_wake(struct kick *k)
{
	uint64_t one = 1;

	if (atomic_exchange(&k->kicked, true))
		return;
	if (write(k->fd, &one, sizeof(one)) < 0)
		g_warning("%s: cannot wake: %s", k->who, g_strerror(errno));
}

void kick_clear(struct kick *k)
{
	uint64_t n;

	atomic_store(&k->kicked, false);
	if (read(k->fd, &n, sizeof(n)) < 0 && errno != EAGAIN)
		g_warning("%s: %s", k->who, g_strerror(errno));
}
