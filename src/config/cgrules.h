/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Rules that place a process when it execs (-o rules=FILE), in the format
 * of libcgroup's /etc/cgrules.conf, one rule a line:
 *
 *   USER[:PROCESS]   CONTROLLERS   DESTINATION
 *
 *   peter            cpu           /peter
 *   @builders:make   cpu,cpuacct   /build
 *   *:gcc*           *             /compilers
 *   %                cpuset        /compilers/small
 *
 * USER is a user name, @GROUP (the process's group, or a user the group
 * lists), * for anyone, or % for "as the rule above" (a second
 * destination for the same processes). PROCESS is the executable's name
 * (or its full path, if it has a /), * for any, a trailing * for any
 * name that starts so; a script matches by its own name. CONTROLLERS:
 * names separated by commas, or * for every hierarchy. DESTINATION: a
 * group, from the hierarchy's root. # starts a comment line.
 *
 * The first rule that matches decides, with the % lines that follow it;
 * see docs/cgfused.rules.5.scd. */
#ifndef CGFUSED_CGRULES_H
#define CGFUSED_CGRULES_H

#include <glib.h>
#include <stdbool.h>
#include <sys/types.h>

#include "lib/failcount.h"

struct cg_core;

#define CGRULES_DEFAULT_PATH "/etc/cgfused.rules"

struct cgrules;

/* What a rule is matched against: the process's effective ids, its
 * command name (comm) and its executable's path ("" if unknown). */
struct cgrules_proc {
	uid_t uid;
	gid_t gid;
	const char *comm;
	const char *exe;
};

/* One place to put a matched process: every hierarchy that has one of
 * controllers (NULL: every hierarchy), at path ("/a/b"). */
struct cgrules_target {
	char **controllers;
	char *path;
	int line;
	struct failcount fails;	/* moves refused, said once then counted */
};

/* Parses text, read from path (for messages). NULL and err ("path:line:
 * why") if anything in it is wrong; users and groups are looked up here. */
struct cgrules *cgrules_parse(const char *path, const char *text, gsize len, GError **err);

/* Reads path and parses it, after checking it as the config file is (not
 * a link, a regular file of root or the daemon's user that nobody else
 * may write, in a directory the same). A missing file:
 * G_FILE_ERROR_NOENT. */
struct cgrules *cgrules_load(const char *path, GError **err);

/* Rules are shared by the thread that places processes and the one that
 * reloads them: a reference more, and one less (freed with the last). */
struct cgrules *cgrules_ref(struct cgrules *rules);
void cgrules_free(struct cgrules *rules);

unsigned cgrules_count(const struct cgrules *rules);

/* The targets of the first rule that matches p and of the % rules after
 * it, in file order (pointers into rules): an empty array if none does. */
GPtrArray *cgrules_match(const struct cgrules *rules, const struct cgrules_proc *p);

/* Calls fn on every target of a rule whose user root is (root, *, a
 * group of gid 0 or that lists root, or % after such a rule). */
void cgrules_for_each_root_target(const struct cgrules *rules,
				  void (*fn)(void *data, const struct cgrules_target *t), void *data);

/* Placing processes by the rules: a thread that hears of every exec (from
 * the task watcher, through cg_exec_hook_set()), reads what the rules
 * need of the process outside the core lock (/proc/PID/status, comm, exe
 * and, for a process that matched, environ), and moves it by writing its
 * id to the destinations' cgroup.procs as root, as a shell would. A
 * process whose environment has CGFUSED_STICKY=1 (cgfused-exec --sticky)
 * stays where it is, and so do its children that keep the variable.
 * rules (NULL: none) becomes the engine's. */
struct cgrules_engine;
struct cgrules_engine *cgrules_engine_new(struct cg_core *core, struct cgrules *rules);
/* After the daemon's fork: starts the thread and listens to execs. */
void cgrules_engine_start(struct cgrules_engine *e);
/* The rules from now on (the old ones are freed; NULL: none). */
void cgrules_engine_set(struct cgrules_engine *e, struct cgrules *rules);
/* Stops listening and the thread (after the exec it is placing). */
void cgrules_engine_stop(struct cgrules_engine *e);
void cgrules_engine_free(struct cgrules_engine *e);

#endif
