/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The controllers cgfused knows. main hands this list to the core; adding a
 * controller is one new file here plus one line in controllers.c. */
#ifndef CGFUSED_CTL_H
#define CGFUSED_CTL_H

#include "core/cgroup.h"
#include "core/face.h"

extern const struct cgroup_subsys cpu_cgrp_subsys;
extern const struct cgroup_subsys cpuacct_cgrp_subsys;
extern const struct cgroup_subsys cpuset_cgrp_subsys;
extern const struct cgroup_subsys pids_cgrp_subsys;
extern const struct cgroup_subsys freezer_cgrp_subsys;

/* Whether css is on the default hierarchy (v2), where a controller's
 * rules differ (the kernel's cgroup_subsys_on_dfl()). */
static inline bool css_on_dfl(const struct css *css)
{
	return cg_root_dfl(css->cgroup->root);
}

/* Every controller, NULL-terminated, in the kernel's order. */
extern const struct cgroup_subsys *const cgfused_controllers[];

#endif
