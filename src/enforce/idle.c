/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cpu.idle's enforcer: see enforce/idle.h. */
#include "enforce/idle.h"

#include <errno.h>
#include <sched.h>
#include <stdatomic.h>

#include "alloc/alloc_orig.h"
#include "core/core_call.h"
#include "core/css_set.h"
#include "core/notify.h"
#include "core/task.h"
#include "core/task_catch_up.h"
#include "ctl/cpu.h"
#include "ctl/ctl.h"
#include "lib/kick.h"

struct idle_member {
	pid_t tid;
	struct task_ident ident;
};

struct idle_enforcer {
	struct cg_core *core;
	struct cg_subscriber sub;
	int ssid;			/* the cpu controller's */
	atomic_bool stale;
	atomic_uint nr_idle;		/* groups with cpu.idle 1, at the last copy */
	struct kick kick;
	/* Threads made SCHED_IDLE (tid -> struct idle_member *), and children
	 * they forked (tid -> ino), which inherited it: written by the
	 * thread, read by the subscriber's fork, under this lock (after the
	 * core lock). */
	GMutex lock;
	GHashTable *set, *born;
	GArray *want;			/* struct idle_member: the thread's own */
	/* STATE.idle: the threads in set, and what the last daemon left
	 * (given back after the first pass); the thread's own. NULL: none. */
	struct alloc_orig *orig;
	bool first_done;
};

int idle_kick_fd(struct idle_enforcer *ie)
{
	return kick_fd(&ie->kick);
}

void idle_kick_clear(struct idle_enforcer *ie)
{
	kick_clear(&ie->kick);
}

static void kick(struct idle_enforcer *ie)
{
	atomic_store(&ie->stale, true);
	kick_wake(&ie->kick);
}

unsigned idle_nr_threads(struct idle_enforcer *ie)
{
	unsigned n;

	g_mutex_lock(&ie->lock);
	n = g_hash_table_size(ie->set);
	g_mutex_unlock(&ie->lock);
	return n;
}

/* ---- the core's events, under its lock --------------------------------- */

static bool any(struct idle_enforcer *ie)
{
	return atomic_load(&ie->nr_idle) || idle_nr_threads(ie);
}

static void on_attach(void *data, struct task *const *tasks, unsigned n,
		      const struct cg_root *root)
{
	(void)tasks;
	(void)n;
	(void)root;
	if (any(data))
		kick(data);
}

static void on_fork(void *data, struct task *parent, struct task *child)
{
	struct idle_enforcer *ie = data;
	bool ours;

	g_mutex_lock(&ie->lock);
	ours = g_hash_table_contains(ie->set, GINT_TO_POINTER(parent->tid));
	if (ours)
		g_hash_table_insert(ie->born, GINT_TO_POINTER(child->tid),
				    GSIZE_TO_POINTER(child->ident.ino));
	g_mutex_unlock(&ie->lock);
	if (ours || atomic_load(&ie->nr_idle))
		kick(ie);
}

static void on_changed(void *data, struct cgroup *cgrp, unsigned file)
{
	struct idle_enforcer *ie = data;

	if (file < cg_root_nr_files(cgrp->root) &&
	    cg_root_file(cgrp->root, file)->ssid == ie->ssid)
		kick(ie);
}

static void on_stat(void *data, GString *out)
{
	g_string_append_printf(out, "idle_threads %u\n", idle_nr_threads(data));
}

/* ---- passes ------------------------------------------------------------ */

struct walk {
	struct idle_enforcer *ie;
	GHashTable *idle;		/* struct css * of idle groups and their subtrees */
};

static int visit(struct css *css, void *data)
{
	struct walk *w = data;
	const struct task *t;

	if (!css->parent)
		return 0;
	if (!cpu_group_idle(css) && !g_hash_table_contains(w->idle, css->parent))
		return 0;
	g_hash_table_add(w->idle, css);
	atomic_fetch_add(&w->ie->nr_idle, cpu_group_idle(css));
	for (GList *l = css->cgroup->csets.head; l; l = l->next)
		css_set_for_each_task(t, (struct css_set *)l->data) {
			struct idle_member mb = { t->tid, t->ident };

			g_array_append_val(w->ie->want, mb);
		}
	return 0;
}

static void copy_wanted_locked(struct cg_core *core, void *data)
{
	struct walk *w = data;

	for (guint r = 0; r < cg_core_nr_roots(core); r++) {
		struct cg_root *root = cg_core_root(core, r);

		if (cg_root_subsys_mask(root) & (1u << w->ie->ssid))
			css_for_each_descendant_pre(cg_root_top(root)->subsys[w->ie->ssid], visit, w);
	}
}

static void copy_wanted(struct idle_enforcer *ie)
{
	struct walk w = { ie, g_hash_table_new(NULL, NULL) };

	cg_catch_up_if_pending(ie->core);
	if (!atomic_exchange(&ie->stale, false))
		goto out;
	g_array_set_size(ie->want, 0);
	atomic_store(&ie->nr_idle, 0);
	cg_core_read(ie->core, copy_wanted_locked, &w);
out:
	g_hash_table_unref(w.idle);
}

/* Thread m, a member of an idle group, made SCHED_IDLE if it was
 * SCHED_OTHER (or taken as ours if it inherited it from one of ours). */
static void make_idle(struct idle_enforcer *ie, const struct idle_member *m)
{
	struct kfacade *kf = cg_core_kf(ie->core);
	gpointer ino;
	bool born, taken;
	int policy;

	if (!kf->ops->task_alive(kf, m->tid, &m->ident) ||
	    kf->ops->get_policy(kf, m->tid, &policy) < 0)
		return;
	g_mutex_lock(&ie->lock);
	born = g_hash_table_lookup_extended(ie->born, GINT_TO_POINTER(m->tid), NULL, &ino) &&
	       GPOINTER_TO_SIZE(ino) == m->ident.ino;
	g_hash_table_remove(ie->born, GINT_TO_POINTER(m->tid));
	g_mutex_unlock(&ie->lock);
	/* One the last daemon made idle is ours as if born of ours. */
	taken = ie->orig && alloc_orig_take_idle(ie->orig, m->tid, m->ident.ino);
	born |= taken;
	if (policy == SCHED_OTHER) {
		/* On file before it is changed: a kill -9 cannot lose it. */
		if (ie->orig) {
			alloc_orig_add_idle(ie->orig, m->tid, m->ident.ino);
			alloc_orig_flush(ie->orig);
		}
		if (kf->ops->set_policy(kf, m->tid, SCHED_IDLE) < 0) {
			if (ie->orig)
				alloc_orig_drop_idle(ie->orig, m->tid, m->ident.ino);
			return;
		}
	} else if (policy != SCHED_IDLE || !born) {
		if (taken)
			alloc_orig_drop_idle(ie->orig, m->tid, m->ident.ino);
		return;		/* the user's own choice */
	} else if (ie->orig && !taken) {
		alloc_orig_add_idle(ie->orig, m->tid, m->ident.ino);
	}
	g_mutex_lock(&ie->lock);
	g_hash_table_insert(ie->set, GINT_TO_POINTER(m->tid), g_memdup2(m, sizeof(*m)));
	g_mutex_unlock(&ie->lock);
}

/* SCHED_OTHER back, unless the thread is gone or changed it itself. */
static void give_back(struct kfacade *kf, pid_t tid, uint64_t ino)
{
	struct task_ident id = { ino, 0 };
	int policy;

	if (kf->ops->task_alive(kf, tid, &id) &&
	    kf->ops->get_policy(kf, tid, &policy) == 0 && policy == SCHED_IDLE)
		kf->ops->set_policy(kf, tid, SCHED_OTHER);
}

/* The threads in leaving given back, and forgotten on file after. */
static void give_back_all(struct idle_enforcer *ie, GPtrArray *leaving)
{
	for (guint i = 0; i < leaving->len; i++) {
		const struct idle_member *m = leaving->pdata[i];

		give_back(cg_core_kf(ie->core), m->tid, m->ident.ino);
		if (ie->orig)
			alloc_orig_drop_idle(ie->orig, m->tid, m->ident.ino);
	}
}

/* What the last daemon made idle and this one does not keep: SCHED_OTHER
 * back if it is the same thread (its pidfs inode) and still idle. */
static void give_back_leftovers(struct kfacade *kf, struct alloc_orig *o)
{
	GArray *left = g_array_new(FALSE, FALSE, sizeof(struct orig_idle));

	alloc_orig_idle_leftovers(o, left);
	for (guint i = 0; i < left->len; i++) {
		const struct orig_idle *l = &g_array_index(left, struct orig_idle, i);

		give_back(kf, l->tid, l->ino);
	}
	g_array_unref(left);
}

/* ---- children forked while no daemon ran -------------------------------- */

/* Thread tid, of a process forked (maybe through others) by a thread the
 * last daemon made idle: if SCHED_IDLE (inherited while no daemon ran, or
 * chosen by its program: nothing tells), kept (into kept: tid -> ino)
 * when it is a member of an idle group (keep: tid -> ino), else given
 * SCHED_OTHER back if this daemon may manage it. */
static void settle_child(struct kfacade *kf, pid_t tid, GHashTable *keep, GHashTable *kept)
{
	struct task_ident id;
	gpointer ino;
	int policy;

	if (kf->ops->task_open(kf, tid, &id) < 0)
		return;
	if (kf->ops->get_policy(kf, tid, &policy) == 0 && policy == SCHED_IDLE) {
		if (keep && g_hash_table_lookup_extended(keep, GINT_TO_POINTER(tid), NULL, &ino) &&
		    GPOINTER_TO_SIZE(ino) == id.ino)
			g_hash_table_insert(kept, GINT_TO_POINTER(tid), GSIZE_TO_POINTER(id.ino));
		else if (kf->ops->may_manage(kf, tid) == 0)
			kf->ops->set_policy(kf, tid, SCHED_OTHER);
	}
	kf->ops->task_close(kf, &id);
}

/* At a restart: the threads of the processes that the last daemon's
 * recorded threads (still there, the same) forked, and recursively of
 * theirs, settled (settle_child). The recorded threads themselves are
 * left to the records. A /proc walk: never under the core lock. */
static void settle_children(struct kfacade *kf, struct alloc_orig *o, GHashTable *keep,
			    GHashTable *kept)
{
	GArray *left = g_array_new(FALSE, FALSE, sizeof(struct orig_idle));
	GArray *queue = g_array_new(FALSE, FALSE, sizeof(pid_t));
	GArray *procs = g_array_new(FALSE, FALSE, sizeof(pid_t));
	GArray *tids = g_array_new(FALSE, FALSE, sizeof(pid_t));
	GHashTable *seen = g_hash_table_new(NULL, NULL);

	alloc_orig_idle_left(o, left);
	for (guint i = 0; i < left->len; i++) {
		const struct orig_idle *l = &g_array_index(left, struct orig_idle, i);
		struct task_ident id = { l->ino, 0 };

		if (kf->ops->task_alive(kf, l->tid, &id)) {
			g_hash_table_add(seen, GINT_TO_POINTER(l->tid));
			g_array_append_val(queue, l->tid);
		}
	}
	/* queue grows as it is walked: each thread met, once. */
	for (guint q = 0; q < queue->len; q++) {
		g_array_set_size(procs, 0);
		kf->ops->task_children(kf, g_array_index(queue, pid_t, q), procs);
		for (guint p = 0; p < procs->len; p++) {
			g_array_set_size(tids, 0);
			kf->ops->thread_ids(kf, g_array_index(procs, pid_t, p), tids);
			for (guint t = 0; t < tids->len; t++) {
				pid_t tid = g_array_index(tids, pid_t, t);

				if (!g_hash_table_add(seen, GINT_TO_POINTER(tid)))
					continue;
				settle_child(kf, tid, keep, kept);
				g_array_append_val(queue, tid);
			}
		}
	}
	g_hash_table_unref(seen);
	g_array_unref(tids);
	g_array_unref(procs);
	g_array_unref(queue);
	g_array_unref(left);
}

/* Before the first pass takes the records: the children kept idle are
 * taken as born of ours (make_idle records them), the others given back. */
static void settle_first_children(struct idle_enforcer *ie, GHashTable *keep)
{
	GHashTable *kept = g_hash_table_new(NULL, NULL);
	GHashTableIter iter;
	gpointer tid, ino;

	settle_children(cg_core_kf(ie->core), ie->orig, keep, kept);
	g_mutex_lock(&ie->lock);
	g_hash_table_iter_init(&iter, kept);
	while (g_hash_table_iter_next(&iter, &tid, &ino))
		g_hash_table_insert(ie->born, tid, ino);
	g_mutex_unlock(&ie->lock);
	g_hash_table_unref(kept);
}

/* After a pass: the leftovers after the first, the records written (anew
 * when the file holds mostly forgotten lines). */
static void end_originals(struct idle_enforcer *ie)
{
	GHashTableIter iter;
	struct idle_member *m;

	if (!ie->orig)
		return;
	if (!ie->first_done) {
		give_back_leftovers(cg_core_kf(ie->core), ie->orig);
		ie->first_done = true;
	}
	if (alloc_orig_wants_rewrite(ie->orig, idle_nr_threads(ie))) {
		alloc_orig_rewrite_begin(ie->orig);
		g_mutex_lock(&ie->lock);
		g_hash_table_iter_init(&iter, ie->set);
		while (g_hash_table_iter_next(&iter, NULL, (gpointer *)&m))
			alloc_orig_add_idle(ie->orig, m->tid, m->ident.ino);
		g_mutex_unlock(&ie->lock);
		alloc_orig_rewrite_commit(ie->orig);
	}
	alloc_orig_flush(ie->orig);
}

bool idle_keep_originals(struct idle_enforcer *ie, const char *state, const char *boot_id,
			 GError **err)
{
	ie->orig = alloc_orig_open_idle(state, boot_id, err);
	return ie->orig != NULL;
}

bool idle_give_back_file(struct kfacade *kf, const char *state, const char *boot_id,
			 GError **err)
{
	struct alloc_orig *o = alloc_orig_open_idle(state, boot_id, err);

	if (!o)
		return false;
	settle_children(kf, o, NULL, NULL);
	give_back_leftovers(kf, o);
	alloc_orig_close(o, true);
	return true;
}

/* The threads of set not in keep: taken out of set (under the lock),
 * into a list to give back. */
static GPtrArray *take_leaving(struct idle_enforcer *ie, GHashTable *keep)
{
	GPtrArray *out = g_ptr_array_new_with_free_func(g_free);
	GHashTableIter iter;
	struct idle_member *m;

	g_mutex_lock(&ie->lock);
	g_hash_table_iter_init(&iter, ie->set);
	while (g_hash_table_iter_next(&iter, NULL, (gpointer *)&m)) {
		gpointer ino;

		if (keep && g_hash_table_lookup_extended(keep, GINT_TO_POINTER(m->tid), NULL, &ino) &&
		    GPOINTER_TO_SIZE(ino) == m->ident.ino)
			continue;
		g_hash_table_iter_steal(&iter);
		g_ptr_array_add(out, m);
	}
	g_mutex_unlock(&ie->lock);
	return out;
}

void idle_pass(struct idle_enforcer *ie)
{
	GHashTable *keep = g_hash_table_new(NULL, NULL);
	GPtrArray *leaving;

	copy_wanted(ie);
	for (guint i = 0; i < ie->want->len; i++) {
		const struct idle_member *m = &g_array_index(ie->want, struct idle_member, i);

		g_hash_table_insert(keep, GINT_TO_POINTER(m->tid), GSIZE_TO_POINTER(m->ident.ino));
	}
	if (ie->orig && !ie->first_done)
		settle_first_children(ie, keep);
	for (guint i = 0; i < ie->want->len; i++) {
		const struct idle_member *m = &g_array_index(ie->want, struct idle_member, i);
		struct idle_member *had;

		g_mutex_lock(&ie->lock);
		had = g_hash_table_lookup(ie->set, GINT_TO_POINTER(m->tid));
		g_mutex_unlock(&ie->lock);
		if (!had || had->ident.ino != m->ident.ino)
			make_idle(ie, m);
	}
	leaving = take_leaving(ie, keep);
	give_back_all(ie, leaving);
	g_ptr_array_unref(leaving);
	g_hash_table_unref(keep);
	/* Children of ours that are no members: nothing to take. */
	g_mutex_lock(&ie->lock);
	g_hash_table_remove_all(ie->born);
	g_mutex_unlock(&ie->lock);
	end_originals(ie);
}

void idle_release_all(struct idle_enforcer *ie)
{
	GPtrArray *leaving = take_leaving(ie, NULL);

	give_back_all(ie, leaving);
	g_ptr_array_unref(leaving);
	if (ie->orig)
		alloc_orig_flush(ie->orig);
}

struct idle_enforcer *idle_enforcer_new(struct cg_core *core)
{
	struct idle_enforcer *ie;
	int ssid = -1;

	for (guint r = 0; r < cg_core_nr_roots(core); r++)
		for (unsigned i = 0; i < cg_core_nr_subsys(core); i++)
			if (cg_core_subsys(core, i) == &cpu_cgrp_subsys &&
			    (cg_root_subsys_mask(cg_core_root(core, r)) & (1u << i)))
				ssid = (int)i;
	if (ssid < 0)
		return NULL;
	ie = g_new0(struct idle_enforcer, 1);
	ie->core = core;
	ie->ssid = ssid;
	if (kick_init(&ie->kick, "idle") < 0)
		g_warning("idle: no eventfd: %s", g_strerror(errno));
	g_mutex_init(&ie->lock);
	ie->set = g_hash_table_new_full(NULL, NULL, NULL, g_free);
	ie->born = g_hash_table_new(NULL, NULL);
	ie->want = g_array_new(FALSE, FALSE, sizeof(struct idle_member));
	atomic_store(&ie->stale, true);	/* a restored state may have idle groups */
	ie->sub = (struct cg_subscriber){
		.data = ie, .attach = on_attach, .fork = on_fork, .changed = on_changed,
		.stat = on_stat,
	};
	cg_subscribe(core, &ie->sub);
	return ie;
}

void idle_enforcer_free(struct idle_enforcer *ie)
{
	if (!ie)
		return;
	cg_unsubscribe(ie->core, &ie->sub);
	/* Nothing left to give back: no file. */
	if (ie->orig)
		alloc_orig_close(ie->orig, !idle_nr_threads(ie) &&
					   !alloc_orig_has_leftovers(ie->orig));
	g_hash_table_unref(ie->set);
	g_hash_table_unref(ie->born);
	g_array_unref(ie->want);
	g_mutex_clear(&ie->lock);
	kick_destroy(&ie->kick);
	g_free(ie);
}
