/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Lists of ids from /proc (proc_list.h). */
#include "kernel/proc_list.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int proc_list_ids(const char *dir, GArray *ids)
{
	DIR *d = opendir(dir);
	struct dirent *de;

	if (!d)
		return errno == ENOENT ? -ESRCH : -errno;
	while ((de = readdir(d))) {
		char *end;
		long id = strtol(de->d_name, &end, 10);

		if (*end == '\0' && id > 0) {
			pid_t pid = (pid_t)id;

			g_array_append_val(ids, pid);
		}
	}
	closedir(d);
	return 0;
}

/* The file holds child PIDs, spaces between. */
int proc_children(pid_t tgid, pid_t tid, GArray *pids)
{
	char path[64], buf[4096], *p, *end;
	GString *data;
	ssize_t n;
	int fd, ret = 0;

	if (tgid <= 0 || tid <= 0)
		return -ESRCH;
	snprintf(path, sizeof(path), "/proc/%d/task/%d/children", tgid, tid);
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? -ESRCH : -errno;
	data = g_string_new(NULL);
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		g_string_append_len(data, buf, n);
	if (n < 0)
		ret = -errno;
	close(fd);
	for (p = data->str; ret == 0; p = end) {
		long id = strtol(p, &end, 10);

		if (end == p)
			break;
		if (id > 0) {
			pid_t pid = (pid_t)id;

			g_array_append_val(pids, pid);
		}
	}
	g_string_free(data, TRUE);
	return ret;
}
