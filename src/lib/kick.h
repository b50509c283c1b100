/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Waking a worker thread from under the core lock: an eventfd that is
 * written once until the thread clears it, so that a burst of events
 * costs one system call. The thread polls kick_fd(). */
#ifndef CGFUSED_KICK_H
#define CGFUSED_KICK_H

#include <stdatomic.h>
#include <stdbool.h>

struct kick {
	int fd;
	atomic_bool kicked;
	const char *who;	/* for the warnings */
};

/* 0, or -errno when no eventfd can be had. */
int kick_init(struct kick *k, const char *who);
void kick_destroy(struct kick *k);
void kick_wake(struct kick *k);
/* Before the thread's pass: kicks from now on wake it again. */
void kick_clear(struct kick *k);

static inline int kick_fd(const struct kick *k)
{
	return k->fd;
}

#endif
