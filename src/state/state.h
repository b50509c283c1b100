/* SPDX-License-Identifier: GPL-2.0-or-later */
/* State that survives the daemon: every group, its control files' values,
 * owners and modes, and every membership, kept in FILE (a snapshot) and
 * FILE.log and FILE.log2 (the changes since, appended by its subscriber
 * hooks (see core/notify.h) before each change is answered; the two take
 * turns, see state.c). See docs/design.md, "State".
 *
 * One record per line: a type, fields that are decimal numbers or
 * '='-prefixed %-escaped strings, and " #" with the g_str_hash of what
 * precedes it, in hex. Each file starts with a header line carrying the
 * generation; the snapshot's also carries the boot id, without which
 * pidfs inodes (task identities) mean nothing. A snapshot names every
 * group, parents first, but writes a group's setting only where it
 * differs from what a mkdir under its parent (its values as the snapshot
 * has them) gives, inherited values included: replay makes the group the
 * same way and writes only what differs, as it always did (so a snapshot
 * that has every setting, as earlier ones of version 3 do, replays the
 * same, and this is no new version). Version 3 (two logs: the
 * snapshot, then the log of its generation, then the one of the next)
 * has the records of version 2; versions 1 and 2 (one log, of the
 * snapshot's generation) are still replayed. */
#ifndef CGFUSED_STATE_H
#define CGFUSED_STATE_H

#include <glib.h>
#include <stdint.h>

#include "core/cgroup.h"

#define STATE_DIR "/var/lib/cgfused"
#define STATE_VERSION 3
#define STATE_SNAPSHOT_MAGIC "cgfused-state"
#define STATE_LOG_MAGIC "cgfused-log"
/* Compaction: the log has this many records and 4x the snapshot's. */
#define STATE_COMPACT_MIN 4096
#define STATE_COMPACT_RATIO 4
/* Log room kept for records of changes that cannot be refused (rmdir,
 * rename, chmod, chown, forks): the others get ENOSPC first. */
#define STATE_LOG_KEEP (16u << 10)

struct cg_state;

/* STATE_DIR/<mount point, '/' as '-', '%' and '-' %-escaped>.state for
 * the absolute path of mountpoint; for a user other than root, in
 * cgfused/ under their XDG state directory instead. */
char *state_default_path(const char *mountpoint);

/* Takes FILE for this daemon (a lock on FILE.log: a second daemon fails),
 * replays what it holds into core (release agents do not run meanwhile),
 * lets children forked while no daemon ran join their parents' groups,
 * writes a fresh snapshot and from then on logs every change. boot_id NULL
 * reads the machine's. NULL with err set on failure. */
struct cg_state *state_open(struct cg_core *core, const char *path, const char *boot_id,
			    GError **err);

/* Starts the thread that fdatasyncs the log once a second if it changed
 * (after the daemon's fork). */
void state_sync_start(struct cg_state *st);

/* Writes a full snapshot and empties the log (a clean stop): the core is
 * serialised under its lock and written outside it. 0 or -errno. */
int state_snapshot(struct cg_state *st);

/* Tests only (NULL otherwise): called at each step of a compaction, by
 * name: between two steps of building its snapshot, without the lock
 * ("step", where a test may change the core), once the logs switched
 * ("switched"), and writing its files ("begin", "old-log-synced",
 * "tmp-written", "tmp-synced", "renamed", "dir-synced", "next-log-ready"),
 * to crash there. */
extern void (*state_step_hook)(const char *step);
/* Tests only: the most groups a step of a build visits (0, the default:
 * as many as fit in its time). */
extern unsigned state_step_groups;

/* Stops logging, closes the files and lets the lock go: without
 * state_snapshot() first, what a kill -9 leaves. */
void state_free(struct cg_state *st);

/* After a clean stop's state_snapshot(), before state_free(): if the
 * state holds nothing a fresh core (fresh: the same hierarchies, options
 * and owner, nothing done) would not, removes FILE and FILE.log, so that
 * temporary mounts leave no files behind. True if it was so. */
bool state_remove_if_pristine(struct cg_state *st, struct cg_core *fresh);

/* How many records the log and the last snapshot hold. */
unsigned state_log_records(const struct cg_state *st);
unsigned state_snapshot_records(const struct cg_state *st);

/* The checksum of a record's body (what precedes " #"): g_str_hash()'s
 * djb2, over len bytes. */
guint state_rec_hash(const char *body, gsize len);

/* The machine's boot id (/proc/sys/kernel/random/boot_id), or "". */
char *state_boot_id(void);

#endif
