/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The scan source: every period, a /proc walk of the held threads only.
 *
 *   exits   a held thread's pidfd polls readable (before Linux 6.9, its
 *           process's does, or the thread's start time no longer matches);
 *   forks   a thread of a held process, or a child listed in a held
 *           thread's /proc/TGID/task/TID/children, that the previous scan did
 *           not see; a new child's own threads and children are walked at
 *           once, so a grandchild is reported after its parent;
 *   execs   a held process whose comm or stack start (/proc/TGID/stat
 *           fields 2 and 28) changed: a new program image. The same read
 *           gives its number of threads (field 20): a process of one
 *           thread, as in the last scan, is not listed again.
 *
 * In each scan exits come first, then forks, parents before children. A
 * child that exits, or whose parent exits (it is reparented), between two
 * scans is never seen; an exec that keeps the name and the stack address
 * is not seen either. The /proc reads go through struct scan_proc so that
 * unit tests can run the logic on a made-up system. */
#ifndef CGFUSED_WATCH_SCAN_H
#define CGFUSED_WATCH_SCAN_H

#include "kernel/watch.h"

/* The default period, in ms. */
#define WATCH_SCAN_MS 50

struct scan_proc {
	/* The thread ids of process tgid; the child process ids of thread
	 * tid of tgid. 0 or -errno (-ESRCH: gone). */
	int (*threads)(void *data, pid_t tgid, GArray *tids);
	int (*children)(void *data, pid_t tgid, pid_t tid, GArray *pids);
	/* When thread tid of tgid started, and the time now, in clock ticks
	 * after boot (/proc/TGID/task/TID/stat field 22). 0 or -errno. */
	int (*start)(void *data, pid_t tgid, pid_t tid, uint64_t *ticks);
	uint64_t (*now)(void *data);
	/* Something that changes when process tgid execs, and how many
	 * threads it has (one read: a process of one thread, as last time,
	 * need not be listed). 0 or -errno. */
	int (*image)(void *data, pid_t tgid, uint64_t *mark, unsigned *nthreads);
	/* A handle to watch the held thread's exit by (closed by unwatch),
	 * or -errno (-ESRCH: it is gone); whether the thread is gone, asked
	 * with its handle or, when there is none (-EMFILE ...), a negative
	 * one. */
	int (*watch)(void *data, pid_t tid, const struct task_ident *id);
	bool (*gone)(void *data, int handle, pid_t tid, const struct task_ident *id);
	void (*unwatch)(void *data, int handle);
};

/* A scan every period_ms through proc (NULL: the real /proc), with data
 * handed to it. The event fd is a timerfd; NULL with errno if there is
 * none. */
struct watch_source *watch_scan_new(unsigned period_ms, const struct scan_proc *proc,
				    void *data);
/* Runs one scan now, whatever the timer says (for tests). */
void watch_scan_now(struct watch_source *ws);

#endif
