/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Reading /proc/self/mountinfo (see mountinfo.h). */
#include "fs/mountinfo.h"

#include <glib.h>
#include <string.h>

/* A mount point as the table writes it: space, tab, newline and
 * backslash as \ and three octal digits. */
static char *unescape(const char *field)
{
	GString *out = g_string_new(NULL);

	for (const char *p = field; *p; p++) {
		if (p[0] == '\\' && p[1] >= '0' && p[1] <= '3' && p[2] >= '0' && p[2] <= '7' &&
		    p[3] >= '0' && p[3] <= '7') {
			g_string_append_c(out, (char)((p[1] - '0') * 64 + (p[2] - '0') * 8 +
						      (p[3] - '0')));
			p += 3;
		} else {
			g_string_append_c(out, *p);
		}
	}
	return g_string_free(out, FALSE);
}

/* Whether dir is path or a directory above it. */
static bool holds(const char *dir, const char *path)
{
	size_t len = strlen(dir);

	return strcmp(dir, "/") == 0 ||
	       (strncmp(dir, path, len) == 0 && (path[len] == '\0' || path[len] == '/'));
}

char *mountinfo_fstype_of(const char *path, char **mount_point)
{
	char *text, **lines, *fstype = NULL;

	*mount_point = NULL;
	if (!g_file_get_contents("/proc/self/mountinfo", &text, NULL, NULL))
		return NULL;
	lines = g_strsplit(text, "\n", -1);
	g_free(text);
	/* "ID PARENT MAJ:MIN ROOT MOUNT-POINT OPTIONS [TAGS...] - TYPE ..." */
	for (char **l = lines; *l; l++) {
		char **f = g_strsplit(*l, " ", -1);
		const char *sep = strstr(*l, " - ");
		char *mp;

		if (g_strv_length(f) < 5 || !sep) {
			g_strfreev(f);
			continue;
		}
		mp = unescape(f[4]);
		if (holds(mp, path)) {
			g_free(*mount_point);
			g_free(fstype);
			*mount_point = mp;
			fstype = g_strndup(sep + 3, strcspn(sep + 3, " "));
		} else {
			g_free(mp);
		}
		g_strfreev(f);
	}
	g_strfreev(lines);
	return fstype;
}
