/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The daemon's config and rules: applied at start, again on each SIGHUP. */
#include "config/conf.h"
#include "config/cgrules.h"

#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "lib/worker.h"

struct conf_daemon {
	struct cg_core *core;
	char *path;		/* NULL: -o config=none */
	bool is_default;	/* a missing file is an empty config */
	struct conf *cur;	/* what was applied last */
	char *rules_path;	/* NULL: -o rules=none */
	bool rules_default;	/* a missing rules file is no rules */
	struct cgrules_engine *rules;
	conf_changed_fn changed;	/* what a reload made stale */
	void *changed_data;
	struct worker *w;	/* the SIGHUP thread, or NULL */
	int pipe[2];		/* the handler writes a byte for each SIGHUP */
	struct sigaction old;	/* libfuse's, put back at the end */
};

/* Where the SIGHUP handler writes: one daemon per process. */
static volatile sig_atomic_t hup_fd = -1;

/* The file's config; an empty one if the default file is missing. */
static struct conf *load(struct conf_daemon *cd, GError **err)
{
	struct conf *conf = conf_load(cd->path, err);

	if (!conf && cd->is_default && g_error_matches(*err, G_FILE_ERROR, G_FILE_ERROR_NOENT)) {
		g_clear_error(err);
		conf = conf_parse(cd->path, "", 0, err);
	}
	return conf;
}

/* The rules file's rules; none if the default file is missing. false
 * and err if it is refused. */
static bool load_rules(struct conf_daemon *cd, struct cgrules **rules, GError **err)
{
	*rules = NULL;
	if (!cd->rules_path)
		return true;
	*rules = cgrules_load(cd->rules_path, err);
	if (!*rules && cd->rules_default && g_error_matches(*err, G_FILE_ERROR, G_FILE_ERROR_NOENT)) {
		g_clear_error(err);
		return true;
	}
	return *rules != NULL;
}

/* The default of a file: root's in /etc (sys), a user's under its XDG
 * config directory (~/.config/cgfused/), as its state is under its XDG
 * state directory (state_default_path()). Its home is its passwd entry's,
 * not an inherited $HOME (setpriv, su without -l keep root's). */
char *conf_default_path(const char *sys)
{
	const char *xdg = g_getenv("XDG_CONFIG_HOME");
	const char *name = strrchr(sys, '/') + 1;
	struct passwd *pw;

	if (geteuid() == 0)
		return g_strdup(sys);
	if (xdg && g_path_is_absolute(xdg))
		return g_build_filename(xdg, "cgfused", name, NULL);
	pw = getpwuid(geteuid());
	return g_build_filename(pw && pw->pw_dir ? pw->pw_dir : "/nonexistent", ".config",
				"cgfused", name, NULL);
}

/* opt's file, absolute (a daemon's working directory is / after its
 * fork), or NULL for none; false and err for an empty name. */
static bool file_opt(const char *opt, const char *key, const char *sys, char **path, GError **err)
{
	char *def;

	if (opt && !*opt) {
		g_set_error(err, G_FILE_ERROR, G_FILE_ERROR_INVAL,
			    "%s= needs a file name (or none)", key);
		return false;
	}
	if (opt && strcmp(opt, "none") == 0) {
		*path = NULL;
		return true;
	}
	def = opt ? NULL : conf_default_path(sys);
	*path = g_canonicalize_filename(opt ? opt : def, NULL);
	g_free(def);
	return true;
}

struct conf_daemon *conf_daemon_new(struct cg_core *core, const char *opt, const char *rules_opt,
				    GError **err)
{
	struct conf_daemon *cd = g_new0(struct conf_daemon, 1);
	struct cgrules *rules;

	cd->core = core;
	cd->is_default = !opt;
	cd->rules_default = !rules_opt;
	if (!file_opt(opt, "config", CONF_DEFAULT_PATH, &cd->path, err) ||
	    !file_opt(rules_opt, "rules", CGRULES_DEFAULT_PATH, &cd->rules_path, err) ||
	    !load_rules(cd, &rules, err))
		goto fail;
	cd->rules = cgrules_engine_new(core, rules);
	if (!cd->path)
		return cd;
	cd->cur = load(cd, err);
	if (cd->cur && conf_apply(core, cd->cur, NULL, NULL, NULL, err) == 0)
		return cd;
fail:
	conf_daemon_free(cd);
	return NULL;
}

static void reload_rules(struct conf_daemon *cd)
{
	GError *err = NULL;
	struct cgrules *rules;

	if (!cd->rules_path)
		return;
	if (!load_rules(cd, &rules, &err)) {
		g_warning("rules: %s; the rules before stay", err->message);
		g_error_free(err);
		return;
	}
	/* Set first: what the new rules' check says comes before this. */
	cgrules_engine_set(cd->rules, rules);
	g_message("rules: %s reloaded: %u rules", cd->rules_path, rules ? cgrules_count(rules) : 0);
}

void conf_daemon_reload(struct conf_daemon *cd)
{
	GError *err = NULL;
	struct conf *conf;

	reload_rules(cd);
	if (!cd->path) {
		g_message("config: none (config=none): SIGHUP changes nothing");
		return;
	}
	conf = load(cd, &err);
	if (conf && conf_apply(cd->core, conf, cd->cur, cd->changed, cd->changed_data, &err) == 0) {
		g_message("config: %s reloaded", cd->path);
		conf_free(cd->cur);
		cd->cur = conf;
		return;
	}
	g_warning("config: %s; nothing of it applied, the config before stays", err->message);
	g_error_free(err);
	conf_free(conf);
}

static void on_hup(int sig)
{
	int saved = errno;

	(void)sig;
	if (hup_fd >= 0 && write(hup_fd, "h", 1) < 0) {
		/* A full pipe: a reload is due already. */
	}
	errno = saved;
}

/* Reloads once for any number of SIGHUPs that came while it did not run. */
static void hup_loop(void *data, int stop_fd)
{
	struct conf_daemon *cd = data;
	char buf[64];

	while (worker_wait(cd->pipe[0], stop_fd))
		if (read(cd->pipe[0], buf, sizeof(buf)) > 0)
			conf_daemon_reload(cd);
}

void conf_daemon_start(struct conf_daemon *cd, conf_changed_fn changed, void *data)
{
	struct sigaction sa = { .sa_handler = on_hup, .sa_flags = SA_RESTART };

	cd->changed = changed;
	cd->changed_data = data;
	cgrules_engine_start(cd->rules);
	/* Both ends: the handler must never block, nor the thread on a byte
	 * another read took. */
	if (pipe2(cd->pipe, O_CLOEXEC | O_NONBLOCK) < 0) {
		g_warning("config: no pipe to take SIGHUP: %s", g_strerror(errno));
		return;
	}
	cd->w = worker_start("config", hup_loop, cd);
	if (!cd->w) {
		close(cd->pipe[0]);
		close(cd->pipe[1]);
		return;
	}
	/* Instead of libfuse's, which ends the session on SIGHUP. */
	hup_fd = cd->pipe[1];
	sigemptyset(&sa.sa_mask);
	sigaction(SIGHUP, &sa, &cd->old);
}

void conf_daemon_stop(struct conf_daemon *cd)
{
	if (!cd)
		return;
	if (cd->w) {
		sigaction(SIGHUP, &cd->old, NULL);
		hup_fd = -1;
		worker_stop(cd->w);
		cd->w = NULL;
		close(cd->pipe[0]);
		close(cd->pipe[1]);
	}
	cgrules_engine_stop(cd->rules);
}

void conf_daemon_free(struct conf_daemon *cd)
{
	if (!cd)
		return;
	conf_daemon_stop(cd);
	cgrules_engine_free(cd->rules);
	conf_free(cd->cur);
	g_free(cd->path);
	g_free(cd->rules_path);
	g_free(cd);
}
