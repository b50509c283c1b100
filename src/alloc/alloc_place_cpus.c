/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The allocator's CPU placement: cpusets as the view reports them, each
 * thread's affinity, and the threads that widen theirs. */
#include "alloc/alloc_internal.h"

void free_cpuset(gpointer p)
{
	struct alloc_cpuset *cs = p;

	cpus_unref(cs->cpus);
	g_free(cs);
}

struct alloc_cpuset *cpuset_get(struct allocator *a, uint64_t id)
{
	struct alloc_cpuset *cs = g_hash_table_lookup(a->cpusets, &id);

	if (!cs) {
		cs = g_new0(struct alloc_cpuset, 1);
		cs->id = id;
		g_hash_table_insert(a->cpusets, &cs->id, cs);
	}
	cs->refs++;
	return cs;
}

void cpuset_put(struct allocator *a, struct alloc_cpuset *cs)
{
	if (cs && --cs->refs == 0)
		g_hash_table_remove(a->cpusets, &cs->id);
}

void cpuset_set(struct allocator *a, const struct sched_cpuset *sc)
{
	struct alloc_cpuset *cs = cpuset_get(a, sc->id);

	const struct cpumask *was = cs->cpus;

	if (!cs->in_tree) {
		cs->in_tree = true;
		cs->refs++;
	}
	cpus_keep(&a->cpus_pool, &cs->cpus, &sc->cpus);
	/* Shared copies: another mask is another pointer. A new cpuset has
	 * no member yet (they come as reported threads). */
	a->cpus_changed |= was && cs->cpus != was;
	cpuset_put(a, cs);
}

void cpuset_remove(struct allocator *a, uint64_t id)
{
	struct alloc_cpuset *cs = g_hash_table_lookup(a->cpusets, &id);

	if (cs && cs->in_tree) {
		cs->in_tree = false;
		cpuset_put(a, cs);
	}
}

bool inside(const struct task_sched *s, const struct cpumask *cpuset)
{
	const struct cpumask *cpus = task_cpus(s);

	return cpus && cpuset && !cpumask_empty(cpus) && cpumask_subset(cpus, cpuset);
}

static void watch_task(struct allocator *a, struct task_sched *s)
{
	s->escapes = MIN(s->escapes + 1u, ESCAPES_MAX);
	s->watch = WATCH_PASSES << MIN(s->escapes - 1, WATCH_MAX_SHIFT);
	g_hash_table_add(a->watched, GINT_TO_POINTER(s->tid));
	a->repeat |= s->escapes > 1;
	a->st.escapes++;
}

/* Gives the thread its cpuset's CPUs. An affinity that is not what we gave
 * it was set by the thread (or its owner), who may narrow it, not widen it:
 * it keeps the part inside the cpuset (what sched_setaffinity gives inside
 * a kernel cpuset), or the cpuset if none. What we gave it follows the
 * cpuset, also when the cpuset grows. */
static void place_cpus(struct allocator *a, struct task_sched *s, const struct cpumask *want)
{
	struct cpumask to = *want;

	/* Shared copies: the same mask is the same pointer. */
	if (s->cpus_set && task_cpus(s) && task_cpus(s) != task_applied_cpus(s)) {
		if (!inside(s, task_cpuset(s)))
			watch_task(a, s);
		cpumask_and(&to, task_cpus(s), want);
		if (cpumask_empty(&to))
			to = *want;
	}
	keep(a, s, CPUS_CPUSET, want);
	if (!s->cpus_set || !task_cpus(s) || !cpumask_equal(task_cpus(s), &to)) {
		s->cpus_set = true;
		set_cpus(a, s, &to);
	}
}

/* Re-reads the watched threads' affinity and puts a widened one back; a
 * sampled pass counts their watch down. */
void recheck_watched(struct allocator *a, bool sampled)
{
	struct kfacade *kf = cg_core_kf(a->core);
	GHashTableIter iter;
	gpointer key;

	a->repeat = false;
	g_hash_table_iter_init(&iter, a->watched);
	while (g_hash_table_iter_next(&iter, &key, NULL)) {
		struct task_sched *s = alloc_task_lookup(a->tasks, GPOINTER_TO_INT(key));

		if (!s || s->exited || !s->cpus_set || !s->watch) {
			if (s)
				s->watch = 0;
			g_hash_table_iter_remove(&iter);
			continue;
		}
		struct cpumask cpus;

		if (kf->ops->get_affinity(kf, s->tid, &cpus) == 0) {
			keep(a, s, CPUS_NOW, &cpus);
			if (!inside(s, task_cpuset(s)))
				place_cpus(a, s, task_cpuset(s));
		}
		s->watch -= sampled;
		a->repeat |= s->escapes > 1;
	}
}

bool alloc_rechecking(struct allocator *a)
{
	return a->repeat;
}

void alloc_recheck(struct allocator *a)
{
	recheck_watched(a, false);
}

void apply_cpus(struct allocator *a, struct task_sched *s)
{
	const struct cpumask *want = s->cs ? s->cs->cpus : NULL;

	if (!want) {
		if (s->cpus_set) {
			set_cpus(a, s, task_orig_cpus(s));
			s->cpus_set = false;
			s->watch = 0;
		}
		return;
	}
	/* A forked child's is unknown (alloc_task_fork): what it was born
	 * with may be its parent's own narrower choice, which it keeps. */
	if (!task_cpus(s)) {
		struct cpumask cpus;

		if (cg_core_kf(a->core)->ops->get_affinity(cg_core_kf(a->core), s->tid, &cpus) < 0)
			return;
		keep(a, s, CPUS_NOW, &cpus);
	}
	/* Shared copies: the same mask is the same pointer, and what we gave
	 * it is inside the cpuset it was placed in. */
	if (s->cpus_set && task_cpuset(s) == want &&
	    (task_cpus(s) == task_applied_cpus(s) || inside(s, want)))
		return;
	place_cpus(a, s, want);
}
