/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Where the daemon's messages go: stderr in the foreground (-f, or before
 * it daemonizes), syslog once in the background, where the journal or a
 * syslog daemon picks them up, or the console when none listens. */
#include "config.h"

#include "log.h"

#include <paths.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <fuse_log.h>

static bool to_syslog;

static int syslog_level(GLogLevelFlags level)
{
	if (level & (G_LOG_LEVEL_ERROR | G_LOG_LEVEL_CRITICAL))
		return LOG_CRIT;
	if (level & G_LOG_LEVEL_WARNING)
		return LOG_WARNING;
	if (level & G_LOG_LEVEL_MESSAGE)
		return LOG_NOTICE;
	if (level & G_LOG_LEVEL_INFO)
		return LOG_INFO;
	return LOG_DEBUG;
}

static GLogWriterOutput writer(GLogLevelFlags level, const GLogField *fields,
			       gsize n_fields, gpointer data)
{
	const char *message = NULL, *domain = NULL;

	if (!to_syslog)
		return g_log_writer_default(level, fields, n_fields, data);
	for (gsize i = 0; i < n_fields; i++) {
		if (g_strcmp0(fields[i].key, "MESSAGE") == 0)
			message = fields[i].value;
		else if (g_strcmp0(fields[i].key, "GLIB_DOMAIN") == 0)
			domain = fields[i].value;
	}
	/* Debug messages only when G_MESSAGES_DEBUG asks for them. */
	if (!message || g_log_writer_default_would_drop(level, domain))
		return G_LOG_WRITER_HANDLED;
	syslog(syslog_level(level), "%s", message);
	return G_LOG_WRITER_HANDLED;
}

/* libfuse's levels are syslog's. */
static void fuse_to_syslog(enum fuse_log_level level, const char *fmt, va_list ap)
{
	vsyslog((int)level, fmt, ap);
}

void log_setup(void)
{
	g_set_prgname("cgfused");	/* GLib's lines on stderr name it */
	g_log_set_writer_func(writer, NULL, NULL);
}

bool log_syslog_listens(void)
{
	static const int types[] = { SOCK_DGRAM, SOCK_STREAM };	/* as glibc tries */
	struct sockaddr_un addr = { .sun_family = AF_UNIX, .sun_path = _PATH_LOG };
	bool listens = false;

	for (size_t i = 0; i < G_N_ELEMENTS(types) && !listens; i++) {
		int fd = socket(AF_UNIX, types[i] | SOCK_CLOEXEC, 0);

		listens = fd >= 0 && connect(fd, (struct sockaddr *)&addr, sizeof(addr)) == 0;
		if (fd >= 0)
			close(fd);
	}
	return listens;
}

void log_to_syslog(void)
{
	/* LOG_CONS: a message syslog cannot take goes to /dev/console. */
	openlog("cgfused", LOG_PID | LOG_CONS, LOG_DAEMON);
	to_syslog = true;
	fuse_set_log_func(fuse_to_syslog);
}

void log_msg(int level, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	if (to_syslog) {
		vsyslog(level, fmt, ap);
	} else {
		fputs("cgfused: ", stderr);
		vfprintf(stderr, fmt, ap);
		fputc('\n', stderr);
	}
	va_end(ap);
}
