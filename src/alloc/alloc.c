/* The allocator's passes: sample, weigh, map, apply. */
#include "alloc/alloc.h"

#include <errno.h>
#include <malloc.h>
#include <math.h>
#include <stdatomic.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "alloc/alloc_nice.h"
#include "alloc/alloc_task.h"
#include "alloc/alloc_weight.h"
#include "core/css_set.h"
#include "core/notify.h"

/* A thread that is runnable now, or was (running or waiting for a CPU) for
 * this much of the last period, counts as runnable. */
#define RUNNABLE_FRACTION 0.2
/* Every this many sampled passes (5 s), nice values and affinities are read
 * back, to catch changes made behind our back. */
#define RECONCILE_PASSES 50
/* A sleeping thread is sampled once in this many periods (see
 * sample_tasks). */
#define SLEEPER_PASSES 4

/* A session autogroup that has managed threads. */
struct autogroup {
	int id;
	pid_t tid;			/* a member, to reach it through /proc */
	int orig_nice, nice;
	bool nice_set;
	double weight;			/* this pass: its runnable threads' target */
	GArray *buckets;		/* struct nice_bucket */
};

struct allocator {
	struct cg_core *core;
	struct cg_subscriber sub;
	GHashTable *tasks;		/* struct task * -> struct task_sched * */
	int weight_ssid, cpus_ssid;	/* -1: no such controller mounted */
	bool may_lower;
	unsigned rotation;
	GHashTable *autogroups;		/* id -> struct autogroup * */
	GHashTable *proc_clock;		/* tgid -> its CPU time at the last sample */
	struct alloc_stats st;
	int kick_fd;
	atomic_bool kicked;		/* the thread has been woken */
	atomic_bool stale;		/* something changed since the last placing */
	bool changed;			/* a sample or a new thread changed the picture */
	bool dithering;			/* the last placing dithers in time */
	bool empty;			/* no group but the roots, no task */
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static void free_autogroup(gpointer p)
{
	struct autogroup *ag = p;

	if (ag->buckets)
		g_array_unref(ag->buckets);
	g_free(ag);
}

int alloc_kick_fd(struct allocator *a)
{
	return a->kick_fd;
}

void alloc_kick(struct allocator *a)
{
	uint64_t one = 1;

	atomic_store(&a->stale, true);
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

static void count_call(struct allocator *a, uint64_t *counter, int ret)
{
	(*counter)++;
	if (ret < 0 && ret != -ESRCH)
		a->st.failed_calls++;
}

static void set_nice(struct allocator *a, pid_t tid, struct task_sched *s, int nice)
{
	struct kfacade *kf = a->core->kf;
	int ret = kf->ops->set_nice(kf, tid, nice);

	count_call(a, &a->st.nice_calls, ret);
	if (ret == 0)
		s->nice = nice;
}

static void set_cpus(struct allocator *a, pid_t tid, struct task_sched *s,
		     const struct cpumask *cpus)
{
	struct kfacade *kf = a->core->kf;
	int ret = kf->ops->set_affinity(kf, tid, cpus);

	count_call(a, &a->st.affinity_calls, ret);
	if (ret == 0)
		s->cpus = s->applied_cpus = *cpus;
}

/* A thread leaves management while alive: its original nice and affinity
 * come back now. */
static void restore_task(struct allocator *a, pid_t tid, struct task_sched *s)
{
	if (s->nice_set && a->may_lower)
		set_nice(a, tid, s, s->orig_nice);
	if (s->cpus_set)
		set_cpus(a, tid, s, &s->orig_cpus);
	s->nice_set = s->cpus_set = false;
}

/* Reads what the thread has before we change anything. */
static void see_task(struct allocator *a, struct task *t, struct task_sched *s)
{
	struct kfacade *kf = a->core->kf;
	int nice = 0, ag = 0, ag_nice = 0;

	if (kf->ops->get_nice(kf, t->tid, &nice) < 0)
		return;
	if (kf->ops->get_affinity(kf, t->tid, &s->orig_cpus) < 0)
		return;
	kf->ops->get_autogroup(kf, t->tid, &ag, &ag_nice);
	s->orig_nice = s->nice = nice;
	s->cpus = s->orig_cpus;
	s->autogroup = ag;
	s->seen = true;
	a->changed = true;
}

/* Catches changes made by others (a renice, an affinity the task set
 * itself outside its cpuset): what it has now is what we compare with.
 * (A session is read once per thread: /proc/PID/autogroup costs a file.) */
static void reconcile_task(struct allocator *a, struct task *t, struct task_sched *s)
{
	struct kfacade *kf = a->core->kf;
	int nice;

	if (s->nice_set && kf->ops->get_nice(kf, t->tid, &nice) == 0)
		s->nice = nice;
	if (s->cpus_set)
		kf->ops->get_affinity(kf, t->tid, &s->cpus);
}

/* Whether any thread of the process ran since its CPU time was last read
 * (once a pass: ran caches the answers of this pass). */
static bool process_ran(struct allocator *a, GHashTable *ran, pid_t tgid)
{
	struct kfacade *kf = a->core->kf;
	gpointer key = GINT_TO_POINTER(tgid), cached;
	uint64_t now, *then;
	bool moved;

	if (g_hash_table_lookup_extended(ran, key, NULL, &cached))
		return GPOINTER_TO_INT(cached);
	then = g_hash_table_lookup(a->proc_clock, key);
	if (kf->ops->process_cputime(kf, tgid, &now) < 0) {
		moved = true;
	} else {
		moved = !then || *then != now;
		if (!then) {
			then = g_new(uint64_t, 1);
			g_hash_table_insert(a->proc_clock, key, then);
		}
		*then = now;
	}
	g_hash_table_insert(ran, key, GINT_TO_POINTER(moved));
	return moved;
}

/* Forgets the CPU times of processes that have no managed thread. */
static void forget_processes(struct allocator *a, GPtrArray *tasks)
{
	GHashTable *live = g_hash_table_new(NULL, NULL);
	GHashTableIter iter;
	gpointer tgid;

	for (guint i = 0; i < tasks->len; i++)
		g_hash_table_add(live, GINT_TO_POINTER(((struct task *)tasks->pdata[i])->ident.tgid));
	g_hash_table_iter_init(&iter, a->proc_clock);
	while (g_hash_table_iter_next(&iter, &tgid, NULL))
		if (!g_hash_table_contains(live, tgid))
			g_hash_table_iter_remove(&iter);
	g_hash_table_destroy(live);
}

/* Reads the managed threads' CPU figures, charges them, and tells runnable
 * threads from sleeping ones. A runnable thread is read every pass; a
 * sleeping one every SLEEPER_PASSES passes (a wake-up is seen within that
 * many periods), and not while its process's CPU time has not moved (none
 * of its threads ran, so none woke): reading is what the allocator's time
 * goes to (a /proc read costs 6-14 us on this kind of machine). */
static void sample_tasks(struct allocator *a, GPtrArray *tasks)
{
	struct kfacade *kf = a->core->kf;
	GHashTable *ran = g_hash_table_new(NULL, NULL);

	for (guint i = 0; i < tasks->len; i++) {
		struct task *t = g_ptr_array_index(tasks, i);
		struct task_sched *s = alloc_task_get(a->tasks, t);
		struct task_cputime now;
		uint64_t at;

		/* A runnable thread is read each time: one that waits for a
		 * CPU all period long does not run, but is still runnable. */
		if (s->sampled && !s->runnable) {
			/* Sleepers by process, so a process's clock is read once. */
			if ((unsigned)t->ident.tgid % SLEEPER_PASSES != a->rotation % SLEEPER_PASSES)
				continue;
			if (!process_ran(a, ran, t->ident.tgid))
				continue;
		}
		at = now_ns();
		if (kf->ops->task_cputime(kf, t->ident.tgid, t->tid, &now) < 0)
			continue;
		a->st.samples++;
		if (s->sampled) {
			uint64_t busy = (now.run_ns - MIN(now.run_ns, s->run_ns)) +
					(now.wait_ns - MIN(now.wait_ns, s->wait_ns));
			bool runnable = now.runnable ||
					busy >= RUNNABLE_FRACTION * (double)(at - s->at_ns);

			a->changed |= runnable != s->runnable;
			s->runnable = runnable;
		} else {
			s->runnable = true;	/* until we know better */
		}
		s->sampled = true;
		s->run_ns = now.run_ns;
		s->wait_ns = now.wait_ns;
		s->at_ns = at;
		task_charge(a->core, t, &now);
	}
	g_hash_table_destroy(ran);
}

/* Buckets: threads of one leaf group, one session, one own nice and one
 * runnability share a target weight and are dithered together. */
struct bucket_key {
	uint64_t leaf;
	double weight;
	int autogroup, orig_nice;
	bool runnable;
};

static guint bucket_key_hash(gconstpointer p)
{
	const struct bucket_key *k = p;

	return (guint)(k->leaf * 0x9e3779b97f4a7c15ULL >> 32) ^ (guint)k->autogroup ^
	       ((guint)k->orig_nice << 8) ^ (guint)k->runnable ^ g_double_hash(&k->weight);
}

static gboolean bucket_key_equal(gconstpointer a, gconstpointer b)
{
	const struct bucket_key *x = a, *y = b;

	return x->leaf == y->leaf && x->weight == y->weight && x->autogroup == y->autogroup &&
	       x->orig_nice == y->orig_nice && x->runnable == y->runnable;
}

static struct autogroup *autogroup_of(struct allocator *a, struct task *t,
				      const struct task_sched *s)
{
	gpointer key = GINT_TO_POINTER(s->autogroup);
	struct autogroup *ag = g_hash_table_lookup(a->autogroups, key);

	if (!ag) {
		struct kfacade *kf = a->core->kf;
		int id;

		ag = g_new0(struct autogroup, 1);
		ag->id = s->autogroup;
		ag->tid = t->tid;
		kf->ops->get_autogroup(kf, t->tid, &id, &ag->orig_nice);
		ag->nice = ag->orig_nice;
		g_hash_table_insert(a->autogroups, key, ag);
	}
	if (!ag->buckets)
		ag->buckets = g_array_new(FALSE, TRUE, sizeof(struct nice_bucket));
	ag->tid = t->tid;
	return ag;
}

/* The lowest nice the mapping may give a thread: anything as root, else
 * its own (unprivileged, nice only goes up; a thread already above what it
 * should have keeps its nice). */
static int floor_nice(const struct allocator *a, const struct task_sched *s)
{
	return a->may_lower ? NICE_MIN : s->orig_nice;
}

struct placed {
	struct alloc_target target;
	struct autogroup *ag;
	guint bucket;
	unsigned rank;
};

/* Sorts targets into buckets (by session, leaf group, own nice and
 * runnability, in thread id order for the rotation). */
static GArray *bucket_targets(struct allocator *a, GArray *targets)
{
	GArray *placed = g_array_sized_new(FALSE, FALSE, sizeof(struct placed), targets->len);
	GArray *keys = g_array_sized_new(FALSE, FALSE, sizeof(struct bucket_key), targets->len);
	GHashTable *index = g_hash_table_new(bucket_key_hash, bucket_key_equal);

	for (guint i = 0; i < targets->len; i++) {
		struct alloc_target *tg = &g_array_index(targets, struct alloc_target, i);
		struct autogroup *ag = autogroup_of(a, tg->t, tg->s);
		struct bucket_key k = { tg->leaf->id, tg->weight, ag->id, tg->s->orig_nice,
					tg->runnable };
		struct bucket_key *key;
		gpointer found;
		struct placed p = { *tg, ag, 0, 0 };
		struct nice_bucket *b;

		/* keys never grows past its size: its elements stay put. */
		g_array_append_val(keys, k);
		key = &g_array_index(keys, struct bucket_key, keys->len - 1);
		if (g_hash_table_lookup_extended(index, key, NULL, &found)) {
			p.bucket = GPOINTER_TO_UINT(found);
		} else {
			struct nice_bucket nb = { .weight = tg->weight, .counted = tg->runnable,
						  .min_nice = NICE_MIN };

			p.bucket = ag->buckets->len;
			g_array_append_val(ag->buckets, nb);
			g_hash_table_insert(index, key, GUINT_TO_POINTER(p.bucket));
		}
		b = &g_array_index(ag->buckets, struct nice_bucket, p.bucket);
		p.rank = b->nr++;
		b->min_nice = MAX(b->min_nice, floor_nice(a, tg->s));
		if (tg->runnable)
			ag->weight += tg->weight;
		g_array_append_val(placed, p);
	}
	g_hash_table_destroy(index);
	g_array_unref(keys);
	return placed;
}

/* A session left with no weighed thread gets its autogroup's nice back
 * (through the member last seen; a gone one means the session may be gone
 * too) and is forgotten: it is not tried again every pass, and the table
 * does not keep every session that ever had a managed thread. */
static void forget_autogroups(struct allocator *a)
{
	struct kfacade *kf = a->core->kf;
	GHashTableIter iter;
	struct autogroup *ag;

	g_hash_table_iter_init(&iter, a->autogroups);
	while (g_hash_table_iter_next(&iter, NULL, (gpointer *)&ag)) {
		if (ag->buckets && ag->buckets->len)
			continue;
		if (ag->nice != ag->orig_nice)
			count_call(a, &a->st.autogroup_calls,
				   kf->ops->set_autogroup_nice(kf, ag->tid, ag->orig_nice));
		g_hash_table_iter_remove(&iter);
	}
}

/* Sessions weigh against each other by their autogroup's nice alone. When
 * managed threads run in more than one, each session's nice is set from its
 * runnable threads' total target weight (unprivileged: only upwards from
 * the heaviest, which stays as it is). One session: left as it was. */
static void weigh_autogroups(struct allocator *a)
{
	struct kfacade *kf = a->core->kf;
	GHashTableIter iter;
	struct autogroup *ag;
	unsigned busy = 0;
	double heaviest = 0;

	g_hash_table_iter_init(&iter, a->autogroups);
	while (g_hash_table_iter_next(&iter, NULL, (gpointer *)&ag)) {
		if (ag->weight > 0)
			busy++;
		heaviest = MAX(heaviest, ag->weight);
	}
	g_hash_table_iter_init(&iter, a->autogroups);
	while (g_hash_table_iter_next(&iter, NULL, (gpointer *)&ag)) {
		int want = ag->orig_nice;

		if (busy > 1 && ag->weight > 0)
			want = a->may_lower ? weight_to_nice(ag->weight)
					    : MAX(ag->orig_nice, weight_to_nice(ag->weight * 1024 / heaviest));
		if (want == ag->nice || (busy > 1 && ag->weight == 0))
			continue;
		int ret = kf->ops->set_autogroup_nice(kf, ag->tid, want);

		count_call(a, &a->st.autogroup_calls, ret);
		if (ret == 0) {
			ag->nice = want;
			ag->nice_set = want != ag->orig_nice;
		}
	}
}

static void apply_nice(struct allocator *a, GArray *placed)
{
	GHashTableIter iter;
	struct autogroup *ag;
	double worst = 0;

	g_hash_table_iter_init(&iter, a->autogroups);
	while (g_hash_table_iter_next(&iter, NULL, (gpointer *)&ag))
		if (ag->buckets && ag->buckets->len)
			worst = MAX(worst, nice_map_buckets((struct nice_bucket *)ag->buckets->data,
							    ag->buckets->len, a->may_lower));
	a->st.last_error = worst;
	a->dithering = false;
	for (guint i = 0; i < placed->len; i++) {
		struct placed *p = &g_array_index(placed, struct placed, i);
		struct task *t = p->target.t;
		struct task_sched *s = p->target.s;
		const struct nice_bucket *b =
			&g_array_index(p->ag->buckets, struct nice_bucket, p->bucket);

		a->dithering |= b->nr_heavy != floor(b->nr_heavy);
		/* Unprivileged, dithering would ratchet every nice up to 19. */
		int want = nice_bucket_pick(b, p->rank, a->may_lower ? a->rotation : 0);

		if (!s->seen)
			continue;
		if (!a->may_lower)
			want = MAX(want, s->nice);
		if (want == s->nice)
			continue;
		s->nice_set = true;
		set_nice(a, t->tid, s, want);
	}
}

/* The cgroup's CPUs for a thread in a non-root cpuset; NULL in the root. */
static const struct cpumask *task_cpus(struct allocator *a, struct task *t)
{
	struct css *css;

	if (a->cpus_ssid < 0)
		return NULL;
	css = t->cset->subsys[a->cpus_ssid];
	return css->parent ? css->ss->cpus(css) : NULL;
}

static void apply_cpus(struct allocator *a, struct task *t, struct task_sched *s)
{
	const struct cpumask *want = task_cpus(a, t);

	if (!want) {
		if (s->cpus_set) {
			set_cpus(a, t->tid, s, &s->orig_cpus);
			s->cpus_set = false;
		}
		return;
	}
	if (s->cpus_set && cpumask_equal(&s->cpus, want))
		return;
	/* A thread may narrow its own affinity inside its cpuset: one that is
	 * not what we gave it was set by the thread (or its owner). What we
	 * gave it follows the cpuset, also when the cpuset grows. */
	if (s->cpus_set && !cpumask_equal(&s->cpus, &s->applied_cpus) &&
	    !cpumask_empty(&s->cpus) && cpumask_subset(&s->cpus, want))
		return;
	s->cpus_set = true;
	set_cpus(a, t->tid, s, want);
}

static bool in_weighed_group(struct allocator *a, struct task *t)
{
	return a->weight_ssid >= 0 && t->cset->subsys[a->weight_ssid]->parent;
}

static void end_autogroup_pass(struct allocator *a)
{
	GHashTableIter iter;
	struct autogroup *ag;

	g_hash_table_iter_init(&iter, a->autogroups);
	while (g_hash_table_iter_next(&iter, NULL, (gpointer *)&ag)) {
		if (ag->buckets)
			g_array_set_size(ag->buckets, 0);
		ag->weight = 0;
	}
}

/* Weighs every managed thread and applies nice values and affinities. */
static void place_tasks(struct allocator *a, GPtrArray *tasks)
{
	GArray *targets = g_array_new(FALSE, FALSE, sizeof(struct alloc_target)), *placed;

	if (a->weight_ssid >= 0)
		alloc_weights(a->core, a->weight_ssid, a->tasks, targets);
	placed = bucket_targets(a, targets);
	forget_autogroups(a);
	weigh_autogroups(a);
	apply_nice(a, placed);
	for (guint i = 0; i < tasks->len; i++) {
		struct task *t = g_ptr_array_index(tasks, i);
		struct task_sched *s = alloc_task_get(a->tasks, t);

		if (!s->seen)
			continue;
		if (!in_weighed_group(a, t) && s->nice_set) {
			if (a->may_lower)
				set_nice(a, t->tid, s, s->orig_nice);
			s->nice_set = false;
		}
		apply_cpus(a, t, s);
	}
	end_autogroup_pass(a);
	g_array_unref(placed);
	g_array_unref(targets);
}

void alloc_pass(struct allocator *a, bool sample)
{
	struct cg_core *core = a->core;
	uint64_t start = now_ns();
	GPtrArray *tasks = g_ptr_array_new();
	GHashTableIter iter;
	struct task *t;
	bool reconcile, empty;

	cg_write_lock(&core->lock);
	task_catch_up(core);
	g_hash_table_iter_init(&iter, core->tasks);
	while (g_hash_table_iter_next(&iter, NULL, (gpointer *)&t))
		if (t->cset != core->init_css_set)
			g_ptr_array_add(tasks, t);
	a->st.managed = tasks->len;
	/* Nothing but the roots and no task: the state after a clean-up. */
	empty = !g_hash_table_size(core->tasks) && g_hash_table_size(core->cgroups) == core->roots->len;
	reconcile = sample && a->rotation % RECONCILE_PASSES == 0;
	if (sample) {
		sample_tasks(a, tasks);
		if (reconcile)
			forget_processes(a, tasks);
		a->rotation++;
	}
	for (guint i = 0; i < tasks->len; i++) {
		struct task_sched *s;

		t = g_ptr_array_index(tasks, i);
		s = alloc_task_get(a->tasks, t);
		if (!s->seen)
			see_task(a, t, s);
		else if (reconcile)
			reconcile_task(a, t, s);
	}
	/* Placing costs a walk of every thread: only when something changed
	 * (or a time dither moves on). */
	if (atomic_exchange(&a->stale, false) || a->changed || a->dithering || reconcile) {
		a->changed = false;
		place_tasks(a, tasks);
		a->st.placings++;
	}
	a->st.passes++;
	a->st.last_pass_ns = now_ns() - start;
	a->st.max_pass_ns = MAX(a->st.max_pass_ns, a->st.last_pass_ns);
	cg_write_unlock(&core->lock);
	g_ptr_array_unref(tasks);
	/* The hierarchy just emptied: give back the whole pages malloc keeps
	 * free inside its arenas (it trims only an arena's top by itself);
	 * measured in docs/soak.md. */
	if (empty && !a->empty)
		malloc_trim(0);
	a->empty = empty;
}

static void on_stat(void *data, GString *out);

/* The core's events (core/notify.h): record, kick, and nothing slow but
 * giving back a leaving thread's own nice and affinity at once. */

/* Tasks moved: those now in a group are managed (an entry, so that a
 * fork or an exit finds it); those back in the root of every hierarchy
 * leave management. */
static void on_attach(void *data, struct task *const *tasks, unsigned n,
		      const struct cg_root *root)
{
	struct allocator *a = data;
	struct css_set *init = a->core->init_css_set;

	(void)root;
	for (unsigned i = 0; i < n; i++) {
		struct task_sched *s;

		if (tasks[i]->cset != init)
			alloc_task_get(a->tasks, tasks[i]);
		else if ((s = alloc_task_lookup(a->tasks, tasks[i])))
			restore_task(a, tasks[i]->tid, s);
	}
	alloc_kick(a);
}

static void on_fork(void *data, struct task *parent, struct task *child)
{
	struct allocator *a = data;

	alloc_task_fork(a->tasks, parent, child);
	alloc_kick(a);
}

/* The thread is gone: nothing to give back. */
static void on_task_exit(void *data, struct task *t)
{
	struct allocator *a = data;

	if (g_hash_table_remove(a->tasks, t))
		alloc_kick(a);
}

/* shares, cpus: applied soon. */
static void on_changed(void *data, struct cgroup *cgrp, unsigned file)
{
	(void)cgrp;
	(void)file;
	alloc_kick(data);
}

struct allocator *alloc_new(struct cg_core *core)
{
	struct allocator *a = g_new0(struct allocator, 1);
	struct kfacade *kf = core->kf;

	a->core = core;
	a->weight_ssid = a->cpus_ssid = -1;
	for (unsigned i = 0; i < core->nr_subsys; i++) {
		if (core->subsys[i]->weight && alloc_weight_root(core, (int)i))
			a->weight_ssid = (int)i;
		if (core->subsys[i]->cpus && alloc_weight_root(core, (int)i))
			a->cpus_ssid = (int)i;
	}
	a->may_lower = kf->ops->may_lower_nice(kf);
	if (!a->may_lower)
		g_message("not privileged: nice values can only be raised, never lowered or "
			  "restored, and sessions are weighed only downwards; see cgfused(8)");
	a->autogroups = g_hash_table_new_full(NULL, NULL, NULL, free_autogroup);
	a->proc_clock = g_hash_table_new_full(NULL, NULL, NULL, g_free);
	a->kick_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	a->tasks = alloc_task_table_new();
	a->sub = (struct cg_subscriber){
		.data = a, .attach = on_attach, .fork = on_fork, .exit = on_task_exit,
		.changed = on_changed, .stat = on_stat,
	};
	cg_subscribe(core, &a->sub);
	return a;
}

void alloc_free(struct allocator *a)
{
	struct cg_core *core;
	GHashTableIter iter;
	struct task *t;
	struct task_sched *s;
	struct autogroup *ag;

	if (!a)
		return;
	core = a->core;
	cg_write_lock(&core->lock);
	task_catch_up(core);
	g_hash_table_iter_init(&iter, a->tasks);
	while (g_hash_table_iter_next(&iter, (gpointer *)&t, (gpointer *)&s))
		restore_task(a, t->tid, s);
	g_hash_table_iter_init(&iter, a->autogroups);
	while (g_hash_table_iter_next(&iter, NULL, (gpointer *)&ag))
		if (ag->nice_set)
			core->kf->ops->set_autogroup_nice(core->kf, ag->tid, ag->orig_nice);
	cg_unsubscribe_locked(core, &a->sub);
	cg_write_unlock(&core->lock);
	g_hash_table_destroy(a->tasks);
	g_hash_table_destroy(a->autogroups);
	g_hash_table_destroy(a->proc_clock);
	close(a->kick_fd);
	g_free(a);
}

const struct alloc_stats *alloc_stats(struct allocator *a)
{
	return &a->st;
}

/* What cgfused.stat shows after the core's lines. */
static void on_stat(void *data, GString *out)
{
	const struct allocator *a = data;
	const struct alloc_stats *st = &a->st;

	g_string_append_printf(out,
		"managed_threads %u\n"
		"passes %" G_GUINT64_FORMAT "\n"
		"placings %" G_GUINT64_FORMAT "\n"
		"samples %" G_GUINT64_FORMAT "\n"
		"nice_calls %" G_GUINT64_FORMAT "\n"
		"affinity_calls %" G_GUINT64_FORMAT "\n"
		"autogroup_calls %" G_GUINT64_FORMAT "\n"
		"failed_calls %" G_GUINT64_FORMAT "\n"
		"last_pass_us %" G_GUINT64_FORMAT "\n"
		"max_pass_us %" G_GUINT64_FORMAT "\n"
		"weight_error_ppm %.0f\n"
		"privileged %d\n",
		st->managed, st->passes, st->placings, st->samples, st->nice_calls, st->affinity_calls,
		st->autogroup_calls, st->failed_calls, st->last_pass_ns / 1000,
		st->max_pass_ns / 1000, st->last_error * 1e6, a->may_lower);
}
