/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The task-watch sources (watch.h) and the choice among them at start. */
#ifndef CGFUSED_WATCH_SOURCES_H
#define CGFUSED_WATCH_SOURCES_H

#include "kernel/watch.h"

/* -o tracking=MODE */
enum watch_mode { WATCH_AUTO, WATCH_CONNECTOR, WATCH_PTRACE, WATCH_SCAN };

/* "auto", "connector", "ptrace", "scan": 0, or -EINVAL for another. */
int watch_mode_parse(const char *name, enum watch_mode *mode);

/* A source's constructor: the source, or NULL with why it cannot work
 * here appended to why ("the proc connector does not deliver in this PID
 * namespace"). */
typedef struct watch_source *(*watch_source_new_fn)(GString *why);

/* The proc connector, subscribed and probed: a child forked at once must be
 * reported within WATCH_PROBE_MS. Events read meanwhile stay queued. */
#define WATCH_PROBE_MS 300
struct watch_source *watch_connector_new(GString *why);

/* The /proc scan every WATCH_SCAN_MS (watch_scan.h). */
struct watch_source *watch_scan_default_new(GString *why);

/* A source that may be tried. */
struct watch_candidate {
	enum watch_mode mode;
	const char *name;
	watch_source_new_fn make;
	/* What it misses, for the start-up line. */
	const char *weakness;
};

/* The source mode asks for: forced, that one or NULL; auto, the first of
 * cands (best first) that can be had. line gets the start-up line (which
 * source and why not the better ones) or, on NULL, the reason it fails. */
struct watch_source *watch_choose(enum watch_mode mode, const struct watch_candidate *cands,
				  unsigned n, GString *line);
/* watch_choose() among the real sources. */
struct watch_source *watch_select(enum watch_mode mode, GString *line);

#endif
