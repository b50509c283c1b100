/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests of src/kernel/taskstats.c: the message parser fed with messages built
 * here in the kernel's layout, and (as root) the listener and the query on
 * processes this test starts. */
#include <errno.h>
#include <grp.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <linux/taskstats.h>

#include <glib.h>

#include "kernel/task_cputime.h"
#include "kernel/taskstats.h"

/* The fields read, at their offsets in Linux 6.1's struct taskstats
 * (version 13, 416 bytes); later versions only append. Written out rather
 * than taken from the header so that the parser is checked against them. */
#define OFF_VERSION 0
#define OFF_RUN_VIRTUAL 72
#define OFF_UTIME 152
#define OFF_STIME 160
#define OFF_TGID 368
#define SIZE_V13 416

/* ---- building messages ------------------------------------------------- */

static void put_attr(GByteArray *b, uint16_t type, const void *data, size_t len)
{
	struct nlattr a = { .nla_len = (uint16_t)(NLA_HDRLEN + len), .nla_type = type };
	static const uint8_t pad[NLA_ALIGNTO];

	g_byte_array_append(b, (const uint8_t *)&a, sizeof(a));
	g_byte_array_append(b, data, (guint)len);
	g_byte_array_append(b, pad, NLA_ALIGN(len) - (guint)len);
}

static void put_u32(GByteArray *b, uint16_t type, uint32_t v)
{
	put_attr(b, type, &v, sizeof(v));
}

static guint nest_start(GByteArray *b, uint16_t type)
{
	guint off = b->len;

	put_attr(b, type, NULL, 0);
	return off;
}

static void nest_end(GByteArray *b, guint off)
{
	uint16_t len = (uint16_t)(b->len - off);

	memcpy(b->data + off, &len, sizeof(len));
}

static GByteArray *msg_start(uint8_t cmd)
{
	GByteArray *b = g_byte_array_new();
	struct nlmsghdr h = { .nlmsg_type = 0x17 };	/* a family id */
	struct genlmsghdr g = { .cmd = cmd, .version = TASKSTATS_GENL_VERSION };

	g_byte_array_append(b, (const uint8_t *)&h, sizeof(h));
	g_byte_array_append(b, (const uint8_t *)&g, sizeof(g));
	return b;
}

static void msg_end(GByteArray *b)
{
	uint32_t len = b->len;

	memcpy(b->data, &len, sizeof(len));
}

/* A struct taskstats of size bytes with the fields this parser reads. */
static void put_stats(GByteArray *b, size_t size, uint16_t version, uint32_t tgid,
		      uint64_t run, uint64_t utime, uint64_t stime)
{
	uint8_t *s = g_malloc0(size);

	memcpy(s + OFF_VERSION, &version, sizeof(version));
	if (size >= OFF_TGID + sizeof(tgid))
		memcpy(s + OFF_TGID, &tgid, sizeof(tgid));
	if (size >= SIZE_V13) {
		memcpy(s + OFF_RUN_VIRTUAL, &run, sizeof(run));
		memcpy(s + OFF_UTIME, &utime, sizeof(utime));
		memcpy(s + OFF_STIME, &stime, sizeof(stime));
	}
	put_attr(b, TASKSTATS_TYPE_STATS, s, size);
	g_free(s);
}

/* One thread's part: AGGR_PID { PID, [NULL pad,] STATS }. */
static void put_aggr(GByteArray *b, uint16_t aggr, uint32_t id, bool pad, size_t size,
		     uint16_t version, uint32_t tgid, uint64_t run)
{
	guint nest = nest_start(b, aggr);

	put_u32(b, aggr == TASKSTATS_TYPE_AGGR_PID ? TASKSTATS_TYPE_PID : TASKSTATS_TYPE_TGID, id);
	if (pad)
		put_attr(b, TASKSTATS_TYPE_NULL, NULL, 0);
	put_stats(b, size, version, tgid, run, run / 4000, run / 1333);
	nest_end(b, nest);
}

static GArray *records_new(void)
{
	return g_array_new(FALSE, FALSE, sizeof(struct taskstats_record));
}

static struct taskstats_record *rec_at(GArray *a, guint i)
{
	return &g_array_index(a, struct taskstats_record, i);
}

/* ---- the parser -------------------------------------------------------- */

static void test_parse_record(void)
{
	GByteArray *b = msg_start(TASKSTATS_CMD_NEW);
	GArray *recs = records_new();

	put_aggr(b, TASKSTATS_TYPE_AGGR_PID, 4101, false, SIZE_V13, 13, 4100, 52000000);
	msg_end(b);
	g_assert_cmpint(taskstats_parse_msg(b->data, b->len, recs), ==, 0);
	g_assert_cmpuint(recs->len, ==, 1);
	g_assert_cmpint(rec_at(recs, 0)->tid, ==, 4101);
	g_assert_cmpint(rec_at(recs, 0)->tgid, ==, 4100);
	g_assert_cmpuint(rec_at(recs, 0)->run_ns, ==, 52000000);
	g_assert_cmpuint(rec_at(recs, 0)->utime_us, ==, 13000);
	g_assert_cmpuint(rec_at(recs, 0)->stime_us, ==, 39009);
	g_byte_array_unref(b);
	g_array_unref(recs);
}

/* Newer kernels send a longer struct (version 16 on 6.18); a NULL attribute
 * may pad the stats to 8 bytes; the last thread of a process brings the
 * process's totals, which are not a thread's record. */
static void test_parse_newer_and_tgid(void)
{
	GByteArray *b = msg_start(TASKSTATS_CMD_NEW);
	GArray *recs = records_new();

	put_aggr(b, TASKSTATS_TYPE_AGGR_PID, 4100, true, SIZE_V13 + 136, 16, 4100, 7000);
	put_aggr(b, TASKSTATS_TYPE_AGGR_TGID, 4100, false, SIZE_V13 + 136, 16, 4100, 99000);
	msg_end(b);
	g_assert_cmpint(taskstats_parse_msg(b->data, b->len, recs), ==, 0);
	g_assert_cmpuint(recs->len, ==, 1);
	g_assert_cmpint(rec_at(recs, 0)->tid, ==, 4100);
	g_assert_cmpint(rec_at(recs, 0)->tgid, ==, 4100);
	g_assert_cmpuint(rec_at(recs, 0)->run_ns, ==, 7000);
	g_byte_array_unref(b);
	g_array_unref(recs);
}

/* A struct too old to have ac_tgid, or too short to reach it, is counted as
 * unreadable; the message's other records still come through. */
static void test_parse_unreadable(void)
{
	GByteArray *b = msg_start(TASKSTATS_CMD_NEW);
	GArray *recs = records_new();

	put_aggr(b, TASKSTATS_TYPE_AGGR_PID, 1, false, SIZE_V13, 11, 1, 5);
	put_aggr(b, TASKSTATS_TYPE_AGGR_PID, 2, false, OFF_TGID + 3, 13, 2, 5);
	put_aggr(b, TASKSTATS_TYPE_AGGR_PID, 3, false, OFF_TGID + 4, 12, 3, 5);
	msg_end(b);
	g_assert_cmpint(taskstats_parse_msg(b->data, b->len, recs), ==, 2);
	g_assert_cmpuint(recs->len, ==, 1);
	g_assert_cmpint(rec_at(recs, 0)->tid, ==, 3);
	g_assert_cmpint(rec_at(recs, 0)->tgid, ==, 3);
	g_byte_array_unref(b);
	g_array_unref(recs);
}

/* A malformed message adds nothing and leaves earlier records alone. */
static void test_parse_malformed(void)
{
	GArray *recs = records_new();
	struct taskstats_record keep = { .tid = 9 };
	GByteArray *b;
	guint nest;

	g_array_append_val(recs, keep);

	/* A good record, then an attribute longer than the message. */
	b = msg_start(TASKSTATS_CMD_NEW);
	put_aggr(b, TASKSTATS_TYPE_AGGR_PID, 4101, false, SIZE_V13, 13, 4100, 1);
	nest = nest_start(b, TASKSTATS_TYPE_AGGR_PID);
	put_u32(b, TASKSTATS_TYPE_PID, 4102);
	nest_end(b, nest);
	b->data[nest] += 40;
	msg_end(b);
	g_assert_cmpint(taskstats_parse_msg(b->data, b->len, recs), ==, -EPROTO);
	g_byte_array_unref(b);

	/* A thread's part without its stats. */
	b = msg_start(TASKSTATS_CMD_NEW);
	nest = nest_start(b, TASKSTATS_TYPE_AGGR_PID);
	put_u32(b, TASKSTATS_TYPE_PID, 4102);
	nest_end(b, nest);
	msg_end(b);
	g_assert_cmpint(taskstats_parse_msg(b->data, b->len, recs), ==, -EPROTO);

	/* Cut short, or not an exit record. */
	g_assert_cmpint(taskstats_parse_msg(b->data, b->len - 4, recs), ==, -EPROTO);
	g_assert_cmpint(taskstats_parse_msg(b->data, NLMSG_HDRLEN, recs), ==, -EPROTO);
	b->data[NLMSG_HDRLEN] = TASKSTATS_CMD_GET;
	g_assert_cmpint(taskstats_parse_msg(b->data, b->len, recs), ==, -EPROTO);
	g_byte_array_unref(b);

	g_assert_cmpuint(recs->len, ==, 1);
	g_assert_cmpint(rec_at(recs, 0)->tid, ==, 9);
	g_array_unref(recs);
}

/* ---- the kernel's ------------------------------------------------------ */

/* How a child tells the parent what it measured itself. */
struct measured {
	pid_t tid;
	uint64_t cpu_ns;	/* CLOCK_THREAD_CPUTIME_ID just before exiting */
};

static uint64_t thread_cpu_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return (uint64_t)t.tv_sec * 1000000000 + (uint64_t)t.tv_nsec;
}

/* Burns ms of CPU in user space, looking at the clock seldom. */
static void burn(unsigned ms)
{
	uint64_t until = thread_cpu_ns() + (uint64_t)ms * 1000000;
	volatile uint64_t x = 1;

	while (thread_cpu_ns() < until)
		for (int i = 0; i < 1 << 16; i++)
			x = x * 6364136223846793005ULL + 1;
}

static void send_measured(int fd)
{
	struct measured m;

	memset(&m, 0, sizeof(m));	/* the padding too: it goes through a pipe */
	m.tid = gettid();
	m.cpu_ns = thread_cpu_ns();

	if (write(fd, &m, sizeof(m)) != sizeof(m))
		_exit(3);
}

static int measured_fd;

static void *burner_thread(void *arg)
{
	(void)arg;
	burn(20);
	send_measured(measured_fd);
	return NULL;
}

/* Reads n reports from the pipe, waiting 5 s at most. */
static void read_measured(int fd, struct measured *m, unsigned n)
{
	size_t want = n * sizeof(*m), got = 0;
	gint64 deadline = g_get_monotonic_time() + 5 * G_USEC_PER_SEC;

	while (got < want) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		gint64 left = deadline - g_get_monotonic_time();
		ssize_t len;

		g_assert_cmpint(left, >, 0);
		g_assert_cmpint(poll(&p, 1, (int)(left / 1000) + 1), >=, 0);
		len = read(fd, (char *)m + got, want - got);
		g_assert_cmpint(len, >, 0);
		got += (size_t)len;
	}
}

/* Drains until every tid of m[0..n) has a record, failing after 5 s.
 * Returns the records of process tgid, one per tid, in m's order. */
static GArray *wait_records(struct taskstats_listener *ts, pid_t tgid, const struct measured *m,
			    unsigned n)
{
	GArray *all = records_new(), *mine = records_new();
	gint64 deadline = g_get_monotonic_time() + 5 * G_USEC_PER_SEC;
	unsigned found = 0;

	while (found < n) {
		struct pollfd p = { .fd = taskstats_listener_fd(ts), .events = POLLIN };
		gint64 left = deadline - g_get_monotonic_time();
		uint64_t lost;

		if (left <= 0)
			g_error("no exit record for a thread of %d after 5 s", tgid);
		g_assert_cmpint(poll(&p, 1, (int)(left / 1000) + 1), >=, 0);
		g_array_set_size(all, 0);
		g_assert_cmpint(taskstats_drain(ts, all, &lost), ==, 0);
		if (lost)
			g_test_message("%" G_GUINT64_FORMAT " exit records lost", lost);
		for (guint i = 0; i < all->len; i++)
			if (rec_at(all, i)->tgid == tgid) {
				g_array_append_val(mine, *rec_at(all, i));
				found++;
			}
	}
	g_array_unref(all);
	/* Exactly one record per thread: the process's totals are not one. */
	g_assert_cmpuint(mine->len, ==, n);
	for (unsigned i = 0; i < n; i++) {
		guint j = 0;

		while (j < mine->len && rec_at(mine, j)->tid != m[i].tid)
			j++;
		g_assert_cmpuint(j, <, mine->len);
		if (j != i) {
			struct taskstats_record t = *rec_at(mine, i);

			*rec_at(mine, i) = *rec_at(mine, j);
			*rec_at(mine, j) = t;
		}
	}
	return mine;
}

/* The record's figure is the thread's own clock during its exit: no less
 * than what it read just before exiting, no more than its final figure. */
static void check_run_ns(const struct taskstats_record *r, const struct measured *m,
			 uint64_t final_ns)
{
	g_assert_cmpuint(r->run_ns, >=, m->cpu_ns);
	g_assert_cmpuint(r->run_ns, <=, final_ns);
}

/* A thread that is not its process's leader is gone once it has exited;
 * its exit path costs microseconds of CPU. */
#define THREAD_EXIT_NS 20000000

/* Reaps the child and returns its final run time, read while it was a
 * zombie: all of its exit path is in it. */
static uint64_t reap(pid_t child)
{
	struct proc_task_cputime ct = { 0 };
	siginfo_t si;

	g_assert_cmpint(waitid(P_PID, child, &si, WEXITED | WNOWAIT), ==, 0);
	g_assert_cmpint(task_schedstat_read(child, child, &ct), ==, 0);
	g_assert_cmpint(waitpid(child, NULL, 0), ==, child);
	return ct.run_ns;
}

static struct taskstats_listener *open_as_root(void)
{
	struct taskstats_listener *ts;

	if (geteuid() != 0) {
		g_test_skip("taskstats needs root (CAP_NET_ADMIN)");
		return NULL;
	}
	ts = taskstats_listener_open();
	if (!ts)
		g_error("taskstats_listener_open: %s", g_strerror(errno));
	return ts;
}

static void test_exit_record(void)
{
	struct taskstats_listener *ts = open_as_root();
	struct measured m;
	gint64 born;
	uint64_t lifetime_us, final_ns;
	int fds[2];
	pid_t child;
	GArray *recs;
	const struct taskstats_record *r;

	if (!ts)
		return;
	g_assert_cmpint(pipe(fds), ==, 0);
	born = g_get_monotonic_time();
	child = fork();
	g_assert_cmpint(child, >=, 0);
	if (child == 0) {
		burn(50);
		send_measured(fds[1]);
		_exit(0);
	}
	close(fds[1]);
	read_measured(fds[0], &m, 1);
	g_assert_cmpint(m.tid, ==, child);
	final_ns = reap(child);
	lifetime_us = (uint64_t)(g_get_monotonic_time() - born);
	close(fds[0]);

	recs = wait_records(ts, child, &m, 1);
	r = rec_at(recs, 0);
	g_test_message("child measured %" G_GUINT64_FORMAT " ns, record %" G_GUINT64_FORMAT
		       " ns, utime %" G_GUINT64_FORMAT " us, stime %" G_GUINT64_FORMAT " us",
		       m.cpu_ns, r->run_ns, r->utime_us, r->stime_us);
	check_run_ns(r, &m, final_ns);
	/* utime and stime are tick samples: a user-space burner's are mostly
	 * user time, and all of it fits in its life plus one tick. */
	g_assert_cmpuint(r->utime_us, >, r->stime_us);
	g_assert_cmpuint(r->utime_us + r->stime_us, <=, lifetime_us + 10000);
	g_array_unref(recs);
	taskstats_listener_free(ts);
}

/* A thread's exit and then its process's: one record each, both with the
 * process's tgid. */
static void test_thread_records(void)
{
	struct taskstats_listener *ts = open_as_root();
	struct measured m[2];
	uint64_t final_ns;
	int fds[2];
	pid_t child;
	GArray *recs;

	if (!ts)
		return;
	g_assert_cmpint(pipe(fds), ==, 0);
	child = fork();
	g_assert_cmpint(child, >=, 0);
	if (child == 0) {
		pthread_t t;

		measured_fd = fds[1];
		if (pthread_create(&t, NULL, burner_thread, NULL) != 0 ||
		    pthread_join(t, NULL) != 0)
			_exit(2);
		burn(20);
		send_measured(fds[1]);
		_exit(0);
	}
	close(fds[1]);
	read_measured(fds[0], m, 2);
	g_assert_cmpint(m[0].tid, !=, child);
	g_assert_cmpint(m[1].tid, ==, child);
	final_ns = reap(child);
	close(fds[0]);

	recs = wait_records(ts, child, m, 2);
	for (unsigned i = 0; i < 2; i++) {
		g_assert_cmpint(rec_at(recs, i)->tid, ==, m[i].tid);
		g_assert_cmpint(rec_at(recs, i)->tgid, ==, child);
	}
	check_run_ns(rec_at(recs, 0), &m[0], m[0].cpu_ns + THREAD_EXIT_NS);
	check_run_ns(rec_at(recs, 1), &m[1], final_ns);
	g_array_unref(recs);
	taskstats_listener_free(ts);
}

/* A sleeping thread's time does not move: the query must give exactly what
 * /proc/PID/schedstat gives. */
static void test_query(void)
{
	struct taskstats_listener *ts = open_as_root();
	struct taskstats_record r;
	struct proc_task_cputime ct = { 0 };
	gint64 deadline;
	uint64_t before;
	int fds[2];
	pid_t child;
	char c;

	if (!ts)
		return;
	before = thread_cpu_ns();
	g_assert_cmpint(taskstats_query(ts, gettid(), &r), ==, 0);
	g_assert_cmpint(r.tid, ==, gettid());
	g_assert_cmpint(r.tgid, ==, getpid());
	g_assert_cmpuint(r.run_ns, >, 0);
	g_assert_cmpuint(r.run_ns, <=, thread_cpu_ns());
	g_assert_cmpuint(r.run_ns + 20000000, >=, before);

	g_assert_cmpint(pipe(fds), ==, 0);
	child = fork();
	g_assert_cmpint(child, >=, 0);
	if (child == 0) {
		close(fds[1]);
		burn(5);
		_exit(read(fds[0], &c, 1) == 1 ? 0 : 1);
	}
	close(fds[0]);
	/* Asleep, and off its CPU: two reads around the query agree. */
	deadline = g_get_monotonic_time() + 5 * G_USEC_PER_SEC;
	for (;;) {
		struct proc_task_cputime after = { 0 };

		g_assert_cmpint(task_cputime_read(child, child, &ct), ==, 0);
		g_assert_cmpint(taskstats_query(ts, child, &r), ==, 0);
		g_assert_cmpint(task_cputime_read(child, child, &after), ==, 0);
		if (ct.state == 'S' && after.state == 'S' && ct.run_ns == after.run_ns)
			break;
		g_assert_cmpint(g_get_monotonic_time(), <, deadline);
		g_usleep(1000);
	}
	g_assert_cmpint(r.tid, ==, child);
	g_assert_cmpint(r.tgid, ==, child);
	g_assert_cmpuint(r.run_ns, ==, ct.run_ns);
	g_assert_cmpuint(r.run_ns, >=, 5000000);

	g_assert_cmpint(write(fds[1], "x", 1), ==, 1);
	close(fds[1]);
	g_assert_cmpint(waitpid(child, NULL, 0), ==, child);
	g_assert_cmpint(taskstats_query(ts, child, &r), ==, -ESRCH);
	g_assert_cmpint(taskstats_query(ts, 0, &r), ==, -ESRCH);
	taskstats_listener_free(ts);
}

static void *do_nothing(void *arg)
{
	return arg;
}

/* Records lost to an overrun are counted, so that nothing goes missing
 * unnoticed, and the listener goes on working afterwards. The buffer is
 * shrunk here so that a few hundred exits overrun it. */
static void test_lost(void)
{
	struct taskstats_listener *ts = open_as_root();
	int small = 16384, nthreads = 400;
	unsigned mine = 0;
	uint64_t lost, final_ns;
	GArray *recs;
	pid_t child;
	struct measured m;
	int fds[2];

	if (!ts)
		return;
	g_assert_cmpint(setsockopt(taskstats_listener_fd(ts), SOL_SOCKET, SO_RCVBUFFORCE, &small,
				   sizeof(small)), ==, 0);
	child = fork();
	g_assert_cmpint(child, >=, 0);
	if (child == 0) {
		for (int i = 0; i < nthreads; i++) {
			pthread_t t;

			if (pthread_create(&t, NULL, do_nothing, NULL) != 0 ||
			    pthread_join(t, NULL) != 0)
				_exit(2);
		}
		_exit(0);
	}
	g_assert_cmpint(waitpid(child, NULL, 0), ==, child);
	recs = records_new();
	g_assert_cmpint(taskstats_drain(ts, recs, &lost), ==, 0);
	for (guint i = 0; i < recs->len; i++)
		mine += rec_at(recs, i)->tgid == child;
	g_test_message("%u records of %d exits, %" G_GUINT64_FORMAT " lost", mine, nthreads + 1,
		       lost);
	g_assert_cmpuint(lost, >, 0);
	g_assert_cmpuint(mine + lost, >=, (uint64_t)nthreads + 1);
	g_array_unref(recs);

	/* A buffer of the usual size again: with 16 KiB, the exits of a busy
	 * machine (or a slow drain under valgrind) overran it, losing the one
	 * record looked for below. */
	small = 8 << 20;
	g_assert_cmpint(setsockopt(taskstats_listener_fd(ts), SOL_SOCKET, SO_RCVBUFFORCE, &small,
				   sizeof(small)), ==, 0);
	g_assert_cmpint(pipe(fds), ==, 0);
	child = fork();
	g_assert_cmpint(child, >=, 0);
	if (child == 0) {
		send_measured(fds[1]);
		_exit(0);
	}
	close(fds[1]);
	read_measured(fds[0], &m, 1);
	close(fds[0]);
	final_ns = reap(child);
	recs = wait_records(ts, child, &m, 1);
	check_run_ns(rec_at(recs, 0), &m, final_ns);
	g_array_unref(recs);
	taskstats_listener_free(ts);
}

/* Outside the initial pid namespace the kernel refuses to register a
 * listener (EINVAL), although it answers queries. */
static void test_pid_namespace(void)
{
	pid_t child;
	int status;

	if (geteuid() != 0) {
		g_test_skip("a pid namespace needs root");
		return;
	}
	child = fork();
	g_assert_cmpint(child, >=, 0);
	if (child == 0) {
		pid_t inner;

		if (unshare(CLONE_NEWPID) < 0)
			_exit(255);
		inner = fork();
		if (inner == 0) {
			struct taskstats_listener *ts = taskstats_listener_open();

			_exit(ts ? 254 : errno);
		}
		if (inner < 0 || waitpid(inner, &status, 0) != inner || !WIFEXITED(status))
			_exit(253);
		_exit(WEXITSTATUS(status));
	}
	g_assert_cmpint(waitpid(child, &status, 0), ==, child);
	g_assert_true(WIFEXITED(status));
	g_assert_cmpint(WEXITSTATUS(status), ==, EINVAL);
}

/* Without CAP_NET_ADMIN the kernel refuses: EPERM. As root, try it in a
 * child that has become nobody. */
static void test_unprivileged(void)
{
	pid_t child;
	int status;

	if (geteuid() != 0) {
		g_assert_null(taskstats_listener_open());
		g_assert_cmpint(errno, ==, EPERM);
		return;
	}
	child = fork();
	g_assert_cmpint(child, >=, 0);
	if (child == 0) {
		struct taskstats_listener *ts;

		if (setgroups(0, NULL) < 0 || setresgid(65534, 65534, 65534) < 0 ||
		    setresuid(65534, 65534, 65534) < 0)
			_exit(255);
		ts = taskstats_listener_open();
		_exit(ts ? 254 : errno);
	}
	g_assert_cmpint(waitpid(child, &status, 0), ==, child);
	g_assert_true(WIFEXITED(status));
	g_assert_cmpint(WEXITSTATUS(status), ==, EPERM);
}

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	/* A failed check fails its case; the next cases still run. */
	g_test_set_nonfatal_assertions();
	g_test_add_func("/taskstats/parse-record", test_parse_record);
	g_test_add_func("/taskstats/parse-newer-and-tgid", test_parse_newer_and_tgid);
	g_test_add_func("/taskstats/parse-unreadable", test_parse_unreadable);
	g_test_add_func("/taskstats/parse-malformed", test_parse_malformed);
	g_test_add_func("/taskstats/exit-record", test_exit_record);
	g_test_add_func("/taskstats/thread-records", test_thread_records);
	g_test_add_func("/taskstats/query", test_query);
	g_test_add_func("/taskstats/lost", test_lost);
	g_test_add_func("/taskstats/pid-namespace", test_pid_namespace);
	g_test_add_func("/taskstats/unprivileged", test_unprivileged);
	return g_test_run();
}
