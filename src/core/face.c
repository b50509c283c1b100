/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What the core gives a face (see core/face.h). */
#include "core/face.h"

#include "core/internal.h"

bool cgroup_flag(const struct cgroup *cgrp, unsigned flag)
{
	return (cgrp->flags & flag) != 0;
}

void cgroup_set_flag(struct cgroup *cgrp, unsigned flag, bool on)
{
	if (on)
		cgrp->flags |= flag;
	else
		cgrp->flags &= ~flag;
}

const char *cgroup_release_agent(const struct cgroup *cgrp)
{
	return cgrp->root->release_agent;
}

void cgroup_set_release_agent(struct cgroup *cgrp, const char *agent)
{
	struct cg_root *root = cgrp->root;

	g_free(root->release_agent);
	root->release_agent = g_strdup(agent);
}

uid_t cgroup_root_owner(const struct cgroup *cgrp)
{
	return cgrp->root->top->creator_uid;
}
