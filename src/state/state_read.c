/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Reading a state file's records in place (see state_read.h). */
#include "state/state_read.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "state/state.h"

/* Enough for many records; grown for a longer one (a release agent, a
 * cpuset mask, %-escaped: tens of KiB). */
#define READ_CHUNK ((gsize)64 << 10)

int state_reader_open(struct state_reader *rd, const char *path)
{
	*rd = (struct state_reader){ .fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC) };
	if (rd->fd < 0) {
		int e = errno;

		rd->eof = true;
		return e == ENOENT ? 0 : -e;
	}
	rd->size = READ_CHUNK;
	rd->buf = g_malloc(rd->size + 1);
	return 1;
}

void state_reader_close(struct state_reader *rd)
{
	if (rd->fd >= 0)
		close(rd->fd);
	rd->fd = -1;
	g_free(rd->buf);
	rd->buf = NULL;
}

/* More bytes after what is unread: moved to the front, the buffer
 * doubled when a line fills it. false when nothing more came. */
static bool fill(struct state_reader *rd)
{
	ssize_t n;

	if (rd->eof)
		return false;
	if (rd->start) {
		memmove(rd->buf, rd->buf + rd->start, rd->end - rd->start);
		rd->end -= rd->start;
		rd->start = 0;
	}
	if (rd->end == rd->size) {
		rd->size *= 2;
		rd->buf = g_realloc(rd->buf, rd->size + 1);
	}
	do
		n = read(rd->fd, rd->buf + rd->end, rd->size - rd->end);
	while (n < 0 && errno == EINTR);
	if (n <= 0) {
		rd->err = n < 0 ? -errno : 0;
		rd->eof = true;
		return false;
	}
	char *nul = memchr(rd->buf + rd->end, '\0', (gsize)n);

	if (nul) {
		n = nul - (rd->buf + rd->end);
		rd->eof = true;
	}
	rd->end += (gsize)n;
	return n > 0;
}

char *state_reader_line(struct state_reader *rd, gsize *len, bool *torn)
{
	char *line, *nl;

	*torn = false;
	if (!rd->buf)
		return NULL;
	for (;;) {
		nl = memchr(rd->buf + rd->start, '\n', rd->end - rd->start);
		if (nl || !fill(rd))
			break;
	}
	if (!nl) {
		*torn = rd->end > rd->start;
		return NULL;
	}
	line = rd->buf + rd->start;
	*nl = '\0';
	*len = (gsize)(nl - line);
	rd->start += *len + 1;
	return line;
}

bool state_reader_more(struct state_reader *rd)
{
	return rd->buf && (rd->end > rd->start || fill(rd));
}

static int hexval(char c)
{
	return g_ascii_xdigit_value(c);
}

/* %XX decoded in place, as g_uri_unescape_string() would (which refuses
 * a bad escape and a NUL). */
static bool unescape(char *s)
{
	char *out = s;

	for (; *s; s++) {
		if (*s == '%') {
			int hi, lo;

			if ((hi = hexval(s[1])) < 0 || (lo = hexval(s[2])) < 0 || (hi | lo) == 0)
				return false;
			*out++ = (char)(hi << 4 | lo);
			s += 2;
		} else {
			*out++ = *s;
		}
	}
	*out = '\0';
	return true;
}

bool state_rec_parse(char *line, gsize len, struct state_rec *rec)
{
	char *mark = g_strrstr_len(line, (gssize)len, " #"), *p;
	guint64 hash;

	rec->n = 0;
	if (!mark || mark == line || line + len - (mark + 2) != 8 ||
	    !g_ascii_string_to_unsigned(mark + 2, 16, 0, G_MAXUINT32, &hash, NULL) ||
	    state_rec_hash(line, (gsize)(mark - line)) != hash)
		return false;
	*mark = '\0';
	for (p = line;; p++) {
		char *sp = strchr(p, ' ');

		if (sp)
			*sp = '\0';
		if (*p == '=' && !unescape(++p))
			return false;
		if (rec->n < STATE_REC_FIELDS)
			rec->f[rec->n] = p;
		if (rec->n <= STATE_REC_FIELDS)
			rec->n++;
		if (!sp)
			return true;
		p = sp;
	}
}
