/* The state's log file, written through a shared mapping: an append is
 * a memcpy into the page cache, which outlives a kill -9 of the daemon as
 * a write(2) would, without a system call on the attach path. */
#ifndef CGFUSED_STATE_LOG_H
#define CGFUSED_STATE_LOG_H

#include <stddef.h>

struct state_log {
	int fd;			/* opened O_RDWR by the caller */
	char *map;		/* the file's first len bytes, or NULL */
	size_t len, used;	/* past used the file is zeros */
};

/* Empties the file and writes text at its start. */
int state_log_reset(struct state_log *log, const char *text, size_t len);
/* Appends text after what is used; the file grows by whole chunks,
 * allocated on disk first, so that a full disk is an error here and
 * never a SIGBUS when the mapping is written. */
int state_log_append(struct state_log *log, const char *text, size_t len);
/* Cuts the zeros off the end and unmaps (at a clean stop). */
int state_log_close(struct state_log *log);

#endif
