/* The kernel facade on a real system: pidfds (one per tracked thread, in one
 * epoll set, so exits are noticed without polling /proc) and /proc. */
#include "kfacade.h"

#include "cpumask.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Newer than the installed 6.1 headers (KERNEL-NOTES.md): a pidfd for one
 * thread rather than its whole process. */
#ifndef PIDFD_THREAD
#define PIDFD_THREAD O_EXCL
#endif

struct kfacade_linux {
	struct kfacade base;
	int epfd;
	char *online_cpus;
	char *online_mems;
	unsigned nr_cpu_ids;
};

static struct kfacade_linux *to_linux(struct kfacade *kf)
{
	return (struct kfacade_linux *)kf;
}

/* Tgid and whether it is a kernel thread, from /proc/TID/status. */
static int read_status(pid_t tid, pid_t *tgid, bool *kthread)
{
	char path[64], *data = NULL, *line;
	int ret = -ESRCH;

	snprintf(path, sizeof(path), "/proc/%d/status", tid);
	if (!g_file_get_contents(path, &data, NULL, NULL))
		return ret;
	*kthread = false;
	if ((line = strstr(data, "\nTgid:")) && sscanf(line + 6, "%d", tgid) == 1)
		ret = 0;
	if ((line = strstr(data, "\nKthread:")))
		*kthread = atoi(line + 9) == 1;
	g_free(data);
	return ret;
}

static int linux_task_open(struct kfacade *kf, pid_t tid, void *cookie, struct task_ident *id)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = cookie };
	struct pollfd pfd;
	struct stat st;
	bool kthread;
	int fd, ret;

	if (tid <= 0)
		return -ESRCH;
	fd = (int)syscall(SYS_pidfd_open, tid, PIDFD_THREAD);
	if (fd < 0)
		return errno == EINVAL ? -ESRCH : -errno;
	ret = read_status(tid, &id->tgid, &kthread);
	if (ret == 0 && kthread)
		ret = -EINVAL;
	/* Still alive now means the status we read was this thread's. */
	pfd = (struct pollfd){ .fd = fd, .events = POLLIN };
	if (ret == 0 && poll(&pfd, 1, 0) != 0)
		ret = -ESRCH;
	if (ret == 0 && fstat(fd, &st) < 0)
		ret = -errno;
	if (ret == 0 && epoll_ctl(to_linux(kf)->epfd, EPOLL_CTL_ADD, fd, &ev) < 0)
		ret = -errno;
	if (ret < 0) {
		close(fd);
		return ret;
	}
	id->fd = fd;
	id->ino = st.st_ino;
	return 0;
}

static void linux_task_close(struct kfacade *kf, struct task_ident *id)
{
	if (id->fd < 0)
		return;
	epoll_ctl(to_linux(kf)->epfd, EPOLL_CTL_DEL, id->fd, NULL);
	close(id->fd);
	id->fd = -1;
}

static unsigned linux_exited(struct kfacade *kf, void **cookies, unsigned max)
{
	struct epoll_event ev[256];
	int n = epoll_wait(to_linux(kf)->epfd, ev, (int)MIN(max, G_N_ELEMENTS(ev)), 0);

	for (int i = 0; i < n; i++)
		cookies[i] = ev[i].data.ptr;
	return n > 0 ? (unsigned)n : 0;
}

/* Appends the numeric entries of a /proc directory. */
static int list_ids(const char *dir, GArray *ids)
{
	DIR *d = opendir(dir);
	struct dirent *de;

	if (!d)
		return errno == ENOENT ? -ESRCH : -errno;
	while ((de = readdir(d))) {
		char *end;
		long id = strtol(de->d_name, &end, 10);

		if (*end == '\0' && id > 0) {
			pid_t pid = (pid_t)id;

			g_array_append_val(ids, pid);
		}
	}
	closedir(d);
	return 0;
}

static int linux_thread_ids(struct kfacade *kf, pid_t tid, GArray *tids)
{
	char path[64];

	(void)kf;
	if (tid <= 0)
		return -ESRCH;
	snprintf(path, sizeof(path), "/proc/%d/task", tid);
	return list_ids(path, tids);
}

static int linux_all_tasks(struct kfacade *kf, GArray *ids, bool procs)
{
	GArray *pids;
	int ret;

	(void)kf;
	if (procs)
		return list_ids("/proc", ids);
	pids = g_array_new(FALSE, FALSE, sizeof(pid_t));
	ret = list_ids("/proc", pids);
	for (guint i = 0; ret == 0 && i < pids->len; i++) {
		char path[64];

		snprintf(path, sizeof(path), "/proc/%d/task", g_array_index(pids, pid_t, i));
		list_ids(path, ids);	/* ESRCH: it exited while we walked */
	}
	g_array_unref(pids);
	return ret;
}

static const char *linux_online_cpus(struct kfacade *kf)
{
	return to_linux(kf)->online_cpus;
}

static const char *linux_online_mems(struct kfacade *kf)
{
	return to_linux(kf)->online_mems;
}

static unsigned linux_nr_cpu_ids(struct kfacade *kf)
{
	return to_linux(kf)->nr_cpu_ids;
}

static const struct kfacade_ops linux_ops = {
	.task_open = linux_task_open,
	.task_close = linux_task_close,
	.exited = linux_exited,
	.thread_ids = linux_thread_ids,
	.all_tasks = linux_all_tasks,
	.online_cpus = linux_online_cpus,
	.online_mems = linux_online_mems,
	.nr_cpu_ids = linux_nr_cpu_ids,
};

/* A one-line sysfs list such as "0-1", or fallback where there is none. */
static char *read_list(const char *path, const char *fallback)
{
	char *data = NULL;

	if (!g_file_get_contents(path, &data, NULL, NULL))
		return g_strdup(fallback);
	return g_strstrip(data);
}

struct kfacade *kfacade_linux_new(void)
{
	struct kfacade_linux *kl = g_new0(struct kfacade_linux, 1);
	struct cpumask mask;
	char *possible;

	kl->base.ops = &linux_ops;
	kl->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (kl->epfd < 0) {
		g_free(kl);
		return NULL;
	}
	kl->online_cpus = read_list("/sys/devices/system/cpu/online", "0");
	/* The kernel's top_cpuset.mems_allowed is node_states[N_MEMORY]. */
	kl->online_mems = read_list("/sys/devices/system/node/has_memory", "0");
	possible = read_list("/sys/devices/system/cpu/possible", "0");
	cpumask_parselist(possible, &mask, CPUMASK_BITS);
	kl->nr_cpu_ids = MAX(cpumask_last_plus_one(&mask), 1);
	g_free(possible);
	return &kl->base;
}

void kfacade_linux_free(struct kfacade *kf)
{
	struct kfacade_linux *kl = to_linux(kf);

	close(kl->epfd);
	g_free(kl->online_cpus);
	g_free(kl->online_mems);
	g_free(kl);
}
