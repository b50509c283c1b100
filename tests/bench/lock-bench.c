/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What the core lock's read side costs when threads read at once: a GMutex
 * (the core lock until now), a GRWLock (pthread rwlock: one reader count
 * every reader writes) and cg_lock (a slot per thread). Each thread takes
 * the read side, copies 64 bytes, lets go, for a fixed time; the table
 * gives the total rate and its ratio to one thread's, and what one write
 * (lock and unlock) costs alone. Usage: lock-bench [SECONDS] [THREADS...] */
#include <glib.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/core_lock.h"

enum kind { MUTEX, RWLOCK, CG_LOCK, NR_KINDS };
static const char *const kind_name[] = { "GMutex", "GRWLock", "cg_lock" };

static GMutex mutex;
static GRWLock rwlock;
static struct cg_lock cglock;
static char shared_data[64];

struct worker {
	enum kind kind;
	double seconds;
	atomic_bool *start;
	uint64_t ops;
	char pad[64];
};

static gpointer work(gpointer p)
{
	struct worker *w = p;
	char copy[64];
	uint64_t ops = 0;
	gint64 end;

	while (!atomic_load(w->start))
		;
	end = g_get_monotonic_time() + (gint64)(w->seconds * 1e6);
	do {
		for (int i = 0; i < 256; i++) {
			switch (w->kind) {
			case MUTEX:
				g_mutex_lock(&mutex);
				memcpy(copy, shared_data, sizeof(copy));
				g_mutex_unlock(&mutex);
				break;
			case RWLOCK:
				g_rw_lock_reader_lock(&rwlock);
				memcpy(copy, shared_data, sizeof(copy));
				g_rw_lock_reader_unlock(&rwlock);
				break;
			default: {
				unsigned slot = cg_read_lock(&cglock);

				memcpy(copy, shared_data, sizeof(copy));
				cg_read_unlock(&cglock, slot);
			}
			}
			__asm__ volatile("" : : "r"(copy) : "memory");
		}
		ops += 256;
	} while (g_get_monotonic_time() < end);
	w->ops = ops;
	return NULL;
}

static double rate(enum kind kind, unsigned threads, double seconds)
{
	struct worker *w = g_new0(struct worker, threads);
	GThread **t = g_new(GThread *, threads);
	atomic_bool start = false;
	uint64_t total = 0;

	for (unsigned i = 0; i < threads; i++) {
		w[i] = (struct worker){ .kind = kind, .seconds = seconds, .start = &start };
		t[i] = g_thread_new("reader", work, &w[i]);
	}
	atomic_store(&start, true);
	for (unsigned i = 0; i < threads; i++) {
		g_thread_join(t[i]);
		total += w[i].ops;
	}
	g_free(t);
	g_free(w);
	return total / seconds;
}

static double write_ns(enum kind kind)
{
	const int n = 200000;
	gint64 t0 = g_get_monotonic_time();

	for (int i = 0; i < n; i++) {
		switch (kind) {
		case MUTEX:
			g_mutex_lock(&mutex);
			g_mutex_unlock(&mutex);
			break;
		case RWLOCK:
			g_rw_lock_writer_lock(&rwlock);
			g_rw_lock_writer_unlock(&rwlock);
			break;
		default:
			cg_write_lock(&cglock);
			cg_write_unlock(&cglock);
		}
	}
	return (g_get_monotonic_time() - t0) * 1e3 / n;
}

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 1.0;
	unsigned def[] = { 1, 2, 4 }, *threads = def, nr = 3;

	if (argc > 2) {
		nr = (unsigned)argc - 2;
		threads = g_new(unsigned, nr);
		for (unsigned i = 0; i < nr; i++)
			threads[i] = (unsigned)atoi(argv[i + 2]);
	}
	cg_lock_init(&cglock);
	printf("| lock | write+unlock ns |");
	for (unsigned i = 0; i < nr; i++)
		printf(" %u thr Mops/s | x1 |", threads[i]);
	printf("\n|---|---:|");
	for (unsigned i = 0; i < nr; i++)
		printf("---:|---:|");
	printf("\n");
	for (int k = 0; k < NR_KINDS; k++) {
		double one = 0;

		printf("| %s | %.1f |", kind_name[k], write_ns(k));
		for (unsigned i = 0; i < nr; i++) {
			double r = rate(k, threads[i], seconds);

			if (i == 0)
				one = r / threads[0];
			printf(" %.1f | %.2fx |", r / 1e6, r / one);
		}
		printf("\n");
	}
	cg_lock_clear(&cglock);
	if (threads != def)
		g_free(threads);
	return 0;
}
