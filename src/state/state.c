/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The state's files: the log its subscriber hooks append to, snapshots,
 * compaction and the thread that syncs the log. */
#include "state/state.h"

#include <errno.h>
#include <inttypes.h>
#include <malloc.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "core/css_set.h"
#include "core/notify.h"
#include "core/task.h"
#include "state/state_file.h"
#include "state/state_log.h"
#include "state/state_replay.h"

struct cg_state {
	struct cg_core *core;
	struct cg_subscriber sub;
	struct state_dir dir;		/* where the files are, checked */
	char *name, *log_name, *tmp_name;	/* the files in dir */
	char *path, *log_path;		/* the same, whole, for messages */
	char *boot_id;
	struct state_log log;		/* its fd locked (flock) while we live */
	uint64_t generation;
	unsigned log_records, snapshot_records;
	unsigned compact_at;		/* log records that make a compaction */
	bool write_failed;		/* said once */
	GString *buf, *group;		/* the hooks' records, reused (locked) */
	gint dirty;			/* the log changed since the last sync */
	gint grow;			/* the log's room is to be grown */
	GThread *sync_thread;
	GMutex sync_lock;
	GCond sync_cond;
	bool stop;
};

/* Record format: rec_begin() (which returns where the record
 * starts), fields, rec_end() (checksum and newline). */

static gsize rec_begin(GString *out, const char *type)
{
	gsize start = out->len;

	g_string_append(out, type);
	return start;
}

/* Without printf: a move's record is written under the core's lock. */
static void rec_num(GString *out, uint64_t val)
{
	char buf[24], *p = buf + sizeof(buf);

	do
		*--p = (char)('0' + val % 10);
	while ((val /= 10));
	*--p = ' ';
	g_string_append_len(out, p, buf + sizeof(buf) - p);
}

/* Spaces, '#', '%' and anything not printable ASCII are %-escaped. */
static void rec_str(GString *out, const char *str)
{
	g_string_append(out, " =");
	for (const unsigned char *p = (const unsigned char *)str; *p; p++) {
		if (*p <= ' ' || *p >= 0x7f || *p == '%' || *p == '#')
			g_string_append_printf(out, "%%%02X", *p);
		else
			g_string_append_c(out, (char)*p);
	}
}

guint state_rec_hash(const char *body, gsize len)
{
	guint hash = 5381;

	for (gsize i = 0; i < len; i++)
		hash = (hash << 5) + hash + (guint)(signed char)body[i];
	return hash;
}

static void rec_end(GString *out, gsize line_start)
{
	static const char hex[] = "0123456789abcdef";
	guint hash = state_rec_hash(out->str + line_start, out->len - line_start);
	char buf[12] = " #";

	for (int i = 0; i < 8; i++)
		buf[2 + i] = hex[(hash >> (28 - 4 * i)) & 0xf];
	buf[10] = '\n';
	g_string_append_len(out, buf, 11);
}

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

/* Records of the core's objects. */

/* A group is named by its hierarchy and its id, 0 for the hierarchy's
 * root: " =root id". Ids are the daemon's own; a snapshot and its log
 * share them, and replay maps them to the new daemon's. */
static void rec_group_id(GString *out, const struct cgroup *cgrp)
{
	rec_str(out, cgrp->root->name);
	rec_num(out, cgrp->parent ? cgrp->id : 0);
}

static void rec_group(GString *out, const char *type, const struct cgroup *cgrp)
{
	rec_begin(out, type);
	rec_group_id(out, cgrp);
}

/* The same with the group's name made already (in moves, where many
 * records name one group). */
static void rec_group_esc(GString *out, const char *type, const GString *group)
{
	rec_begin(out, type);
	g_string_append_len(out, group->str, group->len);
}

/* The new group's id, then its parent and its own name: the records'
 * size grows with the number of groups and their names' bytes, not
 * with their depth. */
static void rec_mkdir(GString *out, const struct cgroup *cgrp)
{
	gsize start = out->len;

	rec_group(out, "mkdir", cgrp);
	rec_num(out, cgrp->parent->parent ? cgrp->parent->id : 0);
	rec_str(out, cgrp->name);
	rec_num(out, cgrp->attr.mode & 07777);
	rec_num(out, cgrp->creator_uid);
	rec_num(out, cgrp->creator_gid);
	rec_end(out, start);
}

static const char *file_name(const struct cgroup *cgrp, unsigned file)
{
	if (file == CG_DIR)
		return "";
	return ((const struct cg_file *)g_ptr_array_index(cgrp->root->files, file))->name;
}

static void rec_attr(GString *out, const struct cgroup *cgrp, unsigned file)
{
	gsize start = out->len;
	struct cg_iattr attr;

	cgroup_iattr(cgrp, file, &attr);
	rec_group(out, "attr", cgrp);
	rec_str(out, file_name(cgrp, file));
	rec_num(out, attr.uid);
	rec_num(out, attr.gid);
	rec_num(out, attr.mode & 07777);
	rec_end(out, start);
}

static void rec_write(GString *out, const struct cgroup *cgrp, unsigned file, const char *text)
{
	gsize start = out->len;

	rec_group(out, "write", cgrp);
	rec_str(out, file_name(cgrp, file));
	rec_str(out, text);
	rec_end(out, start);
}

static void rec_task(GString *out, const struct task *t, const GString *group)
{
	gsize start = out->len;

	rec_group_esc(out, "task", group);
	rec_num(out, (uint64_t)t->tid);
	rec_num(out, t->ident.ino);
	rec_num(out, t->joined_ns);
	rec_end(out, start);
}

/* Snapshots. */


static bool file_is_setting(const struct cgroup *cgrp, const struct cg_file *f)
{
	return cgroup_has_file(cgrp, f) && cftype_writable(f->cft) &&
	       !(f->cft->flags & CFTYPE_NO_STATE);
}

/* A group and its settings, then its children's: a parent's cpuset
 * allows its children's. */
static void snapshot_group(GString *out, struct cgroup *cgrp, unsigned *nr)
{
	GHashTableIter iter;
	struct cgroup *child;
	GString *val = g_string_new(NULL);

	if (cgrp->parent) {
		rec_mkdir(out, cgrp);
		++*nr;
	}
	/* Attributes that changed (kernfs_iattrs): a group's maker's own come
	 * back with the mkdir. */
	if (cgrp->attr.iattrs) {
		rec_attr(out, cgrp, CG_DIR);
		++*nr;
	}
	for (unsigned i = 0; i < cgrp->root->files->len; i++) {
		if (cgroup_iattr_own(cgrp, i)) {
			rec_attr(out, cgrp, i);
			++*nr;
		}
		if (!file_is_setting(cgrp, g_ptr_array_index(cgrp->root->files, i)))
			continue;
		g_string_truncate(val, 0);
		if (cgroup_file_show(cgrp, i, val) == 0) {
			rec_write(out, cgrp, i, val->str);
			++*nr;
		}
	}
	g_string_free(val, TRUE);
	cgroup_for_each_child(child, &iter, cgrp)
		snapshot_group(out, child, nr);
}

static void snapshot_tasks(GString *out, struct cg_core *core, unsigned *nr)
{
	GString *group = g_string_new(NULL);
	GHashTableIter iter;
	struct task *t;

	g_hash_table_iter_init(&iter, core->tasks);
	while (g_hash_table_iter_next(&iter, NULL, (gpointer *)&t)) {
		for (guint r = 0; r < core->roots->len; r++) {
			struct cgroup *cgrp = css_set_cgroup(t->cset, g_ptr_array_index(core->roots, r));

			if (cgrp && cgrp->parent) {
				g_string_truncate(group, 0);
				rec_group_id(group, cgrp);
				rec_task(out, t, group);
				++*nr;
			}
		}
	}
	g_string_free(group, TRUE);
}

static int write_all(int fd, const char *buf, gsize len)
{
	while (len) {
		ssize_t n = write(fd, buf, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		buf += n;
		len -= (gsize)n;
	}
	return 0;
}

static void log_header(GString *out, uint64_t generation)
{
	gsize start = rec_begin(out, STATE_LOG_MAGIC);

	rec_num(out, STATE_VERSION);
	rec_num(out, generation);
	rec_end(out, start);
}

/* Called locked: the whole state as generation generation + 1 into a
 * temporary file, synced and renamed over FILE; then the log starts again
 * with the new generation. A crash in between leaves a log of an older
 * generation than the snapshot, which is ignored. */
static int compact(struct cg_state *st)
{
	GString *out = g_string_new(NULL);
	unsigned nr = 0;
	gsize start = rec_begin(out, STATE_SNAPSHOT_MAGIC);
	int fd, ret;

	rec_num(out, STATE_VERSION);
	rec_num(out, st->generation + 1);
	rec_str(out, st->boot_id);
	rec_end(out, start);
	for (guint r = 0; r < st->core->roots->len; r++)
		snapshot_group(out, ((struct cg_root *)g_ptr_array_index(st->core->roots, r))->top,
			       &nr);
	snapshot_tasks(out, st->core, &nr);

	fd = state_file_create(&st->dir, st->tmp_name);
	ret = fd < 0 ? fd : write_all(fd, out->str, out->len);
	if (ret == 0 && fsync(fd) < 0)
		ret = -errno;
	if (fd >= 0)
		close(fd);
	if (ret == 0 && renameat(st->dir.fd, st->tmp_name, st->dir.fd, st->name) < 0)
		ret = -errno;
	if (ret == 0 && fsync(st->dir.fd) < 0)
		ret = -errno;
	if (ret == 0) {
		st->generation++;
		st->snapshot_records = nr;
		g_string_truncate(out, 0);
		log_header(out, st->generation);
		/* Synced by the sync thread: until then, a crash of the machine
		 * leaves the older log, which the new snapshot makes ignored. */
		ret = state_log_reset(&st->log, out->str, out->len);
		g_atomic_int_set(&st->dirty, 1);
		st->log_records = 0;
	} else if (fd >= 0) {
		unlinkat(st->dir.fd, st->tmp_name, 0);	/* ours: made just now */
	}
	st->compact_at = MAX(STATE_COMPACT_MIN, STATE_COMPACT_RATIO * st->snapshot_records);
	if (ret) {
		g_warning("state: cannot write %s: %s", st->path, g_strerror(-ret));
		st->compact_at = st->log_records + STATE_COMPACT_MIN;	/* not at once again */
	}
	g_string_free(out, TRUE);
	return ret;
}

/* Wakes the sync thread to allocate the log's next chunk ahead. */
static void kick_growth(struct cg_state *st)
{
	if (g_atomic_int_get(&st->grow) || !state_log_wants_growth(&st->log))
		return;
	g_mutex_lock(&st->sync_lock);
	g_atomic_int_set(&st->grow, 1);
	g_cond_signal(&st->sync_cond);
	g_mutex_unlock(&st->sync_lock);
}

/* Called locked: whole records copied into the mapped log, before the
 * change is answered; durable within a second (the sync thread). A
 * change that could be refused was (prepare) if its record would not
 * fit; one that could not be (rmdir, rename, chmod, a fork) uses the
 * room kept for it, or is lost when there is none, with a warning. */
static void append(struct cg_state *st, GString *recs, unsigned nr)
{
	int ret = state_log_append(&st->log, recs->str, recs->len);

	if (ret && !st->write_failed)
		g_warning("state: cannot append to %s: %s", st->log_path, g_strerror(-ret));
	st->write_failed = ret != 0;
	if (ret)
		return;
	g_atomic_int_set(&st->dirty, 1);
	st->log_records += nr;
	kick_growth(st);
	if (st->log_records >= st->compact_at)
		compact(st);
}

/* The longest a record of a group can be, but for its strings: its type,
 * hierarchy (escaped), five numbers and its checksum. */
static size_t rec_max(const struct cgroup *cgrp)
{
	return 128 + 3 * strlen(cgrp->root->name);
}

/* The veto: a change is made only if its record fits in the log's
 * allocated room, keeping STATE_LOG_KEEP for the records no change can
 * refuse; else it is refused as a write to a full disk is (ENOSPC). */
static int on_prepare(void *data, const struct cg_change *change)
{
	struct cg_state *st = data;
	size_t need = rec_max(change->cgrp);

	switch (change->kind) {
	case CG_CHANGE_MKDIR:
		need += 3 * strlen(change->name);
		break;
	case CG_CHANGE_WRITE: {
		const struct cg_file *f = g_ptr_array_index(change->cgrp->root->files,
							    change->file);

		if (f->cft->flags & CFTYPE_NO_STATE)
			return 0;	/* not recorded */
		need += 3 * (strlen(f->name) + change->len);
		break;
	}
	case CG_CHANGE_ATTACH:
		need *= MAX(change->nr_tasks, 1);
		break;
	}
	return state_log_room(&st->log, need + STATE_LOG_KEEP);
}

/* The subscriber hooks (core/notify.h). */

static void on_mkdir(void *data, struct cgroup *cgrp)
{
	struct cg_state *st = data;

	g_string_truncate(st->buf, 0);
	rec_mkdir(st->buf, cgrp);
	append(st, st->buf, 1);
}

static void on_rmdir(void *data, struct cgroup *parent, const char *name)
{
	struct cg_state *st = data;

	g_string_truncate(st->buf, 0);
	rec_group(st->buf, "rmdir", parent);
	rec_str(st->buf, name);
	rec_end(st->buf, 0);
	append(st, st->buf, 1);
}

static void on_rename(void *data, struct cgroup *cgrp, const char *old_name)
{
	struct cg_state *st = data;

	/* The group by its parent, its old name and its new one. */
	g_string_truncate(st->buf, 0);
	rec_group(st->buf, "rename", cgrp->parent);
	rec_str(st->buf, old_name);
	rec_str(st->buf, cgrp->name);
	rec_end(st->buf, 0);
	append(st, st->buf, 1);
}

static void on_write(void *data, struct cgroup *cgrp, unsigned file, const char *text)
{
	struct cg_state *st = data;

	g_string_truncate(st->buf, 0);
	rec_write(st->buf, cgrp, file, text);
	append(st, st->buf, 1);
}

static void on_setattr(void *data, struct cgroup *cgrp, unsigned file)
{
	struct cg_state *st = data;

	g_string_truncate(st->buf, 0);
	rec_attr(st->buf, cgrp, file);
	append(st, st->buf, 1);
}

/* One write(2) for all the moves of one attach: they all went to one group
 * of root. A child that joined its parent's groups (root NULL) has a
 * record per hierarchy. */
static void log_moves(struct cg_state *st, struct task *const *tasks, unsigned n,
		      const struct cg_root *root)
{
	unsigned nr = 0;

	g_string_truncate(st->buf, 0);
	for (guint r = 0; r < st->core->roots->len; r++) {
		const struct cg_root *rt = g_ptr_array_index(st->core->roots, r);

		if (root && rt != root)
			continue;
		/* The root group too: it undoes an older record. */
		g_string_truncate(st->group, 0);
		rec_group_id(st->group, css_set_cgroup(tasks[0]->cset, rt));
		for (unsigned i = 0; i < n; i++, nr++)
			rec_task(st->buf, tasks[i], st->group);
	}
	append(st, st->buf, nr);
}

static void on_attach(void *data, struct task *const *tasks, unsigned n,
		      const struct cg_root *root)
{
	log_moves(data, tasks, n, root);
}

static void on_fork(void *data, struct task *parent, struct task *child)
{
	(void)parent;
	log_moves(data, &child, 1, NULL);
}

/* The sync thread. */

static gpointer sync_main(gpointer data)
{
	struct cg_state *st = data;

	g_mutex_lock(&st->sync_lock);
	while (!st->stop) {
		gint64 until = g_get_monotonic_time() + G_TIME_SPAN_SECOND;

		while (!st->stop && !g_atomic_int_get(&st->grow) &&
		       g_cond_wait_until(&st->sync_cond, &st->sync_lock, until))
			;
		/* Ahead of the records: the hooks only copy into what is
		 * allocated. A full disk is tried again each second. */
		g_atomic_int_set(&st->grow, 0);
		state_log_reserve(&st->log);
		if (g_atomic_int_compare_and_exchange(&st->dirty, 1, 0))
			fdatasync(st->log.fd);
	}
	g_mutex_unlock(&st->sync_lock);
	return NULL;
}

void state_sync_start(struct cg_state *st)
{
	st->sync_thread = g_thread_new("cgfused-state", sync_main, st);
}

/* Opening. */

/* The directory, checked, and the files in it, which must be cgfused's
 * (state_file.h). The log is ours (to write and trim) only once it is
 * locked: a log another daemon holds is closed again at once. */
static int open_files(struct cg_state *st, const char *path, GError **err)
{
	bool created;
	int snapshot, fd;

	if (g_str_has_suffix(path, "/")) {
		g_set_error(err, G_FILE_ERROR, G_FILE_ERROR_ISDIR, "state file %s names a "
			    "directory: name a file in it", path);
		return -1;
	}
	st->name = g_path_get_basename(path);
	st->log_name = g_strconcat(st->name, ".log", NULL);
	st->tmp_name = g_strconcat(st->name, ".tmp", NULL);
	if (!state_dir_open(&st->dir, path, err))
		return -1;
	/* Replayed by path from here: the directory lets nobody else change
	 * what the names lead to. */
	st->path = g_build_filename(st->dir.path, st->name, NULL);
	st->log_path = g_strconcat(st->path, ".log", NULL);
	snapshot = state_file_check(&st->dir, st->name, STATE_SNAPSHOT_MAGIC, err);
	if (snapshot < 0)
		return -1;
	/* One a crash left is unlinked at the first compaction; a link or
	 * anything not ours is not. */
	if (state_file_check(&st->dir, st->tmp_name, NULL, err) < 0)
		return -1;
	/* Emptied at each compaction, after the snapshot's rename: beside a
	 * snapshot, an empty log (or zeros) is what a crash there leaves. */
	fd = state_file_open_rw(&st->dir, st->log_name, STATE_LOG_MAGIC, snapshot, &created,
				err);
	if (fd < 0)
		return -1;
	if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		int e = errno;

		close(fd);
		g_set_error(err, G_FILE_ERROR, g_file_error_from_errno(e),
			    e == EWOULDBLOCK ? "state file %s is in use by another cgfused "
			    "(each daemon needs its own: -o state=FILE)" : "cannot lock %s: %s",
			    st->path, g_strerror(e));
		return -1;
	}
	st->log.fd = fd;
	/* Without a snapshot, a new log is never empty: an empty log there
	 * would be nobody's. */
	if (created && !snapshot) {
		GString *head = g_string_new(NULL);
		int ret;

		log_header(head, 0);
		ret = write_all(fd, head->str, head->len);
		g_string_free(head, TRUE);
		if (ret < 0) {
			g_set_error(err, G_FILE_ERROR, g_file_error_from_errno(-ret),
				    "cannot write state log %s: %s", st->log_path, g_strerror(-ret));
			return -1;
		}
	}
	return 0;
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

struct cg_state *state_open(struct cg_core *core, const char *path, const char *boot_id,
			    GError **err)
{
	struct cg_state *st = g_new0(struct cg_state, 1);
	struct state_load load = { 0 };
	int ret;

	st->core = core;
	st->log.fd = -1;
	st->buf = g_string_sized_new(4096);
	st->group = g_string_new(NULL);
	st->dir.fd = -1;
	st->boot_id = boot_id ? g_strdup(boot_id) : state_boot_id();
	g_mutex_init(&st->sync_lock);
	g_cond_init(&st->sync_cond);
	st->sub = (struct cg_subscriber){
		.data = st, .prepare = on_prepare, .mkdir = on_mkdir, .rmdir = on_rmdir, .rename = on_rename,
		.write = on_write, .setattr = on_setattr, .attach = on_attach, .fork = on_fork,
	};
	if (open_files(st, path, err) < 0) {
		state_free(st);
		return NULL;
	}
	ret = state_replay(core, st->path, st->boot_id, &load);
	if (ret < 0) {
		const char *file = load.bad_log ? st->log_path : st->path;

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
	cg_write_lock(&core->lock);
	/* The replayed state becomes the snapshot, from this boot. */
	if (compact(st) < 0) {
		cg_write_unlock(&core->lock);
		g_set_error(err, G_FILE_ERROR, G_FILE_ERROR_FAILED, "cannot write state %s", path);
		state_free(st);
		return NULL;
	}
	/* Logging starts with the snapshot: no change falls between. */
	cg_subscribe_locked(core, &st->sub);
	cg_write_unlock(&core->lock);
	/* The replay parsed every record before applying them (tens of MiB
	 * for a long log), all freed now but left resident inside malloc's
	 * arena: give the whole free pages back. */
	malloc_trim(0);
	return st;
}

int state_snapshot(struct cg_state *st)
{
	int ret;

	cg_write_lock(&st->core->lock);
	task_catch_up(st->core);	/* exited members are not saved */
	ret = compact(st);
	cg_write_unlock(&st->core->lock);
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
	if (st->log.fd >= 0) {
		/* The log's zero tail goes; if it cannot, the reader stops at it. */
		if (state_log_close(&st->log) < 0)
			g_warning("state: cannot trim %s", st->log_path);
		close(st->log.fd);	/* and the lock goes */
	}
	g_mutex_clear(&st->sync_lock);
	g_cond_clear(&st->sync_cond);
	g_string_free(st->buf, TRUE);
	g_string_free(st->group, TRUE);
	g_free(st->boot_id);
	state_dir_close(&st->dir);
	g_free(st->tmp_name);
	g_free(st->log_name);
	g_free(st->name);
	g_free(st->log_path);
	g_free(st->path);
	g_free(st);
}

/* The records a snapshot of core holds, header aside. */
static GString *snapshot_body(struct cg_core *core)
{
	GString *out = g_string_new(NULL);
	unsigned nr = 0;

	cg_write_lock(&core->lock);
	for (guint r = 0; r < core->roots->len; r++)
		snapshot_group(out, ((struct cg_root *)g_ptr_array_index(core->roots, r))->top,
			       &nr);
	snapshot_tasks(out, core, &nr);
	cg_write_unlock(&core->lock);
	return out;
}

bool state_remove_if_pristine(struct cg_state *st, struct cg_core *fresh)
{
	GString *now = snapshot_body(st->core), *then = snapshot_body(fresh);
	bool pristine = g_string_equal(now, then);

	g_string_free(now, TRUE);
	g_string_free(then, TRUE);
	/* Still ours (the log's lock is held): the log first, so that a crash
	 * in between leaves a snapshot that stands alone. */
	if (pristine && (unlinkat(st->dir.fd, st->log_name, 0) < 0 ||
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
	return st->snapshot_records;
}
