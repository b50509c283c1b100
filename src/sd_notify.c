/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The NOTIFY_SOCKET datagram (see sd_notify.h). */
#include "sd_notify.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <glib.h>

char *sd_notify_take(void)
{
	char *socket = g_strdup(g_getenv("NOTIFY_SOCKET"));

	g_unsetenv("NOTIFY_SOCKET");
	return socket;
}

int sd_notify_send(const char *socket_name, const char *state)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	size_t len = socket_name ? strlen(socket_name) : 0;
	ssize_t sent;
	int fd, err;

	if (!len)
		return 0;
	/* A path, or '@' for a name in the abstract namespace. */
	if ((socket_name[0] != '/' && socket_name[0] != '@') || len >= sizeof(addr.sun_path))
		return -EINVAL;
	memcpy(addr.sun_path, socket_name, len);
	if (addr.sun_path[0] == '@')
		addr.sun_path[0] = '\0';
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	sent = sendto(fd, state, strlen(state), MSG_NOSIGNAL, (struct sockaddr *)&addr,
		      offsetof(struct sockaddr_un, sun_path) + len);
	err = sent < 0 ? -errno : 0;
	close(fd);
	return err;
}
