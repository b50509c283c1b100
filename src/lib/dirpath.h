/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Opening the directory of a file the daemon trusts (its state, config and
 * rules: a record or a setting may name a release_agent, which runs as
 * root), like ssh's StrictModes: that directory, symbolic links resolved,
 * and every directory above it up to / must belong to root or to the
 * daemon's user and be writable by nobody else, except that a sticky one
 * may be writable by all (/tmp: nobody can rename or remove what is
 * ours). Each is opened through the descriptor of the one above with
 * O_NOFOLLOW and checked with fstat(): what is checked is what is opened. */
#ifndef CGFUSED_LIB_DIRPATH_H
#define CGFUSED_LIB_DIRPATH_H

#include <glib.h>
#include <stdbool.h>

/* The directory of file, checked with every one above it (file's own
 * directory may be a sticky one writable by all only if sticky_ok),
 * opened O_RDONLY | O_DIRECTORY; its absolute path to *real (g_free).
 * On refusal, -1 and one line in err: which directory, why, and what
 * would do, ending "or choose another with " option. */
int dirpath_open(const char *file, bool sticky_ok, const char *option, char **real,
		 GError **err);

#endif
