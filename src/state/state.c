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
#include "core/task_watch.h"
#include "lib/failcount.h"
#include "state/state_file.h"
#include "state/state_log.h"
#include "state/state_replay.h"

/* Two logs, FILE.log and FILE.log2, take turns: records go to the current
 * one; a compaction serialises the core under its lock, as the snapshot
 * of the current log's generation + 1, and switches to the other log,
 * made empty of that generation beforehand. The snapshot is written, synced
 * and renamed over FILE outside the lock (by the sync thread), and only
 * then is the log it folded in made the next one (generation + 2). Replay
 * applies the snapshot, then the log of its generation, then the one of
 * the next: a crash before the rename leaves the older snapshot and both
 * logs, after it the new snapshot and its log (the older log ignored). */
struct cg_state {
	struct cg_core *core;
	struct cg_subscriber sub;
	struct state_dir dir;		/* where the files are, checked */
	char *name, *log_name[2], *tmp_name;	/* the files in dir */
	char *path, *log_path[2];	/* the same, whole, for messages */
	char *boot_id;
	/* FILE.log (its fd locked, flock, while we live) and FILE.log2. */
	struct state_log logs[2];
	gint cur;			/* the log appended to (set locked) */
	uint64_t generation;		/* the current log's */
	unsigned log_records;		/* in the current log */
	gint snapshot_records;		/* in the last snapshot written */
	unsigned compact_at;		/* log records that make a compaction */
	struct failcount write_fails;	/* appends to the log */
	struct failcount job_fails;	/* compactions */
	GString *buf, *group;		/* the hooks' records, reused (locked) */
	gint dirty;			/* a log changed since the last sync */
	gint grow;			/* the log's room is to be grown */
	/* The other log is empty, of generation + 1: a compaction may switch. */
	gint next_ready;
	GThread *sync_thread;
	GMutex sync_lock;		/* never held across I/O */
	GCond sync_cond;
	bool stop, wake;		/* (sync_lock) */
	/* A compaction's snapshot still to write, its records and the log it
	 * folded in (sync_lock). */
	GString *pending;
	unsigned pending_records;
	int pending_old;
	GMutex job_lock;		/* one writer of the files at a time */
};

void (*state_step_hook)(const char *step);

/* Where a compaction's writing has got to (for tests that crash there). */
static void step(const char *name)
{
	if (state_step_hook)
		state_step_hook(name);
}

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

/* Called locked: cgrp's setting file i shown into val (emptied first);
 * false if it is not a setting there. */
static bool show_setting(struct cgroup *cgrp, unsigned i, GString *val)
{
	g_string_truncate(val, 0);
	return file_is_setting(cgrp, g_ptr_array_index(cgrp->root->files, i)) &&
	       cgroup_file_show_setting(cgrp, i, val) == 0;
}

/* What a group made now under parent starts with, by file index (NULL
 * where no setting): mkdir's defaults and what it inherits from parent
 * (flags, a clone_children cpuset). NULL when a child's start depends on
 * its siblings (an exclusive cpuset): its settings are saved in full. */
static GPtrArray *fresh_settings(struct cgroup *parent, GString *val)
{
	struct cgroup *probe;
	GPtrArray *vals;

	if (!cgroup_children_alike(parent))
		return NULL;
	probe = cgroup_probe_new(parent);
	vals = g_ptr_array_new_full(parent->root->files->len, g_free);

	for (unsigned i = 0; i < parent->root->files->len; i++)
		g_ptr_array_add(vals, show_setting(probe, i, val) ? g_strdup(val->str) : NULL);
	cgroup_probe_free(probe);
	return vals;
}

/* A group and its settings, then its children's: a parent's cpuset
 * allows its children's. Replay makes each group under its parent as the
 * snapshot has it, so a child's setting is written only where it differs
 * from what that mkdir gives (fresh; NULL for a hierarchy's top, whose
 * settings are all written). val is room to show a value in. */
static void snapshot_group(GString *out, struct cgroup *cgrp, const GPtrArray *fresh,
			   GString *val, unsigned *nr)
{
	GHashTableIter iter;
	struct cgroup *child;
	GPtrArray *vals;
	bool made;

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
	/* Not written to, nor its parent since it was made: it has what a
	 * mkdir gives now, nothing to show. */
	made = fresh && !cgrp->nr_writes && cgrp->parent_nr_writes == cgrp->parent->nr_writes;
	for (unsigned i = 0; i < cgrp->root->files->len; i++) {
		if (cgroup_iattr_own(cgrp, i)) {
			rec_attr(out, cgrp, i);
			++*nr;
		}
		if (!made && show_setting(cgrp, i, val) &&
		    !(fresh && g_strcmp0(val->str, g_ptr_array_index(fresh, i)) == 0)) {
			rec_write(out, cgrp, i, val->str);
			++*nr;
		}
	}
	if (!g_hash_table_size(cgrp->children))
		return;
	vals = fresh_settings(cgrp, val);
	cgroup_for_each_child(child, &iter, cgrp)
		snapshot_group(out, child, vals, val, nr);
	if (vals)
		g_ptr_array_unref(vals);
}

/* Every hierarchy's groups. */
static void snapshot_groups(GString *out, struct cg_core *core, unsigned *nr)
{
	GString *val = g_string_new(NULL);

	for (guint r = 0; r < core->roots->len; r++)
		snapshot_group(out, ((struct cg_root *)g_ptr_array_index(core->roots, r))->top,
			       NULL, val, nr);
	g_string_free(val, TRUE);
}

static void snapshot_tasks(GString *out, struct cg_core *core, unsigned *nr)
{
	GString *group = g_string_new(NULL);
	struct task *t;

	for (guint pos = 0; (t = tidmap_next(&core->tasks, &pos));) {
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

static void log_header(GString *out, uint64_t generation)
{
	gsize start = rec_begin(out, STATE_LOG_MAGIC);

	rec_num(out, STATE_VERSION);
	rec_num(out, generation);
	rec_end(out, start);
}

/* Called locked: the whole state, as a snapshot of generation gen (memory
 * only). Its number of records in *nr. */
static GString *serialise(struct cg_state *st, uint64_t gen, unsigned *nr)
{
	GString *out = g_string_new(NULL);
	gsize start = rec_begin(out, STATE_SNAPSHOT_MAGIC);

	*nr = 0;
	rec_num(out, STATE_VERSION);
	rec_num(out, gen);
	rec_str(out, st->boot_id);
	rec_end(out, start);
	snapshot_groups(out, st->core, nr);
	snapshot_tasks(out, st->core, nr);
	return out;
}

/* The snapshot into a temporary file, synced and renamed over FILE, the
 * directory synced. Outside the lock. 0 or -errno. */
static int write_snapshot(struct cg_state *st, const GString *snap)
{
	int fd = state_file_create(&st->dir, st->tmp_name), ret = fd < 0 ? fd : 0;

	if (ret == 0)
		ret = state_file_write_all(fd, snap->str, snap->len);
	step("tmp-written");
	if (ret == 0 && fsync(fd) < 0)
		ret = -errno;
	if (fd >= 0)
		close(fd);
	step("tmp-synced");
	if (ret == 0 && renameat(st->dir.fd, st->tmp_name, st->dir.fd, st->name) < 0)
		ret = -errno;
	step("renamed");
	if (ret == 0 && fsync(st->dir.fd) < 0)
		ret = -errno;
	else if (ret && fd >= 0)
		unlinkat(st->dir.fd, st->tmp_name, 0);	/* ours: made just now */
	step("dir-synced");
	return ret;
}

/* Empties log i as the one of generation gen, durably. 0 or -errno. */
static int reset_log(struct cg_state *st, int i, uint64_t gen)
{
	GString *head = g_string_new(NULL);
	int ret;

	log_header(head, gen);
	ret = state_log_reset(&st->logs[i], head->str, head->len);
	g_string_free(head, TRUE);
	return ret;
}

/* Called locked, when the other log is ready: the state serialised as
 * the snapshot of the next generation, which the other log continues, and
 * the records switched to it; the snapshot is left to finish_compaction().
 * false if a compaction is still being written. */
static bool start_compaction(struct cg_state *st)
{
	unsigned nr;
	GString *snap;
	int old = st->cur;

	if (!g_atomic_int_get(&st->next_ready))
		return false;
	snap = serialise(st, st->generation + 1, &nr);
	st->generation++;
	g_atomic_int_set(&st->cur, !old);
	g_atomic_int_set(&st->next_ready, 0);
	st->log_records = 0;
	st->compact_at = MAX(STATE_COMPACT_MIN, STATE_COMPACT_RATIO * nr);
	g_mutex_lock(&st->sync_lock);
	st->pending = snap;
	st->pending_records = nr;
	st->pending_old = old;
	st->wake = true;
	g_cond_signal(&st->sync_cond);
	g_mutex_unlock(&st->sync_lock);
	return true;
}

/* Said once, then counted until a compaction succeeds again. */
static int job_failed(struct cg_state *st, const char *file, int err)
{
	failcount_fail(&st->job_fails, "state: cannot write %s: %s", file, g_strerror(-err));
	return err;
}

/* With job_lock held, outside the core lock: a pending snapshot written
 * (the log it folded in synced first: a crash of the machine must not
 * keep the other log's records without these), then the log it folded in
 * emptied as the next one. Either is tried again after a failure.
 * 0 or -errno. */
static int finish_compaction(struct cg_state *st)
{
	GString *snap;
	unsigned nr;
	int old, ret = 0;

	g_mutex_lock(&st->sync_lock);
	snap = st->pending;
	nr = st->pending_records;
	old = st->pending_old;
	g_mutex_unlock(&st->sync_lock);
	if (snap) {
		step("begin");
		if (fdatasync(st->logs[old].fd) < 0)
			ret = -errno;
		step("old-log-synced");
		if (ret == 0)
			ret = write_snapshot(st, snap);
		if (ret)
			return job_failed(st, st->path, ret);
		g_mutex_lock(&st->sync_lock);
		st->pending = NULL;
		g_mutex_unlock(&st->sync_lock);
		g_string_free(snap, TRUE);
		g_atomic_int_set(&st->snapshot_records, (gint)nr);
	} else if (g_atomic_int_get(&st->next_ready)) {
		return 0;
	}
	/* No switch can happen before next_ready is set: cur stays. */
	old = !g_atomic_int_get(&st->cur);
	ret = reset_log(st, old, st->generation + 1);
	step("next-log-ready");
	if (ret)
		return job_failed(st, st->log_path[old], ret);
	g_atomic_int_set(&st->next_ready, 1);
	failcount_ok(&st->job_fails, "state: compaction");
	return 0;
}

/* Wakes the sync thread to allocate the log's next chunk ahead. */
static void kick_growth(struct cg_state *st)
{
	if (g_atomic_int_get(&st->grow) || !state_log_wants_growth(&st->logs[st->cur]))
		return;
	g_mutex_lock(&st->sync_lock);
	g_atomic_int_set(&st->grow, 1);
	st->wake = true;
	g_cond_signal(&st->sync_cond);
	g_mutex_unlock(&st->sync_lock);
}

/* Called locked: whole records copied into the mapped log, before the
 * change is answered; durable within a second (the sync thread). Before
 * the sync thread runs (at start-up, and in tests), a compaction is
 * written here. A
 * change that could be refused was (prepare) if its record would not
 * fit; one that could not be (rmdir, rename, chmod, a fork) uses the
 * room kept for it, or is lost when there is none, with a warning. */
static void append(struct cg_state *st, GString *recs, unsigned nr)
{
	int ret = state_log_append(&st->logs[st->cur], recs->str, recs->len);

	if (ret) {
		failcount_fail(&st->write_fails, "state: cannot append to %s: %s",
			       st->log_path[st->cur], g_strerror(-ret));
		return;
	}
	failcount_ok(&st->write_fails, "state: appending to the log");
	g_atomic_int_set(&st->dirty, 1);
	st->log_records += nr;
	kick_growth(st);
	/* Not when state_snapshot() holds job_lock: it finishes this one. */
	if (st->log_records >= st->compact_at && start_compaction(st) && !st->sync_thread &&
	    g_mutex_trylock(&st->job_lock)) {
		finish_compaction(st);
		g_mutex_unlock(&st->job_lock);
	}
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
	return state_log_room(&st->logs[st->cur], need + STATE_LOG_KEEP);
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
		struct state_log *log;
		bool job;

		while (!st->stop && !st->wake &&
		       g_cond_wait_until(&st->sync_cond, &st->sync_lock, until))
			;
		st->wake = false;
		job = st->pending || !g_atomic_int_get(&st->next_ready);
		g_mutex_unlock(&st->sync_lock);
		/* Ahead of the records: the hooks only copy into what is
		 * allocated. A full disk is tried again each second. */
		log = &st->logs[g_atomic_int_get(&st->cur)];
		g_atomic_int_set(&st->grow, 0);
		state_log_reserve(log);
		if (g_atomic_int_compare_and_exchange(&st->dirty, 1, 0))
			fdatasync(log->fd);
		/* Records that went to the other log before a switch are
		 * synced by the compaction, first. */
		if (job) {
			g_mutex_lock(&st->job_lock);
			finish_compaction(st);
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
static int first_snapshot(struct cg_state *st)
{
	unsigned nr;
	GString *snap = serialise(st, ++st->generation, &nr);
	int ret = write_snapshot(st, snap);

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
	cg_write_lock(&core->lock);
	ret = first_snapshot(st);
	if (ret < 0) {
		cg_write_unlock(&core->lock);
		g_set_error(err, G_FILE_ERROR, g_file_error_from_errno(-ret),
			    "cannot write state %s: %s", path, g_strerror(-ret));
		state_free(st);
		return NULL;
	}
	/* Logging starts with the snapshot: no change falls between. */
	cg_subscribe_locked(core, &st->sub);
	cg_write_unlock(&core->lock);
	/* What the replay and the first snapshot freed (the id map, the
	 * snapshot's text) is left resident inside malloc's arena: give the
	 * whole free pages back. */
	malloc_trim(0);
	return st;
}

/* The core serialised under its lock, written outside it; a compaction
 * still being written is finished first (job_lock keeps the sync thread
 * out meanwhile; a hook may start another in between, finished in turn). */
int state_snapshot(struct cg_state *st)
{
	int ret;
	bool started;

	g_mutex_lock(&st->job_lock);
	do {
		ret = finish_compaction(st);
		if (ret)
			break;
		task_pull_if_pending(st->core);
		cg_write_lock(&st->core->lock);
		task_catch_up(st->core);	/* exited members are not saved */
		started = start_compaction(st);
		cg_write_unlock(&st->core->lock);
	} while (!started);
	if (ret == 0)
		ret = finish_compaction(st);
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
static GString *snapshot_body(struct cg_core *core)
{
	GString *out = g_string_new(NULL);
	unsigned nr = 0;

	cg_write_lock(&core->lock);
	snapshot_groups(out, core, &nr);
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
