/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The quota enforcer: see enforce/quota.h. */
#include "enforce/quota.h"

#include <errno.h>
#include <stdatomic.h>

#include "core/core_call.h"
#include "core/css_set.h"
#include "core/notify.h"
#include "core/task.h"
#include "core/task_sample.h"
#include "core/task_catch_up.h"
#include "ctl/cpu.h"
#include "ctl/ctl.h"
#include "lib/kick.h"
#include "enforce/quota_period.h"

/* While stopped threads are on their way to a stop, or a traced thread
 * exited (to reap), passes come this often. */
#define QUOTA_POLL_NS 1000000ULL

/* A group with a quota, as copied under the lock. */
struct capped {
	uint64_t id;
	int parent;			/* the nearest capped ancestor, or -1 */
	uint64_t quota, period, burst;
	uint64_t writes;		/* cpu_cfs_writes() */
	bool hold;			/* it or a capped ancestor is throttled */
};

/* A group under a capped one (itself included), for cpu.stat.local. */
struct held {
	uint64_t id;
	int capped;			/* its nearest capped ancestor-or-self */
};

/* A capped group's period, for the settings written writes times. */
struct bandwidth {
	uint64_t writes;
	struct quota_period p;
};

/* A thread of a capped subtree. */
struct member {
	pid_t tid;
	struct task_ident ident;
	int capped;
};

struct quota_enforcer {
	struct cg_core *core;
	struct tracees *tr;
	struct cg_subscriber sub;
	int ssid;			/* the cpu controller's */
	/* Set under the core lock by the subscriber. */
	atomic_bool config_stale;	/* a cpu file was written, a group removed */
	atomic_bool members_stale;	/* threads moved, forked or exited */
	atomic_uint nr_capped;
	atomic_bool exited;
	struct kick kick;
	/* The thread's own. */
	bool walked;			/* the hierarchy was walked once */
	GArray *capped;			/* struct capped, parents first */
	GArray *held;			/* struct held */
	GArray *members;		/* struct member */
	GArray *usage;			/* uint64_t: each capped group's, last sample */
	GHashTable *periods;		/* id -> struct bandwidth * */
	GHashTable *marks;		/* held group id -> struct mark * */
	GHashTable *clocks;		/* the members' tgid -> CPU clock, last pass */
	bool retry;			/* a new throttle: try refused threads again */
	struct quota_stats st;
	GMutex shown_lock;		/* after the core lock */
	struct quota_stats shown;
};

int quota_kick_fd(struct quota_enforcer *qe)
{
	return kick_fd(&qe->kick);
}

void quota_kick_clear(struct quota_enforcer *qe)
{
	kick_clear(&qe->kick);
}

static void kick(struct quota_enforcer *qe)
{
	kick_wake(&qe->kick);
}

/* ---- the core's events, under its lock: record and kick --------------- */

static void members_changed(struct quota_enforcer *qe)
{
	if (atomic_load(&qe->nr_capped) || tracees_nr_held(qe->tr, TRACEE_THROTTLED)) {
		atomic_store(&qe->members_stale, true);
		kick(qe);
	}
}

static void on_attach(void *data, struct task *const *tasks, unsigned n,
		      const struct cg_root *root)
{
	(void)tasks;
	(void)n;
	(void)root;
	members_changed(data);
}

static void on_fork(void *data, struct task *parent, struct task *child)
{
	(void)parent;
	(void)child;
	members_changed(data);
}

static void on_task_exit(void *data, struct task *t)
{
	struct quota_enforcer *qe = data;

	(void)t;
	if (atomic_load(&qe->nr_capped))
		atomic_store(&qe->members_stale, true);
	if (tracees_nr_held(qe->tr, TRACEE_THROTTLED)) {
		atomic_store(&qe->exited, true);
		kick(qe);
	}
}

static void on_changed(void *data, struct cgroup *cgrp, unsigned file)
{
	struct quota_enforcer *qe = data;
	const struct cg_file *f;

	if (file >= cg_root_nr_files(cgrp->root))
		return;
	f = cg_root_file(cgrp->root, file);
	if (f->ssid == qe->ssid) {
		atomic_store(&qe->config_stale, true);
		kick(qe);
	}
}

static void on_rmdir(void *data, struct cgroup *parent, const char *name)
{
	struct quota_enforcer *qe = data;

	(void)parent;
	(void)name;
	if (atomic_load(&qe->nr_capped)) {
		atomic_store(&qe->config_stale, true);
		kick(qe);
	}
}

static void on_stat(void *data, GString *out)
{
	struct quota_enforcer *qe = data;
	struct quota_stats st;

	g_mutex_lock(&qe->shown_lock);
	st = qe->shown;
	g_mutex_unlock(&qe->shown_lock);
	g_string_append_printf(out,
		"quota_capped_groups %u\n"
		"quota_throttled_groups %u\n"
		"quota_stopped_threads %u\n"
		"quota_refused_threads %u\n"
		"quota_passes %" G_GUINT64_FORMAT "\n"
		"quota_throttles %" G_GUINT64_FORMAT "\n",
		st.capped, st.throttled, st.stopped, st.refused, st.passes, st.throttles);
}

/* ---- copying the capped groups, read-locked ---------------------------- */

struct walk {
	struct quota_enforcer *qe;
	GHashTable *inner;		/* struct css * -> nearest capped index + 1 */
};

static int visit(struct css *css, void *data)
{
	struct walk *w = data;
	struct quota_enforcer *qe = w->qe;
	int inner;
	const struct task *t;

	if (!css->parent)
		return 0;
	inner = GPOINTER_TO_INT(g_hash_table_lookup(w->inner, css->parent)) - 1;
	if (cpu_cfs_quota(css) != CPU_RUNTIME_INF) {
		struct capped c = { css->cgroup->id, inner, cpu_cfs_quota(css),
				    cpu_cfs_period(css), cpu_cfs_burst(css),
				    cpu_cfs_writes(css), false };

		g_array_append_val(qe->capped, c);
		inner = (int)qe->capped->len - 1;
	}
	g_hash_table_insert(w->inner, css, GINT_TO_POINTER(inner + 1));
	if (inner < 0)
		return 0;
	g_array_append_val(qe->held, ((struct held){ css->cgroup->id, inner }));
	for (GList *l = css->cgroup->csets.head; l; l = l->next)
		css_set_for_each_task(t, (struct css_set *)l->data) {
			struct member mb = { t->tid, t->ident, inner };

			g_array_append_val(qe->members, mb);
		}
	return 0;
}

/* The outer capped groups' css now, or false if one is gone. */
static bool outer_css(struct quota_enforcer *qe, GPtrArray *out)
{
	for (guint i = 0; i < qe->capped->len; i++) {
		const struct capped *c = &g_array_index(qe->capped, struct capped, i);
		struct cgroup *cgrp;

		if (c->parent >= 0)
			continue;
		cgrp = cgroup_by_id(qe->core, c->id);
		if (!cgrp)
			return false;
		g_ptr_array_add(out, cgrp->subsys[qe->ssid]);
	}
	return true;
}

struct copy {
	struct walk w;
	GPtrArray *from;		/* the css walked from */
	bool config;			/* a setting changed: from every top */
};

static void copy_capped_locked(struct cg_core *core, void *data)
{
	struct copy *c = data;
	struct quota_enforcer *qe = c->w.qe;

	if (c->config || !outer_css(qe, c->from)) {
		g_ptr_array_set_size(c->from, 0);
		for (guint r = 0; r < cg_core_nr_roots(core); r++) {
			struct cg_root *root = cg_core_root(core, r);

			if (cg_root_subsys_mask(root) & (1u << qe->ssid))
				g_ptr_array_add(c->from, cg_root_top(root)->subsys[qe->ssid]);
		}
	}
	g_array_set_size(qe->capped, 0);
	g_array_set_size(qe->held, 0);
	g_array_set_size(qe->members, 0);
	for (guint i = 0; i < c->from->len; i++)
		css_for_each_descendant_pre(c->from->pdata[i], visit, &c->w);
}

/* The capped groups and their threads, after the kernel's reports are
 * taken in. A changed setting walks the whole hierarchy; a change of
 * members only the capped subtrees. */
static void copy_capped(struct quota_enforcer *qe)
{
	bool config = atomic_exchange(&qe->config_stale, false) || !qe->walked;
	bool members = atomic_exchange(&qe->members_stale, false);
	struct copy c = { { qe, g_hash_table_new(NULL, NULL) }, g_ptr_array_new(), config };

	cg_catch_up_if_pending(qe->core);
	if (!config && !members)
		goto out;
	cg_core_read(qe->core, copy_capped_locked, &c);
	qe->walked = true;
	atomic_store(&qe->nr_capped, qe->capped->len);
out:
	g_ptr_array_unref(c.from);
	g_hash_table_unref(c.w.inner);
}

/* Periods for the groups copied, kept for those whose settings were not
 * written since (keyed by a copy of the id: the arrays are made anew).
 * A written one starts owing nothing from this pass's sample, as the
 * kernel refills the runtime at a write: what ran before is not its. */
static void sync_periods(struct quota_enforcer *qe, uint64_t now, const uint64_t *usage)
{
	GHashTable *keep = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, g_free);

	for (guint i = 0; i < qe->capped->len; i++) {
		struct capped *c = &g_array_index(qe->capped, struct capped, i);
		struct bandwidth *b = g_hash_table_lookup(qe->periods, &c->id);
		gpointer key;

		if (b && b->writes == c->writes &&
		    g_hash_table_steal_extended(qe->periods, &c->id, &key, NULL)) {
			g_free(key);
		} else {
			b = g_new(struct bandwidth, 1);
			b->writes = c->writes;
			quota_period_init(&b->p, c->quota, c->period, c->burst, now, usage[i]);
		}
		g_hash_table_insert(keep, g_memdup2(&c->id, sizeof(c->id)), b);
	}
	g_hash_table_unref(qe->periods);
	qe->periods = keep;
}

static struct quota_period *period_of(struct quota_enforcer *qe, guint i)
{
	struct bandwidth *b = g_hash_table_lookup(qe->periods,
						  &g_array_index(qe->capped, struct capped, i).id);

	return b ? &b->p : NULL;
}

/* ---- sampling and figures ----------------------------------------------- */

/* The core's accounting, fresh for the outer groups that want it; then
 * each capped group's usage (0 for one gone meanwhile). */
struct usage {
	struct quota_enforcer *qe;
	uint64_t *usage;		/* each capped group's */
};

static void read_usage_locked(struct cg_core *core, void *data)
{
	struct usage *u = data;
	struct quota_enforcer *qe = u->qe;

	for (guint i = 0; i < qe->capped->len; i++) {
		struct cgroup *cgrp = cgroup_by_id(core,
						   g_array_index(qe->capped, struct capped, i).id);

		u->usage[i] = cgrp ? cpu_usage(cgrp->subsys[qe->ssid]) : 0;
	}
}

/* Whether a thread of a capped group may have run since the last pass:
 * one CPU clock read a member process. When none moved, a sample would
 * charge nothing, and its copy of every member under the core lock is
 * spared (a capped group of sleepers costs a clock read a process). */
static bool members_ran(struct quota_enforcer *qe)
{
	struct kfacade *kf = cg_core_kf(qe->core);
	GHashTable *clocks = g_hash_table_new_full(NULL, NULL, NULL, g_free);
	bool ran = false;

	for (guint i = 0; i < qe->members->len; i++) {
		pid_t tgid = g_array_index(qe->members, struct member, i).ident.tgid;
		uint64_t *clock, *last;

		if (g_hash_table_contains(clocks, GINT_TO_POINTER(tgid)))
			continue;
		clock = g_new(uint64_t, 1);
		if (kf->ops->process_cputime(kf, tgid, clock) < 0)
			*clock = UINT64_MAX;
		last = g_hash_table_lookup(qe->clocks, GINT_TO_POINTER(tgid));
		ran |= !last || *last != *clock;
		g_hash_table_insert(clocks, GINT_TO_POINTER(tgid), clock);
	}
	ran |= g_hash_table_size(clocks) != g_hash_table_size(qe->clocks);
	g_hash_table_unref(qe->clocks);
	qe->clocks = clocks;
	return ran;
}

static void sample(struct quota_enforcer *qe, uint64_t now, uint64_t *usage)
{
	bool ran = members_ran(qe);

	for (guint i = 0; ran && i < qe->capped->len; i++) {
		const struct capped *c = &g_array_index(qe->capped, struct capped, i);
		struct bandwidth *b = g_hash_table_lookup(qe->periods, &c->id);

		/* Fresh for a new quota too, throttled before: its start. */
		if (c->parent < 0 && (!b || b->writes != c->writes ||
				      quota_period_wants_sample(&b->p, now)))
			task_sample_subtree_within(qe->core, c->id, 0);
	}
	cg_core_read(qe->core, read_usage_locked, &(struct usage){ qe, usage });
}

/* cpu.stat.local: the time each group under a capped one was held. */
struct mark {
	uint64_t id;
	uint64_t ns;			/* counted up to */
};

static void count_local(struct quota_enforcer *qe, uint64_t now, GHashTable *local)
{
	GHashTable *marks = g_hash_table_new_full(g_int64_hash, g_int64_equal, NULL, g_free);

	for (guint i = 0; i < qe->held->len; i++) {
		const struct held *h = &g_array_index(qe->held, struct held, i);
		struct mark *old = g_hash_table_lookup(qe->marks, &h->id), *m;

		/* Held since the last pass: counted up to now, whether it
		 * is still held or was let go now. */
		if (old)
			g_hash_table_insert(local, (gpointer)&h->id,
					    GSIZE_TO_POINTER(now - old->ns));
		if (!g_array_index(qe->capped, struct capped, h->capped).hold)
			continue;
		m = g_new(struct mark, 1);
		*m = (struct mark){ h->id, now };
		g_hash_table_insert(marks, &m->id, m);
	}
	g_hash_table_unref(qe->marks);
	qe->marks = marks;
}

struct figures {
	struct quota_enforcer *qe;
	const struct cfs_bandwidth_stat *d;	/* each capped group's */
	GHashTable *local;			/* id -> throttled_time_local */
};

static void publish_figures_locked(struct cg_core *core, void *data)
{
	struct figures *f = data;
	struct quota_enforcer *qe = f->qe;
	GHashTableIter iter;
	gpointer id, ns;

	for (guint i = 0; i < qe->capped->len; i++) {
		struct cgroup *cgrp = cgroup_by_id(core,
						   g_array_index(qe->capped, struct capped, i).id);

		if (cgrp)
			cpu_bandwidth_add(cgrp->subsys[qe->ssid], &f->d[i]);
	}
	g_hash_table_iter_init(&iter, f->local);
	while (g_hash_table_iter_next(&iter, &id, &ns)) {
		struct cgroup *cgrp = cgroup_by_id(core, *(uint64_t *)id);
		struct cfs_bandwidth_stat l = { .throttled_time_local = GPOINTER_TO_SIZE(ns) };

		if (cgrp)
			cpu_bandwidth_add(cgrp->subsys[qe->ssid], &l);
	}
}

/* Adds the pass's figures to the controller's, read-locked (atomics). */
static void publish_figures(struct quota_enforcer *qe, const struct cfs_bandwidth_stat *d,
			    GHashTable *local)
{
	cg_core_read(qe->core, publish_figures_locked, &(struct figures){ qe, d, local });
}

/* ---- stopping and resuming threads, with no lock ----------------------- */

/* Holds the members of held groups, lets the others go (once stopped,
 * and unless frozen). Returns whether some are on their way to a stop. */
static bool apply(struct quota_enforcer *qe)
{
	struct tracees_count c;

	tracees_begin(qe->tr, TRACEE_THROTTLED);
	for (guint i = 0; i < qe->members->len; i++) {
		const struct member *m = &g_array_index(qe->members, struct member, i);

		if (g_array_index(qe->capped, struct capped, m->capped).hold)
			tracees_hold(qe->tr, m->tid, &m->ident, TRACEE_THROTTLED, qe->retry);
	}
	qe->retry = false;
	tracees_end(qe->tr, TRACEE_THROTTLED);
	tracees_count(qe->tr, TRACEE_THROTTLED, &c);
	qe->st.stopped = c.stopped;
	qe->st.refused = c.refused;
	return tracees_stopping(qe->tr);
}

static void publish(struct quota_enforcer *qe)
{
	qe->st.capped = qe->capped->len;
	g_mutex_lock(&qe->shown_lock);
	qe->shown = qe->st;
	g_mutex_unlock(&qe->shown_lock);
}

/* Ends the periods (or with ended, only those of throttled groups whose
 * period ended), adding to d, and finds the groups held. Returns when a
 * pass is next due for them. */
static uint64_t update_periods(struct quota_enforcer *qe, uint64_t now, const uint64_t *usage,
			       struct cfs_bandwidth_stat *d, bool ended)
{
	uint64_t next = QUOTA_NO_PASS;
	bool newly_held = false;

	qe->st.throttled = 0;
	for (guint i = 0; i < qe->capped->len; i++) {
		struct capped *c = &g_array_index(qe->capped, struct capped, i);
		struct quota_period *p = period_of(qe, i);
		bool was = p->throttled;

		if (!ended || (p->throttled && now >= p->start + p->period))
			next = MIN(next, quota_period_update(p, now, usage[i], &d[i]));
		if (p->throttled && !was)
			qe->st.throttles++;
		qe->st.throttled += p->throttled;
		/* Parents come first: their hold is known. */
		c->hold = p->throttled ||
			  (c->parent >= 0 && g_array_index(qe->capped, struct capped, c->parent).hold);
		newly_held |= p->throttled && !was;
	}
	/* A thread refused (debugged) is tried again at a new throttle. */
	qe->retry |= newly_held;
	return next;
}

/* Throttled groups whose period ended run again first, before anything
 * that may wait for the core lock (a lock holder preempted on a loaded
 * machine would hold them stopped). Their use is the last sample's: they
 * did not run since they stopped, and what ran between that sample and
 * the stop is counted at the next sample, in the next period's use. */
static void release_ended(struct quota_enforcer *qe, uint64_t now)
{
	struct cfs_bandwidth_stat *d;
	GHashTable *local;
	bool any = false;

	for (guint i = 0; i < qe->capped->len && !any; i++) {
		struct quota_period *p = period_of(qe, i);

		any = p && p->throttled && now >= p->start + p->period;
	}
	if (!any)
		return;
	d = g_new0(struct cfs_bandwidth_stat, qe->capped->len);
	local = g_hash_table_new(g_int64_hash, g_int64_equal);
	update_periods(qe, now, (const uint64_t *)qe->usage->data, d, true);
	apply(qe);
	count_local(qe, now, local);
	publish_figures(qe, d, local);
	g_hash_table_unref(local);
	g_free(d);
}

uint64_t quota_pass(struct quota_enforcer *qe, uint64_t now)
{
	uint64_t next, *usage;
	struct cfs_bandwidth_stat *d;
	GHashTable *local = g_hash_table_new(g_int64_hash, g_int64_equal);

	qe->st.passes++;
	tracees_take_reports(qe->tr);
	release_ended(qe, now);
	copy_capped(qe);
	g_array_set_size(qe->usage, qe->capped->len);
	usage = (uint64_t *)qe->usage->data;
	d = g_new0(struct cfs_bandwidth_stat, qe->capped->len + 1);
	sample(qe, now, usage);
	sync_periods(qe, now, usage);
	next = update_periods(qe, now, usage, d, false);
	count_local(qe, now, local);
	publish_figures(qe, d, local);
	if (apply(qe) || atomic_exchange(&qe->exited, false))
		next = MIN(next, now + QUOTA_POLL_NS);
	publish(qe);
	g_hash_table_unref(local);
	g_free(d);
	return next;
}

const struct quota_stats *quota_stats(struct quota_enforcer *qe)
{
	return &qe->st;
}

/* Whether a hierarchy has controller ssid. */
static bool bound(struct cg_core *core, int ssid)
{
	for (guint r = 0; r < cg_core_nr_roots(core); r++)
		if (cg_root_subsys_mask(cg_core_root(core, r)) & (1u << ssid))
			return true;
	return false;
}

struct quota_enforcer *quota_enforcer_new(struct cg_core *core, struct tracees *tr)
{
	struct quota_enforcer *qe;
	int ssid = -1;

	for (unsigned i = 0; i < cg_core_nr_subsys(core); i++)
		if (cg_core_subsys(core, i) == &cpu_cgrp_subsys)
			ssid = (int)i;
	if (ssid < 0 || !bound(core, ssid))
		return NULL;
	qe = g_new0(struct quota_enforcer, 1);
	qe->core = core;
	qe->tr = tr;
	qe->ssid = ssid;
	if (kick_init(&qe->kick, "quota") < 0)
		g_warning("quota: no eventfd: %s", g_strerror(errno));
	qe->capped = g_array_new(FALSE, FALSE, sizeof(struct capped));
	qe->held = g_array_new(FALSE, FALSE, sizeof(struct held));
	qe->members = g_array_new(FALSE, FALSE, sizeof(struct member));
	qe->usage = g_array_new(FALSE, TRUE, sizeof(uint64_t));
	qe->periods = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, g_free);
	qe->marks = g_hash_table_new_full(g_int64_hash, g_int64_equal, NULL, g_free);
	qe->clocks = g_hash_table_new_full(NULL, NULL, NULL, g_free);
	g_mutex_init(&qe->shown_lock);
	qe->sub = (struct cg_subscriber){
		.data = qe, .attach = on_attach, .fork = on_fork, .exit = on_task_exit,
		.changed = on_changed, .rmdir = on_rmdir, .stat = on_stat,
	};
	cg_subscribe(core, &qe->sub);
	return qe;
}

void quota_enforcer_free(struct quota_enforcer *qe)
{
	if (!qe)
		return;
	cg_unsubscribe(qe->core, &qe->sub);
	g_hash_table_unref(qe->periods);
	g_hash_table_unref(qe->marks);
	g_hash_table_unref(qe->clocks);
	g_array_unref(qe->capped);
	g_array_unref(qe->held);
	g_array_unref(qe->members);
	g_array_unref(qe->usage);
	g_mutex_clear(&qe->shown_lock);
	kick_destroy(&qe->kick);
	g_free(qe);
}
