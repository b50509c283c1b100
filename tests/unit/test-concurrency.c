/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The core driven from several threads at once, as FUSE's workers do:
 * readers of listings, settings and figures run while another thread moves
 * tasks and makes and removes groups. Each read must see a whole change or
 * none (a process moves with all its threads), and the counts at the end
 * must be those of the moves made. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <glib.h>

#include "core/cgroup.h"
#include "core/cgroup_lookup.h"
#include "fake-kfacade.h"
#include "test-env.h"

#define PROC 1000		/* a process of PROC_THREADS threads */
#define PROC_THREADS 40
#define SINGLE 2000		/* single-threaded processes SINGLE.. */
#define NR_SINGLE 8
#define ROUNDS 300
#define NR_READERS 3

struct shared {
	struct env *e;
	uint64_t a, b;
	unsigned tasks, procs, shares, usage;	/* file indices */
	gint done;
	gint reads;
	gint bad;			/* reads that saw half a change */
};

/* Threads of PROC listed in a tasks file's content. */
static unsigned count_proc_threads(const char *content)
{
	unsigned n = 0;

	for (const char *p = content; *p; p = strchr(p, '\n') + 1) {
		int id = atoi(p);

		if (id >= PROC && id < PROC + PROC_THREADS)
			n++;
		if (!strchr(p, '\n'))
			break;
	}
	return n;
}

/* Ascending, one id a line. */
static bool sorted(const char *content)
{
	int last = -1;

	for (const char *p = content; *p && strchr(p, '\n'); p = strchr(p, '\n') + 1) {
		int id = atoi(p);

		if (id <= last)
			return false;
		last = id;
	}
	return true;
}

static void read_one(struct shared *s, uint64_t id, unsigned file, GString *out)
{
	g_string_truncate(out, 0);
	if (cg_file_read(s->e->core, id, file, out) != 0)
		g_atomic_int_inc(&s->bad);
}

static gpointer reader(gpointer data)
{
	struct shared *s = data;
	struct cg_core *core = s->e->core;
	GString *out = g_string_new(NULL);

	while (!g_atomic_int_get(&s->done)) {
		struct cg_node node;
		unsigned in_proc;
		int ret;

		for (int g = 0; g < 2; g++) {
			uint64_t id = g ? s->b : s->a;

			read_one(s, id, s->tasks, out);
			in_proc = count_proc_threads(out->str);
			if ((in_proc != 0 && in_proc != PROC_THREADS) || !sorted(out->str))
				g_atomic_int_inc(&s->bad);
			read_one(s, id, s->procs, out);
			if (!sorted(out->str))
				g_atomic_int_inc(&s->bad);
			read_one(s, id, s->shares, out);
			if (strcmp(out->str, "512\n") && strcmp(out->str, "2048\n"))
				g_atomic_int_inc(&s->bad);
			read_one(s, id, s->usage, out);
		}
		/* The root lists every thread no group holds. */
		read_one(s, s->e->top[0], s->tasks, out);
		in_proc = count_proc_threads(out->str);
		if ((in_proc != 0 && in_proc != PROC_THREADS) || !sorted(out->str))
			g_atomic_int_inc(&s->bad);
		ret = cg_node_lookup(core, s->e->top[0], "tmp", &node);
		if (ret != 0 && ret != -ENOENT)
			g_atomic_int_inc(&s->bad);
		g_atomic_int_inc(&s->reads);
	}
	g_string_free(out, TRUE);
	return NULL;
}

static void test_readers_while_moving(void)
{
	struct env e;
	struct shared s = { .e = &e };
	GThread *readers[NR_READERS];
	char pid[16];

	env_setup(&e);
	s.a = mkdir_ok(&e, e.top[0], "A");
	s.b = mkdir_ok(&e, e.top[0], "B");
	s.tasks = file_index(&e, s.a, "tasks");
	s.procs = file_index(&e, s.a, "cgroup.procs");
	s.shares = file_index(&e, s.a, "cpu.shares");
	s.usage = file_index(&e, s.a, "cpuacct.usage");
	wr_ok(&e, s.a, "cpu.shares", "512");
	wr_ok(&e, s.b, "cpu.shares", "512");
	fake_kf_add_process(e.fk, PROC, PROC_THREADS);
	for (int i = 0; i < NR_SINGLE; i++)
		fake_kf_add_process(e.fk, SINGLE + i, 1);

	for (int i = 0; i < NR_READERS; i++)
		readers[i] = g_thread_new("reader", reader, &s);
	for (int r = 0; r < ROUNDS; r++) {
		uint64_t to = r % 2 ? s.b : s.a, tmp;
		int seen = g_atomic_int_get(&s.reads);

		/* Readers get a turn between rounds (up to 10 ms), so that reads
		 * overlap the changes even where threads run one at a time
		 * (valgrind serialises them). */
		for (int i = 0; i < 100 && g_atomic_int_get(&s.reads) == seen; i++)
			g_usleep(100);

		snprintf(pid, sizeof(pid), "%d", PROC);
		wr_ok(&e, r % 3 ? to : e.top[0], "cgroup.procs", pid);
		snprintf(pid, sizeof(pid), "%d", SINGLE + r % NR_SINGLE);
		wr_ok(&e, to, "tasks", pid);
		wr_ok(&e, to, "cpu.shares", r % 2 ? "2048" : "512");
		tmp = mkdir_ok(&e, e.top[0], "tmp");
		wr_ok(&e, tmp, "tasks", pid);
		wr_ok(&e, e.top[0], "tasks", pid);
		g_assert_cmpint(cg_rmdir(e.core, e.top[0], "tmp", &root_cred), ==, 0);
	}
	g_atomic_int_set(&s.done, 1);
	for (int i = 0; i < NR_READERS; i++)
		g_thread_join(readers[i]);

	g_test_message("%d reads beside %d rounds of changes", s.reads, ROUNDS);
	g_assert_cmpint(s.reads, >, 0);
	g_assert_cmpint(s.bad, ==, 0);
	/* The last round (odd) left PROC in B; every single went through a
	 * group back to the root, where the core still tracks it. */
	g_assert_cmpuint(fake_kf_open_count_tid(e.fk, PROC), ==, 1);
	g_assert_true(lists(&e, s.b, "cgroup.procs", PROC));
	g_assert_false(lists(&e, s.a, "cgroup.procs", PROC));
	g_assert_cmpuint(nr_tasks(&e), ==, PROC_THREADS + NR_SINGLE);
	for (int i = 0; i < NR_SINGLE; i++) {
		g_assert_false(lists(&e, s.a, "tasks", SINGLE + i));
		g_assert_false(lists(&e, s.b, "tasks", SINGLE + i));
		g_assert_true(lists(&e, e.top[0], "tasks", SINGLE + i));
	}
	env_teardown(&e);
}

/* Readers of a group's figures sample it while it is moved in and out. */
static gpointer usage_reader(gpointer data)
{
	struct shared *s = data;
	GString *out = g_string_new(NULL);
	uint64_t last = 0;

	while (!g_atomic_int_get(&s->done)) {
		uint64_t v;

		read_one(s, s->a, s->usage, out);
		v = g_ascii_strtoull(out->str, NULL, 10);
		if (v < last)		/* nothing reset it: it never goes back */
			g_atomic_int_inc(&s->bad);
		last = v;
		g_atomic_int_inc(&s->reads);
	}
	g_string_free(out, TRUE);
	return NULL;
}

static void test_samplers_while_moving(void)
{
	struct env e;
	struct shared s = { .e = &e };
	GThread *readers[NR_READERS];
	char pid[16];

	env_setup(&e);
	s.a = mkdir_ok(&e, e.top[0], "A");
	s.b = mkdir_ok(&e, s.a, "B");
	s.usage = file_index(&e, s.a, "cpuacct.usage");
	fake_kf_add_process(e.fk, PROC, PROC_THREADS);
	snprintf(pid, sizeof(pid), "%d", PROC);
	wr_ok(&e, s.a, "cgroup.procs", pid);
	for (int i = 0; i < NR_READERS; i++)
		readers[i] = g_thread_new("reader", usage_reader, &s);
	/* Every move is between A and its child B: all it runs is A's. */
	for (int r = 0; r < ROUNDS; r++) {
		for (int t = 0; t < PROC_THREADS; t++)
			fake_kf_run(e.fk, PROC + t, 1000, 0, 0);
		wr_ok(&e, r % 2 ? s.a : s.b, "cgroup.procs", pid);
	}
	g_atomic_int_set(&s.done, 1);
	for (int i = 0; i < NR_READERS; i++)
		g_thread_join(readers[i]);
	g_assert_cmpint(s.bad, ==, 0);
	{
		char *v = rd(&e, s.a, "cpuacct.usage");

		g_assert_cmpuint(g_ascii_strtoull(v, NULL, 10), ==, ROUNDS * PROC_THREADS * 1000ULL);
		g_free(v);
	}
	env_teardown(&e);
}

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/concurrency/readers-while-moving", test_readers_while_moving);
	g_test_add_func("/concurrency/samplers-while-moving", test_samplers_while_moving);
	return g_test_run();
}
