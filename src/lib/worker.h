/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A worker thread's shape: started with an eventfd that asks it to stop,
 * which its loop polls with its own descriptors; stopping writes it and
 * joins the thread. */
#ifndef CGFUSED_WORKER_H
#define CGFUSED_WORKER_H

#include <stdbool.h>

struct worker;

/* Runs fn(data, stop_fd) on a new thread named name; fn returns once
 * stop_fd is readable. NULL when no eventfd can be had. */
struct worker *worker_start(const char *name, void (*fn)(void *data, int stop_fd), void *data);
/* For fn's loop: waits until fd is readable (true) or the thread is to
 * stop (false; also when poll fails, which is said). */
bool worker_wait(int fd, int stop_fd);
/* Asks the thread to stop and waits for it. NULL-safe. */
void worker_stop(struct worker *w);

#endif
