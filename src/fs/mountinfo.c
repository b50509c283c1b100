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

/* Calls fn for each line of the table, oldest mount first, with its mount
 * point (unescaped) and type; false if the table cannot be read. */
static bool each_mount(void (*fn)(const char *mp, const char *fstype, void *data), void *data)
{
	char *text, **lines;

	if (!g_file_get_contents("/proc/self/mountinfo", &text, NULL, NULL))
		return false;
	lines = g_strsplit(text, "\n", -1);
	g_free(text);
	/* "ID PARENT MAJ:MIN ROOT MOUNT-POINT OPTIONS [TAGS...] - TYPE ..." */
	for (char **l = lines; *l; l++) {
		char **f = g_strsplit(*l, " ", -1);
		const char *sep = strstr(*l, " - ");

		if (g_strv_length(f) >= 5 && sep) {
			char *mp = unescape(f[4]);
			char *fstype = g_strndup(sep + 3, strcspn(sep + 3, " "));

			fn(mp, fstype, data);
			g_free(fstype);
			g_free(mp);
		}
		g_strfreev(f);
	}
	g_strfreev(lines);
	return true;
}

struct fstype_of {
	const char *path;
	char *fstype, *mount_point;
};

static void take_if_holds(const char *mp, const char *fstype, void *data)
{
	struct fstype_of *q = data;

	if (holds(mp, q->path)) {
		g_free(q->mount_point);
		g_free(q->fstype);
		q->mount_point = g_strdup(mp);
		q->fstype = g_strdup(fstype);
	}
}

char *mountinfo_fstype_of(const char *path, char **mount_point)
{
	struct fstype_of q = { .path = path };

	each_mount(take_if_holds, &q);
	*mount_point = q.mount_point;
	return q.fstype;
}

struct of_type {
	const char *fstype;
	GPtrArray *found;
};

static void take_if_type(const char *mp, const char *fstype, void *data)
{
	struct of_type *q = data;

	if (strcmp(fstype, q->fstype) == 0)
		g_ptr_array_add(q->found, g_strdup(mp));
}

GPtrArray *mountinfo_mounts_of_type(const char *fstype)
{
	struct of_type q = { .fstype = fstype, .found = g_ptr_array_new_with_free_func(g_free) };

	if (!each_mount(take_if_type, &q)) {
		g_ptr_array_unref(q.found);
		return NULL;
	}
	return q.found;
}
