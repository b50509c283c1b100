/* SPDX-License-Identifier: GPL-2.0-or-later */
/* state-bench: what the state costs a move, in the core alone (no FUSE), on
 * the fake kernel facade: ns per move through the tasks file (one thread)
 * and cgroup.procs (a process of 8 threads), without state and with it
 * (the log appended on each move, synced by its thread once a second,
 * compacted as it grows).
 *
 *   state-bench [MOVES [DIR [GROUPS[,GROUPS...]]]]
 *
 * default 200000 moves, state in a directory made (0700, as the state's
 * must be) in /var/tmp and removed after, no groups but the two the
 * moves are between (GROUPS more make each compaction's snapshot larger
 * and rarer; a list runs each). Prints the median, mean, p99, p99.9 and
 * max time of a move and moves per second, from the run with the median
 * median of 5, and apart the moves whose record set off a compaction
 * (the log's count started again; a compaction's snapshot is built by
 * the state's thread meanwhile, see docs/design.md): how many, their
 * median and max, and the most CPU time the mover spent in one (ns: where
 * the hook serialises the state, this is the lock's hold without the
 * waits for a CPU a loaded machine adds); and the steps of building the
 * compactions' snapshots, how long one held the core lock on average and
 * at most, and the most CPU time one took (cgfused.stat's
 * state_compaction_*; "-" where the state has none: it serialised in
 * the hook). Then, apart, the lock's hold of a compaction in CPU time:
 * the whole serialisation (the hold before) against the steps of a
 * build (see holds()). On a shared machine the tail is
 * mostly other load; these moves are the compaction's own. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <glib.h>
#include <glib/gstdio.h>

#include "core/cgroup.h"
#include "core/internal.h"
#include "fake-kfacade.h"
#include "state/state.h"
#include "state/state_snap.h"
#include "test-env.h"

#define RUNS 5

static double clock_ns(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static double now_ns(void)
{
	return clock_ns(CLOCK_MONOTONIC);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

struct result {
	double median, mean, p99, p999, max;	/* ns per move */
	double rate;				/* moves per second */
	unsigned compactions;
	double compact_median, compact_max;	/* ns, of the moves that compacted */
	double compact_cpu_max;			/* ns of the mover's CPU, of those */
	long hold_max_us, step_cpu_max_us;	/* -1: not told */
	long steps, hold_mean_us;
};

/* A figure of cgfused.stat, or -1. */
static long stat_figure(struct env *e, const char *key)
{
	char *stat = rd(e, e->top[0], "cgfused.stat");
	const char *line = strstr(stat, key);
	long val = line ? atol(line + strlen(key)) : -1;

	g_free(stat);
	return val;
}

/* One run: pid moved back and forth between two groups, each move timed. */
static struct result run(const char *dir, const char *file, unsigned nthreads, unsigned moves,
			 unsigned groups)
{
	struct env e;
	struct cg_state *st = NULL;
	char *path = dir ? g_build_filename(dir, "state-bench.state", NULL) : NULL;
	double *ns = g_new(double, moves), *cns = g_new(double, moves), sum = 0, cpu_max = 0;
	unsigned nc = 0;
	struct result res;
	uint64_t g[2];

	env_setup(&e);
	g[0] = mkdir_ok(&e, e.top[0], "a");
	g[1] = mkdir_ok(&e, e.top[0], "b");
	for (unsigned i = 0; i < groups; i++) {
		char name[16];

		g_snprintf(name, sizeof(name), "g%u", i);
		mkdir_ok(&e, e.top[0], name);
	}
	fake_kf_add_process(e.fk, 1000, nthreads);
	if (path) {
		st = state_open(e.core, path, "bench", NULL);
		g_assert_nonnull(st);
		state_sync_start(st);
	}
	for (unsigned i = 0; i < moves; i++) {
		unsigned recs = st ? state_log_records(st) : 0;
		double cpu = clock_ns(CLOCK_THREAD_CPUTIME_ID), t0 = now_ns();

		wr_ok(&e, g[i % 2], file, "1000");
		ns[i] = now_ns() - t0;
		cpu = clock_ns(CLOCK_THREAD_CPUTIME_ID) - cpu;
		sum += ns[i];
		/* The switch (the log starts again) is in the thread now, the
		 * moves after the one that set it off being made meanwhile. */
		if (st && state_log_records(st) < recs) {
			cns[nc++] = ns[i];
			cpu_max = MAX(cpu_max, cpu);
		}
	}
	qsort(cns, nc, sizeof(cns[0]), cmp_double);
	qsort(ns, moves, sizeof(ns[0]), cmp_double);
	res = (struct result){ ns[moves / 2], sum / moves, ns[moves / 100 * 99],
			       ns[moves / 1000 * 999], ns[moves - 1], moves / (sum / 1e9), nc,
			       nc ? cns[nc / 2] : 0, nc ? cns[nc - 1] : 0, cpu_max,
			       st ? stat_figure(&e, "state_compaction_hold_max_us ") : -1,
			       st ? stat_figure(&e, "state_compaction_step_cpu_max_us ") : -1,
			       st ? stat_figure(&e, "state_compaction_steps ") : -1,
			       st ? stat_figure(&e, "state_compaction_hold_mean_us ") : -1 };
	g_free(cns);
	g_free(ns);
	if (st)
		state_free(st);
	env_teardown(&e);
	if (path) {
		for (const char *const *ext = (const char *const[]){ ".log", ".log2", NULL };
		     *ext; ext++) {
			char *log = g_strconcat(path, *ext, NULL);

			g_unlink(log);
			g_free(log);
		}
		g_unlink(path);
	}
	g_free(path);
	return res;
}

/* The core lock's hold of a compaction, in CPU time (what a loaded
 * machine does not inflate as it does the wall time): the whole
 * serialisation in one hold, as before the snapshot was built in steps,
 * against the steps of a build (0.5 ms each), over RUNS builds beside
 * groups groups (every tenth with a cpu.shares). µs: the whole's median and max; the
 * steps per build, the first step's most (it lists every group), the
 * others' median, p99 and max. */
static void holds(unsigned groups)
{
	double whole[RUNS], *steps = NULL, first = 0;
	unsigned nsteps = 0;
	struct env e;

	env_setup(&e);
	for (unsigned i = 0; i < groups; i++) {
		char name[16];
		uint64_t id;

		g_snprintf(name, sizeof(name), "g%u", i);
		id = mkdir_ok(&e, e.top[0], name);
		if (i % 10 == 0)
			wr_ok(&e, id, "cpu.shares", "512");
	}
	for (int k = 0; k < RUNS; k++) {
		GString *out = g_string_new(NULL);
		unsigned nr = 0;
		double t0;

		cg_write_lock(&e.core->lock);
		t0 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
		snap_groups(out, e.core, &nr);
		snap_tasks(out, e.core, &nr);
		whole[k] = (clock_ns(CLOCK_THREAD_CPUTIME_ID) - t0) / 1e3;
		cg_write_unlock(&e.core->lock);
		g_string_free(out, TRUE);
	}
	for (int k = 0; k < RUNS; k++) {
		struct snap_build *b;
		GString *out = g_string_new(NULL);
		bool done = false;

		cg_write_lock(&e.core->lock);
		b = snap_build_new(e.core);
		cg_write_unlock(&e.core->lock);
		for (unsigned i = 0; !done; i++) {
			double t0 = clock_ns(CLOCK_THREAD_CPUTIME_ID), us;

			cg_write_lock(&e.core->lock);
			done = snap_build_step(b, g_get_monotonic_time() + 500, 0);
			cg_write_unlock(&e.core->lock);
			us = (clock_ns(CLOCK_THREAD_CPUTIME_ID) - t0) / 1e3;
			if (i == 0) {
				first = MAX(first, us);
				continue;
			}
			steps = g_renew(double, steps, nsteps + 1);
			steps[nsteps++] = us;
		}
		snap_build_append(b, out);
		snap_build_free(b);
		g_string_free(out, TRUE);
	}
	qsort(whole, RUNS, sizeof(whole[0]), cmp_double);
	if (nsteps)
		qsort(steps, nsteps, sizeof(steps[0]), cmp_double);
	printf("| %u | %.0f | %.0f | %u | %.0f | %.0f | %.0f | %.0f |\n", groups, whole[RUNS / 2],
	       whole[RUNS - 1], nsteps / RUNS + 1, first, nsteps ? steps[nsteps / 2] : 0,
	       nsteps ? steps[nsteps * 99 / 100] : 0, nsteps ? steps[nsteps - 1] : 0);
	g_free(steps);
	env_teardown(&e);
}

/* The run whose median is the middle one of RUNS. */
static struct result median(const char *dir, const char *file, unsigned nthreads,
			    unsigned moves, unsigned groups)
{
	struct result r[RUNS], mid;

	for (int i = 0; i < RUNS; i++)
		r[i] = run(dir, file, nthreads, moves, groups);
	qsort(r, RUNS, sizeof(r[0]), cmp_double);	/* by median, the first field */
	mid = r[RUNS / 2];
	return mid;
}

int main(int argc, char **argv)
{
	unsigned moves = argc > 1 ? (unsigned)atoi(argv[1]) : 200000;
	char tmp[] = "/var/tmp/state-bench-XXXXXX";
	const char *dir = argc > 2 ? argv[2] : mkdtemp(tmp);
	char **groups_list = g_strsplit(argc > 3 ? argv[3] : "0", ",", -1);
	static const struct {
		const char *file;
		unsigned nthreads;
	} cases[] = { { "tasks", 1 }, { "cgroup.procs", 8 } };

	printf("# state-bench: ns per move in the core (fake kernel facade), %u moves a run, "
	       "the run of median median of %d; state in %s\n", moves, RUNS, dir);
	printf("| groups | move | threads | state | median | mean | p99 | p99.9 | max | moves/s | "
	       "compactions | their median | max | their CPU max | steps | step mean µs | step max µs | "
	       "step CPU max µs |\n"
	       "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
	for (char **gl = groups_list; *gl; gl++) {
		unsigned groups = (unsigned)atoi(*gl);

		for (unsigned c = 0; c < G_N_ELEMENTS(cases); c++) {
			for (int on = 0; on < 2; on++) {
				struct result r = median(on ? dir : NULL, cases[c].file,
							 cases[c].nthreads, moves, groups);
				char hold[64] = "- | - | - | -";

				if (r.hold_max_us >= 0)
					g_snprintf(hold, sizeof(hold), "%ld | %ld | %ld | %ld", r.steps,
						   r.hold_mean_us, r.hold_max_us, r.step_cpu_max_us);
				printf("| %u | %s | %u | %s | %.0f | %.0f | %.0f | %.0f | %.0f | %.0f "
				       "| %u | %.0f | %.0f | %.0f | %s |\n", groups, cases[c].file,
				       cases[c].nthreads, on ? "yes" : "no", r.median, r.mean, r.p99,
				       r.p999, r.max, r.rate, r.compactions, r.compact_median,
				       r.compact_max, r.compact_cpu_max, hold);
				fflush(stdout);
			}
		}
	}
	printf("\n# the core lock's hold of a compaction, CPU µs, %d builds\n"
	       "| groups | whole: median | max | steps: per build | first, max | others: "
	       "median | p99 | max |\n|---|---|---|---|---|---|---|---|\n", RUNS);
	for (char **gl = groups_list; *gl; gl++)
		holds((unsigned)atoi(*gl));
	g_strfreev(groups_list);
	if (argc <= 2)
		g_rmdir(dir);
	return 0;
}
