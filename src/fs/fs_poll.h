/* SPDX-License-Identifier: GPL-2.0-or-later */
/* poll() on control files whose content changes by itself (CFTYPE_EVENTS:
 * v2's cgroup.events), as kernfs_generic_poll() answers it: readable and
 * writable always, with POLLPRI | POLLERR once the file changed since the
 * opener last read it. The kernel asks again only when told to: a
 * subscriber hears every populated change under the core lock, and a
 * thread of its own sends the notifications (a write to /dev/fuse,
 * never under the core lock). */
#ifndef CGFUSED_FS_POLL_H
#define CGFUSED_FS_POLL_H

#define FUSE_USE_VERSION 314
#include <fuse_lowlevel.h>
#include <stdbool.h>
#include <stdint.h>

struct cg_core;
struct fs_poll;

/* An open file's part: the change count it last read (of->event). */
struct fs_poll_file {
	uint64_t cgrp_id;
	unsigned file;
	bool events;			/* the file is CFTYPE_EVENTS */
	unsigned seen;
	struct fuse_pollhandle *ph;	/* the kernel waits on it, or NULL */
};

/* Subscribes to the core and starts the notifying thread; stop ends both. */
struct fs_poll *fs_poll_start(struct cg_core *core);
void fs_poll_stop(struct fs_poll *fp);

/* At open and at each read from offset 0: what the file shows now is
 * what the opener saw. */
void fs_poll_seen(struct cg_core *core, struct fs_poll_file *pf);
/* The poll request: the events to reply with; ph (may be NULL) is kept
 * and notified at the next change. */
unsigned fs_poll_poll(struct cg_core *core, struct fs_poll_file *pf,
		      struct fuse_pollhandle *ph);
/* The file is closed: forgets it. */
void fs_poll_release(struct fs_poll_file *pf);

#endif
