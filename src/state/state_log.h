/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The state's log file, written through a shared mapping: an append is
 * a memcpy into the page cache, which outlives a kill -9 of the daemon as
 * a write(2) would, without a system call on the attach path.
 *
 * The file's blocks are allocated ahead (posix_fallocate, by the state's
 * sync thread, outside the core lock), so that whether a record fits is
 * known from memory: a change whose record would not fit is refused
 * (ENOSPC) before it is made, and an append never meets a full disk (nor
 * a SIGBUS). The mapping spans far more than the file, so growing it
 * never moves it. */
#ifndef CGFUSED_STATE_LOG_H
#define CGFUSED_STATE_LOG_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

struct state_log {
	int fd;			/* opened O_RDWR by the caller */
	char *map;		/* span bytes of the file, or NULL */
	size_t span;		/* address space mapped: the log's most */
	/* Bytes allocated on disk (and the file's size), grown by
	 * state_log_reserve() in another thread; past used the file is zeros. */
	_Atomic size_t len;
	_Atomic size_t used;
};

/* Empties the log and writes text at its start, durably: the file is
 * truncated (and that synced, so that no old record can outlive a crash
 * behind the new header), mapped the first time, given a first chunk (as
 * much as there is room for) and text, and synced. Outside the core lock,
 * on a log nobody appends to meanwhile. */
int state_log_reset(struct state_log *log, const char *text, size_t len);
/* 0 when len more bytes fit in what is allocated (from memory), else
 * after allocating more now; -ENOSPC when the disk has no room. */
int state_log_room(struct state_log *log, size_t len);
/* More than half of what is allocated is used: time for
 * state_log_reserve(). */
bool state_log_wants_growth(const struct state_log *log);
/* Appends text after what is used (state_log_room() first): -ENOSPC,
 * writing nothing, if it does not fit. */
int state_log_append(struct state_log *log, const char *text, size_t len);
/* Once more than half of what is allocated is used, allocates more (twice
 * what is used, or as much as the disk has room for, down to a page):
 * the sync thread's, outside the core lock. 0 or -errno. */
int state_log_reserve(struct state_log *log);
/* Cuts the zeros off the end and unmaps (at a clean stop); a log never
 * reset (a start that failed) is left as it is. */
int state_log_close(struct state_log *log);

#endif
