/* SPDX-License-Identifier: GPL-2.0-or-later */
/* CPU figures from /proc: one thread's (for accounting and for telling
 * runnable threads), and the whole system's per CPU (the root cgroup's
 * cpuacct files). Nothing is held open; each read opens, reads and closes.
 * The parsers are pure (text in, struct out) so that tests can feed them. */
#ifndef CGFUSED_TASK_CPUTIME_H
#define CGFUSED_TASK_CPUTIME_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/* One thread, from /proc/TGID/task/TID/schedstat and .../stat. */
struct proc_task_cputime {
	/* schedstat */
	uint64_t run_ns;	/* 1st: time on a CPU (sum_exec_runtime), exact */
	uint64_t wait_ns;	/* 2nd: time runnable, waiting on a runqueue */
	/* stat, by the field numbers of proc(5) */
	char state;		/* 3: R running or runnable, S, D, T, Z, ... */
	uint64_t utime_ticks;	/* 14: user time, USER_HZ (_SC_CLK_TCK) */
	uint64_t stime_ticks;	/* 15: system time, USER_HZ */
	int nice;		/* 19 */
	uint64_t starttime;	/* 22: clock ticks after boot */
	int processor;		/* 39: the CPU it last ran on */
};

/* "RUN WAIT SLICES\n": sets run_ns and wait_ns. 0 or -EPROTO. */
int task_schedstat_parse(const char *text, struct proc_task_cputime *ct);
/* "PID (COMM) STATE ...": COMM may hold spaces and parentheses, so the
 * fields are counted from the last ')'. Sets the stat fields. 0 or -EPROTO. */
int task_stat_parse(const char *text, struct proc_task_cputime *ct);

/* Read the thread's files: 0, -ESRCH when tid is not (or no longer) a
 * thread of tgid, or -errno. */
int task_schedstat_read(pid_t tgid, pid_t tid, struct proc_task_cputime *ct);
int task_stat_read(pid_t tgid, pid_t tid, struct proc_task_cputime *ct);
/* Both. */
int task_cputime_read(pid_t tgid, pid_t tid, struct proc_task_cputime *ct);

/* One CPU's share of the whole system's time. */
struct cpu_times {
	uint64_t run_ns;	/* time tasks ran on it */
	uint64_t user_ticks;	/* /proc/stat user + nice, USER_HZ */
	uint64_t system_ticks;	/* /proc/stat system + irq + softirq, USER_HZ */
};

/* /proc/schedstat (version 15 and later; CONFIG_SCHEDSTATS): the 7th
 * number of each "cpuN" line is rq_cpu_time, the ns tasks ran on CPU N,
 * added when a task leaves the CPU (so the running one's current stretch is
 * not in it yet). Sets run_ns of the CPUs below ncpus. 0, or -EPROTO for
 * another version or a malformed line. */
int cpu_schedstat_parse(const char *text, struct cpu_times *cpus, unsigned ncpus);
/* /proc/stat's "cpuN" lines: sets user_ticks and system_ticks of the CPUs
 * below ncpus. 0 or -EPROTO. */
int cpu_stat_parse(const char *text, struct cpu_times *cpus, unsigned ncpus);

/* Zeroes cpus[0..ncpus) and fills in what the system says (an offline CPU
 * stays 0). Without /proc/schedstat (CONFIG_SCHEDSTATS off, as on the 6.18
 * kernel this was written on) run_ns is user + system ticks in ns and
 * *run_exact is false: tick-sampled, not exact. 0 or -errno. */
int cpu_times_read(struct cpu_times *cpus, unsigned ncpus, bool *run_exact);

#endif
