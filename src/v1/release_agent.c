/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Running the release agent. */
#include "v1/release_agent.h"

#include <stdatomic.h>

#include "core/notify.h"
#include "lib/failcount.h"

struct release_agent {
	struct cg_core *core;
	struct cg_subscriber sub;
	GAsyncQueue *due;		/* struct release *, then the stop mark */
	GThread *thread;
	struct failcount failed;	/* runs that could not start, in a row */
	/* Agents started (cgfused.stat): in the order of the calls, so a
	 * test that sees a later call's run knows every earlier one. */
	_Atomic uint64_t runs;
};

/* One run: the agent and the group's path, copied under the core lock. */
struct release {
	char *agent, *path;
};

static void release_free(struct release *r)
{
	g_free(r->agent);
	g_free(r->path);
	g_free(r);
}

/* What release_agent_free queues last. */
static struct release stop_mark;

static void run_agent(struct release_agent *ra, const struct release *r)
{
	/* The kernel's call_usermodehelper environment. */
	char *envp[] = { "HOME=/", "PATH=/sbin:/bin:/usr/sbin:/usr/bin", NULL };
	char *argv[] = { r->agent, r->path, NULL };
	GError *err = NULL;

	/* Without G_SPAWN_DO_NOT_REAP_CHILD, GLib double-forks: nobody waits. */
	if (!g_spawn_async("/", argv, envp,
			   G_SPAWN_STDIN_FROM_DEV_NULL | G_SPAWN_STDOUT_TO_DEV_NULL |
			   G_SPAWN_STDERR_TO_DEV_NULL, NULL, NULL, NULL, &err)) {
		/* Every release fails alike: said once, then counted. */
		failcount_fail(&ra->failed, "release_agent %s %s: %s", r->agent, r->path,
			       err->message);
		g_error_free(err);
	} else {
		failcount_ok(&ra->failed, "release_agent");
		atomic_fetch_add(&ra->runs, 1);
	}
}

static gpointer agent_main(gpointer data)
{
	struct release_agent *ra = data;
	struct release *r;

	while ((r = g_async_queue_pop(ra->due)) != &stop_mark) {
		run_agent(ra, r);
		release_free(r);
	}
	return NULL;
}

/* cgroup1_check_for_release(): called locked whenever cgrp may just have
 * become releasable. A group that still has a child group is not, even an
 * empty one. */
static void check_for_release(struct release_agent *ra, struct cgroup *cgrp)
{
	const char *agent = cg_root_release_agent(cgrp->root);
	struct release *r;

	/* Replaying a saved state changes nothing anybody should hear of. */
	if (cg_core_loading(ra->core))
		return;
	if (!(cgrp->flags & CGRP_NOTIFY_ON_RELEASE) || !cgrp->parent || !agent || !*agent)
		return;
	if (cgroup_is_populated(cgrp) || g_hash_table_size(cgrp->children))
		return;
	r = g_new(struct release, 1);
	r->agent = g_strdup(agent);
	r->path = cgroup_path(cgrp);
	g_async_queue_push(ra->due, r);
}

static void on_populated(void *data, struct cgroup *cgrp, bool populated)
{
	if (!populated)
		check_for_release(data, cgrp);
}

/* The parent may have lost its last child (cgroup_destroy_locked()). */
static void on_rmdir(void *data, struct cgroup *parent, const char *name)
{
	(void)name;
	check_for_release(data, parent);
}

static void on_stat(void *data, GString *out)
{
	struct release_agent *ra = data;

	g_string_append_printf(out, "release_agent_runs %" G_GUINT64_FORMAT "\n",
			       (guint64)atomic_load(&ra->runs));
}

struct release_agent *release_agent_new(struct cg_core *core)
{
	struct release_agent *ra = g_new0(struct release_agent, 1);

	ra->core = core;
	ra->due = g_async_queue_new();
	ra->sub = (struct cg_subscriber){
		.data = ra, .populated = on_populated, .rmdir = on_rmdir, .stat = on_stat,
	};
	cg_subscribe(core, &ra->sub);
	return ra;
}

void release_agent_start(struct release_agent *ra)
{
	ra->thread = g_thread_new("release-agent", agent_main, ra);
}

void release_agent_free(struct release_agent *ra)
{
	struct release *r;

	if (!ra)
		return;
	cg_unsubscribe(ra->core, &ra->sub);
	if (ra->thread) {
		g_async_queue_push(ra->due, &stop_mark);
		g_thread_join(ra->thread);
	}
	/* Never started (the daemon did not get that far): nothing runs. */
	while ((r = g_async_queue_try_pop(ra->due)))
		release_free(r);
	g_async_queue_unref(ra->due);
	g_free(ra);
}
