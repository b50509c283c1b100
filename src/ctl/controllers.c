/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The list of controllers main offers to hierarchies. */
#include "ctl/ctl.h"

const struct cgroup_subsys *const cgfused_controllers[] = {
	&cpuset_cgrp_subsys,
	&cpu_cgrp_subsys,
	&cpuacct_cgrp_subsys,
	&freezer_cgrp_subsys,
	&pids_cgrp_subsys,
	NULL,
};
