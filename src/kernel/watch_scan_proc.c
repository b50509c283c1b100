/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The scan source on the real /proc. */
#include "kernel/watch_scan.h"
#include "kernel/watch_sources.h"

#include "kernel/proc_list.h"
#include "kernel/task_cputime.h"
#include "kernel/thread_ident.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

static int real_threads(void *data, pid_t tgid, GArray *tids)
{
	char path[64];

	(void)data;
	snprintf(path, sizeof(path), "/proc/%d/task", tgid);
	return proc_list_ids(path, tids);
}

static int real_children(void *data, pid_t tgid, pid_t tid, GArray *pids)
{
	(void)data;
	return proc_children(tgid, tid, pids);
}

static int real_start(void *data, pid_t tgid, pid_t tid, uint64_t *ticks)
{
	struct proc_task_cputime ct;
	int ret = task_stat_read(tgid, tid, &ct);

	(void)data;
	if (ret == 0)
		*ticks = ct.starttime;
	return ret;
}

static uint64_t real_now(void *data)
{
	struct timespec ts;

	(void)data;
	clock_gettime(CLOCK_BOOTTIME, &ts);
	return ((uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec) /
	       (1000000000ULL / (uint64_t)sysconf(_SC_CLK_TCK));
}

/* The comm and the stack's start (field 28) of /proc/TGID/stat, hashed,
 * and the number of threads (field 20): an exec gives a new stack
 * (randomized) and, mostly, a new comm. Field 28 reads 0 without ptrace
 * access to the process: then only the comm tells. Read into the stack
 * and parsed in place: this runs for every held process at every scan. */
static int real_image(void *data, pid_t tgid, uint64_t *mark, unsigned *nthreads)
{
	char path[64], buf[1024], *close_paren, *p;
	ssize_t len;
	int fd, field;

	(void)data;
	snprintf(path, sizeof(path), "/proc/%d/stat", tgid);
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? -ESRCH : -errno;
	len = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (len <= 0)
		return -ESRCH;
	buf[len] = '\0';
	close_paren = strrchr(buf, ')');
	if (!close_paren)
		return -EPROTO;
	*mark = 5381;
	for (p = buf; p < close_paren; p++)
		*mark = *mark * 33 + (unsigned char)*p;
	/* Field 3 starts after ") ". */
	for (p = close_paren + 2, field = 3; *p && field < 28; field++) {
		if (field == 20)
			*nthreads = (unsigned)strtoul(p, NULL, 10);
		p = strchr(p, ' ');
		if (!p)
			return -EPROTO;
		p++;
	}
	*mark ^= (uint64_t)strtoull(p, NULL, 10) << 16;
	return 0;
}

/* The pidfds held, at most half the descriptors this process may open:
 * the rest are the daemon's own (FUSE, the state, /proc reads). Past it a
 * thread is asked about without one (watch_scan.h). */
struct real_watches {
	unsigned open, max;
};

static int real_watch(void *data, pid_t tid, const struct task_ident *id)
{
	struct real_watches *w = data;
	int fd;

	if (w->open >= w->max)
		return -EMFILE;
	fd = thread_pidfd(tid, id->tgid);
	if (fd >= 0 && !thread_ident_alive(tid, id)) {
		close(fd);
		return -ESRCH;	/* the id is another thread's by now */
	}
	if (fd >= 0)
		w->open++;
	return fd;
}

static bool real_gone(void *data, int fd, pid_t tid, const struct task_ident *id)
{
	(void)data;
	if (fd < 0) {
		/* Out of descriptors still (EMFILE): not known to be gone. */
		uint64_t ino;
		int ret = thread_ident(tid, &ino, NULL);

		return ret == -ESRCH || (ret == 0 && ino != id->ino);
	}
	if (pidfd_exited(fd))
		return true;
	/* Before 6.9 the pidfd is the process's: the thread may be gone. */
	return !thread_ident_exact() && tid != id->tgid && !thread_ident_alive(tid, id);
}

static void real_unwatch(void *data, int fd)
{
	struct real_watches *w = data;

	w->open--;
	close(fd);
}

static const struct scan_proc real_proc = {
	.threads = real_threads,
	.children = real_children,
	.start = real_start,
	.now = real_now,
	.image = real_image,
	.watch = real_watch,
	.gone = real_gone,
	.unwatch = real_unwatch,
};

struct watch_source *watch_scan_default_new(GString *why)
{
	/* One scan source per daemon: its count can be static. */
	static struct real_watches watches;
	struct rlimit nofile;
	struct watch_source *ws;

	watches.max = getrlimit(RLIMIT_NOFILE, &nofile) == 0 && nofile.rlim_cur != RLIM_INFINITY
		      ? (unsigned)MIN(nofile.rlim_cur / 2, G_MAXUINT) : 1 << 20;
	ws = watch_scan_new(WATCH_SCAN_MS, &real_proc, &watches);

	if (!ws)
		g_string_append_printf(why, "no timerfd for the /proc scan (%s)", g_strerror(errno));
	return ws;
}
