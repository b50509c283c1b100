/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Exited threads' final CPU time from the kernel's taskstats interface
 * (generic netlink; root only): the CPU time of tasks that have exited stays
 * counted in their groups' cpuacct figures. See docs/kernel-notes.md
 * "Watching tasks" and Documentation/accounting/taskstats.rst. */
#ifndef CGFUSED_TASKSTATS_H
#define CGFUSED_TASKSTATS_H

#include <glib.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* One thread's CPU time, as of its exit (or of a query). */
struct taskstats_record {
	pid_t tid;
	pid_t tgid;
	uint64_t run_ns;	/* cpu_run_virtual_total: sum_exec_runtime, exact */
	uint64_t utime_us;	/* ac_utime: tick-sampled user time */
	uint64_t stime_us;	/* ac_stime: tick-sampled system time */
};

/* One caller at a time: a listener is not for several threads at once. */
struct taskstats_listener;

/* Registers for the exit records of every possible CPU, on a nonblocking
 * socket with a forced 8 MiB receive buffer. NULL with errno set: EPERM
 * without CAP_NET_ADMIN, EINVAL outside the initial user and pid
 * namespaces, ENOENT when the kernel has no taskstats, EPROTONOSUPPORT when
 * its struct taskstats is older than version 12 (no ac_tgid). */
struct taskstats_listener *taskstats_listener_open(void);
/* Deregisters and closes. */
void taskstats_listener_free(struct taskstats_listener *ts);

/* Polls readable when exit records are waiting. */
int taskstats_listener_fd(const struct taskstats_listener *ts);

/* Appends to records (of struct taskstats_record) one record per thread
 * that exited since the last call, in arrival order; never blocks. *lost
 * is set to how many exits were lost since the last call (the socket
 * overran, or a record was unreadable): their CPU time is missing from
 * what the caller adds up. 0 or -errno. */
int taskstats_drain(struct taskstats_listener *ts, GArray *records, uint64_t *lost);

/* The live thread tid's figures so far (TASKSTATS_CMD_GET; on a socket of
 * its own, so exit records are neither consumed nor delayed). 0, -ESRCH
 * when there is no such thread, or -errno. */
int taskstats_query(struct taskstats_listener *ts, pid_t tid, struct taskstats_record *rec);

/* The parser, apart for unit tests: one generic netlink message of the
 * taskstats family (cmd TASKSTATS_CMD_NEW) of len bytes, starting at its
 * nlmsghdr. Appends a record for each per-thread (TASKSTATS_TYPE_AGGR_PID)
 * part and skips the per-process totals (AGGR_TGID). Returns how many parts
 * could not be read (a struct taskstats too short or older than version 12),
 * or -EPROTO for a malformed message. */
int taskstats_parse_msg(const void *msg, size_t len, GArray *records);

#endif
