/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests of the core's subscribers (core/notify.h): which events come,
 * in which order, what a prepare veto leaves behind, and cgfused.stat. */
#include <errno.h>
#include <string.h>

#include <glib.h>

#include "core/cgroup.h"
#include "core/internal.h"
#include "core/notify.h"
#include "core/task.h"
#include "fake-kfacade.h"
#include "test-env.h"

/* A subscriber that writes every event it hears as one line. */
struct recorder {
	struct cg_subscriber sub;
	GString *log;
	int veto;		/* what prepare answers to a change of this kind: */
	enum cg_change_kind veto_kind;
};

static void say(struct recorder *r, const char *what, const struct cgroup *cgrp,
		const char *more)
{
	char *path = cgrp ? cgroup_path(cgrp) : NULL;

	g_string_append_printf(r->log, "%s%s%s%s%s\n", what, path ? " " : "", path ? path : "",
			       more ? " " : "", more ? more : "");
	g_free(path);
}

static const char *file_name(const struct cgroup *cgrp, unsigned file)
{
	if (file == CG_DIR)
		return "dir";
	return ((const struct cg_file *)g_ptr_array_index(cgrp->root->files, file))->name;
}

static int on_prepare(void *data, const struct cg_change *c)
{
	struct recorder *r = data;
	char *more = c->kind == CG_CHANGE_MKDIR ? g_strdup(c->name) :
		     c->kind == CG_CHANGE_WRITE ? g_strdup_printf("%s %.*s", file_name(c->cgrp, c->file),
							       (int)c->len, c->buf) :
		     g_strdup_printf("%u", c->nr_tasks);
	const char *kind = c->kind == CG_CHANGE_MKDIR ? "prepare mkdir" :
			   c->kind == CG_CHANGE_WRITE ? "prepare write" : "prepare attach";

	say(r, kind, c->cgrp, more);
	g_free(more);
	return c->kind == r->veto_kind ? r->veto : 0;
}

static void on_mkdir(void *data, struct cgroup *cgrp)
{
	say(data, "mkdir", cgrp, NULL);
}

static void on_rmdir(void *data, struct cgroup *parent, const char *name)
{
	say(data, "rmdir", parent, name);
}

static void on_rename(void *data, struct cgroup *cgrp, const char *old_name)
{
	say(data, "rename", cgrp, old_name);
}

static void on_write(void *data, struct cgroup *cgrp, unsigned file, const char *text)
{
	char *more = g_strdup_printf("%s %s", file_name(cgrp, file), text);

	say(data, "write", cgrp, more);
	g_free(more);
}

static void on_changed(void *data, struct cgroup *cgrp, unsigned file)
{
	say(data, "changed", cgrp, file_name(cgrp, file));
}

static void on_setattr(void *data, struct cgroup *cgrp, unsigned file)
{
	say(data, "setattr", cgrp, file_name(cgrp, file));
}

static void on_attach(void *data, struct task *const *tasks, unsigned n,
		      const struct cg_root *root)
{
	GString *more = g_string_new(NULL);

	for (unsigned i = 0; i < n; i++)
		g_string_append_printf(more, "%s%d", i ? "," : "", tasks[i]->tid);
	say(data, "attach", css_set_cgroup(tasks[0]->cset, root), more->str);
	g_string_free(more, TRUE);
}

static void on_fork(void *data, struct task *parent, struct task *child)
{
	char *more = g_strdup_printf("%d %d", parent->tid, child->tid);

	say(data, "fork", NULL, more);
	g_free(more);
}

static void on_exit_event(void *data, struct task *t)
{
	char *more = g_strdup_printf("%d", t->tid);

	say(data, "exit", NULL, more);
	g_free(more);
}

static void on_populated(void *data, struct cgroup *cgrp, bool populated)
{
	say(data, "populated", cgrp, populated ? "1" : "0");
}

static void on_stat(void *data, GString *out)
{
	(void)data;
	g_string_append(out, "recorder_lines 1\n");
}

static void recorder_init(struct recorder *r)
{
	*r = (struct recorder){
		.sub = { .data = r, .prepare = on_prepare, .mkdir = on_mkdir, .rmdir = on_rmdir,
			 .rename = on_rename, .write = on_write, .changed = on_changed,
			 .setattr = on_setattr, .attach = on_attach, .fork = on_fork,
			 .exit = on_exit_event, .populated = on_populated, .stat = on_stat },
		.log = g_string_new(NULL),
	};
}

/* The log so far, emptied. */
static void expect_log(struct recorder *r, const char *want)
{
	g_assert_cmpstr(r->log->str, ==, want);
	g_string_truncate(r->log, 0);
}

static void read_tasks(struct env *e, uint64_t id)
{
	g_free(rd(e, id, "tasks"));	/* takes in the kernel's reports */
}

static void test_events(void)
{
	struct env e;
	struct recorder r;
	struct cg_setattr chmod = { .valid = CG_ATTR_MODE, .mode = 0700 };
	uint64_t a, b;

	env_setup(&e);
	recorder_init(&r);
	cg_subscribe(e.core, &r.sub);
	a = mkdir_ok(&e, e.top[0], "a");
	b = mkdir_ok(&e, a, "b");
	expect_log(&r, "prepare mkdir / a\nmkdir /a\nprepare mkdir /a b\nmkdir /a/b\n");

	wr_ok(&e, b, "cpu.shares", "512\n");
	expect_log(&r, "prepare write /a/b cpu.shares 512\n\n"
		       "write /a/b cpu.shares 512\n\nchanged /a/b cpu.shares\n");

	/* A move: the groups that became populated, lowest first, then the
	 * attach; tasks is a file the state does not keep (no write). */
	fake_kf_add_process(e.fk, 100, 1);
	wr_ok(&e, b, "tasks", "100");
	expect_log(&r, "prepare write /a/b tasks 100\nprepare attach /a/b 1\n"
		       "populated /a/b 1\npopulated /a 1\nattach /a/b 100\nchanged /a/b tasks\n");

	/* A fork joins its parent's groups: nothing becomes populated. */
	fake_kf_fork(e.fk, 100, 150, 150);
	read_tasks(&e, b);
	expect_log(&r, "fork 100 150\n");

	fake_kf_exit(e.fk, 150);
	read_tasks(&e, b);
	expect_log(&r, "exit 150\n");
	/* The last task goes: b and then a are empty. */
	fake_kf_exit(e.fk, 100);
	read_tasks(&e, b);
	expect_log(&r, "exit 100\npopulated /a/b 0\npopulated /a 0\n");

	g_assert_cmpint(cg_setattr(e.core, b, CG_DIR, &chmod, &root_cred), ==, 0);
	g_assert_cmpint(cg_rename(e.core, a, "b", a, "c", &root_cred), ==, 0);
	g_assert_cmpint(cg_rmdir(e.core, a, "c", &root_cred), ==, 0);
	expect_log(&r, "setattr /a/b dir\nrename /a/c b\nrmdir /a c\n");

	/* Unsubscribed: nothing more is heard. */
	cg_unsubscribe(e.core, &r.sub);
	mkdir_ok(&e, a, "d");
	expect_log(&r, "");
	env_teardown(&e);
	g_string_free(r.log, TRUE);
}

/* A group with tasks below it stays populated when its own last task
 * leaves; it becomes empty only with its subtree. */
static void test_populated_subtree(void)
{
	struct env e;
	struct recorder r;
	uint64_t a, b;

	env_setup(&e);
	recorder_init(&r);
	a = mkdir_ok(&e, e.top[0], "a");
	b = mkdir_ok(&e, a, "b");
	fake_kf_add_process(e.fk, 100, 1);
	fake_kf_add_process(e.fk, 200, 1);
	wr_ok(&e, a, "tasks", "100");
	wr_ok(&e, b, "tasks", "200");
	r.sub = (struct cg_subscriber){ .data = &r, .populated = on_populated };
	cg_subscribe(e.core, &r.sub);
	fake_kf_exit(e.fk, 100);
	read_tasks(&e, a);
	expect_log(&r, "");
	wr_ok(&e, e.top[0], "tasks", "200");	/* to the root: not a change of the root */
	expect_log(&r, "populated /a/b 0\npopulated /a 0\n");
	cg_unsubscribe(e.core, &r.sub);
	env_teardown(&e);
	g_string_free(r.log, TRUE);
}

/* A prepare that refuses: the errno comes back, nothing changed, and no
 * event came but the prepares (and the exit of a task made for the
 * attach). */
static void test_prepare_veto(void)
{
	struct env e;
	struct recorder r;
	uint64_t a, id = 0;

	env_setup(&e);
	recorder_init(&r);
	a = mkdir_ok(&e, e.top[0], "a");
	fake_kf_add_process(e.fk, 100, 1);
	cg_subscribe(e.core, &r.sub);
	r.veto = -ENOSPC;

	r.veto_kind = CG_CHANGE_MKDIR;
	g_assert_cmpint(cg_mkdir(e.core, a, "b", 0755, &root_cred, &id), ==, -ENOSPC);
	expect_log(&r, "prepare mkdir /a b\n");
	g_assert_null(cgroup_child(cgroup_by_id(e.core, a), "b"));

	r.veto_kind = CG_CHANGE_WRITE;
	g_assert_cmpint(wr(&e, a, "cpu.shares", "512"), ==, -ENOSPC);
	expect_log(&r, "prepare write /a cpu.shares 512\n");
	assert_content(&e, a, "cpu.shares", "1024\n");

	r.veto_kind = CG_CHANGE_ATTACH;
	g_assert_cmpint(wr(&e, a, "tasks", "100"), ==, -ENOSPC);
	expect_log(&r, "prepare write /a tasks 100\nprepare attach /a 1\nexit 100\n");
	g_assert_false(lists(&e, a, "tasks", 100));
	g_assert_cmpuint(nr_tasks(&e), ==, 0);

	/* Let through, the same changes are made. */
	r.veto = 0;
	mkdir_ok(&e, a, "b");
	wr_ok(&e, a, "cpu.shares", "512");
	wr_ok(&e, a, "tasks", "100");
	g_assert_true(lists(&e, a, "tasks", 100));
	assert_content(&e, a, "cpu.shares", "512\n");
	cg_unsubscribe(e.core, &r.sub);
	env_teardown(&e);
	g_string_free(r.log, TRUE);
}

/* cgfused.stat: the core's lines, then each subscriber's. */
static void test_stat(void)
{
	struct env e;
	struct recorder r;
	char *stat;

	env_setup(&e);
	recorder_init(&r);
	stat = rd(&e, e.top[0], "cgfused.stat");
	g_assert_true(g_str_has_prefix(stat, "tracked_tasks 0\n"));
	g_assert_null(strstr(stat, "recorder_lines"));
	g_free(stat);
	cg_subscribe(e.core, &r.sub);
	stat = rd(&e, e.top[0], "cgfused.stat");
	g_assert_true(g_str_has_prefix(stat, "tracked_tasks 0\n"));
	g_assert_true(g_str_has_suffix(stat, "\nrecorder_lines 1\n"));
	g_free(stat);
	cg_unsubscribe(e.core, &r.sub);
	env_teardown(&e);
	g_string_free(r.log, TRUE);
}

/* cgfused.stat names each hierarchy's controllers (what the tools read). */
static void test_stat_controllers(void)
{
	struct env e;
	char *stat;

	env_setup_full(&e, true, true);
	stat = rd(&e, e.top[0], "cgfused.stat");
	g_assert_nonnull(strstr(stat, "\ncontrollers cpu,cpuacct\n"));
	g_free(stat);
	stat = rd(&e, e.top[1], "cgfused.stat");
	g_assert_nonnull(strstr(stat, "\ncontrollers cpuset\n"));
	g_free(stat);
	env_teardown(&e);
}

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/notify/events", test_events);
	g_test_add_func("/notify/stat-controllers", test_stat_controllers);
	g_test_add_func("/notify/populated-subtree", test_populated_subtree);
	g_test_add_func("/notify/prepare-veto", test_prepare_veto);
	g_test_add_func("/notify/stat", test_stat);
	return g_test_run();
}
