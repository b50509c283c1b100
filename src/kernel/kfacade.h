/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The kernel facade: the only place that asks the running kernel about tasks
 * and the only one that changes them (nice, affinity, autogroups and
 * SCHED_IDLE in kfacade_sched.c; ptrace stops in kfacade_trace.c, or
 * through the ptrace task-watch source's tracer thread when it is the
 * source, watch_ptrace.c; kills checked against the identity,
 * thread_ident.c). The core and its consumers call it through this table
 * so that unit tests can run them on a fake system. */
#ifndef CGFUSED_KFACADE_H
#define CGFUSED_KFACADE_H

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "lib/cpumask.h"

/* What identifies one thread for as long as it lives, even when its id is
 * reused later: the pidfs inode of a pidfd of it, or before Linux 6.9 its
 * start time above its id (kernel/thread_ident.h). */
struct task_ident {
	uint64_t ino;		/* pidfs inode: unique per struct pid */
	pid_t tgid;
};

/* A thread's CPU use so far. */
struct task_cputime {
	uint64_t run_ns;	/* time on a CPU (schedstat: exact) */
	uint64_t wait_ns;	/* time runnable on a run queue, waiting */
	uint64_t utime, stime;	/* user and system time, USER_HZ ticks */
	int cpu;		/* the CPU it last ran on; -1: unknown */
	/* Running or waiting for a CPU now (state R). Needed besides the
	 * times: a thread's wait time is added only when it gets the CPU, so
	 * a starved one looks idle until then. */
	bool runnable;
};

/* What the kernel says happened to a thread. */
struct task_event {
	enum { TASK_EVENT_FORK, TASK_EVENT_EXIT, TASK_EVENT_EXEC } what;
	pid_t tid;		/* the new or exited thread; EXEC: the process's
				 * leader, whichever thread called execve */
	pid_t tgid;		/* its process */
	pid_t parent;		/* FORK of a process: the forking thread */
	/* EXIT: the exited thread's identity when the source knows it (a
	 * late report, after tid may have been reused), else 0. */
	uint64_t ino;
	bool final_valid;	/* EXIT: final holds the thread's last figures */
	struct task_cputime final;
};

/* Where a thread came from, to tell whether it was born inside a group. */
struct task_origin {
	pid_t tgid, ppid;
	uint64_t start_ns;	/* boot-time clock, at /proc's tick granularity */
};

/* The whole system's CPU use (the root cgroup's cpuacct), per CPU. */
struct system_cputime {
	unsigned nr_cpus;
	uint64_t run_ns[CPUMASK_BITS];
	uint64_t user_ns[CPUMASK_BITS], system_ns[CPUMASK_BITS];
};

/* A thread's user ids (the "Uid:" line of /proc/TID/status). */
struct task_uids {
	uid_t uid, euid, suid, fsuid;
};

/* What the exec rules match a process on (config/cgrules_apply.c): its
 * effective ids, its command name and its executable's path ("" for a
 * kernel thread), all read through one descriptor of its /proc directory,
 * so all of one process (its id may have been reused since the exec). */
struct exec_proc {
	unsigned uid, gid;
	char comm[64], exe[4096];
	int dfd;		/* the facade's own; -1: closed */
};

/* What became of a thread the freezer stopped (trace_report). */
struct trace_report {
	pid_t tid;
	enum { TRACE_STOPPED, TRACE_GONE } what;
	/* TRACE_STOPPED: the signal it was about to take when it stopped
	 * (a signal-delivery-stop), to give back when resumed; 0 if none. */
	int sig;
};

/* Who traces a thread, and whether it is stopped (trace_status). */
struct trace_status {
	pid_t tracer;		/* the tracing thread, 0 if none */
	bool stopped;		/* in a stop: a ptrace-stop or a group-stop */
};

struct kfacade;

/* The root task group's autogroup: no session's, no nice of its own. */
#define AUTOGROUP_ROOT 0

struct kfacade_ops {
	/* The identity of a live thread the core starts tracking. -ESRCH when
	 * there is no such thread, -EINVAL for a kernel thread (the kernel
	 * refuses to move those). */
	int (*task_open)(struct kfacade *kf, pid_t tid, struct task_ident *id);
	/* task_open() in two steps, for a move that asks first whether it
	 * may (the task-watch source must not follow, so trace, a task the
	 * writer may not move): task_ident() only reads the identity, as
	 * task_open() does, and holds nothing (nothing to close);
	 * task_hold() then holds that identity, as task_open() does, and
	 * task_close() ends it: 0, -ESRCH when the thread is gone or another
	 * by now, or the source's refusal (-EBUSY: a debugger has it). */
	int (*task_ident)(struct kfacade *kf, pid_t tid, struct task_ident *id);
	int (*task_hold)(struct kfacade *kf, pid_t tid, const struct task_ident *id);
	/* The core stops tracking the thread. */
	void (*task_close)(struct kfacade *kf, const struct task_ident *id);
	/* Forks, exits and execs since the last call, in order (of every thread: the
	 * core ignores those it does not track); never blocks. Returns how
	 * many were stored (at most max), or -EOVERFLOW when events were
	 * lost: the core must then check its threads with task_alive(). With
	 * the proc connector a fork is reported before the child runs and an
	 * exit before its id can be reused; other sources (kernel/watch.h)
	 * report late: a child after it ran, forked or exited (then its
	 * task_open() fails), an exit with the thread's identity in ino. A
	 * child is reported before its own children, and an exit before a
	 * fork that reuses its id. */
	int (*task_events)(struct kfacade *kf, struct task_event *ev, unsigned max);
	/* A descriptor that polls readable when task_events() has something,
	 * or -1 if there is none to wait on. */
	int (*event_fd)(struct kfacade *kf);
	/* The process that serves (after daemonizing) starts watching: a
	 * source that traces the held threads (ptrace) traces them from
	 * here, not in the process that forked it. May be NULL. */
	void (*watch_start)(struct kfacade *kf);
	/* SIGKILL to thread tid if it is still the thread id names (which
	 * ends its whole process): 0, or -ESRCH when that thread is gone. */
	int (*task_kill)(struct kfacade *kf, pid_t tid, const struct task_ident *id);
	/* Whether the thread with this identity still lives. */
	bool (*task_alive)(struct kfacade *kf, pid_t tid, const struct task_ident *id);
	/* Every thread id of the process that thread tid belongs to. */
	int (*thread_ids)(struct kfacade *kf, pid_t tid, GArray *tids);
	/* Every thread id on the system, or with procs every process id. */
	int (*all_tasks)(struct kfacade *kf, GArray *ids, bool procs);
	/* The CPUs and memory nodes that exist (for the root cpuset), as the
	 * kernel's list format ("0-1"). */
	const char *(*online_cpus)(struct kfacade *kf);
	const char *(*online_mems)(struct kfacade *kf);
	/* How many CPU numbers the kernel knows (possible CPUs). */
	unsigned (*nr_cpu_ids)(struct kfacade *kf);
	/* NR_CPUS, the most CPUs the kernel was built for (kernel_max + 1). */
	unsigned (*nr_cpus)(struct kfacade *kf);

	/* Accounting and the allocator's levers. 0 or -errno (-ESRCH once
	 * the thread is gone). */
	int (*task_cputime)(struct kfacade *kf, pid_t tgid, pid_t tid,
			    struct task_cputime *out);
	/* The CPU time of a whole process, one cheap call: when it has not
	 * moved, none of its threads ran and none needs reading. */
	int (*process_cputime)(struct kfacade *kf, pid_t tgid, uint64_t *ns);
	int (*task_origin)(struct kfacade *kf, pid_t tid, struct task_origin *out);
	uint64_t (*boottime_ns)(struct kfacade *kf);
	int (*system_cputime)(struct kfacade *kf, struct system_cputime *out);
	/* Whether this daemon may change the thread's scheduling at all
	 * (-EACCES if not: another user's task without privilege). */
	int (*may_manage)(struct kfacade *kf, pid_t tid);
	/* Whether nice values may be lowered (CAP_SYS_NICE). */
	bool (*may_lower_nice)(struct kfacade *kf);
	/* Whether it may ptrace the tasks it may manage (may_manage): not
	 * where the Yama LSM lets a user trace only its own children (or
	 * none) and it has no CAP_SYS_PTRACE. The freezer and the quota
	 * stop threads with ptrace. */
	bool (*may_trace)(struct kfacade *kf);
	int (*get_nice)(struct kfacade *kf, pid_t tid, int *nice);
	int (*set_nice)(struct kfacade *kf, pid_t tid, int nice);
	int (*get_affinity)(struct kfacade *kf, pid_t tid, struct cpumask *mask);
	int (*set_affinity)(struct kfacade *kf, pid_t tid, const struct cpumask *mask);
	/* The session autogroup a thread is in (/proc/PID/autogroup) and its
	 * nice, and setting that nice (which weighs the whole session). A
	 * thread of init's session is in the root one, AUTOGROUP_ROOT, whose
	 * file is empty and whose nice cannot be set (EINVAL). */
	int (*get_autogroup)(struct kfacade *kf, pid_t tid, int *id, int *nice);
	int (*set_autogroup_nice)(struct kfacade *kf, pid_t tid, int nice);
	/* The user ids of thread tid: 0, or -ESRCH when there is none. */
	int (*task_uids)(struct kfacade *kf, pid_t tid, struct task_uids *uids);
	/* The soft RLIMIT_NICE of thread tid's process (0..40): its owner may
	 * lower its nice down to 20 - that (the kernel's can_nice()). */
	int (*nice_rlimit)(struct kfacade *kf, pid_t tid, int *rlim);

	/* The freezer's lever (kfacade_trace.c, docs/design.md): ptrace.
	 * The kernel ties a tracee to its tracer THREAD, so every call must
	 * come from the one thread that froze it. trace_freeze() starts
	 * stopping thread tid (it stops soon after, reported by
	 * trace_report); -EPERM when it cannot be traced (another tracer
	 * such as gdb or strace has it, or no permission), -ESRCH when gone.
	 * trace_report() takes one report of a change in a thread being
	 * frozen: 1 and *r, 0 when none waits, -ECHILD when no thread is
	 * traced. trace_thaw() lets a stopped thread run again, giving it
	 * back sig (see struct trace_report); -ESRCH when it is not stopped
	 * (yet) or gone. */
	int (*trace_freeze)(struct kfacade *kf, pid_t tid);
	int (*trace_report)(struct kfacade *kf, struct trace_report *r);
	int (*trace_thaw)(struct kfacade *kf, pid_t tid, int sig);
	/* Whether the thread with this identity waits in vfork() for its
	 * child to exec or exit (the kernel's wait_for_vfork_done(), a
	 * freezable sleep that no ptrace stop ends). */
	bool (*task_in_vfork)(struct kfacade *kf, pid_t tid, const struct task_ident *id);
	/* A thread another tracer has (trace_freeze() gave -EPERM), held
	 * with its tracer's help: trace_status() says who traces it and
	 * whether it is stopped; trace_signal() sends it SIGSTOP, which
	 * stops a traced thread in a signal-delivery-stop until its tracer
	 * resumes it (so only while its tracer is held stopped too), or
	 * SIGCONT, which cancels that stop's effect before the tracer sees
	 * it (the kernel drops a stop dequeued before a SIGCONT). 0 or
	 * -errno (-ESRCH once gone). */
	int (*trace_status)(struct kfacade *kf, pid_t tid, struct trace_status *st);
	int (*trace_signal)(struct kfacade *kf, pid_t tid, int sig);

	/* cpu.idle's lever (kfacade_sched.c): a thread's scheduling policy
	 * (SCHED_OTHER, SCHED_IDLE ..., without SCHED_RESET_ON_FORK), and
	 * setting it, keeping its nice and its reset-on-fork flag. 0 or
	 * -errno (-ESRCH once the thread is gone). */
	int (*get_policy)(struct kfacade *kf, pid_t tid, int *policy);
	int (*set_policy)(struct kfacade *kf, pid_t tid, int policy);
	/* The processes thread tid forked that are still its children
	 * (/proc/TID/task/TID/children: a child whose forking thread exited
	 * is reparented, and no longer listed): their ids appended. 0 or
	 * -errno (-ESRCH once the thread is gone). */
	int (*task_children)(struct kfacade *kf, pid_t tid, GArray *pids);
	/* For cgfused.stat: "task_watch SOURCE" and the source's figures, as
	 * "key value" lines appended to out. May be NULL. */
	void (*watch_stat)(struct kfacade *kf, GString *out);

	/* The exec rules' look at a process (kfacade_exec.c): opens process
	 * pid and fills p (false: it is gone or unreadable, or in the middle
	 * of an exec, which is reported once done; p needs no close);
	 * whether its environment holds the string entry, reading at most
	 * max bytes of it; closing p. */
	bool (*exec_proc_open)(struct kfacade *kf, pid_t pid, struct exec_proc *p);
	bool (*exec_proc_has_env)(struct kfacade *kf, const struct exec_proc *p, const char *entry,
				  size_t max);
	void (*exec_proc_close)(struct kfacade *kf, struct exec_proc *p);
};

struct kfacade {
	const struct kfacade_ops *ops;
	/* task_events() may report an exit after the thread's id was reused
	 * (kernel/watch.h's late sources): an attach then checks that a
	 * tracked thread is still the one its id names. */
	bool late_exits;
	/* task_open() holds the thread for a task-watch source that follows
	 * only the threads it holds (ptrace, scan): the core lets a thread
	 * moved back to the root go (task->unwatched), so that a debugger can
	 * trace it, and holds it again on its next move into a group. Without
	 * (the connector, which hears of every task) a thread in the root
	 * keeps its identity, and a move into a group from the root opens
	 * none (a pidfd and a /proc read fewer). */
	bool holds_threads;
};

struct watch_source;

/* The real one, backed by pidfds and /proc, learning of forks, execs and
 * exits from ws (kernel/watch.h), which it then owns. */
struct kfacade *kfacade_linux_new(struct watch_source *ws);
void kfacade_linux_free(struct kfacade *kf);

#endif
