/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The FUSE low-level filesystem over the cgroup core. */
#ifndef CGFUSED_FS_H
#define CGFUSED_FS_H

#define FUSE_USE_VERSION 314
#include <fuse_lowlevel.h>
#include <stdint.h>

struct cg_core;

/* The operations; the session's userdata is the struct cg_core. */
extern const struct fuse_lowlevel_ops cgfs_ops;

/* The kernel caches names and attributes for a day: a change made in the
 * core other than through FUSE (a config reload) tells it what is stale,
 * the name in directory id (name not NULL) or the attributes of id's
 * directory or file. A conf_changed_fn, data a struct fs_mount. */
struct fs_mount {
	struct fuse_session *se;
	struct cg_core *core;
};
void fs_notify_changed(void *mount, uint64_t id, unsigned file, const char *name);

#endif
