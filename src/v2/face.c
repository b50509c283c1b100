/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The v2 face's rules. */
#include "v2/face.h"

#include "v2/base_files.h"

/* No rename: the kernel's default hierarchy has no kernfs rename
 * operation (EPERM, measured). A new group takes nothing from its parent:
 * its controllers follow the parent's subtree_control, its type is domain
 * (shown "domain invalid" below a threaded parent). */
const struct cg_face cgroup2_face = {
	.base_files = cgroup2_base_files,
	.dfl = true,
};
