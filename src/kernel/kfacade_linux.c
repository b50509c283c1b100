/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The kernel facade on a real system: forks, execs and exits from a
 * task-watch source (watch.h), identities from pidfds (thread_ident.h),
 * everything else from /proc and sysfs. */
#include "kernel/kfacade.h"

#include "lib/cpumask.h"
#include "kernel/kfacade_exec.h"
#include "kernel/kfacade_sched.h"
#include "kernel/kfacade_trace.h"
#include "kernel/proc_list.h"
#include "kernel/task_cputime.h"
#include "kernel/thread_ident.h"
#include "kernel/watch.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct kfacade_linux {
	struct kfacade base;
	struct watch_source *ws;
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

static int linux_task_ident(struct kfacade *kf, pid_t tid, struct task_ident *id)
{
	(void)kf;
	return thread_ident(tid, &id->ino, &id->tgid);
}

static int linux_task_open(struct kfacade *kf, pid_t tid, struct task_ident *id)
{
	struct watch_source *ws = to_linux(kf)->ws;
	int ret = linux_task_ident(kf, tid, id);

	if (ret == 0 && ws->ops->hold)
		ret = ws->ops->hold(ws, tid, id);
	return ret;
}

static void linux_task_close(struct kfacade *kf, const struct task_ident *id)
{
	struct watch_source *ws = to_linux(kf)->ws;

	if (ws->ops->release)
		ws->ops->release(ws, id);
}

static int linux_task_kill(struct kfacade *kf, pid_t tid, const struct task_ident *id)
{
	(void)kf;
	return thread_ident_kill(tid, id);
}

static bool linux_task_alive(struct kfacade *kf, pid_t tid, const struct task_ident *id)
{
	(void)kf;
	return thread_ident_alive(tid, id);
}

/* The identity the prepare read may name another thread by now. */
static int linux_task_hold(struct kfacade *kf, pid_t tid, const struct task_ident *id)
{
	struct watch_source *ws = to_linux(kf)->ws;

	if (!linux_task_alive(kf, tid, id))
		return -ESRCH;
	return ws->ops->hold ? ws->ops->hold(ws, tid, id) : 0;
}

static int linux_task_events(struct kfacade *kf, struct task_event *ev, unsigned max)
{
	struct watch_source *ws = to_linux(kf)->ws;

	return ws->ops->events(ws, ev, max);
}

static int linux_thread_ids(struct kfacade *kf, pid_t tid, GArray *tids)
{
	char path[64];

	(void)kf;
	if (tid <= 0)
		return -ESRCH;
	snprintf(path, sizeof(path), "/proc/%d/task", tid);
	return proc_list_ids(path, tids);
}

static int linux_task_children(struct kfacade *kf, pid_t tid, GArray *pids)
{
	(void)kf;
	return proc_children(tid, tid, pids);
}

static int linux_all_tasks(struct kfacade *kf, GArray *ids, bool procs)
{
	GArray *pids;
	int ret;

	(void)kf;
	if (procs)
		return proc_list_ids("/proc", ids);
	pids = g_array_new(FALSE, FALSE, sizeof(pid_t));
	ret = proc_list_ids("/proc", pids);
	for (guint i = 0; ret == 0 && i < pids->len; i++) {
		char path[64];

		snprintf(path, sizeof(path), "/proc/%d/task", g_array_index(pids, pid_t, i));
		proc_list_ids(path, ids);	/* ESRCH: it exited while we walked */
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

	return ws->ops->event_fd(ws);
}

static void linux_watch_start(struct kfacade *kf)
{
	struct watch_source *ws = to_linux(kf)->ws;

	if (ws->ops->start)
		ws->ops->start(ws);
}

/* A source that traces threads itself takes the freezer's ptrace too: a
 * thread has one tracer. */
static int linux_trace_freeze(struct kfacade *kf, pid_t tid)
{
	struct watch_source *ws = to_linux(kf)->ws;

	return ws->ops->trace_freeze ? ws->ops->trace_freeze(ws, tid) : ktrace_freeze(kf, tid);
}

static int linux_trace_report(struct kfacade *kf, struct trace_report *r)
{
	struct watch_source *ws = to_linux(kf)->ws;

	return ws->ops->trace_report ? ws->ops->trace_report(ws, r) : ktrace_report(kf, r);
}

static int linux_trace_thaw(struct kfacade *kf, pid_t tid, int sig)
{
	struct watch_source *ws = to_linux(kf)->ws;

	return ws->ops->trace_thaw ? ws->ops->trace_thaw(ws, tid, sig) : ktrace_thaw(kf, tid, sig);
}

static void linux_watch_stat(struct kfacade *kf, GString *out)
{
	struct watch_source *ws = to_linux(kf)->ws;

	g_string_append_printf(out, "task_watch %s\n", ws->ops->name);
	if (ws->ops->stat)
		ws->ops->stat(ws, out);
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

/* Its wchan names where it sleeps: wait_for_vfork_done(), inlined into
 * kernel_clone() (which sleeps nowhere else itself). Read by tid, then
 * the identity checked: a thread still alive is the one that was read. */
static bool linux_task_in_vfork(struct kfacade *kf, pid_t tid, const struct task_ident *id)
{
	char path[64], *wchan = NULL;
	bool waits;

	if (tid <= 0)
		return false;
	snprintf(path, sizeof(path), "/proc/%d/wchan", (int)tid);
	if (!g_file_get_contents(path, &wchan, NULL, NULL))
		return false;
	waits = strcmp(wchan, "kernel_clone") == 0 || strcmp(wchan, "wait_for_vfork_done") == 0;
	g_free(wchan);
	return waits && linux_task_alive(kf, tid, id);
}

static const struct kfacade_ops linux_ops = {
	.task_open = linux_task_open,
	.task_ident = linux_task_ident,
	.task_hold = linux_task_hold,
	.task_close = linux_task_close,
	.task_events = linux_task_events,
	.event_fd = linux_event_fd,
	.watch_start = linux_watch_start,
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
	.may_trace = ksched_may_trace,
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
	.task_in_vfork = linux_task_in_vfork,
	.trace_status = ktrace_status,
	.trace_signal = ktrace_signal,
	.get_policy = ksched_get_policy,
	.set_policy = ksched_set_policy,
	.task_children = linux_task_children,
	.watch_stat = linux_watch_stat,
	.exec_proc_open = kexec_proc_open,
	.exec_proc_has_env = kexec_proc_has_env,
	.exec_proc_close = kexec_proc_close,
};

/* A one-line sysfs list such as "0-1", or fallback where there is none. */
static char *read_list(const char *path, const char *fallback)
{
	char *data = NULL;

	if (!g_file_get_contents(path, &data, NULL, NULL))
		return g_strdup(fallback);
	return g_strstrip(data);
}

struct kfacade *kfacade_linux_new(struct watch_source *ws)
{
	struct kfacade_linux *kl;
	struct cpumask mask;
	char *possible;

	kl = g_new0(struct kfacade_linux, 1);
	kl->base.ops = &linux_ops;
	kl->ws = ws;
	kl->base.late_exits = ws->ops->late;
	kl->base.holds_threads = ws->ops->hold != NULL;
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
	return &kl->base;
}

void kfacade_linux_free(struct kfacade *kf)
{
	struct kfacade_linux *kl = to_linux(kf);

	kl->ws->ops->free(kl->ws);
	g_free(kl->online_cpus);
	g_free(kl->online_mems);
	g_free(kl);
}
