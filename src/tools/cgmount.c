/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Finding a cgfused mount and its groups (see cgmount.h). */
#include "tools/cgmount.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fs/mountinfo.h"

void cg_tool_error(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", g_get_prgname());
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

char *cg_errno_text(int err)
{
	const char *name = strerrorname_np(err);

	return g_strdup_printf("%s %s", name ? name : "?", g_strerror(err));
}

int cg_tool_options(int argc, char **argv, bool *sticky, GPtrArray *specs, const char **mount_dir,
		    void (*usage)(FILE *to), const char *operand, int bad)
{
	static const struct option longopts[] = {
		{ "sticky", no_argument, NULL, 's' },	/* cgfused-exec only */
		{ "mount", required_argument, NULL, 'm' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	bool exec = sticky != NULL;
	int c;

	/* '+': COMMAND's own options are its. */
	while ((c = getopt_long(argc, argv, exec ? "+g:m:sh" : "g:m:h", exec ? longopts : longopts + 1,
				NULL)) != -1) {
		struct cg_spec *spec;

		switch (c) {
		case 'g':
			if (!(spec = cg_spec_parse(optarg)))
				return bad;
			g_ptr_array_add(specs, spec);
			break;
		case 'm':
			*mount_dir = optarg;
			break;
		case 's':
			*sticky = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return bad;
		}
	}
	if (!specs->len || optind >= argc) {
		if (!specs->len)
			cg_tool_error("no group given (-g CONTROLLERS:PATH)");
		else
			cg_tool_error("no %s given", operand);
		usage(stderr);
		return bad;
	}
	return -1;
}

struct cg_spec *cg_spec_parse(const char *arg)
{
	const char *colon = strchr(arg, ':');
	struct cg_spec *spec;
	GString *path;
	char **parts;

	if (!colon || colon == arg) {
		cg_tool_error("'%s': expected CONTROLLERS:PATH, as cpu,cpuacct:/build or *:/build",
			      arg);
		return NULL;
	}
	spec = g_new0(struct cg_spec, 1);
	spec->arg = g_strdup(arg);
	if (colon - arg != 1 || arg[0] != '*') {
		char *list = g_strndup(arg, colon - arg);

		spec->controllers = g_strsplit(list, ",", -1);
		g_free(list);
		for (char **c = spec->controllers; *c; c++) {
			if (!**c || strcmp(*c, "*") == 0) {
				cg_tool_error("'%s': a controller name is empty or '*' among others",
					      arg);
				cg_spec_free(spec);
				return NULL;
			}
		}
	}
	/* Relative to the hierarchy's root, as cgexec takes it, with or
	 * without the leading '/'; nothing may lead out of it. */
	path = g_string_new(NULL);
	parts = g_strsplit(colon + 1, "/", -1);
	for (char **p = parts; *p; p++) {
		if (!**p || strcmp(*p, ".") == 0)
			continue;
		if (strcmp(*p, "..") == 0) {
			cg_tool_error("'%s': '..' is not allowed in a group's path", arg);
			g_strfreev(parts);
			g_string_free(path, TRUE);
			cg_spec_free(spec);
			return NULL;
		}
		g_string_append_printf(path, "/%s", *p);
	}
	g_strfreev(parts);
	spec->path = g_string_free(path->len ? path : g_string_append_c(path, '/'), FALSE);
	return spec;
}

void cg_spec_free(struct cg_spec *spec)
{
	if (!spec)
		return;
	g_strfreev(spec->controllers);
	g_free(spec->path);
	g_free(spec->arg);
	g_free(spec);
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool is_type(int dirfd, const char *name, mode_t type)
{
	struct stat st;

	return fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && (st.st_mode & S_IFMT) == type;
}

char *cg_read_at(int dirfd, const char *name)
{
	int fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	GString *text;
	char buf[8192];
	ssize_t n;

	if (fd < 0)
		return NULL;
	text = g_string_new(NULL);
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		g_string_append_len(text, buf, n);
	close(fd);
	if (n < 0) {
		g_string_free(text, TRUE);
		return NULL;
	}
	return g_string_free(text, FALSE);
}

GHashTable *cg_stat_read(int dirfd)
{
	GHashTable *kv = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
	char *text = dirfd >= 0 ? cg_read_at(dirfd, "cgfused.stat") : NULL;
	char **lines = g_strsplit(text ? text : "", "\n", -1);

	for (char **l = lines; *l; l++) {
		char *sp = strchr(*l, ' ');

		if (sp)
			g_hash_table_insert(kv, g_strndup(*l, sp - *l), g_strdup(sp + 1));
	}
	g_strfreev(lines);
	g_free(text);
	return kv;
}

/* The controllers of the hierarchy at root, as its daemon names them in
 * cgfused.stat (a FUSE mount's options cannot carry them, as a kernel
 * mount's do). A v2 root (it has cgroup.controllers) has the freezer and
 * CPU accounting in its core (cgroup.freeze, cpu.stat's usage_usec):
 * freezer and cpuacct name it too, so that a v1 command line works. */
static char **root_controllers(const char *root)
{
	int fd = open(root, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	GHashTable *stat = cg_stat_read(fd);
	const char *list = g_hash_table_lookup(stat, "controllers");
	GPtrArray *names = g_ptr_array_new();
	char **given = g_strsplit(list ? list : "", ",", -1);

	for (char **c = given; *c; c++)
		if (**c)
			g_ptr_array_add(names, g_strdup(*c));
	if (fd >= 0 && is_type(fd, "cgroup.controllers", S_IFREG)) {
		static const char *const core[] = { "cpuacct", "freezer" };

		for (size_t i = 0; i < G_N_ELEMENTS(core); i++)
			if (!g_ptr_array_find_with_equal_func(names, core[i], g_str_equal, NULL))
				g_ptr_array_add(names, g_strdup(core[i]));
	}
	g_strfreev(given);
	g_hash_table_unref(stat);
	if (fd >= 0)
		close(fd);
	g_ptr_array_sort(names, by_name);
	g_ptr_array_add(names, NULL);
	return (char **)g_ptr_array_free(names, FALSE);
}

static struct cg_hier *hier_new(const char *root)
{
	struct cg_hier *h = g_new0(struct cg_hier, 1);

	h->root = g_strdup(root);
	h->controllers = root_controllers(root);
	return h;
}

static void hier_free(void *data)
{
	struct cg_hier *h = data;

	g_free(h->root);
	g_strfreev(h->controllers);
	g_free(h);
}

void cg_mount_free(struct cg_mount *m)
{
	if (!m)
		return;
	g_free(m->dir);
	g_ptr_array_unref(m->hiers);
	g_free(m);
}

/* The mount at dir: one hierarchy if its root has a cgroup.procs file
 * (v1 or v2), else one per directory that has one (v1's several). */
static struct cg_mount *mount_read(const char *dir)
{
	struct cg_mount *m = g_new0(struct cg_mount, 1);
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

	m->dir = g_strdup(dir);
	m->hiers = g_ptr_array_new_with_free_func(hier_free);
	if (fd < 0)
		return m;
	if (is_type(fd, "cgroup.procs", S_IFREG)) {
		g_ptr_array_add(m->hiers, hier_new(dir));
	} else {
		GDir *d = g_dir_open(dir, 0, NULL);
		const char *name;
		GPtrArray *subdirs = g_ptr_array_new_with_free_func(g_free);

		while (d && (name = g_dir_read_name(d))) {
			char *procs = g_build_filename(name, "cgroup.procs", NULL);

			if (is_type(fd, procs, S_IFREG))
				g_ptr_array_add(subdirs, g_build_filename(dir, name, NULL));
			g_free(procs);
		}
		if (d)
			g_dir_close(d);
		g_ptr_array_sort(subdirs, by_name);
		for (guint i = 0; i < subdirs->len; i++)
			g_ptr_array_add(m->hiers, hier_new(subdirs->pdata[i]));
		g_ptr_array_unref(subdirs);
	}
	close(fd);
	return m;
}

static const struct cg_hier *hier_with(const struct cg_mount *m, const char *controller)
{
	for (guint i = 0; i < m->hiers->len; i++) {
		const struct cg_hier *h = m->hiers->pdata[i];

		if (g_strv_contains((const char *const *)h->controllers, controller))
			return h;
	}
	return NULL;
}

/* The first controller the specs name that m lacks, or NULL. */
static const char *missing_controller(const struct cg_mount *m, GPtrArray *specs)
{
	for (guint i = 0; specs && i < specs->len; i++) {
		const struct cg_spec *s = specs->pdata[i];

		for (char **c = s->controllers; c && *c; c++)
			if (!hier_with(m, *c))
				return *c;
	}
	return NULL;
}

static struct cg_mount *mount_given(const char *dir, GPtrArray *specs)
{
	char *real = realpath(dir, NULL);
	GPtrArray *mounts = mountinfo_mounts_of_type("fuse.cgfused");
	struct cg_mount *m = NULL;
	const char *lacks;

	if (!real) {
		cg_tool_error("%s: %s", dir, g_strerror(errno));
	} else if (!mounts || !g_ptr_array_find_with_equal_func(mounts, real, g_str_equal, NULL)) {
		cg_tool_error("%s is not a cgfused mount point", dir);
	} else {
		m = mount_read(real);
		if (!m->hiers->len) {
			cg_tool_error("%s: no hierarchy found (is its daemon answering?)", dir);
			g_clear_pointer(&m, cg_mount_free);
		} else if ((lacks = missing_controller(m, specs))) {
			cg_tool_error("%s has no hierarchy with the %s controller", dir, lacks);
			g_clear_pointer(&m, cg_mount_free);
		}
	}
	if (mounts)
		g_ptr_array_unref(mounts);
	free(real);
	return m;
}

struct cg_mount *cg_mount_find(const char *dir, GPtrArray *specs)
{
	GPtrArray *mounts, *fit;
	struct cg_mount *m = NULL;

	if (dir)
		return mount_given(dir, specs);
	mounts = mountinfo_mounts_of_type("fuse.cgfused");
	if (!mounts) {
		cg_tool_error("cannot read /proc/self/mountinfo: %s", g_strerror(errno));
		return NULL;
	}
	fit = g_ptr_array_new_with_free_func((GDestroyNotify)cg_mount_free);
	for (guint i = 0; i < mounts->len; i++) {
		struct cg_mount *c = mount_read(mounts->pdata[i]);

		if (c->hiers->len && !missing_controller(c, specs))
			g_ptr_array_add(fit, c);
		else
			cg_mount_free(c);
	}
	if (fit->len == 1) {
		m = g_ptr_array_steal_index(fit, 0);
	} else if (fit->len == 0) {
		if (mounts->len)
			cg_tool_error("none of the %u cgfused mounts has every controller named",
				      mounts->len);
		else
			cg_tool_error("no cgfused mount in /proc/self/mountinfo (see cgfused(8))");
	} else {
		GString *list = g_string_new(NULL);

		for (guint i = 0; i < fit->len; i++)
			g_string_append_printf(list, "%s%s", i ? ", " : "",
					       ((struct cg_mount *)fit->pdata[i])->dir);
		cg_tool_error("several cgfused mounts fit (%s): choose one with --mount", list->str);
		g_string_free(list, TRUE);
	}
	g_ptr_array_unref(fit);
	g_ptr_array_unref(mounts);
	return m;
}

static void target_free(void *data)
{
	struct cg_target *t = data;

	if (t->procs_fd >= 0)
		close(t->procs_fd);
	g_free(t->dir);
	g_free(t);
}

static bool target_add(GPtrArray *targets, const struct cg_hier *h, const struct cg_spec *s)
{
	struct cg_target *t;
	char *procs;

	for (guint i = 0; i < targets->len; i++) {
		const struct cg_target *o = targets->pdata[i];

		if (o->hier != h)
			continue;
		if (o->spec == s)
			return true;	/* cpu,cpuacct:/x with both in one hierarchy */
		cg_tool_error("'%s' and '%s' both name a group of %s", o->spec->arg, s->arg,
			      h->root);
		return false;
	}
	t = g_new0(struct cg_target, 1);
	t->hier = h;
	t->spec = s;
	t->dir = strcmp(s->path, "/") ? g_strconcat(h->root, s->path, NULL) : g_strdup(h->root);
	procs = g_build_filename(t->dir, "cgroup.procs", NULL);
	t->procs_fd = open(procs, O_WRONLY | O_NOFOLLOW | O_CLOEXEC);
	g_ptr_array_add(targets, t);
	if (t->procs_fd < 0) {
		int err = errno;

		cg_tool_error("%s: %s", err == ENOENT ? t->dir : procs, g_strerror(err));
		g_free(procs);
		return false;
	}
	g_free(procs);
	return true;
}

static bool in_cpuset(const struct cg_target *t)
{
	return g_strv_contains((const char *const *)t->hier->controllers, "cpuset");
}

/* The cpuset hierarchy first: an empty cpuset (ENOSPC) is the one place a
 * move that passed the others fails, so it fails before any other move. */
static int cpuset_first(const void *a, const void *b)
{
	const struct cg_target *x = *(struct cg_target *const *)a, *y = *(struct cg_target *const *)b;

	return in_cpuset(y) - in_cpuset(x);
}

GPtrArray *cg_targets_open(const struct cg_mount *m, GPtrArray *specs)
{
	GPtrArray *targets = g_ptr_array_new_with_free_func(target_free);

	for (guint i = 0; i < specs->len; i++) {
		const struct cg_spec *s = specs->pdata[i];

		for (guint j = 0; j < m->hiers->len; j++) {
			const struct cg_hier *h = m->hiers->pdata[j];
			bool named = !s->controllers;

			for (char **c = s->controllers; c && *c && !named; c++)
				named = g_strv_contains((const char *const *)h->controllers, *c);
			if (named && !target_add(targets, h, s)) {
				g_ptr_array_unref(targets);
				return NULL;
			}
		}
	}
	g_ptr_array_sort(targets, cpuset_first);	/* stable: the given order otherwise */
	return targets;
}

int cg_target_move(const struct cg_target *t, pid_t pid)
{
	char buf[24];
	int len = snprintf(buf, sizeof(buf), "%d", (int)pid);

	errno = 0;
	if (write(t->procs_fd, buf, len) == len)
		return 0;
	return errno ? errno : EIO;
}
