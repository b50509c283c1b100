/* SPDX-License-Identifier: GPL-2.0-or-later */
/* state-bench: what the state costs a move, in the core alone (no FUSE), on
 * the fake kernel facade: ns per move through the tasks file (one thread)
 * and cgroup.procs (a process of 8 threads), without state and with it
 * (the log appended on each move, synced by its thread once a second,
 * compacted as it grows).
 *
 *   state-bench [MOVES [DIR]]    default 200000 moves, state in /var/tmp
 *
 * Prints the median and mean time of a move, from the run with the median
 * median of 5. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <glib.h>
#include <glib/gstdio.h>

#include "core/cgroup.h"
#include "fake-kfacade.h"
#include "state/state.h"
#include "test-env.h"

#define RUNS 5

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

struct result {
	double median, mean;	/* ns per move */
};

/* One run: pid moved back and forth between two groups, each move timed. */
static struct result run(const char *dir, const char *file, unsigned nthreads, unsigned moves)
{
	struct env e;
	struct cg_state *st = NULL;
	char *path = dir ? g_build_filename(dir, "state-bench.state", NULL) : NULL;
	double *ns = g_new(double, moves), sum = 0;
	struct result res;
	uint64_t g[2];

	env_setup(&e);
	g[0] = mkdir_ok(&e, e.top[0], "a");
	g[1] = mkdir_ok(&e, e.top[0], "b");
	fake_kf_add_process(e.fk, 1000, nthreads);
	if (path) {
		st = state_open(e.core, path, "bench", NULL);
		g_assert_nonnull(st);
		state_sync_start(st);
	}
	for (unsigned i = 0; i < moves; i++) {
		double t0 = now_ns();

		wr_ok(&e, g[i % 2], file, "1000");
		ns[i] = now_ns() - t0;
		sum += ns[i];
	}
	qsort(ns, moves, sizeof(ns[0]), cmp_double);
	res = (struct result){ ns[moves / 2], sum / moves };
	g_free(ns);
	if (st)
		state_free(st);
	env_teardown(&e);
	if (path) {
		char *log = g_strconcat(path, ".log", NULL);

		g_unlink(log);
		g_unlink(path);
		g_free(log);
	}
	g_free(path);
	return res;
}

/* The run whose median is the middle one of RUNS. */
static struct result median(const char *dir, const char *file, unsigned nthreads,
			    unsigned moves)
{
	struct result r[RUNS], mid;

	for (int i = 0; i < RUNS; i++)
		r[i] = run(dir, file, nthreads, moves);
	qsort(r, RUNS, sizeof(r[0]), cmp_double);	/* by median, the first field */
	mid = r[RUNS / 2];
	return mid;
}

int main(int argc, char **argv)
{
	unsigned moves = argc > 1 ? (unsigned)atoi(argv[1]) : 200000;
	const char *dir = argc > 2 ? argv[2] : "/var/tmp";
	static const struct {
		const char *file;
		unsigned nthreads;
	} cases[] = { { "tasks", 1 }, { "cgroup.procs", 8 } };

	printf("# state-bench: ns per move in the core (fake kernel facade), %u moves a run, "
	       "the run of median median of %d; state in %s\n", moves, RUNS, dir);
	printf("| move | threads | no state: median | mean | state: median | mean | "
	       "added: median | mean |\n|---|---|---|---|---|---|---|---|\n");
	for (unsigned c = 0; c < G_N_ELEMENTS(cases); c++) {
		struct result off = median(NULL, cases[c].file, cases[c].nthreads, moves);
		struct result on = median(dir, cases[c].file, cases[c].nthreads, moves);

		printf("| %s | %u | %.0f | %.0f | %.0f | %.0f | %.0f | %.0f |\n", cases[c].file,
		       cases[c].nthreads, off.median, off.mean, on.median, on.mean,
		       on.median - off.median, on.mean - off.mean);
	}
	return 0;
}
