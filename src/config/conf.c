/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Reading and parsing the config file (see config/conf.h). */
#include "config/conf.h"

#include "lib/dirpath.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define CONF_MAX_SIZE (1u << 20)

static void setting_free(gpointer p)
{
	struct conf_setting *s = p;

	g_free(s->key);
	g_free(s->value);
	g_free(s);
}

static void group_free(gpointer p)
{
	struct conf_group *g = p;

	g_free(g->section);
	g_free(g->hier);
	g_free(g->path);
	g_ptr_array_unref(g->settings);
	g_free(g);
}

void conf_free(struct conf *conf)
{
	if (!conf)
		return;
	g_free(conf->path);
	g_ptr_array_unref(conf->groups);
	g_free(conf);
}

/* GKeyFile says what is wrong but not where: the first line whose prefix
 * of the text does not load is where. */
static int bad_line(const char *text, gsize len)
{
	GKeyFile *kf = g_key_file_new();
	int line = 1;

	for (const char *p = text; p < text + len; line++) {
		const char *nl = memchr(p, '\n', (gsize)(text + len - p));
		gsize upto = nl ? (gsize)(nl - text) + 1 : len;

		if (!g_key_file_load_from_data(kf, text, upto, G_KEY_FILE_NONE, NULL))
			break;
		p = text + upto;
	}
	g_key_file_free(kf);
	return line;
}

/* Where each section ("[s]") and key ("s\nkey") is, the last one if
 * repeated (GKeyFile keeps the last value too); *localized: the first line
 * of a key with a locale ("key[de]"), which GKeyFile would hide, or 0. */
static GHashTable *line_map(const char *text, gsize len, int *localized)
{
	GHashTable *map = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	char **lines = g_strsplit(text, "\n", -1), *section = g_strdup("");
	int n = 0;

	(void)len;
	for (char **l = lines; *l; l++) {
		char *s = g_strstrip(*l), *eq;

		n++;
		if (*s == '[' && s[strlen(s) - 1] == ']') {
			g_free(section);
			section = g_strndup(s + 1, strlen(s) - 2);
			g_hash_table_insert(map, g_strdup_printf("[%s]", section), GINT_TO_POINTER(n));
		} else if (*s && *s != '#' && (eq = strchr(s, '='))) {
			*eq = '\0';
			if (strchr(s, '[') && !*localized)
				*localized = n;
			g_hash_table_insert(map, g_strdup_printf("%s\n%s", section, g_strchomp(s)),
					    GINT_TO_POINTER(n));
		}
	}
	g_free(section);
	g_strfreev(lines);
	return map;
}

static int key_line(GHashTable *map, const char *section, const char *key)
{
	char *k = key ? g_strdup_printf("%s\n%s", section, key) : g_strdup_printf("[%s]", section);
	int line = GPOINTER_TO_INT(g_hash_table_lookup(map, k));

	g_free(k);
	return line;
}

/* "/a/b": absolute, no empty, "." or ".." component, not "/" itself. */
/* "/" (the root: its own files, as v2's cgroup.subtree_control) or a
 * group below it. */
static bool path_ok(const char *path)
{
	char **parts;
	bool ok = path[0] == '/';

	if (strcmp(path, "/") == 0)
		return true;

	parts = g_strsplit(path + 1, "/", -1);
	for (char **p = parts; ok && *p; p++)
		ok = **p && strcmp(*p, ".") != 0 && strcmp(*p, "..") != 0;
	g_strfreev(parts);
	return ok;
}

static int depth(const char *path)
{
	int n = 0;

	for (; *path; path++)
		n += *path == '/';
	return n;
}

static gint by_depth(gconstpointer a, gconstpointer b)
{
	const struct conf_group *ga = *(struct conf_group *const *)a;
	const struct conf_group *gb = *(struct conf_group *const *)b;

	return depth(ga->path) - depth(gb->path);
}

/* A user or group by name or number; false if there is none. */
static bool resolve_id(const char *key, const char *val, unsigned *out)
{
	bool user = strcmp(key, "owner") == 0 || strcmp(key, "tasks_owner") == 0;
	guint64 num;

	if (g_ascii_string_to_unsigned(val, 10, 0, G_MAXUINT32 - 1, &num, NULL)) {
		*out = (unsigned)num;
		return true;
	}
	if (user) {
		struct passwd *pw = getpwnam(val);

		if (pw)
			*out = pw->pw_uid;
		return pw != NULL;
	}
	struct group *gr = getgrnam(val);

	if (gr)
		*out = gr->gr_gid;
	return gr != NULL;
}

/* The owner, group and mode keys: 1 if key is one, -1 (and *why) if its
 * value is bad, 0 if key is none of them. */
static int attr_key(struct conf_group *g, const char *key, const char *val, int line,
		     const char **why)
{
	static const char *const names[] = { "owner", "group", "mode", "tasks_owner",
					     "tasks_group" };
	struct conf_id *ids[] = { &g->owner, &g->group, &g->mode, &g->tasks_owner,
				  &g->tasks_group };
	guint64 mode;

	for (guint i = 0; i < G_N_ELEMENTS(names); i++) {
		if (strcmp(key, names[i]) != 0)
			continue;
		ids[i]->set = true;
		ids[i]->line = line;
		if (ids[i] == &g->mode) {
			if (g_ascii_string_to_unsigned(val, 8, 0, 07777, &mode, NULL)) {
				ids[i]->val = (unsigned)mode;
				return 1;
			}
			*why = "not an octal mode (at most 07777)";
			return -1;
		}
		if (resolve_id(key, val, &ids[i]->val))
			return 1;
		*why = i == 0 || i == 3 ? "no such user" : "no such group";
		return -1;
	}
	return 0;
}

static struct conf_group *parse_section(GKeyFile *kf, const char *section, GHashTable *map,
					const char *path, GError **err)
{
	struct conf_group *g = g_new0(struct conf_group, 1);
	const char *colon = strchr(section, ':');
	char **keys = NULL;
	const char *why = NULL;
	char *bad = NULL;
	int line = key_line(map, section, NULL);

	g->section = g_strdup(section);
	g->line = line;
	g->hier = colon ? g_strndup(section, (gsize)(colon - section)) : NULL;
	g->path = g_strdup(colon ? colon + 1 : section);
	g->settings = g_ptr_array_new_with_free_func(setting_free);
	if (colon && !*g->hier)
		why = "no controllers before ':' (write [/path] for every hierarchy)";
	else if (!path_ok(g->path))
		why = "a group is an absolute path from the hierarchy's root, as [/build] or "
		      "[cpu,cpuacct:/build] ([/]: the root)";
	keys = why ? NULL : g_key_file_get_keys(kf, section, NULL, NULL);
	for (char **k = keys; k && *k && !why; k++) {
		char *val;

		/* A repeated key is listed each time; its value is the last. */
		if (g_strv_contains((const char *const *)(k + 1), *k))
			continue;
		val = g_key_file_get_string(kf, section, *k, NULL);

		line = key_line(map, section, *k);
		g_free(bad);
		bad = g_strdup(*k);
		if (!val)
			why = "a value with a bad escape";
		else if (strcmp(*k, "tasks") == 0 || strcmp(*k, "cgroup.procs") == 0)
			why = "the config makes groups, it does not place tasks";
		else if (attr_key(g, *k, val, line, &why) != 0)
			;	/* an owner, group or mode: why says if it is bad */
		else if (!strchr(*k, '.') && strcmp(*k, "notify_on_release") != 0 &&
			 strcmp(*k, "release_agent") != 0)
			why = "not a control file (owner, group, mode, tasks_owner, tasks_group, "
			      "or a file such as cpu.shares)";
		else {
			struct conf_setting *s = g_new0(struct conf_setting, 1);

			s->key = g_strdup(*k);
			s->value = g_strdup(val);
			s->line = line;
			g_ptr_array_add(g->settings, s);
		}
		g_free(val);
	}
	g_strfreev(keys);
	if (!why) {
		g_free(bad);
		return g;
	}
	if (bad)
		g_set_error(err, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_INVALID_VALUE, "%s:%d: %s: %s",
			    path, line, bad, why);
	else
		g_set_error(err, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_GROUP_NOT_FOUND,
			    "%s:%d: [%s]: %s", path, line, section, why);
	g_free(bad);
	group_free(g);
	return NULL;
}

struct conf *conf_parse(const char *path, const char *text, gsize len, GError **err)
{
	GKeyFile *kf = g_key_file_new();
	struct conf *conf = g_new0(struct conf, 1);
	GError *kerr = NULL;
	GHashTable *map;
	char **sections;
	int localized = 0;

	conf->path = g_strdup(path);
	conf->groups = g_ptr_array_new_with_free_func(group_free);
	if (memchr(text, '\0', len) ||
	    !g_key_file_load_from_data(kf, text, len, G_KEY_FILE_NONE, &kerr)) {
		g_set_error(err, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_PARSE, "%s:%d: %s", path,
			    bad_line(text, len), kerr ? kerr->message : "a NUL byte");
		g_clear_error(&kerr);
		g_key_file_free(kf);
		conf_free(conf);
		return NULL;
	}
	map = line_map(text, len, &localized);
	sections = g_key_file_get_groups(kf, NULL);
	if (localized) {
		g_set_error(err, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_INVALID_VALUE,
			    "%s:%d: a localized key (KEY[LOCALE]): no control file has one",
			    path, localized);
		g_clear_pointer(&conf, conf_free);
	}
	for (char **s = sections; conf && *s; s++) {
		struct conf_group *g = parse_section(kf, *s, map, path, err);

		if (!g) {
			conf_free(conf);
			conf = NULL;
			break;
		}
		g_ptr_array_add(conf->groups, g);
	}
	if (conf)
		g_ptr_array_sort(conf->groups, by_depth);	/* stable: file order kept */
	g_strfreev(sections);
	g_hash_table_unref(map);
	g_key_file_free(kf);
	return conf;
}

/* root's, or the daemon user's, a regular file writable by nobody else.
 * The reason if not. */
static const char *stat_problem(const struct stat *st)
{
	if (st->st_uid != 0 && st->st_uid != geteuid())
		return "it belongs to another user";
	if (!S_ISREG(st->st_mode))
		return "it is not a regular file";
	if (st->st_mode & 022)
		return "it is writable by its group or others";
	return NULL;
}

/* name in dir, checked on a descriptor that opens nothing (O_PATH: a
 * device or FIFO is not opened, a link not followed), then opened for
 * real and checked to be the same file. The fd, or -1 with *why or errno. */
static int open_checked(int dfd, const char *name, const char **why)
{
	int probe = openat(dfd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC), fd = -1, e = 0;
	struct stat st, again;

	if (probe < 0 || fstat(probe, &st) < 0)
		e = errno;
	else if (S_ISLNK(st.st_mode))
		*why = "it is a symbolic link (name the file itself)";
	else if (!(*why = stat_problem(&st)) && st.st_size > CONF_MAX_SIZE)
		*why = "it is larger than 1 MiB";
	else if (!*why && ((fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NOCTTY |
					 O_CLOEXEC)) < 0 || fstat(fd, &again) < 0))
		e = errno;
	else if (!*why && (again.st_dev != st.st_dev || again.st_ino != st.st_ino))
		*why = "it was replaced while being opened";
	if (probe >= 0)
		close(probe);
	if ((e || *why) && fd >= 0)
		close(fd);
	errno = e;
	return e || *why ? -1 : fd;
}

/* A config may set a release_agent, which runs as root: whoever could
 * write it (or a directory on its path) could run anything as root. */
char *conf_read_checked(const char *path, const char *kind, gsize *len, GError **err)
{
	char *name = g_path_get_basename(path), *text = NULL, *dir = NULL;
	char *option = g_strdup_printf("-o %s=FILE", kind);
	int dfd = dirpath_open(path, true, option, &dir, err), fd = -1, e = 0;
	const char *why = NULL;
	struct stat st;
	ssize_t n = 0;

	g_free(option);
	if (dfd < 0) {
		g_free(name);
		return NULL;
	}
	if ((fd = open_checked(dfd, name, &why)) < 0 || fstat(fd, &st) < 0) {
		e = why ? 0 : errno;
	} else {
		text = g_malloc((gsize)st.st_size + 1);
		n = pread(fd, text, (size_t)st.st_size, 0);
		if (n < 0)
			e = errno;
		else
			text[n] = '\0';	/* parsers split it as a string */
	}
	if (why)
		g_set_error(err, G_FILE_ERROR, G_FILE_ERROR_PERM,
			    "%s %s refused: %s", kind, path, why);
	else if (e)
		g_set_error(err, G_FILE_ERROR, g_file_error_from_errno(e),
			    "cannot read %s %s: %s", kind, path, g_strerror(e));
	if (fd >= 0)
		close(fd);
	close(dfd);
	g_free(name);
	g_free(dir);
	if (why || e)
		g_clear_pointer(&text, g_free);
	else
		*len = (gsize)n;
	return text;
}

struct conf *conf_load(const char *path, GError **err)
{
	gsize len;
	char *text = conf_read_checked(path, "config", &len, err);
	struct conf *conf = text ? conf_parse(path, text, len, err) : NULL;

	g_free(text);
	return conf;
}
