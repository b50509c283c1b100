/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Opening the state's files without trusting what is there. The daemon
 * replays FILE and FILE.log as root (a record may set a release_agent), so
 * whoever could write them could run anything as root; and it rewrites and
 * truncates them, so a link or a wrong -o state= must not make it destroy
 * another file. The rules, like ssh's StrictModes:
 *
 * - the directory of FILE and every one above it are checked as
 *   lib/dirpath.h says, FILE's own directory not writable by others even
 *   if sticky (the state's files are made there);
 * - FILE and FILE.log, if they exist, must be regular files, not symbolic
 *   links, with one link, belong to root or to the daemon's user, be
 *   writable by nobody else, and start with a whole cgfused header line;
 * - files are made with O_EXCL, and every check is made with fstat() on
 *   the descriptor that is then used.
 *
 * Each refusal is one GError naming the file and saying why. */
#ifndef CGFUSED_STATE_FILE_H
#define CGFUSED_STATE_FILE_H

#include <glib.h>
#include <stdbool.h>

struct state_dir {
	int fd;			/* O_RDONLY | O_DIRECTORY, or -1 */
	char *path;		/* its absolute path, links resolved */
};

/* Opens the directory of file after checking it and every directory above
 * it. false and err on refusal. */
bool state_dir_open(struct state_dir *dir, const char *file, GError **err);
void state_dir_close(struct state_dir *dir);

/* Checks name in dir if it exists: 1 if it is ours and starts with the
 * header line "magic ..." (any content if magic is NULL), 0 if there is
 * no such file, -1 and err if there is something else (left as it is). */
int state_file_check(const struct state_dir *dir, const char *name, const char *magic,
		     GError **err);

/* name in dir opened O_RDWR: an existing one checked as by
 * state_file_check(), though with empty_ok one that is empty or starts
 * with a NUL byte passes too; if there is none, made (mode 0600) and
 * *created set. -1 and err on refusal. */
int state_file_open_rw(const struct state_dir *dir, const char *name, const char *magic,
		       bool empty_ok, bool *created, GError **err);

/* name made anew in dir, O_WRONLY, mode 0600, after unlinking whatever
 * had the name (a temporary file a crash left: unlinking a link removes
 * the link, not its target). The fd or -errno. */
int state_file_create(const struct state_dir *dir, const char *name);

/* The whole of buf (len bytes) to fd, through short writes and EINTR.
 * 0 or -errno. */
int state_file_write_all(int fd, const char *buf, gsize len);

#endif
