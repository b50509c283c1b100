/* The daemon's config: applied at start, again on each SIGHUP. */
#include "config/conf.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>

struct conf_daemon {
	struct cg_core *core;
	char *path;		/* NULL: -o config=none */
	bool is_default;	/* a missing file is an empty config */
	struct conf *cur;	/* what was applied last */
	conf_changed_fn changed;	/* what a reload made stale */
	void *changed_data;
	pthread_t thread;
	bool started;
	gint stop;
};

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

struct conf_daemon *conf_daemon_new(struct cg_core *core, const char *opt, GError **err)
{
	struct conf_daemon *cd = g_new0(struct conf_daemon, 1);

	cd->core = core;
	cd->is_default = !opt;
	if (opt && !*opt) {
		g_set_error(err, G_FILE_ERROR, G_FILE_ERROR_INVAL,
			    "config= needs a file name (or none)");
		goto fail;
	}
	if (opt && strcmp(opt, "none") == 0)
		return cd;
	cd->path = g_strdup(opt ? opt : CONF_DEFAULT_PATH);
	cd->cur = load(cd, err);
	if (cd->cur && conf_apply(core, cd->cur, NULL, NULL, NULL, err) == 0)
		return cd;
fail:
	conf_daemon_free(cd);
	return NULL;
}

void conf_daemon_reload(struct conf_daemon *cd)
{
	GError *err = NULL;
	struct conf *conf;

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

static void *hup_thread(void *data)
{
	struct conf_daemon *cd = data;
	sigset_t set;
	int sig;

	sigemptyset(&set);
	sigaddset(&set, SIGHUP);
	while (sigwait(&set, &sig) == 0 && !g_atomic_int_get(&cd->stop))
		conf_daemon_reload(cd);
	return NULL;
}

void conf_daemon_start(struct conf_daemon *cd, conf_changed_fn changed, void *data)
{
	sigset_t set;

	cd->changed = changed;
	cd->changed_data = data;
	sigemptyset(&set);
	sigaddset(&set, SIGHUP);
	/* Every thread made from here on blocks it too: only ours takes it
	 * (libfuse's handler would end the session). */
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	cd->started = pthread_create(&cd->thread, NULL, hup_thread, cd) == 0;
	if (!cd->started)
		g_warning("config: no thread to take SIGHUP: %s", g_strerror(errno));
}

void conf_daemon_free(struct conf_daemon *cd)
{
	if (!cd)
		return;
	if (cd->started) {
		g_atomic_int_set(&cd->stop, 1);
		pthread_kill(cd->thread, SIGHUP);
		pthread_join(cd->thread, NULL);
	}
	conf_free(cd->cur);
	g_free(cd->path);
	g_free(cd);
}
