/* The state's log file through a shared mapping (see state_log.h). */
#include "state/state_log.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <glib.h>

#define STATE_LOG_CHUNK (1u << 20)

static void unmap(struct state_log *log)
{
	if (log->map)
		munmap(log->map, log->len);
	log->map = NULL;
	log->len = 0;
}

static int grow(struct state_log *log, size_t need)
{
	size_t len = MAX(log->len * 2, STATE_LOG_CHUNK);
	int err;
	void *map;

	while (len < need)
		len *= 2;
	err = posix_fallocate(log->fd, 0, (off_t)len);
	if (err)
		return -err;
	map = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, log->fd, 0);
	if (map == MAP_FAILED)
		return -errno;
	unmap(log);
	log->map = map;
	log->len = len;
	return 0;
}

int state_log_append(struct state_log *log, const char *text, size_t len)
{
	if (log->used + len > log->len) {
		int ret = grow(log, log->used + len);

		if (ret)
			return ret;
	}
	memcpy(log->map + log->used, text, len);
	log->used += len;
	return 0;
}

int state_log_reset(struct state_log *log, const char *text, size_t len)
{
	unmap(log);
	log->used = 0;
	if (ftruncate(log->fd, 0) < 0)
		return -errno;
	return state_log_append(log, text, len);
}

int state_log_close(struct state_log *log)
{
	unmap(log);
	return ftruncate(log->fd, (off_t)log->used) < 0 ? -errno : 0;
}
