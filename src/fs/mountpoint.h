/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Making sure the mount point exists before libfuse looks at it. */
#ifndef CGFUSED_MOUNTPOINT_H
#define CGFUSED_MOUNTPOINT_H

#include <stdbool.h>

/* 0 when path is a directory to mount on, made (with its missing parents)
 * if it did not exist; *created says so. A mount left by a daemon that
 * died (ENOTCONN) is detached first; a live FUSE mount on path itself is
 * refused. Otherwise prints one line saying why not and where it would
 * work, and returns -1. */
int mountpoint_prepare(const char *path, bool *created);

/* 0 if a state file at file is outside the mount point and outside any
 * cgfused mount (compaction there would make the daemon wait on its own
 * answer, under its core lock); else one line on stderr and -1. */
int mountpoint_check_state(const char *mountpoint, const char *file);

/* 0 if -o allow_other can be had: as root (a user namespace's too: no
 * fusermount3), or where fusermount3's configuration lets users have it;
 * else one line on stderr and -1. */
int mountpoint_check_allow_other(void);

#endif
