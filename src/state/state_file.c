/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Opening the state's files without trusting what is there (the rules
 * are in state_file.h). */
#include "state/state_file.h"

#include "lib/dirpath.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define REFUSED "; left as it is: move it away or choose another with -o state=FILE"

/* root's, or the daemon user's. */
static bool owner_ok(const struct stat *st)
{
	return st->st_uid == 0 || st->st_uid == geteuid();
}

bool state_dir_open(struct state_dir *dir, const char *file, GError **err)
{
	dir->fd = dirpath_open(file, false, "-o state=FILE", &dir->path, err);
	return dir->fd >= 0;
}

void state_dir_close(struct state_dir *dir)
{
	if (dir->fd >= 0)
		close(dir->fd);
	dir->fd = -1;
	g_clear_pointer(&dir->path, g_free);
}

/* Whether the file starts with "magic " and a whole line; with empty_ok,
 * or is empty or starts with NUL (a log a crash cut right after it was
 * emptied). The reason if not. */
static const char *header_problem(int fd, const char *magic, bool empty_ok)
{
	char buf[256];
	size_t len = strlen(magic);
	ssize_t n = pread(fd, buf, sizeof(buf), 0);

	if (n < 0)
		return g_strerror(errno);
	if (empty_ok && (n == 0 || buf[0] == '\0'))
		return NULL;
	if (n == 0)
		return "it is empty";
	if ((size_t)n <= len || memcmp(buf, magic, len) != 0 || buf[len] != ' ' ||
	    !memchr(buf, '\n', (size_t)n))
		return "it does not start with a cgfused header";
	return NULL;
}

/* What is wrong with the file at st to be the state's, or NULL. */
static const char *stat_problem(const struct stat *st)
{
	if (S_ISLNK(st->st_mode))
		return "it is a symbolic link (name the file itself)";
	if (!S_ISREG(st->st_mode))
		return "it is not a regular file";
	if (!owner_ok(st))
		return "it belongs to another user";
	if (st->st_mode & 022)
		return "it is writable by its group or others";
	if (st->st_nlink != 1)
		return "it has other hard links";
	return NULL;
}

/* name in dir opened with flags (O_RDONLY or O_RDWR) and checked: its
 * type and owner first, on a descriptor that opens nothing (O_PATH: a
 * device or a FIFO is not opened, a link is not followed), then the same
 * file opened for real and its header. -1 with errno ENOENT if there is
 * none, or with err. */
static int open_checked(const struct state_dir *dir, const char *name, int flags,
			const char *magic, bool empty_ok, GError **err)
{
	int probe = openat(dir->fd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC), fd = -1, e = 0;
	const char *why = NULL;
	struct stat st, again;

	if (probe < 0) {
		e = errno;
		if (e == ENOENT)
			return -1;
	} else if (fstat(probe, &st) < 0) {
		e = errno;
	} else if (!(why = stat_problem(&st))) {
		fd = openat(dir->fd, name, flags | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC);
		if (fd < 0 || fstat(fd, &again) < 0)
			e = errno;
		else if (again.st_dev != st.st_dev || again.st_ino != st.st_ino)
			why = "it was replaced while being opened";
		else if (magic)
			why = header_problem(fd, magic, empty_ok);
	}
	if (probe >= 0)
		close(probe);
	if (!e && !why)
		return fd;
	if (fd >= 0)
		close(fd);
	if (e)
		g_set_error(err, G_FILE_ERROR, g_file_error_from_errno(e), "cannot open state "
			    "file %s/%s: %s", dir->path, name, g_strerror(e));
	else
		g_set_error(err, G_FILE_ERROR, G_FILE_ERROR_INVAL, "%s/%s is not a cgfused state "
			    "file: %s" REFUSED, dir->path, name, why);
	errno = 0;
	return -1;
}

int state_file_check(const struct state_dir *dir, const char *name, const char *magic,
		     GError **err)
{
	int fd = open_checked(dir, name, O_RDONLY, magic, false, err);

	if (fd < 0)
		return errno == ENOENT ? 0 : -1;
	close(fd);
	return 1;
}

int state_file_open_rw(const struct state_dir *dir, const char *name, const char *magic,
		       bool empty_ok, bool *created, GError **err)
{
	int fd = open_checked(dir, name, O_RDWR, magic, empty_ok, err);

	*created = false;
	if (fd >= 0 || errno != ENOENT)
		return fd;
	fd = openat(dir->fd, name, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		g_set_error(err, G_FILE_ERROR, g_file_error_from_errno(errno),
			    "cannot create state file %s/%s: %s", dir->path, name,
			    g_strerror(errno));
	*created = fd >= 0;
	return fd;
}

int state_file_create(const struct state_dir *dir, const char *name)
{
	int fd;

	if (unlinkat(dir->fd, name, 0) < 0 && errno != ENOENT)
		return -errno;
	fd = openat(dir->fd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	return fd < 0 ? -errno : fd;
}

int state_file_write_all(int fd, const char *buf, gsize len)
{
	while (len) {
		ssize_t n = write(fd, buf, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		buf += n;
		len -= (gsize)n;
	}
	return 0;
}
