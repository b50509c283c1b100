/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A subtree's threads sampled with the core lock let go over /proc. */
#include "core/task_sample.h"

#include <stdatomic.h>

#include "core/css_set.h"
#include "core/internal.h"
#include "core/task.h"
#include "core/task_catch_up.h"

/* Threads charged per write-locked stretch: a move waits for at most
 * this many charges, not a 2000-thread group's. */
#define CHARGE_BATCH 128

/* What is copied of each thread under the read lock: no more (a copy
 * of a 2000-thread group is a walk the moves wait for). */
struct member {
	pid_t tid;
	struct task_ident ident;
	uint64_t charged_proc_ns;	/* as it was when copied */
};

/* A group's members as last copied, for as long as members_gen stays;
 * charged_proc_ns as this sampler last charged them. Only the group's
 * one sampler at a time (core->sampling) uses it. */
struct copy {
	uint64_t gen;
	GArray *members;		/* struct member */
};

/* So many groups' copies are kept at most: a reader of each of 20,000
 * groups would keep them all. */
#define COPIES_MAX 64

static void copy_free(gpointer p)
{
	struct copy *c = p;

	g_array_unref(c->members);
	g_free(c);
}

GHashTable *task_sample_copies_new(void)
{
	return g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, copy_free);
}

static gboolean not_sampled(gpointer id, gpointer copy, gpointer sampling)
{
	(void)copy;
	return !g_hash_table_contains(sampling, id);
}

/* The group's copy, made (empty) if there is none. Called by the group's
 * sampler; the copies of groups being sampled are not dropped. */
static struct copy *copy_of(struct cg_core *core, uint64_t cgrp_id)
{
	struct copy *c;

	g_mutex_lock(&core->sample_lock);
	c = g_hash_table_lookup(core->sample_copies, &cgrp_id);
	if (!c) {
		if (g_hash_table_size(core->sample_copies) >= COPIES_MAX)
			g_hash_table_foreach_remove(core->sample_copies, not_sampled,
						    core->sampling);
		c = g_new0(struct copy, 1);
		c->gen = UINT64_MAX;
		c->members = g_array_new(FALSE, FALSE, sizeof(struct member));
		g_hash_table_insert(core->sample_copies, g_memdup2(&cgrp_id, sizeof(cgrp_id)), c);
	}
	g_mutex_unlock(&core->sample_lock);
	return c;
}

/* What is read of it without the lock. */
struct sample {
	uint64_t proc_ns;		/* its process's CPU time now */
	struct task_cputime now;
	bool read;			/* now holds new figures */
};

static int copy_cgroup(struct css *css, void *data)
{
	GArray *out = data;
	const struct task *t;

	for (GList *l = css->cgroup->csets.head; l; l = l->next)
		css_set_for_each_task(t, (struct css_set *)l->data) {
			struct member m = { t->tid, t->ident, t->charged_proc_ns };

			g_array_append_val(out, m);
		}
	return 0;
}

/* Called unlocked. A thread is read (two /proc files) only when its
 * process's clock moved since it was charged (as task_account); and that
 * clock is read once per process: the kernel sums every thread of the
 * process for it, so a read per thread of a 2000-thread process costs
 * 2000 x 2000 steps. A group of sleepers costs a clock read a process.
 * Returns whether any thread was read. */
static bool read_samples(struct kfacade *kf, GArray *members, struct sample *samples)
{
	GHashTable *clocks = g_hash_table_new_full(NULL, NULL, NULL, g_free);
	bool any = false;

	for (guint i = 0; i < members->len; i++) {
		const struct member *m = &g_array_index(members, struct member, i);
		struct sample *s = &samples[i];
		uint64_t *clock = g_hash_table_lookup(clocks, GINT_TO_POINTER(m->ident.tgid));

		if (!clock) {
			clock = g_new(uint64_t, 1);
			if (kf->ops->process_cputime(kf, m->ident.tgid, clock) < 0)
				*clock = UINT64_MAX;
			g_hash_table_insert(clocks, GINT_TO_POINTER(m->ident.tgid), clock);
		}
		s->proc_ns = *clock;
		if (s->proc_ns == m->charged_proc_ns)
			continue;
		s->read = kf->ops->task_cputime(kf, m->ident.tgid, m->tid, &s->now) == 0;
		any |= s->read;
	}
	g_hash_table_unref(clocks);
	return any;
}

/* Whether this reader samples cgrp now (no sample shared within the last
 * share_ns): called read-locked, so sampled_ns is an atomic. */
static bool claim_sample(struct cgroup *cgrp, uint64_t now, uint64_t share_ns)
{
	uint64_t last = atomic_load_explicit(&cgrp->sampled_ns, memory_order_relaxed);

	return now - last >= share_ns &&
	       atomic_compare_exchange_strong_explicit(&cgrp->sampled_ns, &last, now,
						       memory_order_relaxed, memory_order_relaxed);
}

/* Charges the threads read, a batch per write-locked stretch. */
static void charge_samples(struct cg_core *core, GArray *members, const struct sample *samples)
{
	guint i = 0;

	while (i < members->len) {
		guint end = MIN(i + CHARGE_BATCH, members->len);

		for (; i < end && !samples[i].read; i++)
			;
		if (i == end)
			continue;
		task_pull_if_pending(core);
		cg_write_lock(&core->lock);
		task_catch_up(core);
		for (; i < end; i++) {
			const struct member *m = &g_array_index(members, struct member, i);
			const struct sample *s = &samples[i];
			struct task *t;

			if (!s->read)
				continue;
			t = task_lookup(core, m->tid);
			/* Gone, or a reused id: a new thread, not the one read. */
			if (!t || t->ident.ino != m->ident.ino ||
			    s->now.run_ns < t->charged.run_ns)	/* a move charged since */
				continue;
			task_charge(core, t, &s->now);
			t->charged_proc_ns = s->proc_ns;
		}
		cg_write_unlock(&core->lock);
	}
}

static void sample_now(struct cg_core *core, uint64_t cgrp_id, uint64_t share_ns)
{
	struct kfacade *kf = core->kf;
	struct copy *copy = copy_of(core, cgrp_id);
	GArray *members = copy->members;
	struct cgroup *cgrp;
	uint64_t now = kf->ops->boottime_ns(kf);
	bool claimed = false;
	unsigned slot;

	cg_catch_up_if_pending(core);
	slot = cg_read_lock(&core->lock);
	cgrp = cgroup_by_id(core, cgrp_id);
	/* A root's figures are the system's: nothing to sample. */
	if (cgrp && cgrp->parent && claim_sample(cgrp, now, share_ns)) {
		claimed = true;
		if (copy->gen != cgrp->members_gen) {
			g_array_set_size(members, 0);
			css_for_each_descendant_pre(&cgrp->self, copy_cgroup, members);
			copy->gen = cgrp->members_gen;
		}
	}
	cg_read_unlock(&core->lock, slot);
	if (claimed && members->len) {
		struct sample *samples = g_new0(struct sample, members->len);

		if (read_samples(kf, members, samples))
			charge_samples(core, members, samples);
		/* What was read is charged now (or was by a move since). */
		for (guint i = 0; i < members->len; i++)
			if (samples[i].read)
				g_array_index(members, struct member, i).charged_proc_ns =
					samples[i].proc_ns;
		g_free(samples);
	}
}

void task_sample_subtree_within(struct cg_core *core, uint64_t cgrp_id, uint64_t share_ns)
{
	gpointer ticket;
	uint64_t mine;

	/* Of readers that come while the group is being sampled, none
	 * samples: each waits for the sample under way and uses it. */
	g_mutex_lock(&core->sample_lock);
	ticket = g_hash_table_lookup(core->sampling, &cgrp_id);
	if (ticket) {
		while (g_hash_table_lookup(core->sampling, &cgrp_id) == ticket)
			g_cond_wait(&core->sample_done, &core->sample_lock);
		g_mutex_unlock(&core->sample_lock);
		return;
	}
	mine = ++core->sample_tickets;
	g_hash_table_insert(core->sampling, &cgrp_id, GSIZE_TO_POINTER(mine));
	g_mutex_unlock(&core->sample_lock);

	sample_now(core, cgrp_id, share_ns);

	g_mutex_lock(&core->sample_lock);
	g_hash_table_remove(core->sampling, &cgrp_id);
	g_cond_broadcast(&core->sample_done);
	g_mutex_unlock(&core->sample_lock);
}

void task_sample_subtree(struct cg_core *core, uint64_t cgrp_id)
{
	task_sample_subtree_within(core, cgrp_id, TASK_SAMPLE_SHARE_NS);
}
