/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Applying a config to the core through its own entry points (as the
 * state's replay does), all or nothing. */
#include "config/conf.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "core/cgroup_lookup.h"
#include "core/restore.h"

/* Who applies: root, as the file is root's (or the daemon user's). */
static const struct cg_cred conf_cred = { 0 };

/* What was done, to be undone if a later key is refused. */
struct undo {
	enum { UNDO_RMDIR, UNDO_WRITE, UNDO_ATTR } type;
	uint64_t id;			/* the group made, written or chowned */
	uint64_t parent;		/* UNDO_RMDIR: where, with name */
	char *name;
	unsigned file;
	char *old;			/* UNDO_WRITE: the value before */
	struct cg_iattr attr;		/* UNDO_ATTR: the owner and mode before */
};

struct applier {
	struct cg_core *core;
	const struct conf *conf;
	GArray *undo;			/* struct undo, in the order done */
	GError **err;
};

static void undo_clear(gpointer p)
{
	struct undo *u = p;

	g_free(u->name);
	g_free(u->old);
}

static void undo_all(struct applier *ap)
{
	for (guint i = ap->undo->len; i-- > 0;) {
		struct undo *u = &g_array_index(ap->undo, struct undo, i);
		ssize_t ret = 0;

		if (u->type == UNDO_RMDIR)
			ret = cg_rmdir(ap->core, u->parent, u->name, &conf_cred);
		else if (u->type == UNDO_WRITE)
			ret = cg_file_write(ap->core, u->id, u->file, u->old, strlen(u->old),
					    &conf_cred);
		else
			ret = cg_setattr(ap->core, u->id, u->file, &(struct cg_setattr){
				.valid = CG_ATTR_UID | CG_ATTR_GID | CG_ATTR_MODE,
				.uid = u->attr.uid, .gid = u->attr.gid, .mode = u->attr.mode },
				&conf_cred);
		if (ret < 0)
			g_warning("config: %s: cannot undo a change: %s", ap->conf->path,
				  g_strerror((int)-ret));
	}
}

static int fail(struct applier *ap, int ret, int line, const char *fmt, ...) G_GNUC_PRINTF(4, 5);

static int fail(struct applier *ap, int ret, int line, const char *fmt, ...)
{
	va_list args;
	char *what;

	va_start(args, fmt);
	what = g_strdup_vprintf(fmt, args);
	va_end(args);
	g_set_error(ap->err, G_FILE_ERROR, g_file_error_from_errno(-ret), "%s:%d: %s: %s",
		    ap->conf->path, line, what, g_strerror(-ret));
	g_free(what);
	return ret;
}

static const struct conf_group *old_group(const struct conf *old, const char *section)
{
	for (guint i = 0; old && i < old->groups->len; i++) {
		const struct conf_group *g = g_ptr_array_index(old->groups, i);

		if (strcmp(g->section, section) == 0)
			return g;
	}
	return NULL;
}

static const char *old_value(const struct conf_group *g, const char *key)
{
	for (guint i = 0; g && i < g->settings->len; i++) {
		const struct conf_setting *s = g_ptr_array_index(g->settings, i);

		if (strcmp(s->key, key) == 0)
			return s->value;
	}
	return NULL;
}

/* A key to apply: all of a section made now or new in the file, else
 * those whose value changed since old (a reload). */
static bool id_changed(const struct conf_id *now, const struct conf_id *before, bool all)
{
	return now->set && (all || !before->set || before->val != now->val);
}

/* The group of g in hierarchy h, made (with the parents it lacks) if
 * missing: 0 or -errno (err set). */
static int ensure_group(struct applier *ap, unsigned h, const struct conf_group *g,
			uint64_t *id, bool *created)
{
	char **parts = g_strsplit(g->path + 1, "/", -1);
	int ret = cg_hierarchy(ap->core, h, NULL, id);

	*created = false;
	for (char **p = parts; ret == 0 && *p; p++) {
		struct cg_node node;
		bool last = !p[1];
		struct cg_cred cred = {
			.uid = last && g->owner.set ? g->owner.val : geteuid(),
			.gid = last && g->group.set ? g->group.val : getegid(),
		};
		struct undo u = { .type = UNDO_RMDIR, .parent = *id };

		if (cg_node_lookup(ap->core, *id, *p, &node) == 0 && node.ref.file == CG_DIR &&
		    node.ref.id != *id) {
			*id = node.ref.id;
			continue;
		}
		ret = cg_mkdir_restore(ap->core, u.parent, *p,
				       last && g->mode.set ? g->mode.val : 0755, &cred, id);
		if (ret < 0) {
			fail(ap, ret, g->line, "[%s]: cannot make %s", g->section, *p);
			break;
		}
		u.name = g_strdup(*p);
		g_array_append_val(ap->undo, u);
		*created = last;
	}
	g_strfreev(parts);
	return ret;
}

/* Sets file's owner (uid, gid: -1 keeps) and, unless mode is -1, mode,
 * as a chown and chmod by root would (the state logs it). */
static int set_attr(struct applier *ap, uint64_t id, unsigned file, long uid, long gid,
		    long mode)
{
	struct undo u = { .type = UNDO_ATTR, .id = id, .file = file };
	struct cg_setattr req = { 0 };
	int ret = cg_get_iattr(ap->core, id, file, &u.attr);

	if (ret < 0)
		return ret;
	req.valid = (uid >= 0 ? CG_ATTR_UID : 0) | (gid >= 0 ? CG_ATTR_GID : 0) |
		    (mode >= 0 ? CG_ATTR_MODE : 0);
	req.uid = (uid_t)uid;
	req.gid = (gid_t)gid;
	req.mode = (mode_t)mode;
	ret = cg_setattr(ap->core, id, file, &req, &conf_cred);
	if (ret == 0)
		g_array_append_val(ap->undo, u);
	return ret;
}

static void add_file(void *data, const char *name, const struct cg_ref *ref)
{
	struct { uint64_t id; GArray *files; } *w = data;

	(void)name;
	if (ref->id == w->id && ref->file != CG_DIR)
		g_array_append_val(w->files, ref->file);
}

/* owner= and group= of an existing group: its directory and its files, as
 * if it had been made by them. */
static int chown_group(struct applier *ap, uint64_t id, long uid, long gid)
{
	struct { uint64_t id; GArray *files; } w = { id, g_array_new(FALSE, FALSE,
								   sizeof(unsigned)) };
	int ret = cg_readdir(ap->core, id, add_file, &w);

	if (ret == 0)
		ret = set_attr(ap, id, CG_DIR, uid, gid, -1);
	for (guint i = 0; ret == 0 && i < w.files->len; i++)
		ret = set_attr(ap, id, g_array_index(w.files, unsigned, i), uid, gid, -1);
	g_array_unref(w.files);
	return ret;
}

static int apply_attrs(struct applier *ap, unsigned h, const struct conf_group *g,
		       const struct conf_group *before, uint64_t id, bool created, bool all)
{
	static const struct conf_group none;
	const char *const tasks_files[] = { "tasks", "cgroup.procs" };
	long uid, gid;
	int ret = 0;

	if (!before)
		before = &none;
	/* A group made now has its owner and mode from its mkdir. */
	uid = !created && id_changed(&g->owner, &before->owner, all) ? (long)g->owner.val : -1;
	gid = !created && id_changed(&g->group, &before->group, all) ? (long)g->group.val : -1;
	if (uid >= 0 || gid >= 0)
		ret = chown_group(ap, id, uid, gid);
	if (ret < 0)
		return fail(ap, ret, g->owner.set ? g->owner.line : g->group.line,
			    "[%s]: owner", g->section);
	if (!created && id_changed(&g->mode, &before->mode, all) &&
	    (ret = set_attr(ap, id, CG_DIR, -1, -1, g->mode.val)) < 0)
		return fail(ap, ret, g->mode.line, "[%s]: mode", g->section);
	uid = id_changed(&g->tasks_owner, &before->tasks_owner, all) ? (long)g->tasks_owner.val
								      : -1;
	gid = id_changed(&g->tasks_group, &before->tasks_group, all) ? (long)g->tasks_group.val
								      : -1;
	for (guint i = 0; (uid >= 0 || gid >= 0) && i < G_N_ELEMENTS(tasks_files); i++) {
		uint64_t fid;
		unsigned file;

		ret = cg_path_lookup(ap->core, h, g->path, tasks_files[i], &fid, &file);
		if (ret == 0)
			ret = set_attr(ap, fid, file, uid, gid, -1);
		if (ret < 0)
			return fail(ap, ret, g->tasks_owner.set ? g->tasks_owner.line
								: g->tasks_group.line,
				    "[%s]: %s", g->section, tasks_files[i]);
	}
	return 0;
}

/* Writes s in group id if the group has the file (*found then) and the
 * value is not already the file's. */
static int apply_setting(struct applier *ap, unsigned h, const struct conf_group *g,
			 const struct conf_setting *s, bool write, bool *found)
{
	struct undo u = { .type = UNDO_WRITE };
	GString *now;
	char *want;
	ssize_t ret;
	bool known;

	if (cg_path_lookup(ap->core, h, g->path, s->key, &u.id, &u.file) < 0 ||
	    u.file == CG_DIR)
		return 0;
	*found = true;
	if (!write)
		return 0;
	now = g_string_new(NULL);
	want = g_strstrip(g_strdup(s->value));
	/* A file that cannot be read (none here yet) is written, not undone. */
	known = cg_file_read(ap->core, u.id, u.file, now) == 0;
	ret = 0;
	if (!known || strcmp(g_strstrip(now->str), want) != 0) {
		ret = cg_file_write(ap->core, u.id, u.file, s->value, strlen(s->value),
				    &conf_cred);
		if (ret >= 0 && known) {
			u.old = g_string_free(now, FALSE);
			now = NULL;
			g_array_append_val(ap->undo, u);
		}
	}
	g_free(want);
	if (now)
		g_string_free(now, TRUE);
	return ret < 0 ? fail(ap, (int)ret, s->line, "%s=%s", s->key, s->value) : 0;
}

/* Whether two lists of controllers ("cpu,cpuacct") name the same ones. */
static bool same_controllers(const char *a, const char *b)
{
	char **x = g_strsplit(a, ",", -1), **y = g_strsplit(b, ",", -1);
	bool same = g_strv_length(x) == g_strv_length(y);

	for (char **p = x; same && *p; p++)
		same = g_strv_contains((const char *const *)y, *p);
	g_strfreev(x);
	g_strfreev(y);
	return same;
}

/* The hierarchy of exactly the controllers hier names, in any order:
 * 0, or -ENOENT (err says which the mount has). */
static int find_hierarchy(struct applier *ap, const struct conf_group *g, unsigned *index)
{
	GString *names = g_string_new(NULL);
	const char *name;
	uint64_t top;

	for (unsigned h = 0; cg_hierarchy(ap->core, h, &name, &top) == 0; h++) {
		if (same_controllers(g->hier, name)) {
			*index = h;
			g_string_free(names, TRUE);
			return 0;
		}
		g_string_append_printf(names, "%s%s", names->len ? ", " : "", name);
	}
	fail(ap, -ENOENT, g->line, "[%s]: no hierarchy of %s in this mount (it has %s)",
	     g->section, g->hier, names->str);
	g_string_free(names, TRUE);
	return -ENOENT;
}

static int apply_group(struct applier *ap, const struct conf_group *g, const struct conf *old)
{
	const struct conf_group *before = old_group(old, g->section);
	unsigned first = 0, nr = cg_nr_hierarchies(ap->core);
	bool *found = g_new0(bool, g->settings->len);
	int ret = 0;

	if (g->hier) {
		ret = find_hierarchy(ap, g, &first);
		nr = first + 1;
	}
	for (unsigned h = first; ret == 0 && h < nr; h++) {
		uint64_t id;
		bool created, all;

		ret = ensure_group(ap, h, g, &id, &created);
		/* At start (no old), a group that was there (the state's) keeps
		 * what the state says; but for the root, which is always there:
		 * its section is applied at every start. */
		all = created || (old ? !before : strcmp(g->path, "/") == 0);
		if (ret == 0 && (created || old))
			ret = apply_attrs(ap, h, g, before, id, created, all);
		for (guint i = 0; ret == 0 && i < g->settings->len; i++) {
			const struct conf_setting *s = g_ptr_array_index(g->settings, i);
			const char *was = old_value(before, s->key);

			ret = apply_setting(ap, h, g, s,
					    all || (old && (!was || strcmp(was, s->value) != 0)),
					    &found[i]);
		}
	}
	for (guint i = 0; ret == 0 && i < g->settings->len; i++) {
		const struct conf_setting *s = g_ptr_array_index(g->settings, i);

		if (!found[i])
			ret = fail(ap, -ENOENT, s->line, "%s: no such control file in [%s]",
				   s->key, g->section);
	}
	g_free(found);
	return ret;
}

int conf_apply(struct cg_core *core, const struct conf *conf, const struct conf *old,
	       conf_changed_fn changed, void *data, GError **err)
{
	struct applier ap = { .core = core, .conf = conf, .err = err,
			      .undo = g_array_new(FALSE, TRUE, sizeof(struct undo)) };
	int ret = 0;

	g_array_set_clear_func(ap.undo, undo_clear);
	for (guint i = 0; ret == 0 && i < conf->groups->len; i++)
		ret = apply_group(&ap, g_ptr_array_index(conf->groups, i), old);
	if (ret < 0)
		undo_all(&ap);
	for (guint i = 0; ret == 0 && changed && i < ap.undo->len; i++) {
		struct undo *u = &g_array_index(ap.undo, struct undo, i);

		if (u->type == UNDO_RMDIR)
			changed(data, u->parent, CG_DIR, u->name);
		else if (u->type == UNDO_ATTR)
			changed(data, u->id, u->file, NULL);
	}
	g_array_unref(ap.undo);
	return ret;
}
