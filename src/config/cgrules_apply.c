/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Placing processes by the rules when they exec (see config/cgrules.h). */
#include "config/cgrules.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "core/cgroup.h"
#include "core/cgroup_lookup.h"
#include "core/core_call.h"
#include "lib/kick.h"
#include "lib/worker.h"

/* Execs waiting for the thread: beyond this many (a fork bomb of execs),
 * the rest are not placed, and that is said. */
#define PENDING_MAX 65536
/* The environment read for the sticky mark: argv and the environment
 * together take at most a quarter of the stack limit (2 MiB by default);
 * past this, a process's environment is not read further. */
#define ENVIRON_MAX (4u << 20)
#define STICKY "CGFUSED_STICKY=1"

struct cgrules_engine {
	struct cg_core *core;
	GMutex lock;		/* the two below; never held into the core */
	GArray *pending;	/* pid_t: execs not yet placed */
	struct cgrules *rules;	/* NULL: none */
	struct failcount overflow;
	struct kick kick;	/* an exec waits */
	struct worker *w;	/* the thread, once started */
};

static const struct cg_cred rules_cred = { 0 };

struct cgrules_engine *cgrules_engine_new(struct cg_core *core, struct cgrules *rules)
{
	struct cgrules_engine *e = g_new0(struct cgrules_engine, 1);

	e->core = core;
	g_mutex_init(&e->lock);
	if (kick_init(&e->kick, "cgrules") < 0)
		g_warning("rules: no eventfd: %s: processes are not placed", g_strerror(errno));
	e->pending = g_array_new(FALSE, FALSE, sizeof(pid_t));
	e->rules = rules;
	return e;
}

/* Called locked by the core (task_exec): a note, and one wake-up for a
 * burst of execs; nothing at all without rules. */
static void on_exec(void *data, pid_t tgid)
{
	struct cgrules_engine *e = data;

	bool wake = false;

	g_mutex_lock(&e->lock);
	if (e->rules && e->pending->len < PENDING_MAX) {
		g_array_append_val(e->pending, tgid);
		wake = e->pending->len == 1;
	} else if (e->rules) {
		failcount_fail(&e->overflow, "rules: more than %d execs waiting: some are not placed",
			       PENDING_MAX);
	}
	g_mutex_unlock(&e->lock);
	if (wake)
		kick_wake(&e->kick);
}

/* Whether hierarchy h binds one of controllers (NULL: any): by what it
 * binds, not by its name, which on a v2 mount is "unified". */
static bool hierarchy_has(struct cg_core *core, unsigned h, char **controllers)
{
	unsigned index;

	if (!controllers)
		return true;
	for (char **c = controllers; *c; c++)
		if (cg_hierarchy_binding(core, *c, &index) == 0 && index == h)
			return true;
	return false;
}

/* Moves pid to t's group in every hierarchy t names that no target
 * before it took (done). */
static void move(struct cgrules_engine *e, pid_t pid, struct cgrules_target *t, bool *done)
{
	unsigned nr = cg_nr_hierarchies(e->core);
	char id[16];
	int len = snprintf(id, sizeof(id), "%d", (int)pid);

	for (unsigned h = 0; h < nr; h++) {
		const char *name;
		uint64_t top, group;
		unsigned file;
		ssize_t ret;

		if (done[h] || cg_hierarchy(e->core, h, &name, &top) < 0 ||
		    !hierarchy_has(e->core, h, t->controllers))
			continue;
		done[h] = true;
		ret = cg_path_lookup(e->core, h, t->path, "cgroup.procs", &group, &file);
		if (ret == 0)
			ret = cg_file_write(e->core, group, file, id, (size_t)len, &rules_cred);
		if (ret >= 0 && g_atomic_int_get(&t->fails.count)) {
			g_autofree char *what = g_strdup_printf("rules: line %d, moving into %s",
								t->line, t->path);

			failcount_ok(&t->fails, what);
		} else if (ret < 0 && ret != -ESRCH) {	/* -ESRCH: gone already */
			failcount_fail(&t->fails, "rules: line %d: cannot move %d into %s%s%s: %s",
				       t->line, (int)pid, name ? name : "", name ? ":" : "",
				       t->path, ret == -ENOENT ? "no such group" : g_strerror((int)-ret));
		}
	}
}

/* Placed as the rules say. The rules are taken under the engine's lock,
 * the moves made without it: they take the core lock, under which
 * on_exec takes the engine's (and cg_file_write() catches up with the
 * kernel's reports, calling on_exec in this very thread). */
static void place(struct cgrules_engine *e, pid_t pid)
{
	struct kfacade *kf = cg_core_kf(e->core);
	struct exec_proc pi;
	struct cgrules *rules = NULL;

	if (!kf->ops->exec_proc_open(kf, pid, &pi))
		return;
	g_mutex_lock(&e->lock);
	if (e->rules)
		rules = cgrules_ref(e->rules);
	g_mutex_unlock(&e->lock);
	if (rules) {
		struct cgrules_proc p = { pi.uid, pi.gid, pi.comm, pi.exe };
		g_autoptr(GPtrArray) targets = cgrules_match(rules, &p);

		if (targets->len && !kf->ops->exec_proc_has_env(kf, &pi, STICKY, ENVIRON_MAX)) {
			g_autofree bool *done = g_new0(bool, cg_nr_hierarchies(e->core));

			for (guint i = 0; i < targets->len; i++)
				move(e, pid, targets->pdata[i], done);
		}
		cgrules_free(rules);
	}
	kf->ops->exec_proc_close(kf, &pi);
}

static void engine_loop(void *data, int stop_fd)
{
	struct cgrules_engine *e = data;

	while (worker_wait(kick_fd(&e->kick), stop_fd)) {
		GArray *batch;

		kick_clear(&e->kick);	/* an exec from now on kicks again */
		g_mutex_lock(&e->lock);
		batch = e->pending;
		e->pending = g_array_new(FALSE, FALSE, sizeof(pid_t));
		g_mutex_unlock(&e->lock);
		failcount_ok(&e->overflow, "rules: placing every exec");
		for (guint i = 0; i < batch->len; i++)
			place(e, g_array_index(batch, pid_t, i));
		g_array_unref(batch);
	}
}

/* A rule that moves root's processes into a group another user owns (its
 * directory or its cgroup.procs: delegated) gives that user's settings
 * over them (freezer.state, pids.max, cpu.cfs_quota_us): said at load. */
static void warn_delegated(void *data, const struct cgrules_target *t)
{
	struct cgrules_engine *e = data;
	unsigned nr = cg_nr_hierarchies(e->core);

	for (unsigned h = 0; h < nr; h++) {
		struct cg_iattr dir, procs;
		uint64_t top, group;
		const char *name;
		unsigned file;

		if (cg_hierarchy(e->core, h, &name, &top) < 0 ||
		    !hierarchy_has(e->core, h, t->controllers) ||
		    cg_path_lookup(e->core, h, t->path, "cgroup.procs", &group, &file) < 0 ||
		    cg_get_iattr(e->core, group, CG_DIR, &dir) < 0 ||
		    cg_get_iattr(e->core, group, file, &procs) < 0 || (!dir.uid && !procs.uid))
			continue;
		g_warning("rules: line %d moves root's processes into %s%s%s, which user %u "
			  "owns: its settings there act on them", t->line, name ? name : "",
			  name ? ":" : "", t->path, (unsigned)(dir.uid ? dir.uid : procs.uid));
	}
}

static void check_rules(struct cgrules_engine *e, const struct cgrules *rules)
{
	if (rules)
		cgrules_for_each_root_target(rules, warn_delegated, e);
}

/* The rules read at start are checked once the groups are there (the
 * state replayed). */
void cgrules_engine_start(struct cgrules_engine *e)
{
	check_rules(e, e->rules);
	if (kick_fd(&e->kick) < 0)
		return;
	e->w = worker_start("cgrules", engine_loop, e);
	if (e->w)
		cg_exec_hook_set(e->core, on_exec, e);
}

void cgrules_engine_set(struct cgrules_engine *e, struct cgrules *rules)
{
	check_rules(e, rules);
	struct cgrules *old;

	g_mutex_lock(&e->lock);
	old = e->rules;
	e->rules = rules;
	g_mutex_unlock(&e->lock);
	cgrules_free(old);
}

void cgrules_engine_stop(struct cgrules_engine *e)
{
	if (!e || !e->w)
		return;
	cg_exec_hook_set(e->core, NULL, NULL);
	worker_stop(e->w);
	e->w = NULL;
}

void cgrules_engine_free(struct cgrules_engine *e)
{
	if (!e)
		return;
	cgrules_engine_stop(e);
	cgrules_free(e->rules);
	g_array_unref(e->pending);
	kick_destroy(&e->kick);
	g_mutex_clear(&e->lock);
	g_free(e);
}
