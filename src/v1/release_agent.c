/* Running the release agent. */
#include "v1/release_agent.h"

void check_for_release(struct cgroup *cgrp)
{
	const char *agent = cgrp->root->release_agent;
	char *path;
	/* The kernel's call_usermodehelper environment. */
	char *envp[] = { "HOME=/", "PATH=/sbin:/bin:/usr/sbin:/usr/bin", NULL };
	GError *err = NULL;

	/* Replaying a saved state changes nothing anybody should hear of. */
	if (cgrp->root->core->loading)
		return;
	if (!(cgrp->flags & CGRP_NOTIFY_ON_RELEASE) || !cgrp->parent || !agent || !*agent)
		return;
	if (!g_queue_is_empty(&cgrp->csets) || g_hash_table_size(cgrp->children))
		return;
	path = cgroup_path(cgrp);
	char *argv[] = { (char *)agent, path, NULL };
	/* Without G_SPAWN_DO_NOT_REAP_CHILD, GLib double-forks: nobody waits. */
	if (!g_spawn_async("/", argv, envp,
			   G_SPAWN_STDIN_FROM_DEV_NULL | G_SPAWN_STDOUT_TO_DEV_NULL |
			   G_SPAWN_STDERR_TO_DEV_NULL, NULL, NULL, NULL, &err)) {
		g_warning("release_agent %s %s: %s", agent, path, err->message);
		g_error_free(err);
	}
	g_free(path);
}
