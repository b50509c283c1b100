/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Lists of ids from /proc. */
#ifndef CGFUSED_PROC_LIST_H
#define CGFUSED_PROC_LIST_H

#include <glib.h>
#include <sys/types.h>

/* Appends the numeric entries of a /proc directory ("/proc",
 * "/proc/TGID/task"): 0, -ESRCH when it is gone, or -errno. */
int proc_list_ids(const char *dir, GArray *ids);
/* Appends the processes thread tid of tgid forked that are still its
 * children (/proc/TGID/task/TID/children). 0 or -errno (-ESRCH: gone). */
int proc_children(pid_t tgid, pid_t tid, GArray *pids);

#endif
