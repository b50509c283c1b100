/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A subtree's threads sampled with the core lock let go over /proc. */
#include "core/task_sample.h"

#include <stdatomic.h>

#include "core/css_set.h"
#include "core/internal.h"
#include "core/task.h"
#include "core/task_catch_up.h"

struct sample {
	pid_t tid;
	struct task_ident ident;
	uint64_t charged_proc_ns;	/* as it was when copied */
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
			struct sample s = { .tid = t->tid, .ident = t->ident,
					    .charged_proc_ns = t->charged_proc_ns };

			g_array_append_val(out, s);
		}
	return 0;
}

/* Called unlocked: one clock read, not two /proc files, when the process
 * did not run since the thread was charged (as task_account). */
static void read_sample(struct kfacade *kf, struct sample *s)
{
	if (kf->ops->process_cputime(kf, s->ident.tgid, &s->proc_ns) < 0)
		s->proc_ns = UINT64_MAX;
	else if (s->proc_ns == s->charged_proc_ns)
		return;
	s->read = kf->ops->task_cputime(kf, s->ident.tgid, s->tid, &s->now) == 0;
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

void task_sample_subtree_within(struct cg_core *core, uint64_t cgrp_id, uint64_t share_ns)
{
	struct kfacade *kf = core->kf;
	GArray *samples = g_array_new(FALSE, FALSE, sizeof(struct sample));
	struct cgroup *cgrp;
	uint64_t now = kf->ops->boottime_ns(kf);
	unsigned slot;

	cg_catch_up_if_pending(core);
	slot = cg_read_lock(&core->lock);
	cgrp = cgroup_by_id(core, cgrp_id);
	/* A root's figures are the system's: nothing to sample. Of readers
	 * that come at once, the one that swaps sampled_ns samples. */
	if (cgrp && cgrp->parent && claim_sample(cgrp, now, share_ns))
		css_for_each_descendant_pre(&cgrp->self, copy_cgroup, samples);
	cg_read_unlock(&core->lock, slot);
	if (!samples->len)
		goto out;

	for (guint i = 0; i < samples->len; i++)
		read_sample(kf, &g_array_index(samples, struct sample, i));

	task_pull_if_pending(core);
	cg_write_lock(&core->lock);
	task_catch_up(core);
	for (guint i = 0; i < samples->len; i++) {
		struct sample *s = &g_array_index(samples, struct sample, i);
		struct task *t = task_lookup(core, s->tid);

		/* Gone, or a reused id: a new thread, not the one read. */
		if (!s->read || !t || t->ident.ino != s->ident.ino ||
		    s->now.run_ns < t->charged.run_ns)	/* a move charged since */
			continue;
		task_charge(core, t, &s->now);
		t->charged_proc_ns = s->proc_ns;
	}
	cg_write_unlock(&core->lock);
out:
	g_array_unref(samples);
}

void task_sample_subtree(struct cg_core *core, uint64_t cgrp_id)
{
	task_sample_subtree_within(core, cgrp_id, TASK_SAMPLE_SHARE_NS);
}
