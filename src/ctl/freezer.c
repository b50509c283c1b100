/* SPDX-License-Identifier: GPL-2.0-or-later */
/* freezer: the v1 freezer (kernel/cgroup/legacy_freezer.c). freezer.state
 * takes THAWED or FROZEN (FREEZING is EINVAL, as on the kernel); a group
 * freezes when it is frozen itself (self_freezing) or an ancestor is
 * (parent_freezing), and a new group of a freezing parent starts freezing.
 * The controller keeps the wanted state; src/enforce/freezer.c stops and
 * resumes the threads and confirms which it stopped (ctl/freezer.h), and
 * freezer.state reads FREEZING until every thread of the subtree is. The
 * root has none of these files, as on the kernel. */
#include "ctl/freezer.h"

#include <errno.h>
#include <string.h>

#include "core/css_set.h"
#include "core/task.h"
#include "ctl/ctl.h"
#include "lib/kparse.h"

struct freezer_confirm {
	/* Guarded by the core lock. */
	GHashTable *self_freezing;	/* struct freezer *: set */
	/* Written by the enforcer, read by freezer.state's readers. */
	GMutex lock;
	GHashTable *stopped;		/* tid -> pidfs inode of the thread stopped */
};

struct freezer {
	struct css css;
	bool self_freezing, parent_freezing;
	struct freezer_confirm *fc;
};

static struct freezer *css_freezer(struct css *css)
{
	return (struct freezer *)css;
}

static bool freezing(const struct freezer *f)
{
	return f->self_freezing || f->parent_freezing;
}

static struct css *freezer_css_alloc(struct css *parent)
{
	struct freezer *f = g_new0(struct freezer, 1);

	if (parent) {
		f->fc = css_freezer(parent)->fc;
		return &f->css;
	}
	f->fc = g_new0(struct freezer_confirm, 1);
	f->fc->self_freezing = g_hash_table_new(NULL, NULL);
	f->fc->stopped = g_hash_table_new(NULL, NULL);
	g_mutex_init(&f->fc->lock);
	return &f->css;
}

/* freezer_css_online(): a child of a freezing group freezes too. */
static void freezer_css_online(struct css *css)
{
	if (css->parent && freezing(css_freezer(css->parent)))
		css_freezer(css)->parent_freezing = true;
}

static void freezer_css_free(struct css *css)
{
	struct freezer *f = css_freezer(css);

	if (!css->parent) {
		g_hash_table_unref(f->fc->self_freezing);
		g_hash_table_unref(f->fc->stopped);
		g_mutex_clear(&f->fc->lock);
		g_free(f->fc);
	} else {
		g_hash_table_remove(f->fc->self_freezing, f);
	}
	g_free(f);
}

struct freezer_confirm *freezer_confirm_of(struct css *css)
{
	return css_freezer(css)->fc;
}

bool freezer_any_freezing(struct freezer_confirm *fc)
{
	return g_hash_table_size(fc->self_freezing) != 0;
}

/* Calls fn on every thread of the group of css (not below). */
static void for_each_task(struct css *css,
			  void (*fn)(void *data, pid_t tid, const struct task_ident *id),
			  void *data)
{
	for (GList *l = css->cgroup->csets.head; l; l = l->next) {
		struct task *task;

		css_set_for_each_task(task, (struct css_set *)l->data)
			fn(data, task->tid, &task->ident);
	}
}

struct walk {
	void (*fn)(void *data, pid_t tid, const struct task_ident *id);
	void *data;
};

static int walk_group(struct css *css, void *data)
{
	struct walk *w = data;

	for_each_task(css, w->fn, w->data);
	return 0;
}

void freezer_for_each_frozen_task(struct freezer_confirm *fc,
				  void (*fn)(void *data, pid_t tid, const struct task_ident *id),
				  void *data)
{
	struct walk w = { fn, data };
	GHashTableIter iter;
	struct freezer *f;

	/* Each subtree once: from the freezing groups whose parent is not. */
	g_hash_table_iter_init(&iter, fc->self_freezing);
	while (g_hash_table_iter_next(&iter, (gpointer *)&f, NULL))
		if (!f->parent_freezing)
			css_for_each_descendant_pre(&f->css, walk_group, &w);
}

void freezer_confirm_stopped(struct freezer_confirm *fc, pid_t tid, uint64_t ino)
{
	g_mutex_lock(&fc->lock);
	g_hash_table_insert(fc->stopped, GINT_TO_POINTER(tid), GSIZE_TO_POINTER(ino));
	g_mutex_unlock(&fc->lock);
}

void freezer_confirm_gone(struct freezer_confirm *fc, pid_t tid)
{
	g_mutex_lock(&fc->lock);
	g_hash_table_remove(fc->stopped, GINT_TO_POINTER(tid));
	g_mutex_unlock(&fc->lock);
}

/* update_if_frozen(), as a question: whether every thread of the subtree
 * is stopped (fc->lock held). */
struct frozen_check {
	struct freezer_confirm *fc;
	bool all;
};

static void check_task(void *data, pid_t tid, const struct task_ident *id)
{
	struct frozen_check *c = data;
	gpointer ino;

	if (!g_hash_table_lookup_extended(c->fc->stopped, GINT_TO_POINTER(tid), NULL, &ino) ||
	    GPOINTER_TO_SIZE(ino) != id->ino)
		c->all = false;
}

static int freezer_read(struct css *css, const struct cftype *cft, GString *out)
{
	struct freezer *f = css_freezer(css);
	struct frozen_check c = { f->fc, true };
	struct walk w = { check_task, &c };

	(void)cft;
	if (!freezing(f)) {
		g_string_append(out, "THAWED\n");
		return 0;
	}
	g_mutex_lock(&f->fc->lock);
	css_for_each_descendant_pre(css, walk_group, &w);
	g_mutex_unlock(&f->fc->lock);
	g_string_append(out, c.all ? "FROZEN\n" : "FREEZING\n");
	return 0;
}

/* freezer_apply_state() for one group: set or clear one reason. */
static void apply_state(struct freezer *f, bool freeze, bool self)
{
	if (self) {
		f->self_freezing = freeze;
		if (freeze)
			g_hash_table_add(f->fc->self_freezing, f);
		else
			g_hash_table_remove(f->fc->self_freezing, f);
	} else {
		f->parent_freezing = freeze;
	}
}

/* freezer_change_state(): the group, then its descendants parents first. */
static int change_descendant(struct css *css, void *data)
{
	struct freezer *f = css_freezer(css);

	if (css != data)
		apply_state(f, freezing(css_freezer(css->parent)), false);
	return 0;
}

static int freezer_write(struct cg_file_ctx *ctx, char *buf, size_t nbytes)
{
	char *s = kstrstrip(buf);
	bool freeze;

	(void)nbytes;
	if (strcmp(s, "THAWED") == 0)
		freeze = false;
	else if (strcmp(s, "FROZEN") == 0)
		freeze = true;
	else
		return -EINVAL;
	if (freeze && css_may_trace(ctx->css, "freezer.state FROZEN") < 0)
		return -EPERM;
	apply_state(css_freezer(ctx->css), freeze, true);
	css_for_each_descendant_pre(ctx->css, change_descendant, ctx->css);
	return 0;
}

/* What the state keeps: the state asked of this group, not what it shows
 * (FREEZING is refused on a write; an ancestor's freeze is the
 * ancestor's). */
static int freezer_save_show(struct css *css, const struct cftype *cft, GString *out)
{
	(void)cft;
	g_string_append(out, css_freezer(css)->self_freezing ? "FROZEN\n" : "THAWED\n");
	return 0;
}

static uint64_t freezer_self_freezing_read(struct css *css, const struct cftype *cft)
{
	(void)cft;
	return css_freezer(css)->self_freezing;
}

static uint64_t freezer_parent_freezing_read(struct css *css, const struct cftype *cft)
{
	(void)cft;
	return css_freezer(css)->parent_freezing;
}

static const struct cftype freezer_files[] = {
	{ .name = "state", .flags = CFTYPE_NOT_ON_ROOT, .seq_show = freezer_read, .write = freezer_write,
	  .save_show = freezer_save_show },
	{ .name = "self_freezing", .flags = CFTYPE_NOT_ON_ROOT, .read_u64 = freezer_self_freezing_read },
	{ .name = "parent_freezing", .flags = CFTYPE_NOT_ON_ROOT, .read_u64 = freezer_parent_freezing_read },
	{ 0 }
};

const struct cgroup_subsys freezer_cgrp_subsys = {
	.name = "freezer",
	.legacy_only = true,
	.css_alloc = freezer_css_alloc,
	.css_online = freezer_css_online,
	.css_free = freezer_css_free,
	.legacy_files = freezer_files,
};
