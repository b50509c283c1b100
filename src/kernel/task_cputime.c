/* SPDX-License-Identifier: GPL-2.0-or-later */
/* CPU figures from /proc; see task_cputime.h. Field numbers are proc(5)'s. */
#include "kernel/task_cputime.h"

#include <errno.h>
#include <fcntl.h>
#include <glib.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* The stat fields kept, counted from 3 (the first after the comm). */
#define STAT_STATE 3
#define STAT_UTIME 14
#define STAT_STIME 15
#define STAT_NICE 19
#define STAT_STARTTIME 22
#define STAT_PROCESSOR 39

/* rq_cpu_time's place among the numbers of a schedstat "cpuN" line. */
#define SCHEDSTAT_MIN_VERSION 15
#define SCHEDSTAT_RUN_FIELD 7

/* Parses one unsigned decimal number at *p, which must end at a space,
 * newline or the end; advances *p past it. */
static bool next_u64(const char **p, uint64_t *v)
{
	char *end;

	while (**p == ' ')
		(*p)++;
	if (!g_ascii_isdigit(**p))
		return false;
	errno = 0;
	*v = g_ascii_strtoull(*p, &end, 10);
	if (errno || (*end != ' ' && *end != '\n' && *end != '\0'))
		return false;
	*p = end;
	return true;
}

int task_schedstat_parse(const char *text, struct proc_task_cputime *ct)
{
	uint64_t run, wait;

	if (!next_u64(&text, &run) || !next_u64(&text, &wait))
		return -EPROTO;
	ct->run_ns = run;
	ct->wait_ns = wait;
	return 0;
}

int task_stat_parse(const char *text, struct proc_task_cputime *ct)
{
	const char *p = strrchr(text, ')');
	struct proc_task_cputime got = *ct;

	if (!p || p[1] != ' ' || !p[2] || p[3] != ' ')
		return -EPROTO;
	got.state = p[2];
	p += 3;
	for (int field = STAT_STATE + 1; field <= STAT_PROCESSOR; field++) {
		uint64_t v;
		bool neg = false;

		/* nice and a few others may be negative */
		if (p[0] == ' ' && p[1] == '-') {
			neg = true;
			p += 2;
		}
		if (!next_u64(&p, &v))
			return -EPROTO;
		switch (field) {
		case STAT_UTIME:
			got.utime_ticks = v;
			break;
		case STAT_STIME:
			got.stime_ticks = v;
			break;
		case STAT_NICE:
			if (v > (neg ? 20u : 19u))
				return -EPROTO;
			got.nice = neg ? -(int)v : (int)v;
			break;
		case STAT_STARTTIME:
			got.starttime = v;
			break;
		case STAT_PROCESSOR:
			if (v > INT_MAX)
				return -EPROTO;
			got.processor = (int)v;
			break;
		}
	}
	*ct = got;
	return 0;
}

/* The whole of a small /proc file into buf, NUL-terminated. */
static int read_small(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t len;

	if (fd < 0)
		return errno == ENOENT ? -ESRCH : -errno;
	len = read(fd, buf, size - 1);
	if (len < 0)
		len = -errno;
	close(fd);
	if (len < 0)
		return (int)len;
	if ((size_t)len == size - 1)
		return -EOVERFLOW;	/* none of these is this long */
	buf[len] = '\0';
	return 0;
}

static int read_thread_file(pid_t tgid, pid_t tid, const char *name, char *buf, size_t size)
{
	char path[64];

	if (tgid <= 0 || tid <= 0)
		return -ESRCH;
	snprintf(path, sizeof(path), "/proc/%d/task/%d/%s", tgid, tid, name);
	return read_small(path, buf, size);
}

int task_schedstat_read(pid_t tgid, pid_t tid, struct proc_task_cputime *ct)
{
	char buf[128];
	int ret = read_thread_file(tgid, tid, "schedstat", buf, sizeof(buf));

	return ret ? ret : task_schedstat_parse(buf, ct);
}

int task_stat_read(pid_t tgid, pid_t tid, struct proc_task_cputime *ct)
{
	/* 52 numbers and a comm of at most 64 bytes (a kernel thread's). */
	char buf[2048];
	int ret = read_thread_file(tgid, tid, "stat", buf, sizeof(buf));

	return ret ? ret : task_stat_parse(buf, ct);
}

int task_cputime_read(pid_t tgid, pid_t tid, struct proc_task_cputime *ct)
{
	int ret = task_schedstat_read(tgid, tid, ct);

	return ret ? ret : task_stat_read(tgid, tid, ct);
}

/* ---- per CPU ----------------------------------------------------------- */

/* For each "cpuN " line of text (not the "cpu " total), calls fn with N and
 * the rest of the line. 0, fn's error, or -EPROTO. */
static int each_cpu_line(const char *text, int (*fn)(unsigned cpu, const char *rest, void *arg),
			 void *arg)
{
	const char *line = text;

	while (line) {
		const char *p = line + 3;
		uint64_t cpu;
		int ret;

		if (strncmp(line, "cpu", 3) == 0 && g_ascii_isdigit(*p)) {
			if (!next_u64(&p, &cpu) || *p != ' ' || cpu > UINT_MAX)
				return -EPROTO;
			ret = fn((unsigned)cpu, p, arg);
			if (ret)
				return ret;
		}
		line = strchr(line, '\n');
		if (line)
			line++;
	}
	return 0;
}

struct cpus_arg {
	struct cpu_times *cpus;
	unsigned ncpus;
};

static int schedstat_cpu(unsigned cpu, const char *p, void *arg)
{
	struct cpus_arg *ca = arg;
	uint64_t v = 0;

	for (int i = 1; i <= SCHEDSTAT_RUN_FIELD; i++)
		if (!next_u64(&p, &v))
			return -EPROTO;
	if (cpu < ca->ncpus)
		ca->cpus[cpu].run_ns = v;
	return 0;
}

int cpu_schedstat_parse(const char *text, struct cpu_times *cpus, unsigned ncpus)
{
	struct cpus_arg ca = { cpus, ncpus };
	uint64_t version;
	const char *p = text + strlen("version");

	if (strncmp(text, "version ", 8) != 0 || !next_u64(&p, &version) ||
	    version < SCHEDSTAT_MIN_VERSION)
		return -EPROTO;
	return each_cpu_line(text, schedstat_cpu, &ca);
}

/* user nice system idle iowait irq softirq: the first seven numbers. */
static int stat_cpu(unsigned cpu, const char *p, void *arg)
{
	struct cpus_arg *ca = arg;
	uint64_t v[7];

	for (int i = 0; i < 7; i++)
		if (!next_u64(&p, &v[i]))
			return -EPROTO;
	if (cpu < ca->ncpus) {
		ca->cpus[cpu].user_ticks = v[0] + v[1];
		ca->cpus[cpu].system_ticks = v[2] + v[5] + v[6];
	}
	return 0;
}

int cpu_stat_parse(const char *text, struct cpu_times *cpus, unsigned ncpus)
{
	struct cpus_arg ca = { cpus, ncpus };

	return each_cpu_line(text, stat_cpu, &ca);
}

/* The whole of a /proc file of any length. */
static int read_all(const char *path, GString *out)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	int ret = 0;

	if (fd < 0)
		return -errno;
	for (;;) {
		char buf[4096];
		ssize_t len = read(fd, buf, sizeof(buf));

		if (len < 0 && errno == EINTR)
			continue;
		if (len <= 0) {
			ret = len < 0 ? -errno : 0;
			break;
		}
		g_string_append_len(out, buf, len);
	}
	close(fd);
	return ret;
}

int cpu_times_read(struct cpu_times *cpus, unsigned ncpus, bool *run_exact)
{
	GString *text = g_string_sized_new(8192);
	int ret;

	memset(cpus, 0, ncpus * sizeof(*cpus));
	ret = read_all("/proc/stat", text);
	if (ret == 0)
		ret = cpu_stat_parse(text->str, cpus, ncpus);
	if (ret == 0) {
		g_string_truncate(text, 0);
		ret = read_all("/proc/schedstat", text);
		*run_exact = ret == 0;
		if (ret == 0)
			ret = cpu_schedstat_parse(text->str, cpus, ncpus);
		else if (ret == -ENOENT)
			ret = 0;	/* no CONFIG_SCHEDSTATS: from the ticks */
	}
	if (ret == 0 && !*run_exact) {
		uint64_t ns_per_tick = 1000000000 / (uint64_t)sysconf(_SC_CLK_TCK);

		for (unsigned i = 0; i < ncpus; i++)
			cpus[i].run_ns = (cpus[i].user_ticks + cpus[i].system_ticks) * ns_per_tick;
	}
	g_string_free(text, TRUE);
	return ret;
}
