/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cgroup.kill (kernel: cgroup_kill_write()): SIGKILL to every process of
 * the subtree. The kernel's fork checks CGRP_KILL; the core hears of a
 * fork after the fact, so a child forked by a member of a group being
 * killed is killed when it is reported (cgroup_kill_pending()), until the
 * group is empty. */
#include "v2/v2.h"

#include <errno.h>

#include "core/css_set.h"
#include "core/task.h"
#include "lib/kparse.h"

static int kill_group(struct css *css, void *data)
{
	struct cgroup *cgrp = css->cgroup;
	struct task *t;

	(void)data;
	if (!cgroup_is_populated(cgrp))
		return 0;
	cgroup_set_flag(cgrp, CGRP_KILL, true);
	for (GList *l = cgrp->csets.head; l; l = l->next)
		css_set_for_each_task(t, (struct css_set *)l->data)
			task_kill_later(cg_root_core(cgrp->root), t);
	return 0;
}

int cgroup_kill_write(struct cg_file_ctx *ctx, char *buf, size_t nbytes)
{
	int kill, ret;

	(void)nbytes;
	ret = kstrtoint(kstrstrip(buf), 0, &kill);
	if (ret)
		return ret;
	if (kill != 1)
		return -ERANGE;
	/* Killing is for processes, which a threaded group does not hold. */
	if (cgroup_is_threaded(ctx->css->cgroup))
		return -EOPNOTSUPP;
	return css_for_each_descendant_pre(ctx->css, kill_group, NULL);
}
