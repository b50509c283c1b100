/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The allocator's nice placement: buckets, their mapping to nice values,
 * and the sweep that keeps the sleepers near their targets. */
#include "alloc/alloc_internal.h"

#include <math.h>

static bool bucket_key_equal(const struct bucket_key *x, const struct bucket_key *y)
{
	return x->weight == y->weight && x->autogroup == y->autogroup &&
	       x->orig_nice == y->orig_nice && x->runnable == y->runnable;
}

/* The lowest nice the mapping may give a thread: what its owner could set
 * (unprivileged: what the daemon can set), or its own if lower. Where
 * that is its own and RLIMIT_NICE does not reach it, its nice only goes
 * up (raise_only): the nice it has now, which cannot come down, bounds
 * the mapping, so that the others are raised to keep the ratios (a group
 * whose threads were raised while another had few must not stay behind
 * when the other grows). */
int floor_nice(const struct allocator *a, const struct task_sched *s)
{
	if (raise_only(a, s) && s->nice != NICE_UNKNOWN)
		return MAX(s->orig_nice, s->nice);
	return MIN(s->orig_nice, s->owner_floor);
}

/* The bucket of key in its leaf group g (the few of a group are listed
 * from it, stamped with the placing's number gen): its index in refs, or
 * -1. */
static int find_bucket(GArray *refs, struct alloc_group *g, uint64_t gen,
		       const struct bucket_key *key)
{
	if (g->bucket_gen != gen) {
		g->bucket_gen = gen;
		g->first_bucket = -1;
	}
	for (int r = g->first_bucket; r >= 0; r = g_array_index(refs, struct bucket_ref, r).next)
		if (bucket_key_equal(&g_array_index(refs, struct bucket_ref, r).key, key))
			return r;
	return -1;
}

/* A weighed thread's key: its target weight, session, own nice and
 * runnability. */
static struct bucket_key key_of(struct allocator *a, const struct task_sched *s)
{
	return (struct bucket_key){ alloc_task_weight(&a->groups, s), task_autogroup(s), s->orig_nice,
				    s->runnable };
}

/* The threads a placing walks, one a call from *pos = 0 until NULL: the
 * whole table, or the active threads only. */
static struct task_sched *placing_next(struct allocator *a, bool full, guint *pos)
{
	if (full)
		return alloc_task_next(a->tasks, pos);
	return *pos < a->active->len ? g_array_index(a->active, struct active, (*pos)++).s : NULL;
}

/* A placing's first walk: every weighed thread counted in its bucket (by
 * session, leaf group, own nice and runnability). The second walk
 * (place_nice) finds the same bucket again and takes the next rank in it:
 * neither the table nor the active threads change in between, so both
 * walk them in one order. */
static void bucket_tasks(struct allocator *a, bool full)
{
	GArray *refs = a->bucket_refs;
	uint64_t gen = a->groups.gen;	/* this placing's (alloc_weights_begin) */
	struct task_sched *s;

	g_array_set_size(refs, 0);
	for (guint pos = 0; (s = placing_next(a, full, &pos));) {
		struct alloc_group *g = s->group;
		struct autogroup *ag;
		struct bucket_key k;
		struct bucket_ref *ref;
		struct nice_bucket *b;
		int r;

		if (!s->managed || !g)
			continue;
		breathe_step(a);
		ag = autogroup_of(a, s);
		k = key_of(a, s);
		if ((r = find_bucket(refs, g, gen, &k)) < 0) {
			struct nice_bucket nb = { .weight = k.weight, .counted = k.runnable,
						  .min_nice = NICE_MIN };
			struct bucket_ref nr = { k, ag, ag->buckets->len, 0, g->first_bucket };

			g_array_append_val(ag->buckets, nb);
			r = g->first_bucket = (int)refs->len;
			g_array_append_val(refs, nr);
		}
		ref = &g_array_index(refs, struct bucket_ref, r);
		b = &g_array_index(ag->buckets, struct nice_bucket, ref->bucket);
		b->nr++;
		b->min_nice = MAX(b->min_nice, floor_nice(a, s));
		b->raise_only |= raise_only(a, s);
		if (k.runnable)
			ag->weight += k.weight;
		a->st.placed++;
		ag->floor = MAX(ag->floor, s->owner_floor);
	}
}

/* A sleeping thread's nice matters only when it runs: once placed asleep,
 * it is left alone while it is within a nice step of its target (a placing
 * when a sibling comes or goes does not re-nice every sleeper), and placed
 * exactly again when a sample finds it awake. */
static bool near_enough(struct task_sched *s, int want)
{
	if (s->runnable) {
		s->placed_asleep = false;
		return false;
	}
	if (s->placed_asleep && abs(want - s->nice) <= 1)
		return true;
	s->placed_asleep = true;
	return false;
}

/* Whether a bucket's nice values move from pass to pass: a fractional
 * count of heavy threads is dithered in time, and with a whole count of
 * runnable ones that is not all of them the heavier nice goes round, or
 * equal threads would keep unequal shares for good. */
static bool rotates(const struct nice_bucket *b)
{
	return b->nr_heavy != floor(b->nr_heavy) ||
	       (b->counted && b->nr_heavy > 0 && b->nr_heavy < b->nr);
}

/* Maps every session's buckets to nice values. */
static void map_buckets(struct allocator *a)
{
	GHashTableIter iter;
	struct autogroup *ag;
	double worst = 0;

	g_hash_table_iter_init(&iter, a->autogroups);
	while (g_hash_table_iter_next(&iter, NULL, (gpointer *)&ag)) {
		ag->scale = 1;	/* no runnable thread: what a mapping gives */
		if (ag->buckets && ag->buckets->len)
			worst = MAX(worst, nice_map_buckets((struct nice_bucket *)ag->buckets->data,
							    ag->buckets->len, true, &ag->scale));
	}
	a->st.last_error = worst;
	a->dithering = false;
}

static void apply_nice(struct allocator *a, struct task_sched *s, int want);

/* A weighed thread's nice: its rank in its bucket (bucket_tasks). */
static void place_nice(struct allocator *a, struct task_sched *s)
{
	struct bucket_key k = key_of(a, s);
	int r = find_bucket(a->bucket_refs, s->group, a->groups.gen, &k);
	struct bucket_ref *ref;
	const struct nice_bucket *b;
	int want;

	g_assert(r >= 0);
	ref = &g_array_index(a->bucket_refs, struct bucket_ref, r);
	b = &g_array_index(ref->ag->buckets, struct nice_bucket, ref->bucket);
	a->dithering |= !b->raise_only && rotates(b);
	/* Where nice only goes up, dithering would ratchet it up to 19. */
	want = nice_bucket_pick(b, ref->taken++, b->raise_only ? 0 : a->rotation);
	apply_nice(a, s, want);
}

/* Gives the thread nice want (a sleeper: within a step of it). */
static void apply_nice(struct allocator *a, struct task_sched *s, int want)
{
	if (!s->seen || s->exited)
		return;
	/* A forked child's is unknown (alloc_task_fork). */
	if (s->nice == NICE_UNKNOWN) {
		int nice;

		if (cg_core_kf(a->core)->ops->get_nice(cg_core_kf(a->core), s->tid, &nice) < 0)
			return;
		s->nice = (int8_t)nice;
	}
	if (want < s->nice && !may_lower_to(a, s, want))
		want = s->nice;
	if (near_enough(s, want) || want == s->nice)
		return;
	s->nice_set = true;
	set_nice(a, s, want);
}

/* What a placing gives any managed thread besides its nice: its own nice
 * back if it left its groups, its cpuset's CPUs. */
static void place_rest(struct allocator *a, struct task_sched *s)
{
	if (!s->seen || s->exited)
		return;
	if (!s->group && s->nice_set) {
		if (may_lower_to(a, s, s->orig_nice))
			set_nice(a, s, s->orig_nice);
		s->nice_set = false;
	}
	apply_cpus(a, s);
}

/* Weighs the managed threads and applies nice values and affinities: two
 * walks, the first to count the buckets, the second to pick and apply (no
 * array of the threads is made: the per-task memory goal). Of the whole
 * table (full), or of the active threads: every runnable thread is active,
 * so every runnable bucket is whole and the weights come out the same; the
 * sleepers are left to sweep_sleepers. Only a full walk knows which
 * sessions are left with no thread, to forget them. */
void place_tasks(struct allocator *a, bool full)
{
	struct task_sched *s;

	/* Weighed against the same sums all along: nothing changes them
	 * until the placing ends, breathing included. */
	alloc_weights_begin(&a->groups);
	bucket_tasks(a, full);
	if (full)
		forget_autogroups(a);
	/* The originals on file before anything is changed. */
	if (a->orig)
		alloc_orig_flush(a->orig);
	weigh_autogroups(a, full);
	map_buckets(a);
	for (guint pos = 0; (s = placing_next(a, full, &pos));) {
		if (!s->managed)
			continue;
		breathe_step(a);
		if (s->group)
			place_nice(a, s);
		place_rest(a, s);
	}
	end_autogroup_pass(a, full);
}

/* A sleeper weighed alone (the sweep), at the scale its session's last
 * mapping chose: what the sleepers of its bucket (its group, session and
 * own nice: a placing's bucket) were given in this round so far beyond
 * their targets is taken off its own (error diffusion), so that the
 * bucket's total comes out as a placing's would (three threads at nice 6
 * and one at 7 for four of weight 256, not four at 6). The group keeps
 * one bucket's debt: a sleeper of another starts it afresh (a nice-10
 * thread's rounding is not a nice-0 sibling's to make up). */
static void sweep_nice(struct allocator *a, struct task_sched *s)
{
	struct autogroup *ag = g_hash_table_lookup(a->autogroups,
						   GINT_TO_POINTER(task_autogroup(s)));
	double scale = ag ? ag->scale : 1, aim;
	struct alloc_group *g = s->group;

	if (g->sweep_round != a->sweep_round || g->sweep_autogroup != task_autogroup(s) ||
	    g->sweep_own_nice != s->orig_nice) {
		g->sweep_round = a->sweep_round;
		g->sweep_autogroup = task_autogroup(s);
		g->sweep_own_nice = s->orig_nice;
		g->sweep_debt = 0;
	}
	aim = MAX(alloc_task_weight(&a->groups, s) - g->sweep_debt, 1e-9);
	apply_nice(a, s, nice_map_one(aim, floor_nice(a, s), scale));
	if (s->nice != NICE_UNKNOWN)
		g->sweep_debt = nice_to_weight(s->nice) / scale - aim;
}

/* Keeps the sleepers that no placing walked within a nice step of their
 * targets, and their affinities in their cpusets, after a change that
 * may have moved them (a group made, removed or given other shares, a
 * thread moved in or out of theirs): SWEEP_WALK slots of the table a
 * pass, until a whole round went by with no new change. */
void sweep_sleepers(struct allocator *a)
{
	guint slots = tidmap_slots(a->tasks), pos, end;
	struct task_sched *s;

	if (!a->sweep_left || !slots)
		return;
	pos = a->sweep_pos < slots ? a->sweep_pos : 0;
	end = MIN(slots, pos + MIN(a->sweep_left, SWEEP_WALK));
	a->sweep_left -= MIN(a->sweep_left, end - pos);
	a->sweep_pos = end;
	alloc_weights_begin(&a->groups);
	/* pos is one past the slot of the thread found. */
	while ((s = tidmap_next(a->tasks, &pos)) && pos <= end) {
		if (!s->managed || s->active)
			continue;
		breathe_step(a);
		a->st.swept++;
		if (s->group && s->seen && !s->exited)
			sweep_nice(a, s);
		place_rest(a, s);
	}
}
