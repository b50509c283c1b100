/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The mount table as this process sees it (/proc/self/mountinfo), read
 * without asking any file system: a FUSE daemon that is stopped cannot
 * make the question hang. */
#ifndef CGFUSED_MOUNTINFO_H
#define CGFUSED_MOUNTINFO_H

#include <glib.h>
#include <stdbool.h>

/* The mount that path (absolute, links resolved) is on: the last listed
 * (mounted last) whose mount point is path or a directory above it.
 * Returns its type ("ext4", "fuse.cgfused") and sets *mount_point, both
 * to g_free(); NULL if the table cannot be read. */
char *mountinfo_fstype_of(const char *path, char **mount_point);

/* The mount points of every mount of type fstype, oldest first (an array
 * of strings to g_ptr_array_unref()); NULL if the table cannot be read. */
GPtrArray *mountinfo_mounts_of_type(const char *fstype);

#endif
