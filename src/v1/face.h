/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The v1 (legacy) face: the controllers' legacy files after the v1 base
 * files, renames only within a parent, and flags a new group takes from
 * its parent. main.c gives it to every hierarchy of a v1 mount (a mount
 * with -o unified gets v2/face.h's instead). */
#ifndef CGFUSED_V1_FACE_H
#define CGFUSED_V1_FACE_H

#include "core/face.h"

extern const struct cg_face cgroup1_face;

#endif
