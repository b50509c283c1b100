/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Choosing the task-watch source at start (watch_sources.h). */
#include "kernel/watch_sources.h"

#include "kernel/thread_ident.h"
#include "kernel/watch_ptrace.h"
#include "kernel/watch_scan.h"

#include <errno.h>
#include <string.h>

static const char *const mode_names[] = {
	[WATCH_AUTO] = "auto",
	[WATCH_CONNECTOR] = "connector",
	[WATCH_PTRACE] = "ptrace",
	[WATCH_SCAN] = "scan",
};

int watch_mode_parse(const char *name, enum watch_mode *mode)
{
	for (unsigned i = 0; i < G_N_ELEMENTS(mode_names); i++)
		if (strcmp(name, mode_names[i]) == 0) {
			*mode = (enum watch_mode)i;
			return 0;
		}
	return -EINVAL;
}

struct watch_source *watch_choose(enum watch_mode mode, const struct watch_candidate *cands,
				  unsigned n, GString *line)
{
	GString *why = g_string_new(NULL);
	struct watch_source *ws = NULL;
	const struct watch_candidate *c = NULL;

	for (unsigned i = 0; i < n && !ws; i++) {
		if (mode != WATCH_AUTO && cands[i].mode != mode)
			continue;
		gsize before = why->len;

		c = &cands[i];
		if (before)
			g_string_append(why, "; ");
		ws = c->make(why);
		if (ws)
			g_string_truncate(why, before);	/* no reason: it works */
	}
	if (!c) {
		g_string_printf(line, "tracking=%s: this cgfused has no such source",
				mode_names[mode]);
	} else if (!ws) {
		g_string_printf(line, "tracking=%s cannot work here: %s", mode_names[c->mode],
				why->str);
	} else {
		g_string_printf(line, "tracking forks by %s", c->name);
		if (why->len)
			g_string_append_printf(line, ": %s", why->str);
		if (c->weakness)
			g_string_append_printf(line, "; %s", c->weakness);
	}
	g_string_free(why, TRUE);
	return ws;
}

/* Best first. */
static const struct watch_candidate sources[] = {
	{ WATCH_CONNECTOR, "the proc connector", watch_connector_new, NULL },
	{ WATCH_PTRACE, "ptrace", watch_ptrace_new,
	  "a debugger cannot attach to a member (moving a debugged process fails with "
	  "EBUSY), and every fork, exec and exit of a member stops it briefly" },
	{ WATCH_SCAN, "/proc scan every " G_STRINGIFY(WATCH_SCAN_MS) " ms", watch_scan_default_new,
	  "children that exit within a scan, or whose parent exits first, are not seen" },
};

struct watch_source *watch_select(enum watch_mode mode, GString *line)
{
	struct watch_source *ws = watch_choose(mode, sources, G_N_ELEMENTS(sources), line);

	if (ws && !thread_ident_exact())
		g_string_append(line, "; threads are known by id and start time, not by a "
			"pidfd (that needs Linux 6.9): a thread id reused within one clock tick "
			"is taken for the old thread");
	return ws;
}
