/* Replaying FILE and FILE.log into a new core. Every record goes through
 * the core's own entry points, so a value the core would refuse today is
 * refused again rather than trusted. */
#include "state/state_replay.h"

#include <errno.h>
#include <string.h>

#include "core/cgroup_lookup.h"
#include "core/restore.h"
#include "state/state.h"

/* Who replays: root, as the records were checked when they were made. */
static const struct cg_cred replay_cred = { 0 };

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

/* The records of one file, each a GPtrArray of fields; reading stops at
 * the first line that is torn (no newline: the write a crash cut) or
 * garbled. A whole first line that is garbled makes the file foreign (-EBADMSG):
 * not ours, or damaged, and not to be overwritten. */
static int read_records(const char *path, GPtrArray *recs, unsigned *torn)
{
	GError *err = NULL;
	char *data;
	gsize len;
	const char *p, *end;

	if (!g_file_get_contents(path, &data, &len, &err)) {
		int ret = g_error_matches(err, G_FILE_ERROR, G_FILE_ERROR_NOENT) ? 0 : -EIO;

		g_error_free(err);
		return ret;
	}
	/* The log is grown by zero-filled chunks: its records end at the
	 * first NUL (no record holds one: strings are %-escaped). */
	len = strnlen(data, len);
	for (p = data, end = data + len; p < end;) {
		const char *nl = memchr(p, '\n', (gsize)(end - p));
		GPtrArray *f = nl ? parse_line(p, (gsize)(nl - p)) : NULL;

		if (!f || f->len == 0) {
			if (f)
				g_ptr_array_unref(f);
			if (nl && p == data) {
				g_free(data);
				return -EBADMSG;
			}
			if (nl && nl + 1 < end)
				g_warning("state: %s: a garbled record, ignored with all after it", path);
			++*torn;
			break;
		}
		g_ptr_array_add(recs, f);
		p = nl + 1;
	}
	g_free(data);
	return 0;
}

static const char *field(GPtrArray *f, guint i)
{
	return g_ptr_array_index(f, i);
}

static bool num(GPtrArray *f, guint i, guint64 max, guint64 *out)
{
	return g_ascii_string_to_unsigned(field(f, i), 10, 0, max, out, NULL);
}

/* The header: magic, version, generation[, boot id]. */
static bool header(GPtrArray *recs, const char *magic, guint nfields, guint64 *generation)
{
	GPtrArray *h;
	guint64 version;

	if (recs->len == 0)
		return false;
	h = g_ptr_array_index(recs, 0);
	return h->len == nfields && strcmp(field(h, 0), magic) == 0 &&
	       num(h, 1, STATE_VERSION, &version) && version == STATE_VERSION &&
	       num(h, 2, G_MAXUINT64, generation);
}

/* The records of a file that starts with its header (if not empty). */
static int load_file(const char *path, const char *magic, guint nfields, GPtrArray *recs,
		     guint64 *generation, unsigned *torn)
{
	int ret = read_records(path, recs, torn);

	if (ret == 0 && recs->len && !header(recs, magic, nfields, generation))
		ret = -EBADMSG;
	return ret;
}

/* The id of the group at path in hierarchy root, and the index of its
 * file name ("" for its directory, CG_DIR); 0 if there is no such group
 * or file. */
static uint64_t group_id(struct cg_core *core, unsigned root, const char *path,
			 const char *name, unsigned *file)
{
	uint64_t id;

	return cg_path_lookup(core, root, path, name, &id, file) == 0 ? id : 0;
}

static int replay_mkdir(struct cg_core *core, unsigned root, GPtrArray *f)
{
	guint64 mode, uid, gid, id;
	char *dir = g_path_get_dirname(field(f, 2)), *name = g_path_get_basename(field(f, 2));
	uint64_t parent = group_id(core, root, dir, NULL, NULL);
	int ret = -EINVAL;

	if (f->len == 6 && num(f, 3, 07777, &mode) && num(f, 4, G_MAXUINT32, &uid) &&
	    num(f, 5, G_MAXUINT32, &gid)) {
		struct cg_cred cred = { .uid = (uid_t)uid, .gid = (gid_t)gid };

		ret = parent ? cg_mkdir_restore(core, parent, name, (mode_t)mode, &cred, &id)
			     : -ENOENT;
	}
	g_free(dir);
	g_free(name);
	return ret;
}

static int replay_rmdir(struct cg_core *core, unsigned root, GPtrArray *f)
{
	char *dir = g_path_get_dirname(field(f, 2)), *name = g_path_get_basename(field(f, 2));
	uint64_t parent = group_id(core, root, dir, NULL, NULL);
	int ret = parent ? cg_rmdir(core, parent, name, &replay_cred) : -ENOENT;

	g_free(dir);
	g_free(name);
	return ret;
}

static int replay_rename(struct cg_core *core, unsigned root, GPtrArray *f)
{
	uint64_t parent = group_id(core, root, field(f, 2), NULL, NULL);

	if (f->len != 5)
		return -EINVAL;
	return parent ? cg_rename(core, parent, field(f, 3), parent, field(f, 4), &replay_cred)
		      : -ENOENT;
}

/* A value the file already has (a default) is not written again. */
static int replay_write(struct cg_core *core, unsigned root, GPtrArray *f)
{
	unsigned file;
	uint64_t id = f->len == 5 ? group_id(core, root, field(f, 2), field(f, 3), &file) : 0;
	GString *now = g_string_new(NULL);
	const char *text = field(f, 4);
	char *want = g_strstrip(g_strdup(text));
	ssize_t ret = 0;

	if (!id || file == CG_DIR)
		ret = -ENOENT;
	else if (cg_file_read(core, id, file, now) < 0 ||
		 strcmp(g_strstrip(now->str), want) != 0)
		ret = cg_file_write(core, id, file, text, strlen(text), &replay_cred);
	g_free(want);
	g_string_free(now, TRUE);
	return ret < 0 ? (int)ret : 0;
}

static int replay_attr(struct cg_core *core, unsigned root, GPtrArray *f)
{
	unsigned file;
	uint64_t id = f->len == 7 ? group_id(core, root, field(f, 2), field(f, 3), &file) : 0;
	guint64 uid, gid, mode;
	struct cg_iattr attr;

	if (!id || !num(f, 4, G_MAXUINT32, &uid) || !num(f, 5, G_MAXUINT32, &gid) ||
	    !num(f, 6, 07777, &mode) || cg_get_iattr(core, id, file, &attr) < 0)
		return -ENOENT;
	attr.uid = (uid_t)uid;
	attr.gid = (gid_t)gid;
	attr.mode = (mode_t)mode;
	attr.iattrs = true;
	return cg_set_iattr(core, id, file, &attr);
}

static int replay_task(struct cg_core *core, unsigned root, GPtrArray *f)
{
	guint64 tid, ino, joined;
	uint64_t id;

	if (f->len != 6 || !num(f, 3, G_MAXINT32, &tid) || !num(f, 4, G_MAXUINT64, &ino) ||
	    !num(f, 5, G_MAXUINT64, &joined))
		return -EINVAL;
	id = group_id(core, root, field(f, 2), NULL, NULL);
	return id ? cg_attach_restore(core, id, (pid_t)tid, ino, joined) : -ENOENT;
}

static void apply(struct cg_core *core, const char *path, GPtrArray *f, bool tasks,
		  struct state_load *out)
{
	static const struct {
		const char *type;
		int (*fn)(struct cg_core *, unsigned, GPtrArray *);
	} types[] = {
		{ "mkdir", replay_mkdir }, { "rmdir", replay_rmdir }, { "rename", replay_rename },
		{ "write", replay_write }, { "attr", replay_attr }, { "task", replay_task },
	};
	unsigned root;
	bool known = f->len >= 3 && cg_hierarchy_by_name(core, field(f, 1), &root) == 0;
	int ret = -EINVAL;

	for (guint i = 0; i < G_N_ELEMENTS(types); i++) {
		if (strcmp(field(f, 0), types[i].type) != 0)
			continue;
		if (!tasks && types[i].fn == replay_task)
			return;
		ret = known ? types[i].fn(core, root, f) : -ENOENT;
	}
	if (ret == 0) {
		out->applied++;
		return;
	}
	out->refused++;
	/* A member that is gone is what the identity check is for. */
	if (ret != -ESRCH)
		g_message("state: %s: %s %s %s not applied: %s", path, field(f, 0),
			  f->len > 1 ? field(f, 1) : "", f->len > 2 ? field(f, 2) : "",
			  g_strerror(-ret));
}

int state_replay(struct cg_core *core, const char *path, const char *boot_id,
		 struct state_load *out)
{
	GPtrArray *snap = g_ptr_array_new_with_free_func((GDestroyNotify)g_ptr_array_unref);
	GPtrArray *log = g_ptr_array_new_with_free_func((GDestroyNotify)g_ptr_array_unref);
	char *log_path = g_strconcat(path, ".log", NULL);
	guint64 snap_gen = 0, log_gen = 0;
	bool tasks;
	int ret;

	*out = (struct state_load){ 0 };
	ret = load_file(path, STATE_SNAPSHOT_MAGIC, 4, snap, &snap_gen, &out->torn);
	if (ret < 0)
		goto done;
	ret = load_file(log_path, STATE_LOG_MAGIC, 3, log, &log_gen, &out->torn);
	out->bad_log = ret < 0;
	if (ret < 0)
		goto done;
	tasks = snap->len && *boot_id &&
		strcmp(field(g_ptr_array_index(snap, 0), 3), boot_id) == 0;
	out->tasks_ignored = snap->len && !tasks;
	if (log->len && log_gen != snap_gen) {
		out->log_ignored = true;
		g_ptr_array_set_size(log, 0);
	}
	out->generation = MAX(snap_gen, log_gen);

	cg_restore_begin(core);
	for (guint i = 1; i < snap->len; i++)
		apply(core, path, g_ptr_array_index(snap, i), tasks, out);
	for (guint i = 1; i < log->len; i++)
		apply(core, log_path, g_ptr_array_index(log, i), tasks, out);
	cg_restore_end(core);
done:
	g_free(log_path);
	g_ptr_array_unref(log);
	g_ptr_array_unref(snap);
	return ret;
}
