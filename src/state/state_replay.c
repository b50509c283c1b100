/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Replaying FILE and FILE.log into a new core. Every record goes through
 * the core's own entry points, so a value the core would refuse today is
 * refused again rather than trusted. Records are applied as they are
 * read, one line at a time (state_read.h): nothing but a read buffer per
 * file and the id map is kept meanwhile. */
#include "state/state_replay.h"

#include <errno.h>
#include <string.h>

#include "core/cgroup_lookup.h"
#include "core/restore.h"
#include "state/state.h"
#include "state/state_read.h"

/* Who replays: root, as the records were checked when they were made. */
static const struct cg_cred replay_cred = { 0 };

/* One file being replayed. */
struct replay {
	struct cg_core *core;
	const char *path;
	guint64 version;
	/* Version 2: the saved daemon's group ids -> ours (struct id_map,
	 * keyed by its saved); shared by a snapshot and its log. */
	GHashTable *ids;
	GPtrArray *id_blocks;	/* the entries, ID_BLOCK to an allocation */
	guint id_used;		/* in the last block */
	GString *now;		/* replay_write's, reused */
};

struct id_map {
	guint64 saved, ours;
};

#define ID_BLOCK 4096

static void id_add(struct replay *r, guint64 saved, guint64 ours)
{
	struct id_map *e;

	if (!r->id_blocks->len || r->id_used == ID_BLOCK) {
		g_ptr_array_add(r->id_blocks, g_new(struct id_map, ID_BLOCK));
		r->id_used = 0;
	}
	e = (struct id_map *)g_ptr_array_index(r->id_blocks, r->id_blocks->len - 1) +
	    r->id_used++;
	*e = (struct id_map){ saved, ours };
	g_hash_table_insert(r->ids, &e->saved, e);
}

static const char *field(const struct state_rec *f, guint i)
{
	return f->f[i];
}

static bool num(const struct state_rec *f, guint i, guint64 max, guint64 *out)
{
	return g_ascii_string_to_unsigned(field(f, i), 10, 0, max, out, NULL);
}

/* Version 1: the group at path. */
static uint64_t path_id(struct replay *r, unsigned root, const char *path)
{
	uint64_t id;

	return cg_path_lookup(r->core, root, path, NULL, &id, NULL) == 0 ? id : 0;
}

/* The group a record names in field i: our id, or 0. */
static uint64_t group_id(struct replay *r, unsigned root, const struct state_rec *f, guint i)
{
	guint64 saved;
	const struct id_map *e;
	uint64_t top;

	if (r->version == 1)
		return path_id(r, root, field(f, i));
	if (!num(f, i, G_MAXUINT64, &saved))
		return 0;
	if (saved == 0)
		return cg_hierarchy(r->core, root, NULL, &top) == 0 ? top : 0;
	e = g_hash_table_lookup(r->ids, &saved);
	return e ? e->ours : 0;
}

/* Field i names a group's file ("" for its directory, CG_DIR): 0, or
 * -ENOENT if the group has no such file. */
static int file_index(struct replay *r, uint64_t id, const struct state_rec *f, guint i,
		      unsigned *file)
{
	struct cg_node node;

	if (!*field(f, i)) {
		*file = CG_DIR;
		return 0;
	}
	if (cg_node_lookup(r->core, id, field(f, i), &node) < 0 || node.ref.id != id ||
	    node.ref.file == CG_DIR)
		return -ENOENT;
	*file = node.ref.file;
	return 0;
}

/* Version 2: mkdir =root id parent =name mode uid gid. Version 1: mkdir
 * =root =path mode uid gid. */
static int replay_mkdir(struct replay *r, unsigned root, const struct state_rec *f)
{
	guint nmode = r->version == 1 ? 3 : 5;
	char *name = r->version == 1 ? g_path_get_basename(field(f, 2)) : NULL;
	guint64 mode, uid, gid, saved = 0, id;
	uint64_t parent = 0;
	int ret = -EINVAL;

	if (f->n == nmode + 3 && num(f, nmode, 07777, &mode) &&
	    num(f, nmode + 1, G_MAXUINT32, &uid) && num(f, nmode + 2, G_MAXUINT32, &gid) &&
	    (r->version == 1 || (num(f, 2, G_MAXUINT64, &saved) && saved))) {
		struct cg_cred cred = { .uid = (uid_t)uid, .gid = (gid_t)gid };

		if (r->version == 1) {
			char *dir = g_path_get_dirname(field(f, 2));

			parent = path_id(r, root, dir);
			g_free(dir);
		} else {
			parent = group_id(r, root, f, 3);
		}
		ret = parent ? cg_mkdir_restore(r->core, parent, name ? name : field(f, 4),
						(mode_t)mode, &cred, &id)
			     : -ENOENT;
	}
	if (ret == 0 && r->version > 1)
		id_add(r, saved, id);
	g_free(name);
	return ret;
}

/* Version 2: rmdir =root parent =name. Version 1: rmdir =root =path. */
static int replay_rmdir(struct replay *r, unsigned root, const struct state_rec *f)
{
	char *name, *dir;
	uint64_t parent;
	int ret;

	if (r->version > 1) {
		if (f->n != 4)
			return -EINVAL;
		parent = group_id(r, root, f, 2);
		return parent ? cg_rmdir(r->core, parent, field(f, 3), &replay_cred) : -ENOENT;
	}
	dir = g_path_get_dirname(field(f, 2));
	name = g_path_get_basename(field(f, 2));
	parent = path_id(r, root, dir);
	ret = parent ? cg_rmdir(r->core, parent, name, &replay_cred) : -ENOENT;
	g_free(dir);
	g_free(name);
	return ret;
}

static int replay_rename(struct replay *r, unsigned root, const struct state_rec *f)
{
	uint64_t parent = f->n == 5 ? group_id(r, root, f, 2) : 0;

	if (f->n != 5)
		return -EINVAL;
	return parent ? cg_rename(r->core, parent, field(f, 3), parent, field(f, 4),
				  &replay_cred)
		      : -ENOENT;
}

/* A value the file already has (a default) is not written again. */
static int replay_write(struct replay *r, unsigned root, const struct state_rec *f)
{
	uint64_t id = f->n == 5 ? group_id(r, root, f, 2) : 0;
	unsigned file = CG_DIR;
	const char *text;
	char *want;
	ssize_t ret = 0;

	if (!id || file_index(r, id, f, 3, &file) < 0 || file == CG_DIR)
		return -ENOENT;
	g_string_truncate(r->now, 0);
	text = field(f, 4);
	want = g_strstrip(g_strdup(text));
	if (cg_file_read(r->core, id, file, r->now) < 0 ||
	    strcmp(g_strstrip(r->now->str), want) != 0)
		ret = cg_file_write(r->core, id, file, text, strlen(text), &replay_cred);
	g_free(want);
	return ret < 0 ? (int)ret : 0;
}

static int replay_attr(struct replay *r, unsigned root, const struct state_rec *f)
{
	uint64_t id = f->n == 7 ? group_id(r, root, f, 2) : 0;
	guint64 uid, gid, mode;
	unsigned file;
	struct cg_iattr attr;

	if (!id || file_index(r, id, f, 3, &file) < 0 || !num(f, 4, G_MAXUINT32, &uid) ||
	    !num(f, 5, G_MAXUINT32, &gid) || !num(f, 6, 07777, &mode) ||
	    cg_get_iattr(r->core, id, file, &attr) < 0)
		return -ENOENT;
	attr.uid = (uid_t)uid;
	attr.gid = (gid_t)gid;
	attr.mode = (mode_t)mode;
	attr.iattrs = true;
	return cg_set_iattr(r->core, id, file, &attr);
}

static int replay_task(struct replay *r, unsigned root, const struct state_rec *f)
{
	guint64 tid, ino, joined;
	uint64_t id;

	if (f->n != 6 || !num(f, 3, G_MAXINT32, &tid) || !num(f, 4, G_MAXUINT64, &ino) ||
	    !num(f, 5, G_MAXUINT64, &joined))
		return -EINVAL;
	id = group_id(r, root, f, 2);
	return id ? cg_attach_restore(r->core, id, (pid_t)tid, ino, joined) : -ENOENT;
}

static void apply(struct replay *r, const struct state_rec *f, bool tasks, struct state_load *out)
{
	static const struct {
		const char *type;
		int (*fn)(struct replay *, unsigned, const struct state_rec *);
	} types[] = {
		{ "mkdir", replay_mkdir }, { "rmdir", replay_rmdir }, { "rename", replay_rename },
		{ "write", replay_write }, { "attr", replay_attr }, { "task", replay_task },
	};
	unsigned root;
	bool known = f->n >= 3 && (cg_hierarchy_by_name(r->core, field(f, 1), &root) == 0 ||
				     cg_hierarchy_binding(r->core, field(f, 1), &root) == 0);
	int ret = -EINVAL;

	for (guint i = 0; i < G_N_ELEMENTS(types); i++) {
		if (strcmp(field(f, 0), types[i].type) != 0)
			continue;
		if (!tasks && types[i].fn == replay_task)
			return;
		ret = known ? types[i].fn(r, root, f) : -ENOENT;
	}
	if (ret == 0) {
		out->applied++;
		return;
	}
	out->refused++;
	/* A member that is gone is what the identity check is for. */
	if (ret != -ESRCH)
		g_message("state: %s: %s %s %s not applied: %s", r->path, field(f, 0),
			  f->n > 1 ? field(f, 1) : "", f->n > 2 ? field(f, 2) : "",
			  g_strerror(-ret));
}

/* Applies the records after the header, stopping at the first line that
 * is torn (no newline: the write a crash cut) or garbled. */
static void apply_file(struct replay *r, struct state_reader *rd, bool tasks,
		       struct state_load *out)
{
	struct state_rec f;
	gsize len;
	bool torn;
	char *line;

	while ((line = state_reader_line(rd, &len, &torn))) {
		if (!state_rec_parse(line, len, &f)) {
			if (state_reader_more(rd))
				g_warning("state: %s: a garbled record, ignored with all after it",
					  r->path);
			out->torn++;
			return;
		}
		apply(r, &f, tasks, out);
	}
	if (rd->err)
		g_warning("state: %s: %s, the rest ignored", r->path, g_strerror(-rd->err));
	if (torn || rd->err)
		out->torn++;
}

/* One of the files, being read, and its header's figures. */
struct source {
	struct state_reader rd;
	bool header;		/* whole, cgfused's, of a version we read */
	guint64 version, generation;
	char *boot_id;		/* the snapshot's */
};

/* Opens path and reads its header (magic, version, generation[, boot
 * id]): 0 (a missing or empty file has none), -EBADMSG if the file is
 * not one of ours of a version we read, or -errno. */
static int source_open(struct source *src, const char *path, const char *magic,
		       guint nfields)
{
	int ret = state_reader_open(&src->rd, path);
	struct state_rec h;
	char *line;
	gsize len;
	bool torn;

	src->header = false;
	src->version = STATE_VERSION;
	src->generation = 0;
	src->boot_id = NULL;
	if (ret <= 0)
		return ret;
	line = state_reader_line(&src->rd, &len, &torn);
	if (!line)
		return src->rd.err ? src->rd.err : torn ? -EBADMSG : 0;
	if (!state_rec_parse(line, len, &h) || h.n != nfields || strcmp(h.f[0], magic) != 0 ||
	    !num(&h, 1, STATE_VERSION, &src->version) || src->version < 1 ||
	    !num(&h, 2, G_MAXUINT64, &src->generation))
		return -EBADMSG;
	if (nfields == 4)
		src->boot_id = g_strdup(h.f[3]);
	src->header = true;
	return 0;
}

static void source_close(struct source *src)
{
	state_reader_close(&src->rd);
	g_free(src->boot_id);
}

int state_replay(struct cg_core *core, const char *path, const char *boot_id,
		 struct state_load *out)
{
	char *log_path[2] = { g_strconcat(path, ".log", NULL), g_strconcat(path, ".log2", NULL) };
	struct source snap, log[2];
	int order[2] = { -1, -1 };
	guint64 snap_ver;
	bool tasks;
	int ret;

	*out = (struct state_load){ 0 };
	/* All headers are checked before anything is applied: a foreign file
	 * changes nothing. */
	ret = source_open(&snap, path, STATE_SNAPSHOT_MAGIC, 4);
	for (int i = 0; i < 2; i++) {
		log[i] = (struct source){ .rd = { .fd = -1 } };
		if (ret == 0 && (ret = source_open(&log[i], log_path[i], STATE_LOG_MAGIC, 3)) < 0)
			out->bad_log = i + 1;
	}
	if (ret < 0)
		goto done;
	tasks = snap.header && *boot_id && strcmp(snap.boot_id, boot_id) == 0;
	out->tasks_ignored = snap.header && !tasks;
	snap_ver = !snap.header && log[0].header ? log[0].version : snap.version;
	/* What continues the snapshot: in version 3, the log of its
	 * generation, then the one of the next (written after a switch whose
	 * snapshot a crash kept from its rename); before, FILE.log of its
	 * generation alone. Any other log is older than the snapshot. */
	for (int i = 0; i < 2; i++) {
		int slot;

		if (!log[i].header || log[i].version != snap_ver)
			slot = -1;
		else if (log[i].generation == snap.generation)
			slot = 0;
		else if (log[i].generation == snap.generation + 1 && snap_ver >= 3)
			slot = 1;
		else
			slot = -1;
		if (slot >= 0 && order[slot] < 0)
			order[slot] = i;
		else if (log[i].header && state_reader_more(&log[i].rd))
			out->log_ignored = true;
		out->generation = MAX(out->generation, log[i].generation);
	}
	out->generation = MAX(out->generation, snap.generation);

	struct replay r = {
		.core = core, .path = path, .version = snap_ver,
		.ids = g_hash_table_new(g_int64_hash, g_int64_equal),
		.id_blocks = g_ptr_array_new_with_free_func(g_free),
		.now = g_string_new(NULL),
	};
	cg_restore_begin(core);
	if (snap.header)
		apply_file(&r, &snap.rd, tasks, out);
	for (int k = 0; k < 2; k++) {
		if (order[k] < 0)
			continue;
		r.path = log_path[order[k]];
		apply_file(&r, &log[order[k]].rd, tasks, out);
	}
	cg_restore_end(core);
	g_hash_table_unref(r.ids);
	g_ptr_array_unref(r.id_blocks);
	g_string_free(r.now, TRUE);
done:
	source_close(&snap);
	for (int i = 0; i < 2; i++) {
		source_close(&log[i]);
		g_free(log_path[i]);
	}
	return ret;
}
