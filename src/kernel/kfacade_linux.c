/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The kernel facade on a real system: forks and exits from the netlink proc
 * connector (filtered to those two: exec, uid and comm changes never come),
 * identities from pidfds, everything else from /proc and sysfs. */
#include "kernel/kfacade.h"

#include "lib/cpumask.h"
#include "kernel/kfacade_sched.h"
#include "kernel/kfacade_trace.h"
#include "kernel/task_cputime.h"
#include "kernel/taskstats.h"
#include "kernel/watch_ptrace.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/cn_proc.h>
#include <linux/connector.h>
#include <linux/netlink.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Newer than the installed 6.1 headers (KERNEL-NOTES.md). */
#ifndef PIDFD_THREAD
#define PIDFD_THREAD O_EXCL	/* a pidfd for one thread, not its process */
#endif
/* Since 6.6 a listener may ask for some events only; older kernels read
 * only mcast_op and send everything, which costs time but is still right. */
struct cgfused_proc_input {
	uint32_t mcast_op;
	uint32_t event_type;
};

/* Forced receive buffer: the default one loses exits in bursts. */
#define CN_RCVBUF (8 << 20)

struct kfacade_linux {
	struct kfacade base;
	int nl;				/* proc connector socket, or -1 */
	struct watch_source *ws;	/* or where task events come from */
	/* Exited threads' last CPU figures (root only; NULL otherwise), and
	 * what was drained of them: tid -> struct taskstats_record, this
	 * call's and the previous call's (a record comes before its exit
	 * report, but may be drained a call earlier). */
	struct taskstats_listener *ts;
	GHashTable *exits, *exits_before;
	char *online_cpus;
	char *online_mems;
	unsigned nr_cpu_ids;
	unsigned nr_cpus;
};

static struct kfacade_linux *to_linux(struct kfacade *kf)
{
	return (struct kfacade_linux *)kf;
}

/* The content of /proc/TID/status, or NULL when there is no such thread. */
static char *proc_status(pid_t tid)
{
	char path[64], *data = NULL;

	snprintf(path, sizeof(path), "/proc/%d/status", tid);
	return g_file_get_contents(path, &data, NULL, NULL) ? data : NULL;
}

/* Tgid and whether it is a kernel thread, from /proc/TID/status. */
static int read_status(pid_t tid, pid_t *tgid, bool *kthread)
{
	char *data = proc_status(tid), *line;
	int ret = -ESRCH;

	if (!data)
		return ret;
	*kthread = false;
	if ((line = strstr(data, "\nTgid:")) && sscanf(line + 6, "%d", tgid) == 1)
		ret = 0;
	if ((line = strstr(data, "\nKthread:")))
		*kthread = atoi(line + 9) == 1;
	g_free(data);
	return ret;
}

static bool pidfd_exited(int fd)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };

	return poll(&pfd, 1, 0) != 0;
}

/* The pidfs inode of the live thread tid; with tgid, also its process, and
 * -EINVAL for a kernel thread. 0 or -errno. */
static int thread_ident(pid_t tid, uint64_t *ino, pid_t *tgid)
{
	struct stat st;
	bool kthread = false;
	int fd, ret = 0;

	if (tid <= 0)
		return -ESRCH;
	fd = (int)syscall(SYS_pidfd_open, tid, PIDFD_THREAD);
	if (fd < 0)
		return errno == EINVAL ? -ESRCH : -errno;
	if (tgid) {
		ret = read_status(tid, tgid, &kthread);
		if (ret == 0 && kthread)
			ret = -EINVAL;
	}
	/* Still alive now means what we read was this thread's. */
	if (ret == 0 && pidfd_exited(fd))
		ret = -ESRCH;
	if (ret == 0 && fstat(fd, &st) < 0)
		ret = -errno;
	if (ret == 0)
		*ino = st.st_ino;
	close(fd);
	return ret;
}

static int linux_task_open(struct kfacade *kf, pid_t tid, struct task_ident *id)
{
	struct watch_source *ws = to_linux(kf)->ws;
	int ret = thread_ident(tid, &id->ino, &id->tgid);

	if (ret == 0 && ws && ws->ops->hold)
		ret = ws->ops->hold(ws, tid, id);
	return ret;
}

static void linux_task_close(struct kfacade *kf, const struct task_ident *id)
{
	struct watch_source *ws = to_linux(kf)->ws;

	if (ws && ws->ops->release)
		ws->ops->release(ws, id);
}

/* The pidfd pins the thread's struct pid: once its inode matches, the
 * signal cannot reach a thread that took over the id meanwhile. */
static int linux_task_kill(struct kfacade *kf, pid_t tid, const struct task_ident *id)
{
	struct stat st;
	int fd, ret = 0;

	(void)kf;
	if (tid <= 0)
		return -ESRCH;
	fd = (int)syscall(SYS_pidfd_open, tid, PIDFD_THREAD);
	if (fd < 0)
		return errno == EINVAL ? -ESRCH : -errno;
	if (fstat(fd, &st) < 0)
		ret = -errno;
	else if (st.st_ino != id->ino)
		ret = -ESRCH;
	else if (syscall(SYS_pidfd_send_signal, fd, SIGKILL, NULL, 0) < 0)
		ret = -errno;
	close(fd);
	return ret;
}

static bool linux_task_alive(struct kfacade *kf, pid_t tid, const struct task_ident *id)
{
	uint64_t ino;

	(void)kf;
	return thread_ident(tid, &ino, NULL) == 0 && ino == id->ino;
}

/* USER_HZ ticks of user and system time in run_ns, split as the exit
 * record's tick samples split. */
static void final_from_record(const struct taskstats_record *r, struct task_cputime *out)
{
	uint64_t ticks = r->run_ns / (1000000000ULL / (uint64_t)sysconf(_SC_CLK_TCK));
	uint64_t sampled = r->utime_us + r->stime_us;

	*out = (struct task_cputime){ .run_ns = r->run_ns, .cpu = -1 };
	out->utime = sampled ? ticks * r->utime_us / sampled : ticks;
	out->stime = ticks - out->utime;
}

/* Gives exit events the thread's last figures: from taskstats as root,
 * else from /proc while a process leader is still a zombie. */
static void add_final_figures(struct kfacade_linux *kl, struct task_event *ev, unsigned n)
{
	if (kl->ts) {
		GArray *records = g_array_new(FALSE, FALSE, sizeof(struct taskstats_record));
		GHashTable *old = kl->exits_before;
		uint64_t lost;

		taskstats_drain(kl->ts, records, &lost);
		kl->exits_before = kl->exits;
		kl->exits = old;
		g_hash_table_remove_all(kl->exits);
		for (guint i = 0; i < records->len; i++) {
			struct taskstats_record *r = &g_array_index(records, struct taskstats_record, i);

			g_hash_table_insert(kl->exits, GINT_TO_POINTER(r->tid), g_memdup2(r, sizeof(*r)));
		}
		g_array_unref(records);
	}
	for (unsigned i = 0; i < n; i++) {
		struct taskstats_record *r = NULL;
		struct proc_task_cputime ct;

		if (ev[i].what != TASK_EVENT_EXIT)
			continue;
		if (kl->ts && !(r = g_hash_table_lookup(kl->exits, GINT_TO_POINTER(ev[i].tid))))
			r = g_hash_table_lookup(kl->exits_before, GINT_TO_POINTER(ev[i].tid));
		if (r) {
			final_from_record(r, &ev[i].final);
			ev[i].final_valid = true;
		} else if (!kl->ts && task_cputime_read(ev[i].tgid, ev[i].tid, &ct) == 0) {
			ev[i].final = (struct task_cputime){ ct.run_ns, ct.wait_ns, ct.utime_ticks,
							     ct.stime_ticks, ct.processor, false };
			ev[i].final_valid = true;
		}
	}
}

static int linux_task_events(struct kfacade *kf, struct task_event *out, unsigned max)
{
	int nl = to_linux(kf)->nl;
	struct watch_source *ws = to_linux(kf)->ws;
	unsigned n = 0;
	bool lost = false;

	if (ws)
		return ws->ops->events(ws, out, max);

	while (n < max) {
		char buf[4096] __attribute__((aligned(NLMSG_ALIGNTO)));
		ssize_t len = recv(nl, buf, sizeof(buf), MSG_DONTWAIT);

		if (len < 0 && errno == ENOBUFS) {
			lost = true;	/* once per overrun; keep reading */
			continue;
		}
		if (len <= 0)
			break;		/* EAGAIN: nothing more now */
		for (struct nlmsghdr *h = (struct nlmsghdr *)buf; NLMSG_OK(h, (size_t)len);
		     h = NLMSG_NEXT(h, len)) {
			struct cn_msg *msg = NLMSG_DATA(h);
			struct proc_event ev = { 0 };

			if (h->nlmsg_type != NLMSG_DONE || msg->id.idx != CN_IDX_PROC)
				continue;
			if (n == max) {
				lost = true;	/* the connector sends one per message */
				break;
			}
			/* The event sits 4-byte aligned in the message; it has u64s. */
			memcpy(&ev, msg->data, MIN(msg->len, sizeof(ev)));
			if (ev.what == PROC_EVENT_EXIT)
				out[n++] = (struct task_event){
					.what = TASK_EVENT_EXIT,
					.tid = ev.event_data.exit.process_pid,
					.tgid = ev.event_data.exit.process_tgid,
				};
			else if (ev.what == PROC_EVENT_FORK)
				out[n++] = (struct task_event){
					.what = TASK_EVENT_FORK,
					.tid = ev.event_data.fork.child_pid,
					.tgid = ev.event_data.fork.child_tgid,
					.parent = ev.event_data.fork.parent_pid,
				};
			else if (ev.what == PROC_EVENT_EXEC)
				out[n++] = (struct task_event){
					.what = TASK_EVENT_EXEC,
					.tid = ev.event_data.exec.process_pid,
					.tgid = ev.event_data.exec.process_tgid,
				};
		}
	}
	if (!lost)
		add_final_figures(to_linux(kf), out, n);
	return lost ? -EOVERFLOW : (int)n;
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

/* The first line of /proc/TID/task/TID/children: child PIDs, spaces
 * between. */
static int linux_task_children(struct kfacade *kf, pid_t tid, GArray *pids)
{
	char path[64], buf[4096], *p, *end;
	GString *data = g_string_new(NULL);
	ssize_t n;
	int fd, ret = 0;

	(void)kf;
	if (tid <= 0)
		return -ESRCH;
	snprintf(path, sizeof(path), "/proc/%d/task/%d/children", tid, tid);
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? -ESRCH : -errno;
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		g_string_append_len(data, buf, n);
	if (n < 0)
		ret = -errno;
	close(fd);
	for (p = data->str; ret == 0; p = end) {
		long id = strtol(p, &end, 10);

		if (end == p)
			break;
		if (id > 0) {
			pid_t pid = (pid_t)id;

			g_array_append_val(pids, pid);
		}
	}
	g_string_free(data, TRUE);
	return ret;
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

static int linux_event_fd(struct kfacade *kf)
{
	struct watch_source *ws = to_linux(kf)->ws;

	return ws ? ws->ops->event_fd(ws) : to_linux(kf)->nl;
}

static void linux_watch_stat(struct kfacade *kf, GString *out)
{
	struct watch_source *ws = to_linux(kf)->ws;

	g_string_append_printf(out, "tracking %s\n", ws ? ws->ops->name : "connector");
	if (ws && ws->ops->stat)
		ws->ops->stat(ws, out);
}

/* The freezer's ptrace goes through a source that traces threads itself. */
static int linux_trace_freeze(struct kfacade *kf, pid_t tid)
{
	struct watch_source *ws = to_linux(kf)->ws;

	if (ws && ws->ops->trace_freeze)
		return ws->ops->trace_freeze(ws, tid);
	return ktrace_freeze(kf, tid);
}

static int linux_trace_report(struct kfacade *kf, struct trace_report *r)
{
	struct watch_source *ws = to_linux(kf)->ws;

	if (ws && ws->ops->trace_report)
		return ws->ops->trace_report(ws, r);
	return ktrace_report(kf, r);
}

static int linux_trace_thaw(struct kfacade *kf, pid_t tid, int sig)
{
	struct watch_source *ws = to_linux(kf)->ws;

	if (ws && ws->ops->trace_thaw)
		return ws->ops->trace_thaw(ws, tid, sig);
	return ktrace_thaw(kf, tid, sig);
}

static unsigned linux_nr_cpu_ids(struct kfacade *kf)
{
	return to_linux(kf)->nr_cpu_ids;
}

static unsigned linux_nr_cpus(struct kfacade *kf)
{
	return to_linux(kf)->nr_cpus;
}

static int linux_task_cputime(struct kfacade *kf, pid_t tgid, pid_t tid,
			      struct task_cputime *out)
{
	struct proc_task_cputime ct;
	int ret;

	(void)kf;
	ret = task_cputime_read(tgid, tid, &ct);
	if (ret < 0)
		return ret;
	*out = (struct task_cputime){ ct.run_ns, ct.wait_ns, ct.utime_ticks, ct.stime_ticks,
				      ct.processor, ct.state == 'R' };
	return 0;
}

static int linux_task_origin(struct kfacade *kf, pid_t tid, struct task_origin *out)
{
	struct proc_task_cputime ct;
	char path[64], *data = NULL, *line;
	int ret = -ESRCH;

	(void)kf;
	snprintf(path, sizeof(path), "/proc/%d/status", tid);
	if (!g_file_get_contents(path, &data, NULL, NULL))
		return -ESRCH;
	if ((line = strstr(data, "\nTgid:")) && sscanf(line + 6, "%d", &out->tgid) == 1 &&
	    (line = strstr(data, "\nPPid:")) && sscanf(line + 6, "%d", &out->ppid) == 1)
		ret = task_stat_read(out->tgid, tid, &ct);
	g_free(data);
	if (ret == 0)
		out->start_ns = ct.starttime * (1000000000ULL / (uint64_t)sysconf(_SC_CLK_TCK));
	return ret;
}

static int linux_system_cputime(struct kfacade *kf, struct system_cputime *out)
{
	struct cpu_times *cpus;
	unsigned n = MIN(to_linux(kf)->nr_cpu_ids, CPUMASK_BITS);
	uint64_t tick_ns = 1000000000ULL / (uint64_t)sysconf(_SC_CLK_TCK);
	bool exact;
	int ret;

	cpus = g_new0(struct cpu_times, n);
	ret = cpu_times_read(cpus, n, &exact);
	out->nr_cpus = n;
	for (unsigned c = 0; ret == 0 && c < n; c++) {
		out->run_ns[c] = cpus[c].run_ns;
		out->user_ns[c] = cpus[c].user_ticks * tick_ns;
		out->system_ns[c] = cpus[c].system_ticks * tick_ns;
	}
	g_free(cpus);
	return ret;
}

static int linux_task_uids(struct kfacade *kf, pid_t tid, struct task_uids *uids)
{
	char *data, *line;
	int ret = -ESRCH;

	(void)kf;
	if (tid <= 0 || !(data = proc_status(tid)))
		return ret;
	if ((line = strstr(data, "\nUid:")) &&
	    sscanf(line + 5, "%u %u %u %u", &uids->uid, &uids->euid, &uids->suid, &uids->fsuid) == 4)
		ret = 0;
	g_free(data);
	return ret;
}

static const struct kfacade_ops linux_ops = {
	.task_open = linux_task_open,
	.task_close = linux_task_close,
	.task_events = linux_task_events,
	.event_fd = linux_event_fd,
	.task_alive = linux_task_alive,
	.task_kill = linux_task_kill,
	.thread_ids = linux_thread_ids,
	.all_tasks = linux_all_tasks,
	.online_cpus = linux_online_cpus,
	.online_mems = linux_online_mems,
	.nr_cpu_ids = linux_nr_cpu_ids,
	.nr_cpus = linux_nr_cpus,
	.task_cputime = linux_task_cputime,
	.process_cputime = ksched_process_cputime,
	.task_origin = linux_task_origin,
	.boottime_ns = ksched_boottime_ns,
	.system_cputime = linux_system_cputime,
	.may_manage = ksched_may_manage,
	.may_lower_nice = ksched_may_lower_nice,
	.get_nice = ksched_get_nice,
	.set_nice = ksched_set_nice,
	.get_affinity = ksched_get_affinity,
	.set_affinity = ksched_set_affinity,
	.get_autogroup = ksched_get_autogroup,
	.set_autogroup_nice = ksched_set_autogroup_nice,
	.task_uids = linux_task_uids,
	.nice_rlimit = ksched_nice_rlimit,
	.trace_freeze = linux_trace_freeze,
	.trace_report = linux_trace_report,
	.trace_thaw = linux_trace_thaw,
	.get_policy = ksched_get_policy,
	.set_policy = ksched_set_policy,
	.task_children = linux_task_children,
	.watch_stat = linux_watch_stat,
};

/* A one-line sysfs list such as "0-1", or fallback where there is none. */
static char *read_list(const char *path, const char *fallback)
{
	char *data = NULL;

	if (!g_file_get_contents(path, &data, NULL, NULL))
		return g_strdup(fallback);
	return g_strstrip(data);
}

static int cn_send_op(int nl, uint32_t op)
{
	struct {
		struct nlmsghdr h;
		struct cn_msg msg;
		struct cgfused_proc_input in;
	} __attribute__((packed)) req = { 0 };

	req.h.nlmsg_len = sizeof(req);
	req.h.nlmsg_type = NLMSG_DONE;
	req.h.nlmsg_pid = (uint32_t)getpid();
	req.msg.id.idx = CN_IDX_PROC;
	req.msg.id.val = CN_VAL_PROC;
	req.msg.len = sizeof(req.in);
	req.in.mcast_op = op;
	req.in.event_type = PROC_EVENT_FORK | PROC_EVENT_EXEC | PROC_EVENT_EXIT;
	return send(nl, &req, sizeof(req), 0) < 0 ? -errno : 0;
}

static int cn_open(void)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK, .nl_groups = CN_IDX_PROC };
	int size = CN_RCVBUF;
	int nl = socket(PF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_CONNECTOR);

	if (nl < 0)
		return -errno;
	/* Forcing needs CAP_NET_ADMIN; otherwise as much as rmem_max allows. */
	if (setsockopt(nl, SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof(size)) < 0)
		setsockopt(nl, SOL_SOCKET, SO_RCVBUF, &size, sizeof(size));
	if (bind(nl, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    cn_send_op(nl, PROC_CN_MCAST_LISTEN) < 0) {
		int err = errno;

		close(nl);
		return -err;
	}
	return nl;
}

struct kfacade *kfacade_linux_new(const char *tracking)
{
	struct kfacade_linux *kl;
	struct watch_source *ws = NULL;
	struct cpumask mask;
	char *possible;
	int nl = -1, err = 0;

	if (tracking && strcmp(tracking, "ptrace") == 0)
		ws = watch_ptrace_new(&err);
	else if ((nl = cn_open()) < 0)
		err = -nl;
	if (err) {
		errno = err;
		return NULL;
	}
	kl = g_new0(struct kfacade_linux, 1);
	kl->base.ops = &linux_ops;
	kl->nl = nl;
	kl->ws = ws;
	kl->online_cpus = read_list("/sys/devices/system/cpu/online", "0");
	/* The kernel's top_cpuset.mems_allowed is node_states[N_MEMORY]. */
	kl->online_mems = read_list("/sys/devices/system/node/has_memory", "0");
	possible = read_list("/sys/devices/system/cpu/possible", "0");
	cpumask_parselist(possible, &mask, CPUMASK_BITS);
	kl->nr_cpu_ids = MAX(cpumask_last_plus_one(&mask), 1);
	g_free(possible);
	possible = read_list("/sys/devices/system/cpu/kernel_max", "");
	kl->nr_cpus = MAX((unsigned)g_ascii_strtoull(possible, NULL, 10) + 1, kl->nr_cpu_ids);
	g_free(possible);
	/* The ptrace source reads an exit's figures at its exit stop. */
	kl->ts = ws ? NULL : taskstats_listener_open();
	if (!kl->ts && !ws)
		g_message("no taskstats (%s): an exited thread's last moments of CPU time "
			  "are counted only as far as its last sample", g_strerror(errno));
	kl->exits = g_hash_table_new_full(NULL, NULL, NULL, g_free);
	kl->exits_before = g_hash_table_new_full(NULL, NULL, NULL, g_free);
	return &kl->base;
}

void kfacade_linux_free(struct kfacade *kf)
{
	struct kfacade_linux *kl = to_linux(kf);

	if (kl->ws) {
		kl->ws->ops->free(kl->ws);
	} else {
		cn_send_op(kl->nl, PROC_CN_MCAST_IGNORE);
		close(kl->nl);
	}
	if (kl->ts)
		taskstats_listener_free(kl->ts);
	g_hash_table_unref(kl->exits);
	g_hash_table_unref(kl->exits_before);
	g_free(kl->online_cpus);
	g_free(kl->online_mems);
	g_free(kl);
}
