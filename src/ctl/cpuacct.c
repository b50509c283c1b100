/* cpuacct: CPU accounting. Its files (cpuacct.usage, .stat, ...) come with
 * real accounting from the task tracker; until then the controller only
 * exists so that it can be co-mounted with cpu as on the kernel. */
#include "ctl.h"

static struct css *cpuacct_css_alloc(struct css *parent)
{
	(void)parent;
	return g_new0(struct css, 1);
}

static void cpuacct_css_free(struct css *css)
{
	g_free(css);
}

static const struct cftype cpuacct_files[] = {
	{ 0 }
};

const struct cgroup_subsys cpuacct_cgrp_subsys = {
	.name = "cpuacct",
	.css_alloc = cpuacct_css_alloc,
	.css_free = cpuacct_css_free,
	.files = cpuacct_files,
};
