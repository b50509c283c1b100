/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A fake kernel facade for the unit tests: struct kfacade_ops over an
 * in-memory table of threads, so that the core runs on a made-up system.
 *
 * The system has online CPUs "0-3", memory node "0" and nr_cpu_ids 4, and
 * at first no threads at all: a test adds the ones it needs. Every thread
 * has an identity (like the pidfs inode of the real facade) that changes
 * when its id is reused, so a test can tell the original thread from a new
 * one with the same tid. Every call is serialised by one GMutex, so that
 * race tests may use the fake from several threads at once. */
#ifndef CGFUSED_FAKE_KFACADE_H
#define CGFUSED_FAKE_KFACADE_H

#include <stdbool.h>
#include <sys/types.h>

#include "kernel/kfacade.h"

#define FAKE_KF_ONLINE_CPUS "0-3"
#define FAKE_KF_ONLINE_MEMS "0"
#define FAKE_KF_NR_CPU_IDS 4
#define FAKE_KF_NR_CPUS 64	/* NR_CPUS: cpuset.cpus takes 100 + 6 * 64 bytes */

struct fake_kf;

struct fake_kf *fake_kf_new(void);
/* Fails the test if identities are still open or were closed twice. */
void fake_kf_free(struct fake_kf *fk);
/* The facade to hand to cg_core_new(). */
struct kfacade *fake_kf_facade(struct fake_kf *fk);

/* Adds a process of nthreads threads, tids tgid .. tgid + nthreads - 1. */
void fake_kf_add_process(struct fake_kf *fk, pid_t tgid, unsigned nthreads);
/* Adds a kernel thread (its own process; the core may not move it). */
void fake_kf_add_kthread(struct fake_kf *fk, pid_t tid);
/* The thread exits: it disappears, and ->task_events() reports it. */
void fake_kf_exit(struct fake_kf *fk, pid_t tid);
/* Thread parent makes thread tid of process tgid (a new process when
 * tid == tgid), and ->task_events() reports the fork. */
void fake_kf_fork(struct fake_kf *fk, pid_t parent, pid_t tid, pid_t tgid);
/* Thread tid calls execve, as the kernel's de_thread() has it: every other
 * thread of its process exits (reported, the leader last); a non-leader
 * then takes the leader's id and identity (its own id vanishes without a
 * report) and keeps its figures, nice and affinity; the exec is reported
 * under the leader's id. */
void fake_kf_exec(struct fake_kf *fk, pid_t tid);
/* Every thread of process tgid exits. */
void fake_kf_exit_process(struct fake_kf *fk, pid_t tgid);
/* Appends to tids the threads ->task_kill() killed so far, in order (each
 * kill ended its whole process, reported as exits). */
void fake_kf_killed(struct fake_kf *fk, GArray *tids);
/* The thread is gone, but its exit report is held back until
 * fake_kf_report_late(): the kernel sends it after exit_notify(), when the
 * parent may already have reaped the process. */
void fake_kf_exit_late(struct fake_kf *fk, pid_t tid);
void fake_kf_report_late(struct fake_kf *fk);
/* The same, the report naming the thread's identity (ino), as a source
 * that reports late does (kernel/watch.h). */
void fake_kf_exit_late_known(struct fake_kf *fk, pid_t tid);
/* The id is reused: the live thread tid (if any) exits, and a new thread
 * with a new identity takes its id, in process tgid. */
void fake_kf_reuse(struct fake_kf *fk, pid_t tid, pid_t tgid);

/* What the exec rules read of live process tgid (exec_proc_open): its
 * effective gid (the uid is its euid: fake_kf_set_uids()), comm, exe and
 * one environment string (NULL: none). */
void fake_kf_set_exec(struct fake_kf *fk, pid_t tgid, gid_t egid, const char *comm,
		      const char *exe, const char *env);
/* Gives the live thread tid these user ids (a new thread has all 0). */
void fake_kf_set_uids(struct fake_kf *fk, pid_t tid, const struct task_uids *uids);
/* The soft RLIMIT_NICE of a thread's process (default 0). */
void fake_kf_set_nice_rlimit(struct fake_kf *fk, pid_t tid, int rlim);

/* The events waiting now are lost, and the next ->task_events() says so
 * (-EOVERFLOW), as the proc connector does when its buffer overruns. */
void fake_kf_lose_exits(struct fake_kf *fk);

/* Scheduling, as a dry run: the fake records what the allocator applies.
 * Threads start at nice 0 on every online CPU in session 0, and a forked
 * thread inherits them; the fake is privileged unless told otherwise. */
struct fake_kf_calls {
	unsigned nice, affinity, autogroup;	/* set_* calls so far */
	unsigned get_affinity;			/* get_affinity calls so far */
	unsigned trace_freeze, trace_thaw;	/* threads frozen, thawed */
	unsigned policy;			/* set_policy calls so far */
	unsigned task_cputime, process_cputime;	/* figures read so far */
	/* Identities held (task_open, task_hold): what the ptrace source
	 * seizes the thread for. */
	unsigned holds;
};

/* Thread tid ran run_ns in user space (and waited wait_ns to run), last on
 * cpu; it is runnable from then on if either is not 0. */
void fake_kf_run(struct fake_kf *fk, pid_t tid, uint64_t run_ns, uint64_t wait_ns, int cpu);
/* The same, all of it in the kernel (system time): the thread is runnable. */
void fake_kf_run_system(struct fake_kf *fk, pid_t tid, uint64_t run_ns, int cpu);
/* A tick of USER_HZ: the unit of utime and stime (the real facade's too). */
#define FAKE_KF_TICK_NS 10000000ULL
int fake_kf_nice(struct fake_kf *fk, pid_t tid);
/* Somebody else changes the thread's nice. */
void fake_kf_renice(struct fake_kf *fk, pid_t tid, int nice);
/* The thread's affinity as a list ("0-3"), into list. */
void fake_kf_affinity(struct fake_kf *fk, pid_t tid, GString *list);
/* The thread sets its own affinity (list: "0-3"); the fake, like the
 * kernel outside a cpuset it knows, takes any online CPUs. */
void fake_kf_set_own_affinity(struct fake_kf *fk, pid_t tid, const char *list);
/* Every thread of process tgid is in session autogroup id. */
void fake_kf_set_session(struct fake_kf *fk, pid_t tgid, int autogroup);
int fake_kf_autogroup_nice(struct fake_kf *fk, int autogroup);
void fake_kf_set_privileged(struct fake_kf *fk, bool privileged);
/* Whether task_open() holds the thread for a source that follows only
 * the threads it holds (kfacade.holds_threads; yes unless told otherwise). */
void fake_kf_set_holds_threads(struct fake_kf *fk, bool holds);
/* Whether the daemon may ptrace its tasks (yes unless told otherwise). */
void fake_kf_set_may_trace(struct fake_kf *fk, bool may);
struct fake_kf_calls fake_kf_calls(struct fake_kf *fk);

/* While held, the boot-time clock stands still between looks (it still
 * moves 1 ms per new thread); let go, it moves on 50 ms at once. */
void fake_kf_hold_clock(struct fake_kf *fk, bool held);

/* ptrace, as the freezer uses it: a thread the facade's caller froze
 * stops at once (reported by ->trace_report) unless its stop is held (as
 * in uninterruptible sleep); it exits reported as gone. The thread is
 * frozen: traced and stopped (false for a thread that does not exist). */
bool fake_kf_frozen(struct fake_kf *fk, pid_t tid);
bool fake_kf_traced(struct fake_kf *fk, pid_t tid);
/* A debugger traces the thread: ->trace_freeze() gives EPERM. */
void fake_kf_set_debugged(struct fake_kf *fk, pid_t tid, bool debugged);
/* The daemon's own tracer has the thread already, its first stop not taken
 * in yet (a child auto-attached whose fork report is pending, as the ptrace
 * source's tracer thread sees it): ->trace_freeze() gives EAGAIN. */
void fake_kf_set_trace_pending(struct fake_kf *fk, pid_t tid, bool pending);
/* Thread tracer traces the thread (its parent with PTRACE_TRACEME, say):
 * ->trace_freeze() gives EPERM, ->trace_status() names tracer, and a
 * SIGSTOP (->trace_signal()) stops it until the tracer resumes it. */
void fake_kf_set_tracer(struct fake_kf *fk, pid_t tid, pid_t tracer);
/* Its tracer resumes it, unless the tracer is frozen: whether it did. */
bool fake_kf_tracer_resumes(struct fake_kf *fk, pid_t tid);
bool fake_kf_sig_stopped(struct fake_kf *fk, pid_t tid);
/* How many SIGCONTs ->trace_signal() sent it. */
int fake_kf_conts(struct fake_kf *fk, pid_t tid);
/* While held, a freeze does not stop the thread; let go, it stops. */
void fake_kf_hold_stop(struct fake_kf *fk, pid_t tid, bool held);
/* The thread waits in vfork() (->task_in_vfork), its stop held meanwhile;
 * let go, it stops. */
void fake_kf_set_vfork(struct fake_kf *fk, pid_t tid, bool waits);
/* A signal on its way to the thread: its next stop takes it (a
 * signal-delivery-stop), and a thaw must give it back. */
void fake_kf_send_signal(struct fake_kf *fk, pid_t tid, int sig);
/* The signal the thread's last thaw gave back (0: none). */
int fake_kf_given_back(struct fake_kf *fk, pid_t tid);

/* A thread's scheduling policy (SCHED_OTHER at first; a forked thread
 * inherits its parent's), and the thread setting its own. */
int fake_kf_policy(struct fake_kf *fk, pid_t tid);
void fake_kf_set_own_policy(struct fake_kf *fk, pid_t tid, int policy);

/* While held, ->process_cputime() calls wait until let go (a slow read
 * of a busy system); how many wait now. */
void fake_kf_hold_cputime(struct fake_kf *fk, bool held);
unsigned fake_kf_cputime_waiting(struct fake_kf *fk);

/* How many calls so far were of those the real facade makes system calls
 * or /proc reads for (task_open, task_events, task_alive, task_kill,
 * thread_ids, all_tasks, task_cputime, process_cputime, task_origin,
 * task_children): what must not happen under the core lock. */
unsigned fake_kf_sys_calls(struct fake_kf *fk);
/* From now on, each of those calls asks held(data) first, and the test
 * fails if it says true (e.g. cg_write_held: a system call under the
 * core lock's write side). NULL: no more. */
void fake_kf_forbid_when(struct fake_kf *fk, bool (*held)(void *data), void *data);

/* The identity (inode) of the live thread tid, 0 if none. */
guint64 fake_kf_ino(struct fake_kf *fk, pid_t tid);
/* How many identities are open now (task_open minus task_close). */
unsigned fake_kf_open_count(struct fake_kf *fk);
/* How many of the open identities belong to thread tid (0 or 1 normally;
 * 2 while an attach's own overlaps the one a fork report's catch-up opens). */
unsigned fake_kf_open_count_tid(struct fake_kf *fk, pid_t tid);
/* How many exit reports are waiting for ->task_events(). */
unsigned fake_kf_pending_exits(struct fake_kf *fk);

#endif
