/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cgfused: cgroup hierarchies (v1, or v2 with -o unified) served from user
 * space.
 *
 *   cgfused [-f] [-d] [-s] [-o OPTIONS] MOUNTPOINT
 *   cgfused SOURCE MOUNTPOINT -o OPTIONS    (as mount.fuse3 runs it)
 *
 * Parses its own options (libfuse's go on to it), makes the mount point if
 * it can, builds the core with the chosen controllers and its subscribers
 * (allocator, enforcers, release agent), opens the state and the config
 * and rules, mounts, starts the threads (docs/design.md, "Locks and
 * threads") and serves the session; at the stop, lets every managed thread
 * go and saves the state. */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/cgroup.h"
#include "core/core_call.h"
#include "log.h"
#include "ctl/ctl.h"
#include "fs/fs.h"
#include "fs/fs_poll.h"
#include "malloc_setup.h"
#include "sd_notify.h"
#include "fs/mountpoint.h"
#include "state/state.h"
#include "config/cgrules.h"
#include "config/conf.h"
#include "alloc/alloc.h"
#include "alloc/alloc_thread.h"
#include "enforce/enforce_thread.h"
#include "core/task_watch.h"
#include "kernel/watch_sources.h"
#include "v1/face.h"
#include "v1/release_agent.h"
#include "v2/face.h"

#define DEFAULT_CONTROLLERS "cpu,cpuacct,cpuset,freezer"

struct cgfused_config {
	GString *controllers;	/* as given: "cpu,cpuacct:cpuset" */
	int clone_children;
	int unified;		/* -o unified: one v2 hierarchy */
	/* v1's own options, given: refused with -o unified. */
	const char *v1_option;
	int default_permissions;
	int allow_other;	/* given: libfuse's, checked first */
	char *mountpoint;	/* the last non-option argument */
	char *source;		/* mount.fuse3's first one, when there are two */
	int extra_args;		/* non-option arguments past those two */
	char *state;		/* state file, "none", or NULL for the default */
	char *config;		/* config file, "none", or NULL for the default */
	char *rules;		/* rules file, "none", or NULL for the default */
	unsigned max_depth, max_descendants;	/* for every group (core->max_*) */
	char *tracking;		/* -o tracking=MODE, or NULL: auto */
	int help;
};

/* opt_proc's key for a v1 option that a template also sets. */
#define KEY_V1 100

static const struct fuse_opt cgfused_opts[] = {
	{ "clone_children", offsetof(struct cgfused_config, clone_children), 1 },
	{ "noclone_children", offsetof(struct cgfused_config, clone_children), 0 },
	FUSE_OPT_KEY("clone_children", KEY_V1),
	FUSE_OPT_KEY("noclone_children", KEY_V1),
	{ "unified", offsetof(struct cgfused_config, unified), 1 },
	{ "default_permissions", offsetof(struct cgfused_config, default_permissions), 1 },
	{ "nodefault_permissions", offsetof(struct cgfused_config, default_permissions), 0 },
	{ "state=%s", offsetof(struct cgfused_config, state), 0 },
	{ "--state=%s", offsetof(struct cgfused_config, state), 0 },
	{ "config=%s", offsetof(struct cgfused_config, config), 0 },
	{ "rules=%s", offsetof(struct cgfused_config, rules), 0 },
	{ "max_depth=%u", offsetof(struct cgfused_config, max_depth), 0 },
	{ "max_descendants=%u", offsetof(struct cgfused_config, max_descendants), 0 },
	{ "tracking=%s", offsetof(struct cgfused_config, tracking), 0 },
	FUSE_OPT_END
};

/* The index in cgfused_controllers of the controller named name[0..len),
 * or -1. */
static int controller_index(const char *name, size_t len)
{
	for (int i = 0; cgfused_controllers[i]; i++)
		if (strlen(cgfused_controllers[i]->name) == len &&
		    strncmp(cgfused_controllers[i]->name, name, len) == 0)
			return i;
	return -1;
}

/* "cpuset, cpu, ...": every controller cgfused_controllers has, for a
 * message that cannot fall behind the list. */
static char *known_controllers(void)
{
	GString *s = g_string_new(NULL);

	for (int i = 0; cgfused_controllers[i]; i++)
		g_string_append_printf(s, "%s%s", i ? ", " : "", cgfused_controllers[i]->name);
	return g_string_free(s, FALSE);
}

/* libfuse splits -o at commas, so "-o controllers=cpu,cpuacct:cpuset"
 * arrives as "controllers=cpu" and "cpuacct:cpuset": an option made only of
 * controller names (and ':') continues the list. */
static bool is_controller_list(const char *arg)
{
	for (const char *p = arg; *p;) {
		size_t len = strcspn(p, ":");

		if (controller_index(p, len) < 0)
			return false;
		p += len + (p[len] == ':');
	}
	return *arg != '\0';
}

static int opt_proc(void *data, const char *arg, int key, struct fuse_args *outargs)
{
	struct cgfused_config *conf = data;

	(void)outargs;
	if (key == KEY_V1) {
		conf->v1_option = conf->v1_option ? conf->v1_option
				  : strcmp(arg, "clone_children") ? "noclone_children" : "clone_children";
		return 0;
	}
	/* v1's release agent is set in its file; as a mount option it is
	 * libfuse's to refuse, but for -o unified, which says why. */
	if (key == FUSE_OPT_KEY_OPT && g_str_has_prefix(arg, "release_agent="))
		conf->v1_option = conf->v1_option ? conf->v1_option : "release_agent";
	if (key == FUSE_OPT_KEY_OPT && strcmp(arg, "allow_other") == 0)
		conf->allow_other = 1;	/* kept for libfuse */
	if (key == FUSE_OPT_KEY_OPT && g_str_has_prefix(arg, "controllers=")) {
		g_string_assign(conf->controllers, arg + strlen("controllers="));
		conf->v1_option = conf->v1_option ? conf->v1_option : "controllers";
		return 0;
	}
	if (key == FUSE_OPT_KEY_OPT && conf->controllers->len && is_controller_list(arg)) {
		g_string_append_printf(conf->controllers, ",%s", arg);
		return 0;
	}
	/* mount(8) runs "cgfused SOURCE MOUNTPOINT -o ..." (mount.fuse3): the
	 * mount point is the last; main hands it to libfuse. */
	if (key == FUSE_OPT_KEY_NONOPT) {
		if (conf->source)
			conf->extra_args++;
		else if (conf->mountpoint)
			conf->source = conf->mountpoint;
		if (!conf->extra_args)
			conf->mountpoint = g_strdup(arg);
		return 0;
	}
	if (key == FUSE_OPT_KEY_OPT && (strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0 ||
					strcmp(arg, "-V") == 0 || strcmp(arg, "--version") == 0))
		conf->help = 1;
	return 1;	/* libfuse parses everything else */
}

static void usage(const char *prog)
{
	char *conf = conf_default_path(CONF_DEFAULT_PATH);
	char *rules = conf_default_path(CGRULES_DEFAULT_PATH);
	char *state = geteuid() == 0 ? g_strdup(STATE_DIR)
				     : g_build_filename(g_get_user_state_dir(), "cgfused", NULL);

	printf("usage: %s [options] MOUNTPOINT\n"
	       "       mount -t fuse.cgfused cgfused MOUNTPOINT [-o options]\n\n"
	       "cgfused options:\n"
	       "    -o controllers=LIST    controllers of the hierarchy (default %s);\n"
	       "                           ':' separates hierarchies, each mounted in a\n"
	       "                           subdirectory named after its controllers\n"
	       "    -o unified             one cgroup v2 hierarchy (the default hierarchy's\n"
	       "                           files and rules) instead of v1's\n"
	       "    -o clone_children      new groups start with their parent's cpuset (default)\n"
	       "    -o noclone_children    new groups start with an empty cpuset\n"
	       "    -o default_permissions the kernel checks modes too (default)\n"
	       "    -o nodefault_permissions  only cgfused checks them\n"
	       "    -o state=FILE, --state=FILE  keep groups, settings and members in FILE\n"
	       "                           and FILE.log (default %s/MOUNT-PATH.state;\n"
	       "                           none: keep nothing)\n"
	       "    -o config=FILE         groups to make, see cgfused(8) (default %s;\n"
	       "                           none: no file)\n"
	       "    -o rules=FILE          where to place processes when they exec, see\n"
	       "                           cgfused.rules(5) (default %s; none: no rules)\n"
	       "    -o max_depth=N         no group deeper than N below a hierarchy's root\n"
	       "                           (default %u; mkdir past it: EAGAIN)\n"
	       "    -o max_descendants=N   at most N groups in a hierarchy (default %u)\n"
	       "    -o tracking=MODE       how forks, execs and exits are followed: auto\n"
	       "                           (default), connector, ptrace or scan\n\n",
	       prog, DEFAULT_CONTROLLERS, state, conf, rules, CG_MAX_DEPTH_DEFAULT,
	       CG_MAX_DESCENDANTS_DEFAULT);
	g_free(conf);
	g_free(rules);
	g_free(state);
}

/* libfuse's mount options that cgfused passes on (fuse_lowlevel_help's
 * list, said as they work here). */
static void fuse_mount_usage(void)
{
	printf("    -o allow_other         let other users in (the modes then decide)\n"
	       "    -o allow_root          let root in too, when a user mounts\n"
	       "    -o auto_unmount        unmount when the daemon dies (no dead mount\n"
	       "                           is left for the next start to take over)\n"
	       "    The mount is always nosuid,nodev, as a kernel cgroup mount.\n");
}

/* "cpu,cpuacct:cpuset" -> one bit mask of controllers per hierarchy. */
static GArray *parse_hierarchies(const char *list)
{
	GArray *masks = g_array_new(FALSE, FALSE, sizeof(unsigned));
	char **hier = g_strsplit(list, ":", -1);
	unsigned used = 0;

	for (char **h = hier; *h; h++) {
		char **names = g_strsplit(*h, ",", -1);
		unsigned mask = 0;

		for (char **n = names; *n; n++) {
			int i = controller_index(*n, strlen(*n));

			if (i < 0) {
				g_autofree char *known = known_controllers();

				fprintf(stderr, "cgfused: unknown controller '%s' in controllers=%s "
					"(known: %s)\n", *n, list, known);
				goto fail;
			}
			if (used & (1u << i)) {
				fprintf(stderr, "cgfused: controller '%s' is named twice in "
					"controllers=%s\n", *n, list);
				goto fail;
			}
			mask |= 1u << i;
			used |= 1u << i;
		}
		g_strfreev(names);
		names = NULL;
		if (!mask) {
			fprintf(stderr, "cgfused: empty hierarchy in controllers=%s\n", list);
			goto fail;
		}
		g_array_append_val(masks, mask);
		continue;
fail:
		g_strfreev(names);
		g_strfreev(hier);
		g_array_unref(masks);
		return NULL;
	}
	g_strfreev(hier);
	return masks;
}

/* -o unified: one hierarchy, every controller that v2 has. */
static GArray *unified_mask(void)
{
	GArray *masks = g_array_new(FALSE, FALSE, sizeof(unsigned));
	unsigned mask = 0;

	for (unsigned i = 0; cgfused_controllers[i]; i++)
		if (!cgfused_controllers[i]->legacy_only)
			mask |= 1u << i;
	g_array_append_val(masks, mask);
	return masks;
}

/* The state in FILE, or in the default for the mount point in a directory
 * made 0700; never in the mount; the originals files beside it. NULL
 * with a message on failure; *path is the file's name either way (for the
 * caller to free). */
static bool keep_originals(struct allocator *alloc, struct idle_enforcer *idle,
			   struct kfacade *kf, const char *path, GError **err)
{
	char *boot_id = state_boot_id();
	bool ok = alloc_keep_originals(alloc, path, boot_id, err) &&
		  (idle ? idle_keep_originals(idle, path, boot_id, err)
			: idle_give_back_file(kf, path, boot_id, err));

	g_free(boot_id);
	return ok;
}

static struct cg_state *open_state(struct cg_core *core, struct allocator *alloc,
				   struct idle_enforcer *idle, const char *file, const char *mountpoint, char **pathp)
{
	char *path = *pathp = file ? g_strdup(file) : state_default_path(mountpoint);
	char *dir = g_path_get_dirname(path);
	struct cg_state *st = NULL;
	GError *err = NULL;

	/* Not in the mount (mountpoint_check_state says why). */
	if (mountpoint_check_state(mountpoint, path) == 0) {
		if (!file && g_mkdir_with_parents(dir, 0700) < 0)
			fprintf(stderr, "cgfused: cannot create %s: %s\n", dir, strerror(errno));
		else if (!(st = state_open(core, path, NULL, &err)))
			fprintf(stderr, "cgfused: %s\n", err->message);
		else if (!keep_originals(alloc, idle, cg_core_kf(core), path, &err)) {
			fprintf(stderr, "cgfused: %s\n", err->message);
			state_free(st);
			st = NULL;
		}
	}
	g_clear_error(&err);
	g_free(dir);
	return st;
}

/* The facade on the source -o tracking asks for; NULL after saying why
 * not. line: the start-up line naming the source. */
static struct kfacade *kfacade_open(const char *tracking, GString *line)
{
	enum watch_mode mode = WATCH_AUTO;
	struct watch_source *ws;
	struct kfacade *kf;

	if (tracking && watch_mode_parse(tracking, &mode) < 0) {
		fprintf(stderr, "cgfused: tracking=%s: unknown (auto, connector, ptrace or scan)\n",
			tracking);
		return NULL;
	}
	ws = watch_select(mode, line);
	if (!ws) {
		fprintf(stderr, "cgfused: %s\n", line->str);
		return NULL;
	}
	kf = kfacade_linux_new(ws);
	/* Yama's ptrace_scope read now, not by the first freeze or quota
	 * write under the core lock (the answer is kept). */
	(void)kf->ops->may_trace(kf);
	return kf;
}

/* The last line: why the daemon stops (libfuse returns the signal that
 * ended its loop, 0 when the mount went away, or -errno). */
static void log_stop(int ret, const char *mountpoint)
{
	if (ret > 0 && sigabbrev_np(ret))
		log_msg(LOG_INFO, "cgfused stopped on SIG%s: unmounting %s", sigabbrev_np(ret),
			mountpoint);
	else if (ret >= 0)
		log_msg(LOG_INFO, "cgfused stopped: %s was unmounted", mountpoint);
	else
		log_msg(LOG_ERR, "cgfused stopped: serving %s failed: %s", mountpoint,
			strerror(-ret));
}

/* The hierarchies the options ask for, as a fresh mount has them. */
static struct cg_core *core_build(struct kfacade *kf, GArray *masks,
				  const struct cgfused_config *conf)
{
	struct cg_core *core;
	unsigned nr = 0;

	while (cgfused_controllers[nr])
		nr++;
	core = cg_core_new(cgfused_controllers, nr, kf);
	cg_core_set_limits(core, conf->max_depth, conf->max_descendants);
	for (guint i = 0; i < masks->len; i++) {
		struct cg_root *root = cg_root_new(core, conf->unified ? &cgroup2_face : &cgroup1_face,
						   g_array_index(masks, unsigned, i),
						   conf->clone_children);

		if (geteuid() != 0)
			cg_root_set_owner(root, geteuid(), getegid());
	}
	return core;
}

/* The state saved; after a clean stop, removed instead when it holds
 * nothing that a fresh mount would not (no files per temporary mount).
 * 0 or -errno. */
static int state_stop(struct cg_state *state, struct kfacade *kf, GArray *masks,
		      const struct cgfused_config *conf, bool clean)
{
	struct cg_core *fresh;
	int ret = state_snapshot(state);

	if (ret < 0 || !clean)
		return ret;
	fresh = core_build(kf, masks, conf);
	state_remove_if_pristine(state, fresh);
	cg_core_free(fresh);
	return 0;
}

static int run_session(struct fuse_session *se, const struct fuse_cmdline_opts *opts)
{
	struct fuse_loop_config *cfg;
	int ret;

	if (opts->singlethread)
		return fuse_session_loop(se);
	cfg = fuse_loop_cfg_create();
	fuse_loop_cfg_set_clone_fd(cfg, (unsigned)opts->clone_fd);
	/* libfuse's own defaults stand unless an option was given (UINT_MAX). */
	if (opts->max_idle_threads != UINT_MAX)
		fuse_loop_cfg_set_idle_threads(cfg, opts->max_idle_threads);
	if (opts->max_threads != UINT_MAX)
		fuse_loop_cfg_set_max_threads(cfg, opts->max_threads);
	ret = fuse_session_loop_mt(se, cfg);
	fuse_loop_cfg_destroy(cfg);
	return ret;
}

int main(int argc, char *argv[])
{
	struct fuse_args args = FUSE_ARGS_INIT(argc, argv);
	struct cgfused_config conf = { .clone_children = 1, .default_permissions = 1,
				       .controllers = g_string_new(NULL),
				       .max_depth = CG_MAX_DEPTH_DEFAULT,
				       .max_descendants = CG_MAX_DESCENDANTS_DEFAULT };
	struct fuse_cmdline_opts opts = { 0 };
	struct fuse_session *se = NULL;
	struct kfacade *kf = NULL;
	struct cg_core *core = NULL;
	struct task_watch *watch;
	struct alloc_thread *alloc_thread;
	struct tracees *tracees = NULL;
	struct freezer_enforcer *freezer = NULL;
	struct quota_enforcer *quota = NULL;
	struct idle_enforcer *idle = NULL;
	struct enforce_thread *enforce_thread;
	struct allocator *alloc = NULL;
	struct release_agent *agent = NULL;
	struct fs_poll *poll = NULL;
	struct cg_state *state = NULL;
	char *state_path = NULL;
	char *notify_socket;
	const char *controllers;
	struct conf_daemon *config = NULL;
	GError *err = NULL;
	GArray *masks = NULL;
	GString *tracking_line = NULL;
	bool created = false;
	int loop, ret = 1;

	malloc_setup_exec(argv);
	log_setup();
	notify_socket = sd_notify_take();
	if (fuse_opt_parse(&args, &conf, cgfused_opts, opt_proc) < 0)
		goto out;
	if (conf.extra_args) {
		fprintf(stderr, "cgfused: too many arguments: a mount point, or a source "
			"and a mount point (try %s --help)\n", argv[0]);
		goto out;
	}
	if (conf.mountpoint && fuse_opt_add_arg(&args, conf.mountpoint) != 0)
		goto out;
	if (!conf.help && conf.allow_other && mountpoint_check_allow_other() < 0)
		goto out;
	if (!conf.help && conf.mountpoint && mountpoint_prepare(conf.mountpoint, &created) < 0)
		goto out;
	/* The kernel then checks modes on every path walk, which the daemon
	 * cannot see (a name it looked up once stays cached); the daemon
	 * checks every operation it serves all the same. */
	if (conf.default_permissions && fuse_opt_add_arg(&args, "-odefault_permissions") != 0)
		goto out;
	/* Last, so that they win over mount(8)'s "dev,suid" (mount.fuse3 passes
	 * them on): a cgroup tree has no device nor program. */
	if (fuse_opt_add_arg(&args, "-onosuid,nodev") != 0)
		goto out;
	if (fuse_parse_cmdline(&args, &opts) != 0)
		goto out;
	if (opts.show_help) {
		usage(argv[0]);
		fuse_cmdline_help();
		fuse_mount_usage();
		ret = 0;
		goto out;
	}
	if (opts.show_version) {
		printf("cgfused version %s\n", PACKAGE_VERSION);
		fflush(stdout);	/* before the fusermount3 that libfuse runs writes */
		fuse_lowlevel_version();
		ret = 0;
		goto out;
	}
	if (!opts.mountpoint) {
		fprintf(stderr, "cgfused: no mount point given (try %s --help)\n", argv[0]);
		goto out;
	}
	if (conf.unified && conf.v1_option) {
		fprintf(stderr, "cgfused: %s is a cgroup v1 option: -o unified mounts the v2 "
			"hierarchy, with every controller available at its root "
			"(cgroup.subtree_control enables them)\n", conf.v1_option);
		goto out;
	}
	controllers = conf.unified ? "unified" : conf.controllers->len ? conf.controllers->str
								       : DEFAULT_CONTROLLERS;
	masks = conf.unified ? unified_mask() : parse_hierarchies(controllers);
	if (!masks)
		goto out;

	tracking_line = g_string_new(NULL);
	if (!(kf = kfacade_open(conf.tracking, tracking_line)))
		goto out;
	core = core_build(kf, masks, &conf);
	/* The core's subscribers. The state subscribes once it has replayed
	 * what it holds (state_open); the agent hears of changes from now on,
	 * but runs none while a state is replayed. */
	alloc = alloc_new(core);
	tracees = tracees_new(kf);	/* the freezer's and the quota's */
	freezer = freezer_enforcer_new(core, tracees);
	quota = quota_enforcer_new(core, tracees);
	idle = idle_enforcer_new(core);
	agent = release_agent_new(core);

	se = fuse_session_new(&args, &cgfs_ops, sizeof(cgfs_ops), core);
	if (!se)
		goto out;	/* libfuse said why (e.g. an unknown option) */
	/* Before mounting: a state another daemon holds stops us here. */
	if (conf.state && !*conf.state) {
		fprintf(stderr, "cgfused: state= needs a file name (or none)\n");
		goto out;
	}
	if ((!conf.state || strcmp(conf.state, "none") != 0) &&
	    !(state = open_state(core, alloc, idle, conf.state, opts.mountpoint, &state_path)))
		goto out;
	/* After the state: it wins for the groups it has. */
	if (!(config = conf_daemon_new(core, conf.config, conf.rules, &err))) {
		fprintf(stderr, "cgfused: %s\n", err->message);
		g_error_free(err);
		goto out;
	}
	if (fuse_set_signal_handlers(se) != 0)
		goto out;
	if (fuse_session_mount(se, opts.mountpoint) != 0)
		goto out_signals;
	cg_core_serving(core);
	/* The one line of a background start: where to look from now on. */
	if (!opts.foreground)
		fprintf(stderr, "cgfused: mounted at %s; messages go to %s\n", opts.mountpoint,
			log_syslog_listens() ? "syslog (journalctl -t cgfused)"
					     : "/dev/console (nothing listens on /dev/log)");
	fuse_daemonize(opts.foreground);
	if (!opts.foreground)
		log_to_syslog();	/* stderr is /dev/null from now on */
	log_msg(LOG_INFO, "cgfused %s serving %s: controllers %s, state %s", PACKAGE_VERSION,
		opts.mountpoint, controllers, state_path ? state_path : "none");
	log_msg(LOG_INFO, "%s", tracking_line->str);
	/* Threads after the fork of daemonizing; SIGHUP reloads the config. */
	struct fs_mount mount = { se, core };

	conf_daemon_start(config, fs_notify_changed, &mount);
	watch = task_watch_start(core);
	release_agent_start(agent);
	poll = fs_poll_start(core);
	alloc_thread = alloc_thread_start(alloc);
	enforce_thread = enforce_thread_start(tracees, freezer, quota, idle);
	if (state)
		state_sync_start(state);
	sd_notify_send(notify_socket, "READY=1");	/* Type=notify: served */
	loop = run_session(se, &opts);
	sd_notify_send(notify_socket, "STOPPING=1");
	conf_daemon_stop(config);	/* no reload, no rule moves a process */
	alloc_thread_stop(alloc_thread);
	/* Every frozen or throttled thread runs again, idle ones get their
	 * policy back. */
	enforce_thread_stop(enforce_thread);
	task_watch_stop(watch);
	/* libfuse returns the signal that ended the loop: a requested stop. */
	ret = (loop == 0 || loop == SIGTERM || loop == SIGINT || loop == SIGHUP) ? 0 : 1;
	if (state && state_stop(state, kf, masks, &conf, ret == 0) < 0)
		ret = 1;
	alloc_free(alloc);	/* managed threads get their own nice back */
	alloc = NULL;
	log_stop(loop, opts.mountpoint);
	fuse_session_unmount(se);
out_signals:
	fuse_remove_signal_handlers(se);
out:
	conf_daemon_free(config);
	if (state)
		state_free(state);
	if (se)
		fuse_session_destroy(se);
	fs_poll_stop(poll);	/* after the session: no poll request comes */
	if (core) {
		alloc_free(alloc);	/* not freed above when the start failed */
		freezer_enforcer_free(freezer);
		quota_enforcer_free(quota);
		idle_enforcer_free(idle);
		tracees_free(tracees);
		release_agent_free(agent);	/* after running what was due */
		cg_core_free(core);
	}
	if (kf)
		kfacade_linux_free(kf);
	if (created && ret != 0)
		rmdir(conf.mountpoint);	/* leave no trace of a failed start */
	if (masks)
		g_array_unref(masks);
	free(opts.mountpoint);
	g_string_free(conf.controllers, TRUE);
	g_free(conf.mountpoint);
	g_free(conf.source);
	g_free(state_path);
	g_free(notify_socket);
	free(conf.state);
	free(conf.config);
	free(conf.rules);
	free(conf.tracking);
	if (tracking_line)
		g_string_free(tracking_line, TRUE);
	fuse_opt_free_args(&args);
	return ret;
}
