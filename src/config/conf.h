/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The config file (/etc/cgfused.conf, -o config=FILE): groups the mount
 * has, their settings, owners and modes. A GKeyFile, one section per
 * group:
 *
 *   [/build]                 the group in every hierarchy
 *   [cpu,cpuacct:/build]     in the hierarchy of those controllers only
 *   owner=USER  group=GROUP  the directory and its files (as their maker)
 *   mode=0755                the directory
 *   tasks_owner=USER  tasks_group=GROUP   tasks and cgroup.procs
 *   cpu.shares=2048          any control file but tasks and cgroup.procs
 *
 * How it combines with the state file is in docs/cgfused.8.scd,
 * CONFIGURATION: groups missing are made; the state wins for the groups it
 * has; a reload applies what changed in the file. */
#ifndef CGFUSED_CONF_H
#define CGFUSED_CONF_H

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "core/cgroup.h"

#define CONF_DEFAULT_PATH "/etc/cgfused.conf"

struct conf_setting {
	char *key, *value;
	int line;
};

/* An owner, group or mode the section sets (set false: it does not). */
struct conf_id {
	bool set;
	unsigned val;
	int line;
};

struct conf_group {
	char *section;		/* as written: "cpu:/build" */
	char *hier;		/* "cpu,cpuacct", or NULL for every hierarchy */
	char *path;		/* "/build" */
	int line;
	struct conf_id owner, group, mode, tasks_owner, tasks_group;
	GPtrArray *settings;	/* struct conf_setting *, in file order */
};

struct conf {
	char *path;
	GPtrArray *groups;	/* struct conf_group *, parents before children */
};

/* Parses text, read from path (for messages). NULL and err ("path:line:
 * why") if anything in it is wrong. */
struct conf *conf_parse(const char *path, const char *text, gsize len, GError **err);

/* Reads path and parses it, after checking it as the state's files are
 * (not a link, a regular file of root or the daemon's user, writable by
 * nobody else, in a directory checked with every one above it as
 * lib/dirpath.h says). NULL and err on refusal; a
 * missing file: G_FILE_ERROR_NOENT. */
struct conf *conf_load(const char *path, GError **err);

void conf_free(struct conf *conf);

/* The text of path (NUL-terminated, its length in *len) after those
 * checks; NULL and err ("KIND PATH refused: why") on refusal. */
char *conf_read_checked(const char *path, const char *kind, gsize *len, GError **err);

/* What a change made outside FUSE made stale in the kernel's caches: the
 * name in directory id (a group made), or directory or file id, file
 * (name NULL: its owner or mode). Control files' content is not cached. */
typedef void (*conf_changed_fn)(void *data, uint64_t id, unsigned file, const char *name);

/* Applies conf to core: every group it declares that is missing is made
 * (parents too) with all its keys; with old (the config applied before,
 * a reload), the keys of existing groups that are new or changed since
 * old, and every key of a section old did not have. All or nothing: on a
 * refusal, what was done is undone and err says "path:line: key=value:
 * why". On success, changed (unless NULL) hears of each change. 0 or
 * -errno. */
int conf_apply(struct cg_core *core, const struct conf *conf, const struct conf *old,
	       conf_changed_fn changed, void *data, GError **err);

/* The default of a config or rules file whose root's default is sys
 * (CONF_DEFAULT_PATH, CGRULES_DEFAULT_PATH): that for root, for another
 * user its name in $XDG_CONFIG_HOME/cgfused/. */
char *conf_default_path(const char *sys);

/* The daemon's config, opt being -o config='s value: NULL for the
 * default (conf_default_path(); missing: an empty config), "none" for none (a SIGHUP
 * is then only logged). Loaded and applied at start (NULL and err when
 * the file is refused or does not apply), applied again on each SIGHUP by
 * a thread started with conf_daemon_start() after the daemon's fork. With
 * it the rules (config/cgrules.h), rules_opt being -o rules='s value
 * (NULL: the default, none if missing; "none": none), loaded at
 * start (refused: NULL and err) and again on each SIGHUP (refused: the
 * rules before stay). */
struct conf_daemon;
struct conf_daemon *conf_daemon_new(struct cg_core *core, const char *opt, const char *rules_opt,
				    GError **err);
/* Starts the thread that places processes by the rules, the one that
 * reloads and, in place of libfuse's (which ends
 * the session), a SIGHUP handler that wakes it; changed hears what each
 * reload changed (see conf_apply()). */
void conf_daemon_start(struct conf_daemon *cd, conf_changed_fn changed, void *data);
/* Reloads now, as a SIGHUP does (for tests and the thread). */
void conf_daemon_reload(struct conf_daemon *cd);
/* Stops both threads: no reload and no process placed from here on (the
 * daemon is stopping). conf_daemon_free() does it too. */
void conf_daemon_stop(struct conf_daemon *cd);
void conf_daemon_free(struct conf_daemon *cd);

#endif
