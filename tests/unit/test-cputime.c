/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests of src/kernel/task_cputime.c: the /proc parsers fed with text as this
 * machine (Linux 6.18) and kernels with CONFIG_SCHEDSTATS write it, and the
 * readers on live threads of this test. */
#include <errno.h>
#include <sched.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <glib.h>

#include "kernel/task_cputime.h"

/* ---- one thread's files ------------------------------------------------ */

static void test_schedstat_parse(void)
{
	struct proc_task_cputime ct = { 0 };

	g_assert_cmpint(task_schedstat_parse("6115972 6221856 3\n", &ct), ==, 0);
	g_assert_cmpuint(ct.run_ns, ==, 6115972);
	g_assert_cmpuint(ct.wait_ns, ==, 6221856);
	g_assert_cmpint(task_schedstat_parse("18446744073709551615 0 0\n", &ct), ==, 0);
	g_assert_cmpuint(ct.run_ns, ==, G_MAXUINT64);
	g_assert_cmpuint(ct.wait_ns, ==, 0);

	/* Refused, and nothing changed. */
	g_assert_cmpint(task_schedstat_parse("12\n", &ct), ==, -EPROTO);
	g_assert_cmpint(task_schedstat_parse("", &ct), ==, -EPROTO);
	g_assert_cmpint(task_schedstat_parse("12x 4 1\n", &ct), ==, -EPROTO);
	g_assert_cmpint(task_schedstat_parse("-1 4 1\n", &ct), ==, -EPROTO);
	g_assert_cmpint(task_schedstat_parse("18446744073709551616 0 0\n", &ct), ==, -EPROTO);
	g_assert_cmpuint(ct.run_ns, ==, G_MAXUINT64);
}

/* The fields after the comm of /proc/self/stat on this machine (cat,
 * state R, nice 0, processor 0). */
#define CAT_AFTER_STATE "4828 4828 26005 0 -1 4194304 98 0 0 0 7 3 0 0 20 0 1 0 863240 " \
	"3133440 360 18446744073709551615 93901723934720 93901723954601 " \
	"140735534174048 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0 93901723970608 " \
	"93901723972224 93902748532736 140735534176711 140735534176731 " \
	"140735534176731 140735534178283 0\n"
#define CAT_REST "R " CAT_AFTER_STATE

/* The cat line with field 19 (nice) replaced. */
static int stat_with_nice(const char *nice, struct proc_task_cputime *ct)
{
	char **f = g_strsplit("4834 (cat) " CAT_REST, " ", -1);
	char *line;
	int ret;

	g_free(f[18]);
	f[18] = g_strdup(nice);
	line = g_strjoinv(" ", f);
	ret = task_stat_parse(line, ct);
	g_free(line);
	g_strfreev(f);
	return ret;
}

static void test_stat_parse(void)
{
	struct proc_task_cputime ct = { 0 };

	g_assert_cmpint(task_stat_parse("4834 (cat) " CAT_REST, &ct), ==, 0);
	g_assert_cmpint(ct.state, ==, 'R');
	g_assert_cmpuint(ct.utime_ticks, ==, 7);
	g_assert_cmpuint(ct.stime_ticks, ==, 3);
	g_assert_cmpint(ct.nice, ==, 0);
	g_assert_cmpuint(ct.starttime, ==, 863240);
	g_assert_cmpint(ct.processor, ==, 1);

	/* A comm with ") (" and spaces: fields count from the LAST ')'. */
	memset(&ct, 0, sizeof(ct));
	g_assert_cmpint(task_stat_parse("4834 (a) (b c) " CAT_REST, &ct), ==, 0);
	g_assert_cmpint(ct.state, ==, 'R');
	g_assert_cmpuint(ct.starttime, ==, 863240);
	g_assert_cmpint(ct.processor, ==, 1);
	g_assert_cmpint(task_stat_parse("4834 ()) ) " CAT_REST, &ct), ==, 0);
	g_assert_cmpuint(ct.utime_ticks, ==, 7);
	/* One that reads as a stat line from its first ')'. */
	g_assert_cmpint(task_stat_parse("4834 (x) S 1 2 (y) " CAT_REST, &ct), ==, 0);
	g_assert_cmpint(ct.state, ==, 'R');
	g_assert_cmpuint(ct.stime_ticks, ==, 3);

	/* The ends of the nice range. */
	g_assert_cmpint(stat_with_nice("-20", &ct), ==, 0);
	g_assert_cmpint(ct.nice, ==, -20);
	g_assert_cmpint(stat_with_nice("19", &ct), ==, 0);
	g_assert_cmpint(ct.nice, ==, 19);

	/* A niced thread of this machine's init (nice -10, priority 10). */
	g_assert_cmpint(task_stat_parse("60 (spawner) S 0 1 1 0 -1 4194624 1000 0 0 0 "
					"1500 2500 0 0 10 -10 4 0 312 12345678 1234 "
					"18446744073709551615 1 1 0 0 0 0 0 4096 0 0 0 0 -1 0 0 "
					"0 0 0 0 0 0 0 0 0 0 0 0\n", &ct), ==, 0);
	g_assert_cmpint(ct.state, ==, 'S');
	g_assert_cmpuint(ct.utime_ticks, ==, 1500);
	g_assert_cmpuint(ct.stime_ticks, ==, 2500);
	g_assert_cmpint(ct.nice, ==, -10);
	g_assert_cmpuint(ct.starttime, ==, 312);
	g_assert_cmpint(ct.processor, ==, 0);

	/* A kernel thread (this machine's kthreadd), and a long worker name. */
	g_assert_cmpint(task_stat_parse("2 (kthreadd) S 0 0 0 0 -1 2129984 0 0 0 0 1 0 0 0 20 0 "
					"1 0 20 0 0 18446744073709551615 0 0 0 0 0 0 0 2147483647 "
					"0 1 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n", &ct), ==, 0);
	g_assert_cmpuint(ct.starttime, ==, 20);
	g_assert_cmpint(ct.processor, ==, 0);
	g_assert_cmpint(task_stat_parse("53 (kworker/u8:2-events_unbound) I " CAT_AFTER_STATE, &ct),
			==, 0);
	g_assert_cmpint(ct.state, ==, 'I');

	/* Refused, and nothing changed. */
	g_assert_cmpint(task_stat_parse("4834 (cat R 1 2\n", &ct), ==, -EPROTO);
	g_assert_cmpint(task_stat_parse("4834 (cat)\n", &ct), ==, -EPROTO);
	g_assert_cmpint(task_stat_parse("4834 (cat) R 4828 4828 26005\n", &ct), ==, -EPROTO);
	g_assert_cmpint(task_stat_parse("4834 (cat) R x " CAT_AFTER_STATE, &ct), ==, -EPROTO);
	g_assert_cmpint(task_stat_parse("4834 (cat) RS " CAT_AFTER_STATE, &ct), ==, -EPROTO);
	g_assert_cmpint(task_stat_parse("4834 (cat) R 4828 4828 26005 0 -1 4194304 98 0 0 0 7 3 "
					"0 0 20 0 1 0 863240\n", &ct), ==, -EPROTO);
	g_assert_cmpint(stat_with_nice("-21", &ct), ==, -EPROTO);
	g_assert_cmpint(stat_with_nice("20", &ct), ==, -EPROTO);
	g_assert_cmpint(ct.state, ==, 'I');
}

static uint64_t thread_cpu_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return (uint64_t)t.tv_sec * 1000000000 + (uint64_t)t.tv_nsec;
}

static void test_read_self(void)
{
	struct proc_task_cputime ct = { 0 };
	long ncpus = sysconf(_SC_NPROCESSORS_CONF);
	uint64_t first;

	/* schedstat's figure is as of the scheduler's last update of this
	 * thread, which a young process may not have had yet (seen once in
	 * CI: 0): run past a tick, then through the scheduler. */
	while (thread_cpu_ns() < 20000000)
		;
	sched_yield();
	g_assert_cmpint(task_cputime_read(getpid(), gettid(), &ct), ==, 0);
	first = ct.run_ns;
	/* Never ahead of the thread's own clock. */
	g_assert_cmpuint(ct.run_ns, >, 0);
	g_assert_cmpuint(ct.run_ns, <=, thread_cpu_ns());
	g_assert_cmpint(ct.state, ==, 'R');	/* it is reading its own file */
	g_assert_cmpint(ct.nice, ==, getpriority(PRIO_PROCESS, 0));
	g_assert_cmpint(ct.processor, >=, 0);
	g_assert_cmpint(ct.processor, <, ncpus);
	g_assert_cmpuint(ct.starttime, >, 0);

	for (int i = 0; i < 100; i++)
		g_assert_cmpint(task_schedstat_read(getpid(), gettid(), &ct), ==, 0);
	g_assert_cmpuint(ct.run_ns, >, first);
}

/* A child blocked on a pipe shows as sleeping; once reaped it is gone; a
 * thread is only found under its own process. */
static void test_read_child(void)
{
	struct proc_task_cputime ct = { 0 };
	int fds[2];
	pid_t child;
	gint64 deadline = g_get_monotonic_time() + 5 * G_USEC_PER_SEC;
	char c;

	g_assert_cmpint(pipe(fds), ==, 0);
	child = fork();
	g_assert_cmpint(child, >=, 0);
	if (child == 0) {
		close(fds[1]);
		_exit(read(fds[0], &c, 1) == 1 ? 0 : 1);
	}
	close(fds[0]);
	do {
		g_assert_cmpint(task_cputime_read(child, child, &ct), ==, 0);
		if (ct.state != 'S')
			g_usleep(1000);
	} while (ct.state != 'S' && g_get_monotonic_time() < deadline);
	g_assert_cmpint(ct.state, ==, 'S');
	g_assert_cmpint(task_stat_read(getpid(), child, &ct), ==, -ESRCH);
	g_assert_cmpint(task_schedstat_read(getpid(), child, &ct), ==, -ESRCH);

	g_assert_cmpint(write(fds[1], "x", 1), ==, 1);
	close(fds[1]);
	g_assert_cmpint(waitpid(child, NULL, 0), ==, child);
	g_assert_cmpint(task_cputime_read(child, child, &ct), ==, -ESRCH);
	g_assert_cmpint(task_cputime_read(0, 1, &ct), ==, -ESRCH);
}

/* ---- the whole system's -------------------------------------------------- */

/* /proc/schedstat of a kernel with CONFIG_SCHEDSTATS: version 15 (Linux
 * 4.x-6.5) and 17 (domain lines name their level); cpu lines alike. */
static const char schedstat_v15[] =
	"version 15\n"
	"timestamp 4296117513\n"
	"cpu0 0 0 1934815 701206 1109734 504862 433188702071 74233981577 1233598\n"
	"domain0 00000003 12203 11983 158 12834 63 0 0 11983 2 2 0 0 0 0 0 2 13401 12905 "
	"386 29112 110 0 0 12905 0 0 0 0 0 0 0 0 0 8190 319 0\n"
	"cpu1 0 0 2118270 813431 1201744 571905 464839117522 79182737810 1304816\n"
	"domain0 00000003 13025 12818 172 13880 35 0 0 12818 3 3 0 0 0 0 0 3 14250 13781 "
	"412 30207 57 0 0 13781 0 0 0 0 0 0 0 0 0 8645 301 0\n";

static const char schedstat_v17[] =
	"version 17\n"
	"timestamp 4295892187\n"
	"cpu0 0 0 64230 23015 31020 13552 21593452191 3312591848 41214\n"
	"domain0 MC 00000003 1120 1102 5 0 0 14 0 0 0 1102 0 0 0 0 0 0 0 0 0 0 0 0 0 0 "
	"0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n"
	"cpu1 0 0 70104 25877 30211 12990 22871001264 3514477001 45021\n"
	"cpu2 0 0 66007 24000 29873 12301 20000000001 3400000000 43000\n";

static void test_cpu_schedstat_parse(void)
{
	struct cpu_times cpus[3] = { 0 };

	g_assert_cmpint(cpu_schedstat_parse(schedstat_v15, cpus, 3), ==, 0);
	g_assert_cmpuint(cpus[0].run_ns, ==, 433188702071);
	g_assert_cmpuint(cpus[1].run_ns, ==, 464839117522);
	g_assert_cmpuint(cpus[2].run_ns, ==, 0);	/* not in the file */

	/* CPUs beyond what the caller has room for are left out. */
	memset(cpus, 0, sizeof(cpus));
	g_assert_cmpint(cpu_schedstat_parse(schedstat_v17, cpus, 2), ==, 0);
	g_assert_cmpuint(cpus[0].run_ns, ==, 21593452191);
	g_assert_cmpuint(cpus[1].run_ns, ==, 22871001264);
	g_assert_cmpuint(cpus[2].run_ns, ==, 0);
	g_assert_cmpuint(cpus[0].user_ticks, ==, 0);	/* only run_ns is set */

	/* An older layout, no version line, a short cpu line. */
	g_assert_cmpint(cpu_schedstat_parse("version 14\ntimestamp 1\n"
					    "cpu0 0 0 0 1 2 3 4 5 6 7 8 9\n", cpus, 2), ==, -EPROTO);
	g_assert_cmpint(cpu_schedstat_parse("timestamp 1\ncpu0 0 0 1 2 3 4 5 6 7\n", cpus, 2),
			==, -EPROTO);
	g_assert_cmpint(cpu_schedstat_parse("version 15\ncpu0 0 0 1 2 3 4\n", cpus, 2), ==,
			-EPROTO);
}

/* This machine's /proc/stat, abridged, with nice, irq and softirq time
 * added, and cpu1 offline. */
static const char proc_stat[] =
	"cpu  340376 17 518194 858531 1631 40 2908 0 0 0\n"
	"cpu0 155692 12 272178 431068 453 30 1804 0 0 0\n"
	"cpu2 184684 5 246016 427463 1178 10 1104 3 0 0\n"
	"intr 107795468 0 9 0 0 0 0 0 0 0 0 0 0 143 0 0 0\n"
	"ctxt 223915829\n"
	"btime 1764633600\n"
	"processes 2073418\n"
	"procs_running 3\n"
	"procs_blocked 0\n"
	"softirq 64209146 2 17218003 1 3290 0 0 3436 26036416 0 20948\n";

static void test_cpu_stat_parse(void)
{
	struct cpu_times cpus[4] = { 0 };

	g_assert_cmpint(cpu_stat_parse(proc_stat, cpus, 4), ==, 0);
	g_assert_cmpuint(cpus[0].user_ticks, ==, 155692 + 12);
	g_assert_cmpuint(cpus[0].system_ticks, ==, 272178 + 30 + 1804);
	g_assert_cmpuint(cpus[1].user_ticks, ==, 0);
	g_assert_cmpuint(cpus[1].system_ticks, ==, 0);
	g_assert_cmpuint(cpus[2].user_ticks, ==, 184684 + 5);
	g_assert_cmpuint(cpus[2].system_ticks, ==, 246016 + 10 + 1104);
	g_assert_cmpuint(cpus[3].user_ticks, ==, 0);
	g_assert_cmpuint(cpus[0].run_ns, ==, 0);	/* not from here */

	g_assert_cmpint(cpu_stat_parse("cpu0 1 2 3 4 5 6\n", cpus, 4), ==, -EPROTO);
	g_assert_cmpint(cpu_stat_parse("cpu0 1 2 3 4 5 6 x 8\n", cpus, 4), ==, -EPROTO);
	g_assert_cmpint(cpu_stat_parse("cpu0x 1 2 3 4 5 6 7 8\n", cpus, 4), ==, -EPROTO);
}

static void test_cpu_times_read(void)
{
	long ncpus = sysconf(_SC_NPROCESSORS_CONF);
	uint64_t ns_per_tick = 1000000000 / (uint64_t)sysconf(_SC_CLK_TCK);
	struct cpu_times *a = g_new0(struct cpu_times, ncpus + 1);
	struct cpu_times *b = g_new0(struct cpu_times, ncpus + 1);
	bool exact_a, exact_b;
	uint64_t busy = 0;

	/* The extra slot has no CPU: zeroed although it held something. */
	b[ncpus].user_ticks = 1;
	g_assert_cmpint(cpu_times_read(a, ncpus + 1, &exact_a), ==, 0);
	g_assert_cmpint(cpu_times_read(b, ncpus + 1, &exact_b), ==, 0);
	g_assert_cmpint(exact_a, ==, g_file_test("/proc/schedstat", G_FILE_TEST_EXISTS));
	g_assert_cmpint(exact_a, ==, exact_b);
	g_assert_cmpuint(b[ncpus].user_ticks, ==, 0);
	for (long i = 0; i < ncpus; i++) {
		g_assert_cmpuint(b[i].run_ns, >=, a[i].run_ns);
		g_assert_cmpuint(b[i].user_ticks, >=, a[i].user_ticks);
		g_assert_cmpuint(b[i].system_ticks, >=, a[i].system_ticks);
		if (!exact_a)
			g_assert_cmpuint(a[i].run_ns, ==,
					 (a[i].user_ticks + a[i].system_ticks) * ns_per_tick);
		busy += a[i].run_ns;
	}
	g_assert_cmpuint(busy, >, 0);
	g_free(a);
	g_free(b);
}

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	/* A failed check fails its case; the next cases still run. */
	g_test_set_nonfatal_assertions();
	g_test_add_func("/cputime/schedstat-parse", test_schedstat_parse);
	g_test_add_func("/cputime/stat-parse", test_stat_parse);
	g_test_add_func("/cputime/read-self", test_read_self);
	g_test_add_func("/cputime/read-child", test_read_child);
	g_test_add_func("/cputime/cpu-schedstat-parse", test_cpu_schedstat_parse);
	g_test_add_func("/cputime/cpu-stat-parse", test_cpu_stat_parse);
	g_test_add_func("/cputime/cpu-times-read", test_cpu_times_read);
	return g_test_run();
}
