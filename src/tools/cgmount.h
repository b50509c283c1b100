/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What the tools (cgfused-exec, cgfused-classify, cgfused-top) know of a
 * cgfused mount: where it is and how its hierarchies lie, read from the
 * tree itself (each hierarchy's cgfused.stat names its controllers),
 * since a FUSE mount's options cannot list them. */
#ifndef CGFUSED_TOOLS_CGMOUNT_H
#define CGFUSED_TOOLS_CGMOUNT_H

#include <glib.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

/* One hierarchy: the mount point itself (one hierarchy per mount) or one
 * of its directories (-o controllers=cpu,cpuacct:cpuset). */
struct cg_hier {
	char *root;		/* its root directory */
	char **controllers;	/* the controllers whose files it has */
};

struct cg_mount {
	char *dir;
	GPtrArray *hiers;	/* of struct cg_hier */
};

/* A -g CONTROLLERS:PATH argument. */
struct cg_spec {
	char **controllers;	/* NULL for "*": every hierarchy */
	char *path;		/* "/" or "/a/b", no "." or ".." */
	char *arg;		/* as given, for messages */
};

/* A group to move processes to: path in hier. */
struct cg_target {
	const struct cg_hier *hier;
	const struct cg_spec *spec;
	char *dir;
	int procs_fd;		/* its cgroup.procs, open for writing, or -1 */
};

/* Prints "PROGRAM: message" on standard error. */
void cg_tool_error(const char *fmt, ...) G_GNUC_PRINTF(1, 2);

/* The options of cgfused-exec (sticky not NULL: -s into *sticky too, and
 * options end at COMMAND) and cgfused-classify (sticky NULL): -g into
 * specs, -m into *mount_dir, -h. Then at
 * least one -g and one operand (what names it) must be there. Returns -1
 * to go on, or the status to exit with: 0 after --help, bad on an error
 * (after saying why). */
int cg_tool_options(int argc, char **argv, bool *sticky, GPtrArray *specs, const char **mount_dir,
		    void (*usage)(FILE *to), const char *operand, int bad);

/* Parses a -g argument; prints why and returns NULL if it is malformed. */
struct cg_spec *cg_spec_parse(const char *arg);
void cg_spec_free(struct cg_spec *spec);

/* The cgfused mount to use: dir if not NULL (it must be a cgfused mount
 * point), else the only mounted one that has every controller the specs
 * name. Prints why and returns NULL when there is none or more than one. */
struct cg_mount *cg_mount_find(const char *dir, GPtrArray *specs);
void cg_mount_free(struct cg_mount *m);

/* The groups the specs name in m, each cgroup.procs open for writing, the
 * cpuset hierarchy's first, the others in the order given; a hierarchy
 * named by two specs is an error. Prints why
 * and returns NULL if one does not exist or cannot be opened. */
GPtrArray *cg_targets_open(const struct cg_mount *m, GPtrArray *specs);

/* Moves the whole thread group of pid into t; 0 or the errno. */
int cg_target_move(const struct cg_target *t, pid_t pid);

/* The file name at dirfd, whole, without following a link (to g_free());
 * NULL if it cannot be read. */
char *cg_read_at(int dirfd, const char *name);

/* The lines of cgfused.stat at dirfd (a hierarchy's root) as key ->
 * value (empty if it cannot be read). */
GHashTable *cg_stat_read(int dirfd);

/* "ESRCH No such process"-like text for err, to g_free(). */
char *cg_errno_text(int err);

#endif
