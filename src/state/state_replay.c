/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Replaying FILE and FILE.log into a new core. Every record goes through
 * the core's own entry points, so a value the core would refuse today is
 * refused again rather than trusted. Records are applied as they are
 * read, one line at a time: nothing but the file's text and the id map
 * is kept meanwhile. */
#include "state/state_replay.h"

#include <errno.h>
#include <string.h>

#include "core/cgroup_lookup.h"
#include "core/restore.h"
#include "state/state.h"

/* Who replays: root, as the records were checked when they were made. */
static const struct cg_cred replay_cred = { 0 };

/* One file being replayed. */
struct replay {
	struct cg_core *core;
	const char *path;
	guint64 version;
	/* Version 2: the saved daemon's group ids (guint64 *) -> ours
	 * (guint64 *); shared by a snapshot and its log. */
	GHashTable *ids;
};

/* One checked record: its fields, strings decoded. NULL if the line is
 * torn or garbled. */
static GPtrArray *parse_line(const char *line, gsize len)
{
	const char *mark = g_strrstr_len(line, (gssize)len, " #");
	char *body, **tok, hex[9] = { 0 };
	GPtrArray *fields;
	guint64 hash;

	if (!mark || line + len - (mark + 2) != 8)
		return NULL;
	memcpy(hex, mark + 2, 8);
	if (!g_ascii_string_to_unsigned(hex, 16, 0, G_MAXUINT32, &hash, NULL) ||
	    state_rec_hash(line, (gsize)(mark - line)) != hash)
		return NULL;
	body = g_strndup(line, (gsize)(mark - line));
	tok = g_strsplit(body, " ", -1);
	fields = g_ptr_array_new_with_free_func(g_free);
	for (char **t = tok; *t; t++) {
		char *f = **t == '=' ? g_uri_unescape_string(*t + 1, NULL) : g_strdup(*t);

		if (!f) {
			g_ptr_array_unref(fields);
			fields = NULL;
			break;
		}
		g_ptr_array_add(fields, f);
	}
	g_strfreev(tok);
	g_free(body);
	return fields;
}

static const char *field(GPtrArray *f, guint i)
{
	return g_ptr_array_index(f, i);
}

static bool num(GPtrArray *f, guint i, guint64 max, guint64 *out)
{
	return g_ascii_string_to_unsigned(field(f, i), 10, 0, max, out, NULL);
}

/* A file's text, its records ending at the first NUL (the log is grown by
 * zero-filled chunks; no record holds one: strings are %-escaped). A
 * missing file is an empty one. */
static int read_text(const char *path, char **text, gsize *len)
{
	GError *err = NULL;

	if (!g_file_get_contents(path, text, len, &err)) {
		int ret = g_error_matches(err, G_FILE_ERROR, G_FILE_ERROR_NOENT) ? 0 : -EIO;

		g_error_free(err);
		*text = NULL;
		*len = 0;
		return ret;
	}
	*len = strnlen(*text, *len);
	return 0;
}

/* The header: magic, version, generation[, boot id]. NULL (and the file
 * foreign) unless it is whole and of a version we read. */
static GPtrArray *header(const char *text, gsize len, const char *magic, guint nfields,
			 guint64 *version, guint64 *generation)
{
	const char *nl = memchr(text, '\n', len);
	GPtrArray *h = nl ? parse_line(text, (gsize)(nl - text)) : NULL;

	if (h && h->len == nfields && strcmp(field(h, 0), magic) == 0 &&
	    num(h, 1, STATE_VERSION, version) && *version >= 1 &&
	    num(h, 2, G_MAXUINT64, generation))
		return h;
	if (h)
		g_ptr_array_unref(h);
	return NULL;
}

/* Version 1: the group at path. */
static uint64_t path_id(struct replay *r, unsigned root, const char *path)
{
	uint64_t id;

	return cg_path_lookup(r->core, root, path, NULL, &id, NULL) == 0 ? id : 0;
}

/* The group a record names in field i: our id, or 0. */
static uint64_t group_id(struct replay *r, unsigned root, GPtrArray *f, guint i)
{
	guint64 saved, *id;
	uint64_t top;

	if (r->version == 1)
		return path_id(r, root, field(f, i));
	if (!num(f, i, G_MAXUINT64, &saved))
		return 0;
	if (saved == 0)
		return cg_hierarchy(r->core, root, NULL, &top) == 0 ? top : 0;
	id = g_hash_table_lookup(r->ids, &saved);
	return id ? *id : 0;
}

/* Field i names a group's file ("" for its directory, CG_DIR): 0, or
 * -ENOENT if the group has no such file. */
static int file_index(struct replay *r, uint64_t id, GPtrArray *f, guint i, unsigned *file)
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
static int replay_mkdir(struct replay *r, unsigned root, GPtrArray *f)
{
	guint nmode = r->version == 1 ? 3 : 5;
	char *name = r->version == 1 ? g_path_get_basename(field(f, 2))
				     : g_strdup(f->len > 4 ? field(f, 4) : "");
	guint64 mode, uid, gid, saved = 0, id;
	uint64_t parent = 0;
	int ret = -EINVAL;

	if (f->len == nmode + 3 && num(f, nmode, 07777, &mode) &&
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
		ret = parent ? cg_mkdir_restore(r->core, parent, name, (mode_t)mode, &cred, &id)
			     : -ENOENT;
	}
	if (ret == 0 && r->version > 1)
		g_hash_table_insert(r->ids, g_memdup2(&saved, sizeof(saved)),
				    g_memdup2(&id, sizeof(id)));
	g_free(name);
	return ret;
}

/* Version 2: rmdir =root parent =name. Version 1: rmdir =root =path. */
static int replay_rmdir(struct replay *r, unsigned root, GPtrArray *f)
{
	char *name, *dir;
	uint64_t parent;
	int ret;

	if (r->version > 1) {
		if (f->len != 4)
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

static int replay_rename(struct replay *r, unsigned root, GPtrArray *f)
{
	uint64_t parent = f->len == 5 ? group_id(r, root, f, 2) : 0;

	if (f->len != 5)
		return -EINVAL;
	return parent ? cg_rename(r->core, parent, field(f, 3), parent, field(f, 4),
				  &replay_cred)
		      : -ENOENT;
}

/* A value the file already has (a default) is not written again. */
static int replay_write(struct replay *r, unsigned root, GPtrArray *f)
{
	uint64_t id = f->len == 5 ? group_id(r, root, f, 2) : 0;
	unsigned file = CG_DIR;
	GString *now;
	const char *text;
	char *want;
	ssize_t ret = 0;

	if (!id || file_index(r, id, f, 3, &file) < 0 || file == CG_DIR)
		return -ENOENT;
	now = g_string_new(NULL);
	text = field(f, 4);
	want = g_strstrip(g_strdup(text));
	if (cg_file_read(r->core, id, file, now) < 0 ||
	    strcmp(g_strstrip(now->str), want) != 0)
		ret = cg_file_write(r->core, id, file, text, strlen(text), &replay_cred);
	g_free(want);
	g_string_free(now, TRUE);
	return ret < 0 ? (int)ret : 0;
}

static int replay_attr(struct replay *r, unsigned root, GPtrArray *f)
{
	uint64_t id = f->len == 7 ? group_id(r, root, f, 2) : 0;
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

static int replay_task(struct replay *r, unsigned root, GPtrArray *f)
{
	guint64 tid, ino, joined;
	uint64_t id;

	if (f->len != 6 || !num(f, 3, G_MAXINT32, &tid) || !num(f, 4, G_MAXUINT64, &ino) ||
	    !num(f, 5, G_MAXUINT64, &joined))
		return -EINVAL;
	id = group_id(r, root, f, 2);
	return id ? cg_attach_restore(r->core, id, (pid_t)tid, ino, joined) : -ENOENT;
}

static void apply(struct replay *r, GPtrArray *f, bool tasks, struct state_load *out)
{
	static const struct {
		const char *type;
		int (*fn)(struct replay *, unsigned, GPtrArray *);
	} types[] = {
		{ "mkdir", replay_mkdir }, { "rmdir", replay_rmdir }, { "rename", replay_rename },
		{ "write", replay_write }, { "attr", replay_attr }, { "task", replay_task },
	};
	unsigned root;
	bool known = f->len >= 3 && (cg_hierarchy_by_name(r->core, field(f, 1), &root) == 0 ||
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
			  f->len > 1 ? field(f, 1) : "", f->len > 2 ? field(f, 2) : "",
			  g_strerror(-ret));
}

/* Applies the records after the header, stopping at the first line that
 * is torn (no newline: the write a crash cut) or garbled. */
static void apply_text(struct replay *r, const char *text, gsize len, bool tasks,
		       struct state_load *out)
{
	const char *p = memchr(text, '\n', len), *end = text + len;

	for (p = p ? p + 1 : end; p < end;) {
		const char *nl = memchr(p, '\n', (gsize)(end - p));
		GPtrArray *f = nl ? parse_line(p, (gsize)(nl - p)) : NULL;

		if (!f || f->len == 0) {
			if (f)
				g_ptr_array_unref(f);
			if (nl && nl + 1 < end)
				g_warning("state: %s: a garbled record, ignored with all after it",
					  r->path);
			out->torn++;
			return;
		}
		apply(r, f, tasks, out);
		g_ptr_array_unref(f);
		p = nl + 1;
	}
}

/* Whether a log holds records after its header. */
static bool has_records(const char *text, gsize len)
{
	const char *nl = memchr(text, '\n', len);

	return nl && nl + 1 < text + len;
}

int state_replay(struct cg_core *core, const char *path, const char *boot_id,
		 struct state_load *out)
{
	char *log_path[2] = { g_strconcat(path, ".log", NULL), g_strconcat(path, ".log2", NULL) };
	char *snap = NULL, *log[2] = { NULL, NULL };
	GPtrArray *snap_h = NULL, *log_h[2] = { NULL, NULL };
	guint64 snap_gen = 0, log_gen[2] = { 0, 0 }, snap_ver = STATE_VERSION;
	guint64 log_ver[2] = { STATE_VERSION, STATE_VERSION };
	gsize snap_len, log_len[2];
	int order[2] = { -1, -1 };
	bool tasks;
	int ret;

	*out = (struct state_load){ 0 };
	/* All headers are checked before anything is applied: a foreign file
	 * changes nothing. */
	ret = read_text(path, &snap, &snap_len);
	if (ret == 0 && snap_len &&
	    !(snap_h = header(snap, snap_len, STATE_SNAPSHOT_MAGIC, 4, &snap_ver, &snap_gen)))
		ret = -EBADMSG;
	if (ret < 0)
		goto done;
	for (int i = 0; i < 2 && ret == 0; i++) {
		ret = read_text(log_path[i], &log[i], &log_len[i]);
		if (ret == 0 && log_len[i] &&
		    !(log_h[i] = header(log[i], log_len[i], STATE_LOG_MAGIC, 3, &log_ver[i],
					&log_gen[i])))
			ret = -EBADMSG;
		if (ret < 0)
			out->bad_log = i + 1;
	}
	if (ret < 0)
		goto done;
	tasks = snap_h && *boot_id && strcmp(field(snap_h, 3), boot_id) == 0;
	out->tasks_ignored = snap_h && !tasks;
	if (!snap_h && log_h[0])
		snap_ver = log_ver[0];
	/* What continues the snapshot: in version 3, the log of its
	 * generation, then the one of the next (written after a switch whose
	 * snapshot a crash kept from its rename); before, FILE.log of its
	 * generation alone. Any other log is older than the snapshot. */
	for (int i = 0; i < 2; i++) {
		int slot;

		if (!log_h[i] || log_ver[i] != snap_ver)
			slot = -1;
		else if (log_gen[i] == snap_gen)
			slot = 0;
		else if (log_gen[i] == snap_gen + 1 && snap_ver >= 3)
			slot = 1;
		else
			slot = -1;
		if (slot >= 0 && order[slot] < 0)
			order[slot] = i;
		else if (log_h[i] && has_records(log[i], log_len[i]))
			out->log_ignored = true;
		out->generation = MAX(out->generation, log_gen[i]);
	}
	out->generation = MAX(out->generation, snap_gen);

	struct replay r = {
		.core = core, .path = path, .version = snap_ver,
		.ids = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, g_free),
	};
	cg_restore_begin(core);
	if (snap_h)
		apply_text(&r, snap, snap_len, tasks, out);
	for (int k = 0; k < 2; k++) {
		if (order[k] < 0)
			continue;
		r.path = log_path[order[k]];
		apply_text(&r, log[order[k]], log_len[order[k]], tasks, out);
	}
	cg_restore_end(core);
	g_hash_table_unref(r.ids);
done:
	if (snap_h)
		g_ptr_array_unref(snap_h);
	for (int i = 0; i < 2; i++) {
		if (log_h[i])
			g_ptr_array_unref(log_h[i]);
		g_free(log[i]);
		g_free(log_path[i]);
	}
	g_free(snap);
	return ret;
}
