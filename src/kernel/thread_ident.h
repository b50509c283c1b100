/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Which thread a thread id names, for as long as it lives. Since Linux 6.9
 * exactly: the pidfs inode of a pidfd of the thread (pidfd_open with
 * PIDFD_THREAD). Before, pidfds open only processes and share one inode, so
 * a thread is named by its id and its start time (/proc/TID/stat field 22,
 * in clock ticks): two threads that get the same id within one tick (a
 * pid_max wrap that fast) look the same, and a signal is aimed through a
 * pidfd of the process. Probed once, at the first call. */
#ifndef CGFUSED_THREAD_IDENT_H
#define CGFUSED_THREAD_IDENT_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "kernel/kfacade.h"

/* Whether this kernel opens pidfds of threads (6.9 and later). */
bool thread_ident_exact(void);

/* The identity of the live thread tid; with tgid, also its process, and
 * -EINVAL for a kernel thread. 0 or -errno (-ESRCH: no such thread). */
int thread_ident(pid_t tid, uint64_t *ino, pid_t *tgid);
/* Whether the thread with this identity still lives. */
bool thread_ident_alive(pid_t tid, const struct task_ident *id);
/* SIGKILL to thread tid (its whole process) if it is still the thread id
 * names: 0, or -ESRCH when that thread is gone. */
int thread_ident_kill(pid_t tid, const struct task_ident *id);

/* A pidfd that polls readable once the thread exits (exact), or once its
 * process exits (before 6.9; the caller then checks the thread itself).
 * -errno when there is no such thread. */
int thread_pidfd(pid_t tid, pid_t tgid);
/* Whether a pidfd polls readable: its thread or process has exited. */
bool pidfd_exited(int fd);

#endif
