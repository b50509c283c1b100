/* SPDX-License-Identifier: GPL-2.0-or-later */
/* systemd's readiness protocol (sd_notify(3)) without libsystemd: one
 * datagram to the socket NOTIFY_SOCKET names, for a Type=notify unit. */
#ifndef CGFUSED_SD_NOTIFY_H
#define CGFUSED_SD_NOTIFY_H

/* Takes NOTIFY_SOCKET out of the environment, so that no process the
 * daemon starts (a release agent) speaks for it. Call before any thread
 * starts; returns the socket's name (to g_free()) or NULL. */
char *sd_notify_take(void);

/* Sends state ("READY=1", "STOPPING=1") to socket if it is not NULL;
 * 0 or -errno. */
int sd_notify_send(const char *socket, const char *state);

#endif
