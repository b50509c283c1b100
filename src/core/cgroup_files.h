/* The core's own control files (kernel/cgroup/cgroup-v1.c cgroup1_base_files):
 * tasks, cgroup.procs, notify_on_release, cgroup.clone_children, and at the
 * root release_agent and cgroup.sane_behavior. */
#ifndef CGFUSED_CGROUP_FILES_H
#define CGFUSED_CGROUP_FILES_H

#include "core/cgroup.h"

typedef void (*cg_add_file_fn)(struct cg_root *root, const struct cftype *cft,
			       const struct cgroup_subsys *ss, int ssid);

void cgroup_files_add_core(struct cg_root *root, cg_add_file_fn add);

#endif
