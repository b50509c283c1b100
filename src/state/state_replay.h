/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Loading a saved state at start-up (src/state/state.h has the format). */
#ifndef CGFUSED_STATE_REPLAY_H
#define CGFUSED_STATE_REPLAY_H

#include <stdbool.h>
#include <stdint.h>

#include "core/cgroup.h"

struct state_load {
	uint64_t generation;	/* the newest either file had: the next is higher */
	unsigned applied;	/* records the core took */
	unsigned refused;	/* records the core refused (gone tasks, ...) */
	unsigned torn;		/* garbled or torn lines, and what followed them */
	bool log_ignored;	/* the log was of another generation */
	bool tasks_ignored;	/* the snapshot is from another boot */
	int bad_log;		/* the error is about FILE.log (1), FILE.log2 (2) */
};

/* Applies FILE and then what continues it (version 3: FILE.log and
 * FILE.log2, the one of the snapshot's generation, then the one of the
 * next; before: FILE.log of its generation) to core
 * through the same checks as the writes they record, with core->loading
 * set (no release agent runs); memberships only when boot_id is the one
 * the snapshot was made in, and only for threads with the saved identity.
 * Then children forked while no daemon ran join their parents' groups.
 * A missing file is an empty one. 0, -EBADMSG if a file is not a cgfused
 * state of this version (or its first line is damaged), or -errno if it
 * cannot be read; out->bad_log says which. A log of the snapshot's
 * generation whose own generation's snapshot a crash kept from its rename
 * is not lost: the older snapshot still names it. */
int state_replay(struct cg_core *core, const char *path, const char *boot_id,
		 struct state_load *out);

#endif
