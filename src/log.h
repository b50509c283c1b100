/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef CGFUSED_LOG_H
#define CGFUSED_LOG_H

#include <glib.h>
#include <stdbool.h>
#include <syslog.h>

/* Installs the writer every message goes through (once, first thing in
 * main): stderr until log_to_syslog. */
void log_setup(void);

/* From now on everything goes to syslog as "cgfused[PID]" (LOG_DAEMON):
 * GLib's messages, libfuse's and log_msg's; to /dev/console when no
 * syslog daemon takes them (LOG_CONS). Called once the daemon is in the
 * background, where stderr is /dev/null. */
void log_to_syslog(void);

/* Whether a syslog daemon (or the journal) listens on /dev/log now. */
bool log_syslog_listens(void);

/* One line at a syslog level (LOG_ERR ...), without a final newline:
 * "cgfused: ..." on stderr, or to syslog. */
void log_msg(int level, const char *fmt, ...) G_GNUC_PRINTF(2, 3);

#endif
