/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The allocator's subscriptions (core/notify.h): the core's events, heard
 * under the core lock, and its cgfused.stat lines. */
#include "alloc/alloc_internal.h"

/* The core's events (core/notify.h), under the core lock: mark what
 * changed for the next copy (core/sched_view.h), record, kick. */

/* Tasks moved: one back in the root of every hierarchy gets its own nice
 * and affinity back at the next pass. */
static void on_attach(void *data, struct task *const *tasks, unsigned n,
		      const struct cg_root *root)
{
	struct allocator *a = data;

	(void)root;
	for (unsigned i = 0; i < n; i++)
		sched_view_mark_task(&a->view, tasks[i]);
	alloc_kick(a);
}

static void record(struct allocator *a, bool fork, struct task *parent, struct task *t)
{
	struct alloc_event e = { fork, t->tid, parent ? parent->tid : 0, t->ident };

	g_mutex_lock(&a->events_lock);
	g_array_append_val(a->events, e);
	g_mutex_unlock(&a->events_lock);
	sched_view_mark_task(&a->view, t);
	alloc_kick(a);
}

static void on_fork(void *data, struct task *parent, struct task *child)
{
	record(data, true, parent, child);
}

/* The thread is gone: nothing to give back. */
static void on_task_exit(void *data, struct task *t)
{
	record(data, false, NULL, t);
}

/* Shares, cpus: applied soon. Other files change nothing of ours. */
static void on_changed(void *data, struct cgroup *cgrp, unsigned file)
{
	struct allocator *a = data;
	const struct cg_file *f = cg_root_file(cgrp->root, file);

	/* v2: a group's CPUs are its descendants' too (an empty cpuset.cpus
	 * is the parent's), and a partition takes CPUs from its siblings. */
	if ((f->cft->flags & CFTYPE_CSS_MAP) ||
	    (f->ssid >= 0 && f->ssid == a->cpus_ssid && cg_root_dfl(cgrp->root))) {
		sched_view_mark_all(&a->view);
		alloc_kick(a);
		return;
	}
	if (f->ssid < 0 || (f->ssid != a->weight_ssid && f->ssid != a->cpus_ssid))
		return;
	sched_view_mark_group(&a->view, cgrp);
	alloc_kick(a);
}

/* A group made or about to be removed: its parent's sums change. */
static void on_group(void *data, struct cgroup *cgrp)
{
	struct allocator *a = data;

	sched_view_mark_group(&a->view, cgrp);
	alloc_kick(a);
}

/* What cgfused.stat shows after the core's lines. */
static void on_stat(void *data, GString *out)
{
	struct allocator *a = data;
	struct alloc_stats st;
	uint64_t p50, p99, p99_cpu;
	char lowest[8] = "own";	/* only raised from each thread's own */

	if (a->nice_lowest <= NICE_MAX)
		g_snprintf(lowest, sizeof(lowest), "%d", a->nice_lowest);
	g_mutex_lock(&a->shown_lock);
	st = a->shown;
	p50 = a->p50_ns;
	p99 = a->p99_ns;
	p99_cpu = a->p99_cpu_ns;
	g_mutex_unlock(&a->shown_lock);
	g_string_append_printf(out,
		"managed_threads %u\n"
		"passes %" G_GUINT64_FORMAT "\n"
		"placings %" G_GUINT64_FORMAT "\n"
		"full_placings %" G_GUINT64_FORMAT "\n"
		"placed_threads %" G_GUINT64_FORMAT "\n"
		"swept_threads %" G_GUINT64_FORMAT "\n"
		"samples %" G_GUINT64_FORMAT "\n"
		"nice_calls %" G_GUINT64_FORMAT "\n"
		"affinity_calls %" G_GUINT64_FORMAT "\n"
		"autogroup_calls %" G_GUINT64_FORMAT "\n"
		"failed_calls %" G_GUINT64_FORMAT "\n"
		"last_pass_us %" G_GUINT64_FORMAT "\n"
		"max_pass_us %" G_GUINT64_FORMAT "\n"
		"p50_pass_us %" G_GUINT64_FORMAT "\n"
		"p99_pass_us %" G_GUINT64_FORMAT "\n"
		"last_pass_cpu_us %" G_GUINT64_FORMAT "\n"
		"p99_pass_cpu_us %" G_GUINT64_FORMAT "\n"
		"max_pass_cpu_us %" G_GUINT64_FORMAT "\n"
		"weight_error_ppm %.0f\n"
		"autogroups_left_alone %u\n"
		"affinity_escapes %" G_GUINT64_FORMAT "\n"
		"view_copied_groups %" G_GUINT64_FORMAT "\n"
		"view_copied_tasks %" G_GUINT64_FORMAT "\n"
		"weighed_groups %u\n"
		"yields %" G_GUINT64_FORMAT "\n"
		"privileged %d\n"
		"nice_range %s 19\n",
		st.managed, st.passes, st.placings, st.full_placings, st.placed, st.swept,
		st.samples, st.nice_calls, st.affinity_calls,
		st.autogroup_calls, st.failed_calls, st.last_pass_ns / 1000,
		st.max_pass_ns / 1000, p50 / 1000, p99 / 1000, st.last_pass_cpu_ns / 1000,
		p99_cpu / 1000,
		st.max_pass_cpu_ns / 1000, st.last_error * 1e6,
		st.autogroups_left_alone, st.escapes, st.copied_groups, st.copied_tasks,
		st.weighed_groups, st.yields, a->may_lower, lowest);
}

struct cg_subscriber alloc_subscriber(struct allocator *a)
{
	return (struct cg_subscriber){
		.data = a, .attach = on_attach, .fork = on_fork, .exit = on_task_exit,
		.changed = on_changed, .mkdir = on_group, .removing = on_group, .stat = on_stat,
	};
}
