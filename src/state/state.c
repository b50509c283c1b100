/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The state's files: opened, replayed, the first snapshot, the thread that
 * syncs the log; the log's hooks are in state_hooks.c, compaction in
 * state_compact.c. */
#include "state/state.h"

#include <errno.h>
#include <malloc.h>
#include <sys/file.h>
#include <unistd.h>

#include "state/state_internal.h"

char *state_boot_id(void)
{
	char *id = NULL;

	if (!g_file_get_contents("/proc/sys/kernel/random/boot_id", &id, NULL, NULL))
		return g_strdup("");
	return g_strstrip(id);
}

char *state_default_path(const char *mountpoint)
{
	char *abs = g_canonicalize_filename(mountpoint, NULL);
	GString *name = g_string_new(NULL);

	/* Only root may write in STATE_DIR. */
	if (geteuid() == 0)
		g_string_append(name, STATE_DIR "/");
	else
		g_string_append_printf(name, "%s/cgfused/", g_get_user_state_dir());

	for (const char *p = abs + 1; *p; p++) {
		if (*p == '/')
			g_string_append_c(name, '-');
		else if (*p == '-' || *p == '%')
			g_string_append_printf(name, "%%%02X", *p);
		else
			g_string_append_c(name, *p);
	}
	if (!abs[1])
		g_string_append(name, "-");	/* the root directory */
	g_string_append(name, ".state");
	g_free(abs);
	return g_string_free(name, FALSE);
}

void log_header(GString *out, uint64_t generation)
{
	gsize start = rec_begin(out, STATE_LOG_MAGIC);

	rec_num(out, STATE_VERSION);
	rec_num(out, generation);
	rec_end(out, start);
}

/* Ahead of the records: the hooks only copy into what is allocated. A
 * full disk is tried again each second. The sync thread's, without the
 * lock. */
struct state_log *reserve_log(struct cg_state *st)
{
	struct state_log *log = &st->logs[g_atomic_int_get(&st->cur)];

	g_atomic_int_set(&st->grow, 0);
	state_log_reserve(log);
	return log;
}

/* The sync thread. */

static gpointer sync_main(gpointer data)
{
	struct cg_state *st = data;

	g_mutex_lock(&st->sync_lock);
	while (!st->stop) {
		gint64 until = g_get_monotonic_time() + G_TIME_SPAN_SECOND;
		struct state_log *log;
		bool job;

		while (!st->stop && !st->wake &&
		       g_cond_wait_until(&st->sync_cond, &st->sync_lock, until))
			;
		st->wake = false;
		job = st->build || st->pending || !g_atomic_int_get(&st->next_ready);
		g_mutex_unlock(&st->sync_lock);
		log = reserve_log(st);
		if (g_atomic_int_compare_and_exchange(&st->dirty, 1, 0))
			fdatasync(log->fd);
		/* Records that went to the other log before a switch are
		 * synced by the compaction, first. */
		if (job) {
			g_mutex_lock(&st->job_lock);
			finish_compaction(st, false);
			g_mutex_unlock(&st->job_lock);
		}
		g_mutex_lock(&st->sync_lock);
	}
	g_mutex_unlock(&st->sync_lock);
	return NULL;
}

void state_sync_start(struct cg_state *st)
{
	st->sync_thread = g_thread_new("cgfused-state", sync_main, st);
}

/* Opening. */

/* Log i, which must be cgfused's (state_file.h), opened or made. Emptied
 * after a snapshot's rename: beside a snapshot, an empty log (or zeros)
 * is what a crash there leaves. Without a snapshot, a new log is never
 * empty (an empty log there would be nobody's): it gets the header of
 * generation i, which replays as nothing. */
static int open_log(struct cg_state *st, int i, bool snapshot, GError **err)
{
	bool created;
	int fd = state_file_open_rw(&st->dir, st->log_name[i], STATE_LOG_MAGIC, snapshot,
				    &created, err);

	if (fd < 0)
		return -1;
	st->logs[i].fd = fd;
	if (created && !snapshot) {
		GString *head = g_string_new(NULL);
		int ret;

		log_header(head, (uint64_t)i);
		ret = state_file_write_all(fd, head->str, head->len);
		g_string_free(head, TRUE);
		if (ret < 0) {
			g_set_error(err, G_FILE_ERROR, g_file_error_from_errno(-ret),
				    "cannot write state log %s: %s", st->log_path[i],
				    g_strerror(-ret));
			return -1;
		}
	}
	return 0;
}

/* The directory, checked, and the files in it, which must be cgfused's
 * (state_file.h). The logs are ours (to write and trim) only once FILE.log
 * is locked: a log another daemon holds is closed again at once, and
 * FILE.log2 is not touched. */
static int open_files(struct cg_state *st, const char *path, GError **err)
{
	int snapshot;

	if (g_str_has_suffix(path, "/")) {
		g_set_error(err, G_FILE_ERROR, G_FILE_ERROR_ISDIR, "state file %s names a "
			    "directory: name a file in it", path);
		return -1;
	}
	st->name = g_path_get_basename(path);
	st->log_name[0] = g_strconcat(st->name, ".log", NULL);
	st->log_name[1] = g_strconcat(st->name, ".log2", NULL);
	st->tmp_name = g_strconcat(st->name, ".tmp", NULL);
	if (!state_dir_open(&st->dir, path, err))
		return -1;
	/* Replayed by path from here: the directory lets nobody else change
	 * what the names lead to. */
	st->path = g_build_filename(st->dir.path, st->name, NULL);
	st->log_path[0] = g_strconcat(st->path, ".log", NULL);
	st->log_path[1] = g_strconcat(st->path, ".log2", NULL);
	snapshot = state_file_check(&st->dir, st->name, STATE_SNAPSHOT_MAGIC, err);
	if (snapshot < 0)
		return -1;
	/* One a crash left is unlinked at the first compaction; a link or
	 * anything not ours is not. */
	if (state_file_check(&st->dir, st->tmp_name, NULL, err) < 0)
		return -1;
	if (open_log(st, 0, snapshot, err) < 0)
		return -1;
	if (flock(st->logs[0].fd, LOCK_EX | LOCK_NB) < 0) {
		int e = errno;

		close(st->logs[0].fd);
		st->logs[0].fd = -1;
		g_set_error(err, G_FILE_ERROR, g_file_error_from_errno(e),
			    e == EWOULDBLOCK ? "state file %s is in use by another cgfused "
			    "(each daemon needs its own: -o state=FILE)" : "cannot lock %s: %s",
			    st->path, g_strerror(e));
		return -1;
	}
	return open_log(st, 1, snapshot, err);
}

/* Said only when something was left out: a normal start is quiet. */
static void report_load(const struct cg_state *st, const struct state_load *load)
{
	GString *what = g_string_new(NULL);

	if (load->torn)
		g_string_append(what, "; a torn or damaged line (and what followed) ignored");
	if (load->log_ignored)
		g_string_append(what, "; a log of another generation ignored");
	if (load->tasks_ignored)
		g_string_append(what, "; members not restored: the machine rebooted");
	if (what->len)
		g_message("state %s: %u records applied, %u refused%s", st->path, load->applied,
			  load->refused, what->str);
	g_string_free(what, TRUE);
}

/* At start-up, under the lock, before anyone can change the core or wait
 * for it (no mount served yet): the replayed state as the snapshot of the
 * next generation, then FILE.log emptied as its log and FILE.log2 as the
 * next one. Until the rename the older files stand; after it, logs of
 * older generations are ignored. */
static int first_snapshot(struct cg_core *core, void *data)
{
	struct cg_state *st = data;
	unsigned nr;
	GString *snap = serialise(st, ++st->generation, &nr);
	int ret = write_snapshot(st, snap);

	(void)core;
	g_string_free(snap, TRUE);
	if (ret == 0)
		ret = reset_log(st, 0, st->generation);
	if (ret == 0)
		ret = reset_log(st, 1, st->generation + 1);
	if (ret)
		return ret;
	st->cur = 0;
	st->next_ready = 1;
	st->snapshot_records = (gint)nr;
	st->compact_at = MAX(STATE_COMPACT_MIN, STATE_COMPACT_RATIO * nr);
	return 0;
}

struct cg_state *state_open(struct cg_core *core, const char *path, const char *boot_id,
			    GError **err)
{
	struct cg_state *st = g_new0(struct cg_state, 1);
	struct state_load load = { 0 };
	int ret;

	st->core = core;
	st->logs[0].fd = st->logs[1].fd = -1;
	st->buf = g_string_sized_new(4096);
	st->group = g_string_new(NULL);
	st->dir.fd = -1;
	st->boot_id = boot_id ? g_strdup(boot_id) : state_boot_id();
	g_mutex_init(&st->sync_lock);
	g_mutex_init(&st->job_lock);
	g_cond_init(&st->sync_cond);
	st->sub = state_subscriber(st);
	if (open_files(st, path, err) < 0) {
		state_free(st);
		return NULL;
	}
	ret = state_replay(core, st->path, st->boot_id, &load);
	if (ret < 0) {
		const char *file = load.bad_log ? st->log_path[load.bad_log - 1] : st->path;

		if (ret == -EBADMSG)
			g_set_error(err, G_FILE_ERROR, G_FILE_ERROR_INVAL, "%s is not a cgfused "
				    "state file (or is damaged); left as it is: move it away or "
				    "choose another with -o state=FILE", file);
		else
			g_set_error(err, G_FILE_ERROR, g_file_error_from_errno(-ret),
				    "cannot read state %s: %s", file, g_strerror(-ret));
		state_free(st);
		return NULL;
	}
	st->generation = load.generation;
	report_load(st, &load);
	/* Logging starts with the snapshot: no change falls between. */
	ret = cg_subscribe_after(core, &st->sub, first_snapshot, st);
	if (ret < 0) {
		g_set_error(err, G_FILE_ERROR, g_file_error_from_errno(-ret),
			    "cannot write state %s: %s", path, g_strerror(-ret));
		state_free(st);
		return NULL;
	}
	/* What the replay and the first snapshot freed (the id map, the
	 * snapshot's text) is left resident inside malloc's arena: give the
	 * whole free pages back. */
	malloc_trim(0);
	return st;
}

struct start {
	struct cg_state *st;
	bool started;
};

static void start_locked(struct cg_core *core, void *data)
{
	struct start *s = data;

	task_catch_up(core);		/* exited members are not saved */
	s->started = start_compaction(s->st);
}

/* The core serialised under its lock, written outside it; a compaction
 * still being written is finished first (job_lock keeps the sync thread
 * out meanwhile; a hook may start another in between, finished in turn). */
int state_snapshot(struct cg_state *st)
{
	struct start s = { st, false };
	int ret;

	g_mutex_lock(&st->job_lock);
	do {
		ret = finish_compaction(st, false);
		if (ret)
			break;
		task_pull_if_pending(st->core);
		cg_core_write(st->core, start_locked, &s);
	} while (!s.started);
	if (ret == 0)
		ret = finish_compaction(st, false);
	g_mutex_unlock(&st->job_lock);
	return ret;
}

void state_free(struct cg_state *st)
{
	if (st->sync_thread) {
		g_mutex_lock(&st->sync_lock);
		st->stop = true;
		g_cond_signal(&st->sync_cond);
		g_mutex_unlock(&st->sync_lock);
		g_thread_join(st->sync_thread);
	}
	cg_unsubscribe(st->core, &st->sub);
	/* FILE.log last: its lock goes with it. */
	for (int i = 1; i >= 0; i--) {
		if (st->logs[i].fd < 0)
			continue;
		/* The log's zero tail goes; if it cannot, the reader stops at it. */
		if (state_log_close(&st->logs[i]) < 0)
			g_warning("state: cannot trim %s", st->log_path[i]);
		close(st->logs[i].fd);
	}
	if (st->pending)
		g_string_free(st->pending, TRUE);	/* unwritten, as kill -9 leaves it */
	if (st->build)
		snap_build_free(st->build);
	g_mutex_clear(&st->sync_lock);
	g_mutex_clear(&st->job_lock);
	g_cond_clear(&st->sync_cond);
	g_string_free(st->buf, TRUE);
	g_string_free(st->group, TRUE);
	g_free(st->boot_id);
	state_dir_close(&st->dir);
	g_free(st->tmp_name);
	for (int i = 0; i < 2; i++) {
		g_free(st->log_name[i]);
		g_free(st->log_path[i]);
	}
	g_free(st->name);
	g_free(st->path);
	g_free(st);
}

/* The records a snapshot of core holds, header aside. */
static void snapshot_body_locked(struct cg_core *core, void *data)
{
	unsigned nr = 0;

	snap_groups(data, core, &nr);
	snap_tasks(data, core, &nr);
}

static GString *snapshot_body(struct cg_core *core)
{
	GString *out = g_string_new(NULL);

	cg_core_write(core, snapshot_body_locked, out);
	return out;
}

bool state_remove_if_pristine(struct cg_state *st, struct cg_core *fresh)
{
	GString *now = snapshot_body(st->core), *then = snapshot_body(fresh);
	bool pristine = g_string_equal(now, then);

	g_string_free(now, TRUE);
	g_string_free(then, TRUE);
	/* Still ours (FILE.log's lock is held): the logs first, so that a
	 * crash in between leaves a snapshot that stands alone. */
	if (pristine && ((unlinkat(st->dir.fd, st->log_name[1], 0) < 0 && errno != ENOENT) ||
			 unlinkat(st->dir.fd, st->log_name[0], 0) < 0 ||
			 unlinkat(st->dir.fd, st->name, 0) < 0))
		g_warning("state: cannot remove %s: %s", st->path, g_strerror(errno));
	return pristine;
}

unsigned state_log_records(const struct cg_state *st)
{
	return st->log_records;
}

unsigned state_snapshot_records(const struct cg_state *st)
{
	return (unsigned)g_atomic_int_get(&st->snapshot_records);
}
