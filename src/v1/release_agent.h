/* notify_on_release: when a cgroup that asked for it loses its last task and
 * its last child, its hierarchy's release_agent runs with the cgroup's path
 * (kernel: check_for_release, cgroup1_release_agent). */
#ifndef CGFUSED_RELEASE_AGENT_H
#define CGFUSED_RELEASE_AGENT_H

#include "core/cgroup.h"

#define RELEASE_AGENT_MAX 4096	/* PATH_MAX, the kernel's release_agent_path */

/* Called locked whenever cgrp may just have become empty. */
void check_for_release(struct cgroup *cgrp);

#endif
