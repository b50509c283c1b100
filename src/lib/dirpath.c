/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The walk from / down to a trusted file's directory (the rules are in
 * dirpath.h). */
#include "lib/dirpath.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

/* The directory just opened as fd, at path on the way to file; last:
 * file's own one. */
static bool dir_ok(int fd, const char *path, const char *file, bool last, bool sticky_ok,
		   const char *option, GError **err)
{
	struct stat st;

	if (fstat(fd, &st) < 0) {
		g_set_error(err, G_FILE_ERROR, g_file_error_from_errno(errno),
			    "cannot use the directory %s on the path of %s: %s", path, file,
			    g_strerror(errno));
		return false;
	}
	if (st.st_uid != 0 && st.st_uid != geteuid()) {
		g_set_error(err, G_FILE_ERROR, G_FILE_ERROR_PERM, "a directory on the path "
			    "of %s, %s, belongs to uid %u, neither root nor this daemon's "
			    "user (uid %u): choose another with %s", file, path, st.st_uid,
			    geteuid(), option);
		return false;
	}
	if ((st.st_mode & 022) && (!(st.st_mode & S_ISVTX) || (last && !sticky_ok))) {
		g_set_error(err, G_FILE_ERROR, G_FILE_ERROR_PERM, "a directory on the path "
			    "of %s, %s, is writable by %s: chmod go-w it, or choose another "
			    "with %s", file, path, (st.st_mode & 022) == 022 ?
			    "its group and others" : st.st_mode & 020 ? "its group" : "others",
			    option);
		return false;
	}
	return true;
}

int dirpath_open(const char *file, bool sticky_ok, const char *option, char **real,
		 GError **err)
{
	char *parent = g_path_get_dirname(file);
	char *resolved = realpath(parent, NULL);
	char **parts;
	GString *at;
	int fd, next, e;

	*real = NULL;
	if (!resolved) {
		g_set_error(err, G_FILE_ERROR, g_file_error_from_errno(errno),
			    "cannot use the directory %s of %s: %s", parent, file,
			    g_strerror(errno));
		g_free(parent);
		return -1;
	}
	g_free(parent);
	fd = open("/", (resolved[1] ? O_PATH : O_RDONLY) | O_DIRECTORY | O_CLOEXEC);
	e = errno;
	at = g_string_new("/");
	parts = g_strsplit(resolved + 1, "/", -1);
	for (char **p = parts; fd >= 0; p++) {
		if (!dir_ok(fd, at->str, file, !*p, sticky_ok, option, err)) {
			close(fd);
			fd = -1;
			break;
		}
		if (!*p)
			break;	/* file's own directory */
		if (at->len > 1)
			g_string_append_c(at, '/');
		g_string_append(at, *p);
		next = openat(fd, *p, (p[1] ? O_PATH : O_RDONLY) | O_DIRECTORY | O_NOFOLLOW |
			      O_CLOEXEC);
		e = errno;
		close(fd);
		fd = next;
	}
	if (fd < 0 && err && !*err)
		g_set_error(err, G_FILE_ERROR, g_file_error_from_errno(e),
			    "cannot use the directory %s on the path of %s: %s", at->str, file,
			    g_strerror(e));
	g_strfreev(parts);
	g_string_free(at, TRUE);
	if (fd >= 0)
		*real = g_strdup(resolved);
	free(resolved);
	return fd;
}
