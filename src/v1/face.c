/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The v1 face's rules (kernel/cgroup/cgroup-v1.c). */
#include "v1/face.h"

#include <errno.h>
#include <string.h>

#include "v1/base_files.h"

/* cgroup1_rename(): a group, only within its parent. */
static int cgroup1_rename(struct cgroup *cgrp, struct cgroup *new_parent, const char *new_name)
{
	/* A newline would make /proc/PID/cgroup unparsable. */
	if (strchr(new_name, '\n'))
		return -EINVAL;
	if (new_parent != cgrp->parent)
		return -EIO;
	return 0;
}

/* cgroup_create(): notify_on_release and clone_children are inherited. */
static void cgroup1_mkdir(struct cgroup *cgrp)
{
	static const unsigned inherited[] = { CGRP_NOTIFY_ON_RELEASE, CGRP_CPUSET_CLONE_CHILDREN };

	for (unsigned i = 0; i < G_N_ELEMENTS(inherited); i++)
		cgroup_set_flag(cgrp, inherited[i], cgroup_flag(cgrp->parent, inherited[i]));
}

const struct cg_face cgroup1_face = {
	.base_files = cgroup1_base_files,
	.dfl = false,
	.rename = cgroup1_rename,
	.mkdir = cgroup1_mkdir,
};
