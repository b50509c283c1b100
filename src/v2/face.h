/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The v2 face (the default hierarchy): the core files of
 * kernel/cgroup/cgroup.c's cgroup_base_files, then the controllers'
 * dfl_files where the parent's subtree_control enables them; no rename.
 * main.c gives it to the one hierarchy of `-o unified`. */
#ifndef CGFUSED_V2_FACE_H
#define CGFUSED_V2_FACE_H

#include "core/face.h"

extern const struct cg_face cgroup2_face;

#endif
