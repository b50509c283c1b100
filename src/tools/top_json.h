/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The little JSON that cgfused-top --json writes: GLib has no JSON writer,
 * and json-glib would be a new dependency for one object a refresh. */
#ifndef CGFUSED_TOOLS_TOP_JSON_H
#define CGFUSED_TOOLS_TOP_JSON_H

#include <glib.h>

/* Appends s as a JSON string: quoted, escaped, bytes that are not UTF-8
 * (a group's name may hold any) replaced by U+FFFD. */
void json_string(GString *out, const char *s);

/* Appends value bare if it is a number ("1024", "-1", "0.5"), else as
 * json_string: what a file held, typed. */
void json_value(GString *out, const char *value);

#endif
