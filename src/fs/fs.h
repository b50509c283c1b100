/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The FUSE low-level filesystem over the cgroup core. */
#ifndef CGFUSED_FS_H
#define CGFUSED_FS_H

#define FUSE_USE_VERSION 314
#include <fuse_lowlevel.h>

/* The operations; the session's userdata is the struct cg_core. */
extern const struct fuse_lowlevel_ops cgfs_ops;

#endif
