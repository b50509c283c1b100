/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests of css_sets: sharing, release, the hash, and several
 * hierarchies, on the fake kernel facade. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "core/cgroup.h"
#include "core/css_set.h"
#include "ctl/ctl.h"
#include "fake-kfacade.h"
#include "core/internal.h"
#include "core/task.h"
#include "test-env.h"

/* ---- helpers ------------------------------------------------------------ */

static int ctl_index(const char *name)
{
	return __builtin_ctz(ctl_bit(name));
}

/* ---- sharing ------------------------------------------------------------ */

/* Two tasks in the same group share one css_set, made on the first attach. */
static void test_reuse(void)
{
	struct env e;
	uint64_t a, b;
	struct task *t1, *t2;

	env_setup(&e);
	fake_kf_add_process(e.fk, 100, 1);
	fake_kf_add_process(e.fk, 200, 1);
	a = mkdir_ok(&e, e.top[0], "a");
	b = mkdir_ok(&e, e.top[0], "b");
	g_assert_cmpuint(nr_css_sets(&e), ==, 1);	/* init_css_set */

	wr_ok(&e, a, "tasks", "100");
	g_assert_cmpuint(nr_css_sets(&e), ==, 2);
	wr_ok(&e, a, "tasks", "200");
	g_assert_cmpuint(nr_css_sets(&e), ==, 2);

	cg_write_lock(&e.core->lock);
	t1 = task_lookup(e.core, 100);
	t2 = task_lookup(e.core, 200);
	g_assert_nonnull(t1);
	g_assert_nonnull(t2);
	g_assert_true(t1->cset == t2->cset);
	g_assert_true(t1->cset != e.core->init_css_set);
	g_assert_cmpuint(t1->cset->refcount, ==, 2);
	g_assert_cmpuint(list_count_nodes(&t1->cset->tasks), ==, 2);
	g_assert_true(css_set_cgroup(t1->cset, e.root[0]) == cgroup_by_id(e.core, a));
	g_assert_true(g_hash_table_lookup(e.core->css_sets, t1->cset) == t1->cset);
	cg_write_unlock(&e.core->lock);

	/* Moving one to b makes a second set; moving the other frees a's. */
	wr_ok(&e, b, "tasks", "100");
	g_assert_cmpuint(nr_css_sets(&e), ==, 3);
	wr_ok(&e, b, "tasks", "200");
	g_assert_cmpuint(nr_css_sets(&e), ==, 2);
	cg_write_lock(&e.core->lock);
	t1 = task_lookup(e.core, 100);
	t2 = task_lookup(e.core, 200);
	g_assert_true(t1->cset == t2->cset);
	g_assert_true(css_set_cgroup(t1->cset, e.root[0]) == cgroup_by_id(e.core, b));
	g_assert_true(g_queue_is_empty(&cgroup_by_id(e.core, a)->csets));
	cg_write_unlock(&e.core->lock);

	/* Writing a task into the group it is in changes nothing. */
	wr_ok(&e, b, "tasks", "200");
	g_assert_cmpuint(nr_css_sets(&e), ==, 2);
	g_assert_cmpuint(fake_kf_open_count(e.fk), ==, 2);
	env_teardown(&e);
}

/* With a source that hears of every task (the connector: the facade holds
 * no thread for it), a task moved back to the root keeps its identity, and
 * moving it into a group again opens none: a move from the root costs no
 * pidfd and no /proc read. */
static void test_root_keeps_identity(void)
{
	struct env e;
	uint64_t a;

	env_setup(&e);
	fake_kf_set_holds_threads(e.fk, false);
	fake_kf_add_process(e.fk, 100, 1);
	a = mkdir_ok(&e, e.top[0], "a");
	wr_ok(&e, a, "tasks", "100");
	g_assert_cmpuint(fake_kf_calls(e.fk).holds, ==, 1);
	for (int i = 0; i < 3; i++) {
		wr_ok(&e, e.top[0], "tasks", "100");
		g_assert_cmpuint(fake_kf_open_count_tid(e.fk, 100), ==, 1);
		wr_ok(&e, a, "tasks", "100");
	}
	g_assert_cmpuint(fake_kf_calls(e.fk).holds, ==, 1);
	assert_content(&e, a, "tasks", "100\n");
	/* Its exit closes it, from the root as from a group. */
	wr_ok(&e, e.top[0], "tasks", "100");
	fake_kf_exit(e.fk, 100);
	assert_content(&e, a, "tasks", "");	/* the exit caught up */
	g_assert_cmpuint(fake_kf_open_count(e.fk), ==, 0);
	g_assert_cmpint(cg_rmdir(e.core, e.top[0], "a", &root_cred), ==, 0);
	env_teardown(&e);
}

/* The last task moved back to the root frees the css_set; the task stays
 * tracked, in init_css_set, until it exits, but its identity is closed
 * (task->unwatched: a task-watch source that traces it lets it go). */
static void test_release_move_back(void)
{
	struct env e;
	uint64_t a;

	env_setup(&e);
	fake_kf_add_process(e.fk, 100, 1);
	fake_kf_add_process(e.fk, 200, 1);
	a = mkdir_ok(&e, e.top[0], "a");
	wr_ok(&e, a, "tasks", "100");
	wr_ok(&e, a, "tasks", "200");
	g_assert_cmpuint(fake_kf_open_count(e.fk), ==, 2);

	wr_ok(&e, e.top[0], "tasks", "100");
	g_assert_cmpuint(nr_css_sets(&e), ==, 2);
	wr_ok(&e, e.top[0], "tasks", "200");
	g_assert_cmpuint(nr_css_sets(&e), ==, 1);
	g_assert_cmpuint(nr_tasks(&e), ==, 2);
	g_assert_cmpuint(fake_kf_open_count(e.fk), ==, 0);

	cg_write_lock(&e.core->lock);
	g_assert_true(g_hash_table_lookup(e.core->css_sets, e.core->init_css_set) ==
		      e.core->init_css_set);
	/* the core's own and the two tasks' */
	g_assert_cmpuint(e.core->init_css_set->refcount, ==, 3);
	g_assert_true(g_queue_is_empty(&cgroup_by_id(e.core, a)->csets));
	cg_write_unlock(&e.core->lock);
	g_assert_cmpint(cg_rmdir(e.core, e.top[0], "a", &root_cred), ==, 0);
	env_teardown(&e);
}

/* A task that exits leaves its css_set; the last one frees it. Reading any
 * file reaps the exited tasks. */
static void test_release_exit(void)
{
	struct env e;
	uint64_t a;

	env_setup(&e);
	fake_kf_add_process(e.fk, 100, 1);
	fake_kf_add_process(e.fk, 200, 1);
	a = mkdir_ok(&e, e.top[0], "a");
	wr_ok(&e, a, "tasks", "100");
	wr_ok(&e, a, "tasks", "200");

	fake_kf_exit(e.fk, 100);
	assert_content(&e, a, "tasks", "200\n");
	g_assert_cmpuint(nr_css_sets(&e), ==, 2);
	g_assert_cmpuint(nr_tasks(&e), ==, 1);
	g_assert_cmpuint(fake_kf_open_count(e.fk), ==, 1);

	fake_kf_exit(e.fk, 200);
	assert_content(&e, e.top[0], "cpu.shares", "1024\n");	/* any file reaps */
	g_assert_cmpuint(nr_css_sets(&e), ==, 1);
	g_assert_cmpuint(nr_tasks(&e), ==, 0);
	g_assert_cmpuint(fake_kf_open_count(e.fk), ==, 0);
	g_assert_cmpuint(fake_kf_pending_exits(e.fk), ==, 0);
	assert_content(&e, a, "tasks", "");
	cg_write_lock(&e.core->lock);
	g_assert_cmpuint(e.core->init_css_set->refcount, ==, 1);
	cg_write_unlock(&e.core->lock);
	g_assert_cmpint(cg_rmdir(e.core, e.top[0], "a", &root_cred), ==, 0);
	env_teardown(&e);
}

/* ---- the hash ----------------------------------------------------------- */

#define NR_GROUPS 100000
#define BIG_BITS 17		/* 2^17 buckets: a table grown past 100,000 */
#define KERNEL_BUCKETS 128	/* the kernel's css_set_table: 7 bits */

struct dist {
	unsigned max_chain;	/* over 2^17 buckets */
	unsigned used;		/* non-empty buckets of 2^17 */
	unsigned min128, max128;
	unsigned distinct;	/* distinct 32-bit values */
};

static int cmp_guint(const void *a, const void *b)
{
	guint x = *(const guint *)a, y = *(const guint *)b;

	return (x > y) - (x < y);
}

static void distribution(const guint *hashes, unsigned n, struct dist *d)
{
	unsigned *big = g_new0(unsigned, 1u << BIG_BITS);
	unsigned small[KERNEL_BUCKETS] = { 0 };
	guint *sorted = g_memdup2(hashes, n * sizeof(guint));

	memset(d, 0, sizeof(*d));
	for (unsigned i = 0; i < n; i++) {
		big[hashes[i] & ((1u << BIG_BITS) - 1)]++;
		small[hashes[i] & (KERNEL_BUCKETS - 1)]++;
	}
	for (unsigned i = 0; i < 1u << BIG_BITS; i++) {
		d->max_chain = MAX(d->max_chain, big[i]);
		d->used += big[i] != 0;
	}
	d->min128 = ~0u;
	for (unsigned i = 0; i < KERNEL_BUCKETS; i++) {
		d->min128 = MIN(d->min128, small[i]);
		d->max128 = MAX(d->max128, small[i]);
	}
	qsort(sorted, n, sizeof(guint), cmp_guint);
	for (unsigned i = 0; i < n; i++)
		d->distinct += i == 0 || sorted[i] != sorted[i - 1];
	g_free(sorted);
	g_free(big);
}

static void report(const char *what, const struct dist *d, unsigned n)
{
	g_test_message("%s: %u keys, 2^%u buckets: max chain %u, mean chain %.3f "
		       "(load %.3f, %u buckets used); %u buckets: min %u max %u mean %.1f; "
		       "%u distinct 32-bit values",
		       what, n, BIG_BITS, d->max_chain, (double)n / d->used,
		       (double)n / (1u << BIG_BITS), d->used, KERNEL_BUCKETS, d->min128,
		       d->max128, (double)n / KERNEL_BUCKETS, d->distinct);
}

/* The thresholds of a hash that spreads like a random function, loose
 * enough never to fail by chance: a bucket of 2^17 holds 13 or more of
 * 100,000 keys with probability ~1e-12, and a 128-bucket count leaves mean
 * +-25% (7 sigma) with probability ~1e-12 per bucket. A plain sum of
 * pointers puts 13,714 in one 128-bucket. */
static void assert_good(const struct dist *d, unsigned n)
{
	double mean = (double)n / KERNEL_BUCKETS;

	g_assert_cmpuint(d->max_chain, <=, 12);
	g_assert_cmpfloat(d->min128, >=, mean * 0.75);
	g_assert_cmpfloat(d->max128, <=, mean * 1.25);
	g_assert_cmpuint(d->distinct, >=, n - 10);
}

/* 100,000 groups, one css_set each: how the css_set hashes spread. */
static void test_hash_100k(void)
{
	struct env e;
	uint64_t *ids = g_new(uint64_t, NR_GROUPS);
	struct css_set **sets = g_new(struct css_set *, NR_GROUPS);
	guint *hashes = g_new(guint, NR_GROUPS), *sums = g_new(guint, NR_GROUPS);
	struct dist good, bad;

	env_setup(&e);
	for (unsigned i = 0; i < NR_GROUPS; i++) {
		char name[16];

		g_snprintf(name, sizeof(name), "g%u", i);
		ids[i] = mkdir_ok(&e, e.top[0], name);
	}

	cg_write_lock(&e.core->lock);
	for (unsigned i = 0; i < NR_GROUPS; i++) {
		struct cgroup *cgrp = cgroup_by_id(e.core, ids[i]);
		uint64_t sum = 0;

		sets[i] = css_set_for_move(e.core, e.core->init_css_set, cgrp);
		g_assert_nonnull(sets[i]);
		g_assert_true(css_set_cgroup(sets[i], e.root[0]) == cgrp);
		/* The stored hash is the hash of the css array. */
		g_assert_cmpuint(sets[i]->hash, ==,
				 css_set_hash_subsys(sets[i]->subsys, CG_MAX_SUBSYS));
		hashes[i] = sets[i]->hash;
		/* The contrast: a plain sum of the css pointers. */
		for (unsigned s = 0; s < CG_MAX_SUBSYS; s++)
			sum += (uint64_t)(uintptr_t)sets[i]->subsys[s];
		sums[i] = (guint)sum;
	}
	g_assert_cmpuint(g_hash_table_size(e.core->css_sets), ==, NR_GROUPS + 1);
	/* Finding them again gives the same sets. */
	for (unsigned i = 0; i < NR_GROUPS; i += 997) {
		struct css_set *again = find_css_set(e.core, sets[i]->subsys);

		g_assert_true(again == sets[i]);
		put_css_set(e.core, again);
	}
	cg_write_unlock(&e.core->lock);

	distribution(sums, NR_GROUPS, &bad);
	report("plain sum of css pointers (contrast, not asserted)", &bad, NR_GROUPS);
	distribution(hashes, NR_GROUPS, &good);
	report("css_set_hash_subsys", &good, NR_GROUPS);
	assert_good(&good, NR_GROUPS);

	cg_write_lock(&e.core->lock);
	for (unsigned i = 0; i < NR_GROUPS; i++)
		put_css_set(e.core, sets[i]);
	g_assert_cmpuint(g_hash_table_size(e.core->css_sets), ==, 1);
	cg_write_unlock(&e.core->lock);

	g_free(sums);
	g_free(hashes);
	g_free(sets);
	g_free(ids);
	env_teardown(&e);
}

/* The same, on made-up pointers laid out like a heap (one block per css,
 * 16-byte aligned, in allocation order): independent of where malloc puts
 * things in this run. */
static void test_hash_synthetic_heap(void)
{
	guint *hashes = g_new(guint, NR_GROUPS), *sums = g_new(guint, NR_GROUPS);
	const uintptr_t base = 0x5555555a0000u;
	/* cgroup, cpuset, cpu, cpuacct blocks of one group, as allocated. */
	const uintptr_t stride = 0x60 + 0x230 + 0x40 + 0x30;
	struct dist good, bad;

	for (unsigned i = 0; i < NR_GROUPS; i++) {
		struct css *subsys[CG_MAX_SUBSYS] = { 0 };
		uintptr_t g = base + i * stride;
		uint64_t sum = 0;

		subsys[ctl_index("cpuset")] = (struct css *)(g + 0x60);
		subsys[ctl_index("cpu")] = (struct css *)(g + 0x60 + 0x230);
		subsys[ctl_index("cpuacct")] = (struct css *)(g + 0x60 + 0x230 + 0x40);
		hashes[i] = css_set_hash_subsys(subsys, CG_MAX_SUBSYS);
		for (unsigned s = 0; s < CG_MAX_SUBSYS; s++)
			sum += (uint64_t)(uintptr_t)subsys[s];
		sums[i] = (guint)sum;
	}
	distribution(sums, NR_GROUPS, &bad);
	report("synthetic heap, plain sum (contrast)", &bad, NR_GROUPS);
	distribution(hashes, NR_GROUPS, &good);
	report("synthetic heap, css_set_hash_subsys", &good, NR_GROUPS);
	assert_good(&good, NR_GROUPS);
	g_free(sums);
	g_free(hashes);
}

/* Every bit of every css pointer, and the slot it is in, reach the hash. */
static void test_hash_uses_all_bits(void)
{
	struct css *base[CG_MAX_SUBSYS];
	guint h0;
	GHashTable *seen = g_hash_table_new(NULL, NULL);

	for (unsigned s = 0; s < CG_MAX_SUBSYS; s++)
		base[s] = (struct css *)(uintptr_t)(0x7f0000100000ull + s * 0x1000);
	h0 = css_set_hash_subsys(base, CG_MAX_SUBSYS);
	g_hash_table_add(seen, GUINT_TO_POINTER(h0));
	for (unsigned s = 0; s < CG_MAX_SUBSYS; s++) {
		for (unsigned bit = 0; bit < 8 * sizeof(void *); bit++) {
			struct css *v[CG_MAX_SUBSYS];

			memcpy(v, base, sizeof(v));
			v[s] = (struct css *)((uintptr_t)v[s] ^ ((uintptr_t)1 << bit));
			g_assert_true(g_hash_table_add(seen, GUINT_TO_POINTER(
				css_set_hash_subsys(v, CG_MAX_SUBSYS))));
		}
	}
	/* Swapping two css between slots (a sum would not notice). */
	for (unsigned s = 1; s < CG_MAX_SUBSYS; s++) {
		struct css *v[CG_MAX_SUBSYS];

		memcpy(v, base, sizeof(v));
		v[0] = base[s];
		v[s] = base[0];
		g_assert_cmpuint(css_set_hash_subsys(v, CG_MAX_SUBSYS), !=, h0);
	}
	g_hash_table_unref(seen);
}

/* ---- two hierarchies ---------------------------------------------------- */

static struct cgroup *task_cgroup(struct env *e, pid_t tid, int r)
{
	struct cgroup *cgrp;

	cg_write_lock(&e->core->lock);
	cgrp = css_set_cgroup(task_css_set(e->core, tid), e->root[r]);
	cg_write_unlock(&e->core->lock);
	return cgrp;
}

static uint64_t task_cgroup_id(struct env *e, pid_t tid, int r)
{
	return task_cgroup(e, tid, r)->id;
}

static void test_two_hierarchies(void)
{
	struct env e;
	uint64_t x, y;
	struct task *t;

	env_setup_full(&e, true, true);
	fake_kf_add_process(e.fk, 100, 2);	/* threads 100, 101 */
	x = mkdir_ok(&e, e.top[0], "x");	/* cpu,cpuacct */
	y = mkdir_ok(&e, e.top[1], "y");	/* cpuset */
	g_assert_cmpuint(nr_css_sets(&e), ==, 1);
	cg_write_lock(&e.core->lock);
	/* init_css_set holds both roots' css and is linked to both roots. */
	g_assert_true(css_set_cgroup(e.core->init_css_set, e.root[0]) == e.root[0]->top);
	g_assert_true(css_set_cgroup(e.core->init_css_set, e.root[1]) == e.root[1]->top);
	g_assert_cmpuint(g_queue_get_length(&e.root[0]->top->csets), ==, 1);
	g_assert_cmpuint(g_queue_get_length(&e.root[1]->top->csets), ==, 1);
	cg_write_unlock(&e.core->lock);

	/* One task, one group in each hierarchy: listed in both. */
	wr_ok(&e, x, "tasks", "100");
	wr_ok(&e, y, "tasks", "100");
	assert_content(&e, x, "tasks", "100\n");
	assert_content(&e, y, "tasks", "100\n");
	g_assert_false(lists(&e, e.top[0], "tasks", 100));
	g_assert_false(lists(&e, e.top[1], "tasks", 100));
	g_assert_true(lists(&e, e.top[0], "tasks", 101));
	g_assert_true(lists(&e, e.top[1], "tasks", 101));
	g_assert_cmpuint(nr_css_sets(&e), ==, 2);
	cg_write_lock(&e.core->lock);
	t = task_lookup(e.core, 100);
	g_assert_nonnull(t);
	g_assert_true(t->cset->subsys[ctl_index("cpu")] ==
		      cgroup_by_id(e.core, x)->subsys[ctl_index("cpu")]);
	g_assert_true(t->cset->subsys[ctl_index("cpuacct")] ==
		      cgroup_by_id(e.core, x)->subsys[ctl_index("cpuacct")]);
	g_assert_true(t->cset->subsys[ctl_index("cpuset")] ==
		      cgroup_by_id(e.core, y)->subsys[ctl_index("cpuset")]);
	cg_write_unlock(&e.core->lock);

	/* Another thread in x only: a set of its own (x, cpuset root). */
	wr_ok(&e, x, "tasks", "101");
	g_assert_cmpuint(nr_css_sets(&e), ==, 3);
	assert_content(&e, x, "tasks", "100\n101\n");
	assert_content(&e, y, "tasks", "100\n");
	g_assert_true(lists(&e, e.top[1], "tasks", 101));

	/* Moving 100 in one hierarchy leaves it where it is in the other. */
	wr_ok(&e, e.top[0], "tasks", "100");
	g_assert_cmpuint(task_cgroup_id(&e, 100, 0), ==, e.top[0]);
	g_assert_cmpuint(task_cgroup_id(&e, 100, 1), ==, y);
	assert_content(&e, x, "tasks", "101\n");
	assert_content(&e, y, "tasks", "100\n");
	g_assert_true(lists(&e, e.top[0], "tasks", 100));
	g_assert_cmpuint(nr_tasks(&e), ==, 2);	/* still tracked: it is in y */
	g_assert_cmpuint(nr_css_sets(&e), ==, 3);

	/* The whole process into y: 101 keeps x in the other hierarchy. */
	wr_ok(&e, y, "cgroup.procs", "101");
	assert_content(&e, y, "tasks", "100\n101\n");
	assert_content(&e, y, "cgroup.procs", "100\n");
	assert_content(&e, x, "tasks", "101\n");
	g_assert_cmpuint(task_cgroup_id(&e, 101, 0), ==, x);
	g_assert_cmpuint(task_cgroup_id(&e, 101, 1), ==, y);
	g_assert_cmpuint(task_cgroup_id(&e, 100, 0), ==, e.top[0]);
	g_assert_cmpuint(nr_css_sets(&e), ==, 3);	/* init, {top,y}, {x,y} */

	/* x cannot go while 101 is in it, whatever the other hierarchy says. */
	g_assert_cmpint(cg_rmdir(e.core, e.top[0], "x", &root_cred), ==, -EBUSY);
	g_assert_cmpint(cg_rmdir(e.core, e.top[1], "y", &root_cred), ==, -EBUSY);

	/* Back to both roots: only init_css_set is left. */
	wr_ok(&e, e.top[1], "cgroup.procs", "100");
	g_assert_cmpint(cg_rmdir(e.core, e.top[1], "y", &root_cred), ==, 0);
	wr_ok(&e, e.top[0], "tasks", "101");	/* (test-attach covers procs) */
	g_assert_cmpuint(nr_tasks(&e), ==, 2);	/* tracked until they exit */
	g_assert_cmpuint(nr_css_sets(&e), ==, 1);
	g_assert_cmpint(cg_rmdir(e.core, e.top[0], "x", &root_cred), ==, 0);
	env_teardown(&e);
}

/* With two hierarchies, a task that exits leaves both. */
static void test_two_hierarchies_exit(void)
{
	struct env e;
	uint64_t x, y;

	env_setup_full(&e, true, true);
	fake_kf_add_process(e.fk, 100, 1);
	x = mkdir_ok(&e, e.top[0], "x");
	y = mkdir_ok(&e, e.top[1], "y");
	wr_ok(&e, x, "tasks", "100");
	wr_ok(&e, y, "tasks", "100");
	fake_kf_exit(e.fk, 100);
	assert_content(&e, y, "tasks", "");
	assert_content(&e, x, "tasks", "");
	g_assert_cmpuint(nr_css_sets(&e), ==, 1);
	g_assert_cmpuint(fake_kf_open_count(e.fk), ==, 0);
	g_assert_cmpint(cg_rmdir(e.core, e.top[0], "x", &root_cred), ==, 0);
	g_assert_cmpint(cg_rmdir(e.core, e.top[1], "y", &root_cred), ==, 0);
	env_teardown(&e);
}

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	/* A failed check fails its case; the next cases still run. */
	g_test_set_nonfatal_assertions();
	g_test_add_func("/css-set/reuse", test_reuse);
	g_test_add_func("/css-set/release-move-back", test_release_move_back);
	g_test_add_func("/css-set/root-keeps-identity", test_root_keeps_identity);
	g_test_add_func("/css-set/release-exit", test_release_exit);
	g_test_add_func("/css-set/hash-uses-all-bits", test_hash_uses_all_bits);
	g_test_add_func("/css-set/hash-synthetic-heap", test_hash_synthetic_heap);
	g_test_add_func("/css-set/hash-100k", test_hash_100k);
	g_test_add_func("/css-set/two-hierarchies", test_two_hierarchies);
	g_test_add_func("/css-set/two-hierarchies-exit", test_two_hierarchies_exit);
	return g_test_run();
}
