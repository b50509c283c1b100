/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The allocator's passes: copy, sample, weigh, map, apply. Only the copy
 * (core/sched_view.h) and the charging of samples take the core lock; the
 * /proc reads and the system calls are made without it. The passes' parts
 * are in alloc_sample.c, alloc_session.c, alloc_place.c,
 * alloc_place_cpus.c, alloc_originals.c; the core's events in
 * alloc_hooks.c. */
#include "alloc/alloc.h"

#include <errno.h>
#include <malloc.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "alloc/alloc_internal.h"

/* In a loop over threads: yields if BREATH_NS of work went by since the
 * last time. A clock read (vDSO): for loops that make system calls. */
void breathe(struct allocator *a)
{
	uint64_t now = mono_ns();

	if (now - a->breath_ns < BREATH_NS)
		return;
	sched_yield();
	a->st.yields++;
	a->breath_ns = mono_ns();
}

/* The same, looking at the clock every BREATH_STEPS steps: for loops of
 * plain computation. */
void breathe_step(struct allocator *a)
{
	if (++a->steps % BREATH_STEPS == 0)
		breathe(a);
}

int alloc_kick_fd(struct allocator *a)
{
	return a->kick_fd;
}

void alloc_kick(struct allocator *a)
{
	uint64_t one = 1;

	if (atomic_exchange(&a->kicked, true))
		return;
	if (write(a->kick_fd, &one, sizeof(one)) < 0)
		g_warning("allocator: cannot wake: %s", g_strerror(errno));
}

void alloc_kick_clear(struct allocator *a)
{
	uint64_t n;

	atomic_store(&a->kicked, false);
	if (read(a->kick_fd, &n, sizeof(n)) < 0 && errno != EAGAIN)
		g_warning("allocator: %s", g_strerror(errno));
}

void count_call(struct allocator *a, uint64_t *counter, int ret)
{
	(*counter)++;
	if (ret < 0 && ret != -ESRCH)
		a->st.failed_calls++;
}

void set_nice(struct allocator *a, struct task_sched *s, int nice)
{
	struct kfacade *kf = cg_core_kf(a->core);
	int ret = kf->ops->set_nice(kf, s->tid, nice);

	count_call(a, &a->st.nice_calls, ret);
	if (ret == 0)
		s->nice = nice;
}

/* One of the thread's masks made a shared copy of m. */
void keep(struct allocator *a, struct task_sched *s, enum cpus_which w,
	  const struct cpumask *m)
{
	cpus_set_keep(&a->cpus_pool, &s->masks, w, m);
}

void set_cpus(struct allocator *a, struct task_sched *s, const struct cpumask *cpus)
{
	struct kfacade *kf = cg_core_kf(a->core);
	int ret = kf->ops->set_affinity(kf, s->tid, cpus);

	count_call(a, &a->st.affinity_calls, ret);
	if (ret == 0) {
		keep(a, s, CPUS_NOW, cpus);
		keep(a, s, CPUS_APPLIED, cpus);
	}
}

/* Takes in the forks and exits heard of since the last pass. */
static void take_events(struct allocator *a)
{
	GArray *ev;

	g_mutex_lock(&a->events_lock);
	ev = a->events;
	a->events = g_array_new(FALSE, FALSE, sizeof(struct alloc_event));
	g_mutex_unlock(&a->events_lock);
	for (guint i = 0; i < ev->len; i++) {
		const struct alloc_event *e = &g_array_index(ev, struct alloc_event, i);
		struct task_sched *s;

		if (e->fork) {
			alloc_task_fork(a->tasks, &a->cpus_pool, e->parent, e->tid, &e->ident);
			s = alloc_task_lookup(a->tasks, e->tid);
			if (s && s->seen)
				record_task(a, s);
			/* Born with the affinity of a parent that widens its own. */
			if (s && s->watch)
				g_hash_table_add(a->watched, GINT_TO_POINTER(e->tid));
		}
		else if ((s = alloc_task_lookup(a->tasks, e->tid)) && s->ino == e->ident.ino)
			s->exited = true;
	}
	g_array_unref(ev);
}

/* The thread is managed: counted, and in its process's threads (no entry
 * of its own for a process: a thread alone heads its list). */
void manage(struct allocator *a, struct task_sched *s)
{
	struct task_sched *head = find_head(a, s->tgid);

	if (s->managed)
		return;
	s->managed = true;
	a->managed++;
	s->proc_prev = s->proc_next = NULL;
	if (head && s->tid == s->tgid) {
		/* The leader heads the list from now on. */
		tidmap_remove(&a->heads, s->tgid);
		s->proc_next = head;
		head->proc_prev = s;
		s->clock = head->clock;
		s->clock_known = head->clock_known;
	} else if (head) {
		s->proc_prev = head;
		s->proc_next = head->proc_next;
		if (head->proc_next)
			head->proc_next->proc_prev = s;
		head->proc_next = s;
	} else {
		if (s->tid != s->tgid)
			tidmap_insert(&a->heads, s);
		/* From now on: its first check finds that it ran only if it
		 * did (one clock read, not a /proc read per thread). */
		read_clock(a, s);
	}
	/* Not sampled yet: runnable until a sample says otherwise. */
	activate(a, s);
	if (!s->seen)
		g_array_append_val(a->unseen, s->tid);
}

/* Out of its process's list: the next thread heads it if it headed it. */
static void unlink_proc(struct allocator *a, struct task_sched *s)
{
	struct task_sched *next = s->proc_next;

	if (next)
		next->proc_prev = s->proc_prev;
	if (s->proc_prev) {
		s->proc_prev->proc_next = next;
	} else {
		if (s->tid != s->tgid)
			tidmap_remove(&a->heads, s->tgid);
		if (next) {
			next->clock = s->clock;
			next->clock_known = s->clock_known;
			tidmap_insert(&a->heads, next);	/* not the leader: s was */
		}
	}
	s->proc_prev = s->proc_next = NULL;
}

/* The thread is no longer managed (or no longer the same thread): its
 * entry leaves every list and the table. */
static void drop_task(struct allocator *a, struct task_sched *s)
{
	if (s->managed) {
		s->managed = false;
		a->managed--;
		deactivate(a, s);
		unlink_proc(a, s);
	}
	alloc_task_set_group(&a->groups, s, NULL);
	cpuset_put(a, s->cs);
	alloc_task_remove(a->tasks, s);
}

/* A thread the view reports: where it is now, or that it is no longer
 * managed (its own nice and affinity come back). */
static void take_task(struct allocator *a, const struct sched_task *t)
{
	struct task_sched *s = alloc_task_lookup(a->tasks, t->tid);
	struct alloc_group *g;
	struct alloc_cpuset *cs;

	if (t->gone) {
		if (s) {
			a->departed |= s->group != NULL;
			restore_task(a, s);
			forget_task(a, s);
			drop_task(a, s);
		}
		return;
	}
	/* Another thread of the same id: the old one is gone. */
	if (s && (s->ino != t->ident.ino || s->exited)) {
		forget_task(a, s);
		drop_task(a, s);
		s = NULL;
	}
	if (!s)
		s = alloc_task_add(a->tasks, t->tid, &t->ident);
	manage(a, s);
	/* Moved, forked or placed: placed by the next placing, which walks
	 * the active threads (a sample then tells whether it sleeps). */
	activate(a, s);
	g = t->group ? alloc_group_get(&a->groups, t->group) : NULL;
	a->departed |= s->group && !g;
	alloc_task_set_group(&a->groups, s, g);
	alloc_group_put(&a->groups, g);
	cs = t->cpuset ? cpuset_get(a, t->cpuset) : NULL;
	cpuset_put(a, s->cs);
	s->cs = cs;
}

/* What the view found changed: groups and cpusets first (a thread's new
 * group may be new), then the threads (those that left a group before it
 * was removed), then the removals. */
static void take_view(struct allocator *a)
{
	const struct sched_view *v = &a->view;

	for (guint i = 0; i < v->groups->len; i++) {
		const struct sched_group *g = &g_array_index(v->groups, struct sched_group, i);

		if (!g->gone)
			alloc_group_set(&a->groups, g);
	}
	for (guint i = 0; i < v->cpusets->len; i++) {
		const struct sched_cpuset *cs = &g_array_index(v->cpusets, struct sched_cpuset, i);

		if (!cs->gone)
			cpuset_set(a, cs);
	}
	for (guint i = 0; i < v->tasks->len; i++) {
		take_task(a, &g_array_index(v->tasks, struct sched_task, i));
		breathe(a);
	}
	for (guint i = 0; i < v->groups->len; i++) {
		const struct sched_group *g = &g_array_index(v->groups, struct sched_group, i);

		if (g->gone)
			alloc_group_remove(&a->groups, g->id);
	}
	for (guint i = 0; i < v->cpusets->len; i++) {
		const struct sched_cpuset *cs = &g_array_index(v->cpusets, struct sched_cpuset, i);

		if (cs->gone)
			cpuset_remove(a, cs->id);
	}
	a->changed = true;
	a->sessions_stale = true;
}

static void new_work_arrays(struct allocator *a)
{
	a->active = g_array_new(FALSE, FALSE, sizeof(struct active));
	a->active_peak = 0;
	a->bucket_refs = g_array_new(FALSE, FALSE, sizeof(struct bucket_ref));
}

static void free_work_arrays(struct allocator *a)
{
	g_array_unref(a->active);
	g_array_unref(a->bucket_refs);
}

static int cmp_u64(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;

	return a < b ? -1 : a > b;
}

/* The last n entries of a ring, sorted into sorted. */
static void sort_ring(const uint64_t *ring, unsigned n, uint64_t *sorted)
{
	memcpy(sorted, ring, n * sizeof(sorted[0]));
	qsort(sorted, n, sizeof(sorted[0]), cmp_u64);
}

/* The pass's time (wall clock: with the times it gave its CPU up) and CPU
 * time into the rings, and the figures cgfused.stat shows. */
static void publish(struct allocator *a, uint64_t pass_ns, uint64_t cpu_ns)
{
	uint64_t sorted[PASS_RING], p50, p99, p99_cpu;
	unsigned n = (unsigned)MIN(a->st.passes, PASS_RING);

	a->st.last_pass_ns = pass_ns;
	a->st.max_pass_ns = MAX(a->st.max_pass_ns, pass_ns);
	a->st.last_pass_cpu_ns = cpu_ns;
	a->st.max_pass_cpu_ns = MAX(a->st.max_pass_cpu_ns, cpu_ns);
	a->ring[(a->st.passes - 1) % PASS_RING] = pass_ns;
	a->cpu_ring[(a->st.passes - 1) % PASS_RING] = cpu_ns;
	sort_ring(a->ring, n, sorted);
	p50 = sorted[(n - 1) / 2];
	p99 = sorted[(n - 1) * 99 / 100];
	sort_ring(a->cpu_ring, n, sorted);
	p99_cpu = sorted[(n - 1) * 99 / 100];
	g_mutex_lock(&a->shown_lock);
	a->shown = a->st;
	a->p50_ns = p50;
	a->p99_ns = p99;
	a->p99_cpu_ns = p99_cpu;
	g_mutex_unlock(&a->shown_lock);
}

void alloc_pass(struct allocator *a, bool sample)
{
	uint64_t start = mono_ns(), cpu = thread_cpu_ns();
	bool reconcile = sample && a->rotation % RECONCILE_PASSES == 0, placing;

	a->breath_ns = start;

	/* A copy of what changed, if anything: a quiet pass costs no walk. */
	placing = sched_view_take(a->core, a->weight_ssid, a->cpus_ssid, &a->view);
	take_events(a);
	if (placing) {
		a->st.copied_groups += a->view.groups->len + a->view.cpusets->len;
		a->st.copied_tasks += a->view.tasks->len;
		take_view(a);
		a->st.weighed_groups = g_hash_table_size(a->groups.by_id);
	}
	a->st.managed = a->managed;
	if (sample) {
		sample_tasks(a);
		a->rotation++;
	}
	recheck_watched(a, sample);
	see_new(a);
	for (guint i = 0; sample && i < a->active->len; i++) {
		struct task_sched *s = g_array_index(a->active, struct active, i).s;

		if (!s->seen || !s->runnable || (!reconcile && (!s->cpus_set || s->watch)))
			continue;	/* a watched one was just read again */
		breathe(a);
		if (reconcile)
			reconcile_task(a, s);
		else
			reread_affinity(a, s);
	}
	/* Placing costs a walk of the active threads: only when something
	 * changed (or a time dither moves on, or sessions are to be weighed
	 * again: a process may have joined one); of every thread when a
	 * cpuset's CPUs changed, or after threads left (at most once in
	 * DEPART_PASSES sampled passes). */
	a->sessions_stale |= reconcile;
	if (placing || a->changed) {
		a->sweep_left = tidmap_slots(a->tasks);	/* a new round */
		a->sweep_round++;
	}
	bool full = a->cpus_changed || (a->departed && a->rotation >= a->full_rotation);

	if (placing || a->changed || a->dithering || (reconcile && a->sessions_weighed) || full) {
		a->changed = false;
		place_tasks(a, full);
		a->st.placings++;
		if (full) {
			a->cpus_changed = a->departed = false;
			a->full_rotation = a->rotation + DEPART_PASSES;
			a->st.full_placings++;
		}
	}
	sweep_sleepers(a);
	end_originals(a, placing);
	a->st.passes++;
	publish(a, mono_ns() - start, thread_cpu_ns() - cpu);
	/* The hierarchy just emptied: give back the whole pages malloc keeps
	 * free inside its arenas (it trims only an arena's top by itself);
	 * measured in docs/soak.md. */
	if (a->view.empty && !a->empty) {
		if (!a->managed) {
			free_work_arrays(a);
			new_work_arrays(a);
		}
		malloc_trim(0);
	}
	a->empty = a->view.empty;
}

struct allocator *alloc_new(struct cg_core *core)
{
	struct allocator *a = g_new0(struct allocator, 1);
	struct kfacade *kf = cg_core_kf(core);

	a->core = core;
	a->weight_ssid = a->cpus_ssid = -1;
	for (unsigned i = 0; i < cg_core_nr_subsys(core); i++) {
		if (cg_core_subsys(core, i)->weight && sched_view_mounted(core, (int)i))
			a->weight_ssid = (int)i;
		if (cg_core_subsys(core, i)->cpus && sched_view_mounted(core, (int)i))
			a->cpus_ssid = (int)i;
	}
	a->may_lower = kf->ops->may_lower_nice(kf);
	a->nice_lowest = NICE_MIN;
	if (!a->may_lower)
		say_nice_range(a);
	a->autogroups = g_hash_table_new_full(NULL, NULL, NULL, free_autogroup);
	a->watched = g_hash_table_new(NULL, NULL);
	a->kick_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	a->tasks = alloc_task_table_new();
	tidmap_init(&a->heads, a->tasks->pool, offsetof(struct task_sched, tgid));
	a->unseen = g_array_new(FALSE, FALSE, sizeof(pid_t));
	new_work_arrays(a);
	a->charges = g_array_new(FALSE, FALSE, sizeof(struct sched_sample));
	a->events = g_array_new(FALSE, FALSE, sizeof(struct alloc_event));
	g_mutex_init(&a->events_lock);
	g_mutex_init(&a->shown_lock);
	sched_view_init(&a->view);	/* the tree as it is now */
	alloc_groups_init(&a->groups);
	a->cpusets = g_hash_table_new_full(g_int64_hash, g_int64_equal, NULL, free_cpuset);
	cpus_pool_init(&a->cpus_pool);
	a->sub = alloc_subscriber(a);
	cg_subscribe(core, &a->sub);
	return a;
}

void alloc_free(struct allocator *a)
{
	struct kfacade *kf;
	GHashTableIter iter;
	struct task_sched *s;
	struct autogroup *ag;

	if (!a)
		return;
	kf = cg_core_kf(a->core);
	/* The exits up to now, so that no gone thread's id is touched. */
	sched_view_take(a->core, a->weight_ssid, a->cpus_ssid, &a->view);
	take_events(a);
	cg_unsubscribe(a->core, &a->sub);
	for (guint pos = 0; (s = alloc_task_next(a->tasks, &pos));)
		restore_task(a, s);
	g_hash_table_iter_init(&iter, a->autogroups);
	while (g_hash_table_iter_next(&iter, NULL, (gpointer *)&ag))
		if (ag->nice_set)
			kf->ops->set_autogroup_nice(kf, ag->tid, ag->orig_nice);
	/* A stop before the first pass gives back what the last daemon left. */
	if (a->orig && alloc_orig_has_leftovers(a->orig))
		give_back_leftovers(a);
	alloc_orig_close(a->orig, true);
	alloc_task_table_free(a->tasks);
	tidmap_clear(&a->heads);
	g_array_unref(a->unseen);
	free_work_arrays(a);
	g_array_unref(a->charges);
	g_array_unref(a->events);
	g_hash_table_destroy(a->autogroups);
	g_hash_table_destroy(a->watched);
	alloc_groups_clear(&a->groups);
	g_hash_table_destroy(a->cpusets);
	cpus_pool_clear(&a->cpus_pool);	/* emptied with a->tasks */
	sched_view_clear(&a->view);
	g_mutex_clear(&a->events_lock);
	g_mutex_clear(&a->shown_lock);
	close(a->kick_fd);
	g_free(a);
}

const struct alloc_stats *alloc_stats(struct allocator *a)
{
	return &a->st;
}
