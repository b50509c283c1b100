/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The allocator's sampling: the active set (threads sampled every
 * period) and the sleepers, checked by process. */
#include "alloc/alloc_internal.h"

/* The thread is sampled every period from now on (no sample yet). */
void activate(struct allocator *a, struct task_sched *s)
{
	struct active e = { s, 0, 0 };

	if (s->active)
		return;
	s->active = true;
	s->active_index = a->active->len;
	g_array_append_val(a->active, e);
	a->active_peak = MAX(a->active_peak, a->active->len);
}

/* ... no longer: its sample goes (the last entry takes its place). */
void deactivate(struct allocator *a, struct task_sched *s)
{
	struct active *last;

	if (!s->active)
		return;
	s->active = false;
	last = &g_array_index(a->active, struct active, a->active->len - 1);
	if (last->s != s) {
		g_array_index(a->active, struct active, s->active_index) = *last;
		last->s->active_index = s->active_index;
	}
	g_array_set_size(a->active, a->active->len - 1);
}

/* After many threads were sampled every period (a write of a large
 * process's id, placing its threads at once), few are: the array is made
 * anew, not kept at its largest. */
static void shrink_active(struct allocator *a)
{
	GArray *arr = a->active;

	if (a->active_peak <= 1024 || arr->len * 8 >= a->active_peak)
		return;
	a->active = g_array_sized_new(FALSE, FALSE, sizeof(struct active), arr->len);
	g_array_append_vals(a->active, arr->data, arr->len);
	a->active_peak = arr->len;
	g_array_unref(arr);
}

/* The head of the managed threads of process tgid, or NULL. */
struct task_sched *find_head(struct allocator *a, pid_t tgid)
{
	struct task_sched *leader = alloc_task_lookup(a->tasks, tgid);

	if (leader && leader->managed)
		return leader;
	return tidmap_lookup(&a->heads, tgid);
}

/* The process's CPU clock at the last look: its low 32 bits (a clock
 * that moved by exactly a multiple of 2^32 ns between two looks is missed
 * once). */
void read_clock(struct allocator *a, struct task_sched *head)
{
	struct kfacade *kf = cg_core_kf(a->core);
	uint64_t now = 0;

	head->clock_known = kf->ops->process_cputime(kf, head->tgid, &now) == 0;
	head->clock = (uint32_t)now;
}

/* Reads one thread's CPU figures (an active one: its sample is kept in
 * active), tells whether it is runnable, and keeps the sample to charge. A
 * first sample tells little: a new thread counts as runnable, a sleeper
 * that ran (sample_sleepers) as runnable if it is now; each is sampled
 * again next period, and one found asleep then leaves active. */
static void sample_task(struct allocator *a, struct task_sched *s)
{
	struct kfacade *kf = cg_core_kf(a->core);
	struct sched_sample sample = { s->tid, { s->ino, s->tgid }, { 0 } };
	struct active *e = &g_array_index(a->active, struct active, s->active_index);
	uint64_t at = mono_ns(), now_busy;
	bool runnable;

	if (s->exited || kf->ops->task_cputime(kf, s->tgid, s->tid, &sample.now) < 0)
		return;
	a->st.samples++;
	now_busy = sample.now.run_ns + sample.now.wait_ns;
	if (e->at_ns)
		runnable = sample.now.runnable ||
			   now_busy - MIN(now_busy, e->busy_ns) >=
				   RUNNABLE_FRACTION * (double)(at - e->at_ns);
	else
		runnable = !s->sampled || sample.now.runnable;
	a->changed |= s->sampled && runnable != s->runnable;
	alloc_task_set_runnable(s, runnable);
	g_array_append_val(a->charges, sample);
	if (e->at_ns && !runnable) {
		deactivate(a, s);
	} else {
		e->busy_ns = now_busy;
		e->at_ns = at;
	}
	s->sampled = true;
}

/* Sleepers are checked by process: while its CPU clock has not moved none
 * of its threads ran, so none woke. The heads of the processes' lists in
 * turn, walking a quarter of the table a period (at most SLEEPER_WALK
 * threads) and reading at most SLEEPER_BUDGET clocks. */
static void sample_sleepers(struct allocator *a)
{
	struct kfacade *kf = cg_core_kf(a->core);
	guint end = a->cursor + MAX(tidmap_slots(a->tasks) / SLEEPER_PASSES, 1u), read = 0;
	struct task_sched *head;

	for (guint walked = 0; read < SLEEPER_BUDGET && walked < SLEEPER_WALK && a->cursor < end;
	     walked++) {
		uint64_t now = 0;
		bool ran;

		if (!(head = tidmap_next(a->tasks, &a->cursor))) {
			end -= MIN(end, a->cursor);
			a->cursor = 0;	/* round again */
			if (!tidmap_size(a->tasks))
				break;
			continue;
		}
		if (!head->managed || head->proc_prev)
			continue;
		read++;
		ran = kf->ops->process_cputime(kf, head->tgid, &now) < 0 || !head->clock_known ||
		      (uint32_t)now != head->clock;
		head->clock_known = true;
		head->clock = (uint32_t)now;
		breathe(a);
		if (!ran)
			continue;
		for (struct task_sched *s = head; s; s = s->proc_next)
			if (!s->active) {
				activate(a, s);
				sample_task(a, s);
			}
	}
}

/* Reads the runnable threads' CPU figures every period (one that waits
 * for a CPU all period long does not run, but is still runnable), the
 * sleepers' now and then (sample_sleepers), and charges them: reading is
 * what the allocator's time goes to (a /proc read costs 6-14 us on this
 * kind of machine). */
void sample_tasks(struct allocator *a)
{
	/* Backwards: one that leaves active is replaced by one seen already. */
	for (guint i = a->active->len; i-- > 0;) {
		sample_task(a, g_array_index(a->active, struct active, i).s);
		breathe(a);
	}
	sample_sleepers(a);
	shrink_active(a);
	sched_view_charge(a->core, (const struct sched_sample *)a->charges->data, a->charges->len);
	/* Many (the first samples of many new threads): not kept for good. */
	if (a->charges->len > 1024) {
		g_array_unref(a->charges);
		a->charges = g_array_new(FALSE, FALSE, sizeof(struct sched_sample));
	}
	g_array_set_size(a->charges, 0);
}
