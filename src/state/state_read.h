/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Reading a state file's records (src/state/state.h has the format) one
 * line at a time through a buffer of its own, each split and decoded in
 * place: a start replays 100,000 groups without a copy of the file in
 * memory or an allocation per record. */
#ifndef CGFUSED_STATE_READ_H
#define CGFUSED_STATE_READ_H

#include <glib.h>
#include <stdbool.h>

/* The most fields a record has (version 2's mkdir). */
#define STATE_REC_FIELDS 8

/* One checked record: its fields, '='-prefixed ones %-decoded. n counts
 * every field, up to STATE_REC_FIELDS + 1; only the first
 * STATE_REC_FIELDS are kept (a record with more fits no type). */
struct state_rec {
	guint n;
	const char *f[STATE_REC_FIELDS];
};

struct state_reader {
	int fd;			/* -1: no file (or it is done) */
	char *buf;
	gsize size, start, end;	/* the unread bytes are buf[start, end) */
	bool eof;		/* the file's end, or its first NUL, is in buf */
	int err;		/* a read failed: -errno */
};

/* Opens path (no symbolic link followed): 1, 0 when there is no such
 * file (an empty one), or -errno. */
int state_reader_open(struct state_reader *rd, const char *path);
void state_reader_close(struct state_reader *rd);

/* The next line, without its newline and NUL-terminated in the buffer
 * (valid until the next call), its length in *len; NULL at the end: the
 * file's, or its first NUL byte (a log is grown by zero-filled chunks; no
 * record holds one), or a last line with no newline (*torn set: the write
 * a crash cut), or a read error (rd->err). */
char *state_reader_line(struct state_reader *rd, gsize *len, bool *torn);

/* Whether anything but zeros follows what was read. */
bool state_reader_more(struct state_reader *rd);

/* Checks a line's checksum, then splits and decodes it in place into
 * rec: false (the line garbled) on a bad checksum or escape. */
bool state_rec_parse(char *line, gsize len, struct state_rec *rec);

#endif
