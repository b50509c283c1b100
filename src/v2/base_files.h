/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The v2 face's base files, in the kernel's order (cgroup_base_files):
 * cgroup.type, procs, threads, controllers, subtree_control, events,
 * max.descendants, max.depth, stat, freeze, kill and cpu.stat. */
#ifndef CGFUSED_V2_BASE_FILES_H
#define CGFUSED_V2_BASE_FILES_H

#include "core/cftype.h"

/* Terminated by an entry with name NULL. */
extern const struct cftype cgroup2_base_files[];

#endif
