/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The state's log file through a shared mapping (see state_log.h). */
#include "state/state_log.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <glib.h>

#define STATE_LOG_CHUNK ((size_t)1 << 20)
#define STATE_LOG_MIN_GROWTH ((size_t)4096)
/* Address space only (the file backs what is used): the most asked for,
 * and the least taken when that much cannot be had (RLIMIT_AS; valgrind
 * refuses a 64 GiB mapping). */
#define STATE_LOG_SPAN_MAX (SIZE_MAX > UINT32_MAX ? (size_t)1 << 36 : (size_t)1 << 28)
#define STATE_LOG_SPAN_MIN ((size_t)1 << 26)

static void unmap(struct state_log *log)
{
	if (log->map)
		munmap(log->map, log->span);
	log->map = NULL;
}

/* Allocates the file up to at least need bytes, aiming at want, taking
 * less (by halves of the growth) when the disk has no room for more. */
static int grow_to(struct state_log *log, size_t need, size_t want)
{
	size_t len = atomic_load(&log->len);
	size_t growth = MIN(want, log->span) - MIN(len, want);

	while (len + growth >= need && growth >= STATE_LOG_MIN_GROWTH) {
		int err = posix_fallocate(log->fd, 0, (off_t)(len + growth));

		if (err == 0) {
			size_t cur = atomic_load(&log->len);

			/* The sync thread and a hook may both grow it. */
			while (cur < len + growth &&
			       !atomic_compare_exchange_weak(&log->len, &cur, len + growth))
				;
			return 0;
		}
		if (err != ENOSPC)
			return -err;
		growth /= 2;
	}
	return -ENOSPC;
}

int state_log_room(struct state_log *log, size_t len)
{
	size_t used = atomic_load(&log->used);

	if (used + len <= atomic_load(&log->len))
		return 0;
	/* Not allocated ahead: the sync thread lags behind a burst, or the
	 * disk is full. A system call under the lock, rarely. */
	return grow_to(log, used + len, MAX(2 * used, used + len + STATE_LOG_MIN_GROWTH));
}

bool state_log_wants_growth(const struct state_log *log)
{
	return atomic_load(&log->used) > atomic_load(&log->len) / 2;
}

int state_log_append(struct state_log *log, const char *text, size_t len)
{
	size_t used = atomic_load(&log->used);
	int ret = state_log_room(log, len);

	if (ret)
		return ret;
	memcpy(log->map + used, text, len);
	atomic_store(&log->used, used + len);
	return 0;
}

int state_log_reserve(struct state_log *log)
{
	size_t used = atomic_load(&log->used), len = atomic_load(&log->len);

	if (used <= len / 2 || len >= log->span)
		return 0;
	return grow_to(log, len + STATE_LOG_MIN_GROWTH, MAX(2 * len, len + STATE_LOG_MIN_GROWTH));
}

int state_log_reset(struct state_log *log, const char *text, size_t len)
{
	int ret;

	/* The old records gone for good before a header that could make them
	 * look new. */
	if (ftruncate(log->fd, 0) < 0 || fdatasync(log->fd) < 0)
		return -errno;
	atomic_store(&log->len, 0);
	atomic_store(&log->used, 0);
	/* Mapped the first time, so that the growth knows the span; nothing
	 * past the file's end is touched before it is allocated. */
	for (log->span = log->map ? log->span : STATE_LOG_SPAN_MAX; !log->map; log->span /= 2) {
		log->map = mmap(NULL, log->span, PROT_READ | PROT_WRITE,
				MAP_SHARED | MAP_NORESERVE, log->fd, 0);
		if (log->map != MAP_FAILED)
			break;
		log->map = NULL;
		if (log->span / 2 < STATE_LOG_SPAN_MIN)
			return -errno;
	}
	ret = grow_to(log, len, MAX(STATE_LOG_CHUNK, len));
	if (ret == 0)
		ret = state_log_append(log, text, len);
	if (ret == 0 && fdatasync(log->fd) < 0)
		ret = -errno;
	return ret;
}

int state_log_close(struct state_log *log)
{
	if (!log->map)
		return 0;	/* never ours to write: left as it is */
	unmap(log);
	return ftruncate(log->fd, (off_t)atomic_load(&log->used)) < 0 ? -errno : 0;
}
