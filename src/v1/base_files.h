/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The v1 face's base files: cgroup.procs, cgroup.clone_children, tasks,
 * notify_on_release, and at the root cgroup.sane_behavior and
 * release_agent, in the kernel's order. */
#ifndef CGFUSED_V1_BASE_FILES_H
#define CGFUSED_V1_BASE_FILES_H

#include "core/cftype.h"

/* Terminated by an entry with name NULL. */
extern const struct cftype cgroup1_base_files[];

#endif
