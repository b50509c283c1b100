/* SPDX-License-Identifier: GPL-2.0-or-later */
/* poll() on cgroup.events (see fs_poll.h). One set of waiters per daemon:
 * the FUSE ops reach it by their core's subscription, held here. */
#include "fs/fs_poll.h"

#include <errno.h>
#include <poll.h>

#include "core/cgroup.h"
#include "core/notify.h"

/* Guards waiting and due; taken under the core lock (a subscriber's own
 * lock, core/notify.h) and never the other way round. */
static GMutex lock;
static GCond wake;
static GHashTable *waiting;	/* cgroup id -> GPtrArray of struct fs_poll_file * */
static GQueue due = G_QUEUE_INIT;	/* struct fuse_pollhandle * to notify */
static bool stopping;

struct fs_poll {
	struct cg_core *core;
	struct cg_subscriber sub;
	GThread *thread;
};

static void forget(struct fs_poll_file *pf)
{
	GPtrArray *files = waiting ? g_hash_table_lookup(waiting, &pf->cgrp_id) : NULL;

	if (files && g_ptr_array_remove_fast(files, pf) && !files->len)
		g_hash_table_remove(waiting, &pf->cgrp_id);
}

/* Under the core lock: every waiter on the group is due. */
static void wake_waiters(struct cgroup *cgrp)
{
	GPtrArray *files;

	if (!cg_root_dfl(cgrp->root))
		return;		/* v1 has no cgroup.events */
	g_mutex_lock(&lock);
	files = g_hash_table_lookup(waiting, &cgrp->id);
	for (guint i = 0; files && i < files->len; i++) {
		struct fs_poll_file *pf = g_ptr_array_index(files, i);

		if (pf->ph)
			g_queue_push_tail(&due, pf->ph);
		pf->ph = NULL;
	}
	if (files)
		g_hash_table_remove(waiting, &cgrp->id);
	g_cond_signal(&wake);
	g_mutex_unlock(&lock);
}

static void on_populated(void *data, struct cgroup *cgrp, bool populated)
{
	(void)data;
	(void)populated;
	wake_waiters(cgrp);
}

static void on_frozen(void *data, struct cgroup *cgrp, bool frozen)
{
	(void)data;
	(void)frozen;
	wake_waiters(cgrp);
}

static gpointer notifier(gpointer data)
{
	(void)data;
	g_mutex_lock(&lock);
	while (!stopping || !g_queue_is_empty(&due)) {
		struct fuse_pollhandle *ph = g_queue_pop_head(&due);

		if (!ph) {
			g_cond_wait(&wake, &lock);
			continue;
		}
		g_mutex_unlock(&lock);
		fuse_lowlevel_notify_poll(ph);
		fuse_pollhandle_destroy(ph);
		g_mutex_lock(&lock);
	}
	g_mutex_unlock(&lock);
	return NULL;
}

static void free_files(gpointer p)
{
	GPtrArray *files = p;

	for (guint i = 0; i < files->len; i++) {
		struct fs_poll_file *pf = g_ptr_array_index(files, i);

		if (pf->ph)
			fuse_pollhandle_destroy(pf->ph);
		pf->ph = NULL;
	}
	g_ptr_array_unref(files);
}

struct fs_poll *fs_poll_start(struct cg_core *core)
{
	struct fs_poll *fp = g_new0(struct fs_poll, 1);

	fp->core = core;
	fp->sub.populated = on_populated;
	fp->sub.frozen = on_frozen;
	g_mutex_lock(&lock);
	waiting = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, free_files);
	stopping = false;
	g_mutex_unlock(&lock);
	cg_subscribe(core, &fp->sub);
	fp->thread = g_thread_new("cgfused-poll", notifier, NULL);
	return fp;
}

void fs_poll_stop(struct fs_poll *fp)
{
	if (!fp)
		return;
	cg_unsubscribe(fp->core, &fp->sub);
	g_mutex_lock(&lock);
	stopping = true;
	g_cond_signal(&wake);
	g_mutex_unlock(&lock);
	g_thread_join(fp->thread);
	g_mutex_lock(&lock);
	g_hash_table_unref(waiting);
	waiting = NULL;
	g_mutex_unlock(&lock);
	g_free(fp);
}

void fs_poll_seen(struct cg_core *core, struct fs_poll_file *pf)
{
	unsigned seq;

	if (pf->events && cg_file_events(core, pf->cgrp_id, pf->file, &seq) == 0)
		pf->seen = seq;
}

unsigned fs_poll_poll(struct cg_core *core, struct fs_poll_file *pf,
		      struct fuse_pollhandle *ph)
{
	const unsigned dflt = POLLIN | POLLRDNORM | POLLOUT | POLLWRNORM;
	unsigned seq;
	int ret;

	if (ph && pf->events) {
		g_mutex_lock(&lock);
		if (waiting) {
			GPtrArray *files = g_hash_table_lookup(waiting, &pf->cgrp_id);

			if (!files) {
				files = g_ptr_array_new();
				g_hash_table_insert(waiting, g_memdup2(&pf->cgrp_id,
								       sizeof(pf->cgrp_id)), files);
			}
			if (pf->ph)
				fuse_pollhandle_destroy(pf->ph);
			else
				g_ptr_array_add(files, pf);
			pf->ph = ph;
			ph = NULL;
		}
		g_mutex_unlock(&lock);
	}
	if (ph)
		fuse_pollhandle_destroy(ph);	/* nothing will change */
	if (!pf->events)
		return dflt;
	/* Looked at once the waiter is known: a change after this wakes it. */
	ret = cg_file_events(core, pf->cgrp_id, pf->file, &seq);
	if (ret == -ENODEV || (ret == 0 && seq != pf->seen))
		return dflt | POLLERR | POLLPRI;
	return dflt;
}

void fs_poll_release(struct fs_poll_file *pf)
{
	if (!pf->events)
		return;		/* never waited on: no lock taken per close */
	g_mutex_lock(&lock);
	if (pf->ph) {
		forget(pf);
		fuse_pollhandle_destroy(pf->ph);
		pf->ph = NULL;
	}
	g_mutex_unlock(&lock);
}
