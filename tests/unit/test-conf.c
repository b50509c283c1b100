/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The config file (config/conf.h): what the parser takes and where it says
 * a line is wrong; how a config applies to a core at start and on reload,
 * all or nothing. */
#include <errno.h>
#include <string.h>

#include <glib.h>

#include "config/conf.h"
#include "core/cgroup.h"
#include "core/cgroup_lookup.h"
#include "test-env.h"

static struct conf *parse(const char *text, GError **err)
{
	return conf_parse("t.conf", text, strlen(text), err);
}

static void test_parse(void)
{
	GError *err = NULL;
	struct conf *c = parse("# comment\n"
			       "[cpuset:/a/b]\n"
			       "cpuset.cpus = 0-1\n"
			       "tasks_owner=7\n"
			       "\n"
			       "[/a]\n"
			       "mode=0750\n"
			       "owner=0\n"
			       "cpu.shares=10\n"
			       "cpu.shares=2048\n", &err);
	const struct conf_group *g;
	const struct conf_setting *s;

	g_assert_no_error(err);
	g_assert_nonnull(c);
	g_assert_cmpuint(c->groups->len, ==, 2);
	/* Parents first, whatever the file's order. */
	g = g_ptr_array_index(c->groups, 0);
	g_assert_cmpstr(g->path, ==, "/a");
	g_assert_null(g->hier);
	g_assert_cmpint(g->line, ==, 6);
	g_assert_true(g->mode.set);
	g_assert_cmpuint(g->mode.val, ==, 0750);
	g_assert_true(g->owner.set && g->owner.val == 0);
	g_assert_false(g->group.set);
	/* A repeated key: the last value, at its line (as GKeyFile keeps it). */
	g_assert_cmpuint(g->settings->len, ==, 1);
	s = g_ptr_array_index(g->settings, 0);
	g_assert_cmpstr(s->value, ==, "2048");
	g_assert_cmpint(s->line, ==, 10);
	g = g_ptr_array_index(c->groups, 1);
	g_assert_cmpstr(g->hier, ==, "cpuset");
	g_assert_cmpstr(g->path, ==, "/a/b");
	g_assert_true(g->tasks_owner.set && g->tasks_owner.val == 7);
	s = g_ptr_array_index(g->settings, 0);
	g_assert_cmpstr(s->key, ==, "cpuset.cpus");
	g_assert_cmpstr(s->value, ==, "0-1");
	g_assert_cmpint(s->line, ==, 3);
	conf_free(c);
}

static void test_parse_errors(void)
{
	static const struct {
		const char *text, *msg;
	} rows[] = {
		{ "[/a]\nx=1\n", "t.conf:2: x: not a control file" },
		{ "# c\n\n[/a]\nnope\n", "t.conf:4: " },
		{ "[/a]\nk=1\n[/b\n", "t.conf:3: " },
		{ "[a]\n", "t.conf:1: [a]: a group is an absolute path" },
		{ "[//]\n", "t.conf:1: [//]: a group is an absolute path" },
		{ "[/a//b]\n", "t.conf:1: [/a//b]: " },
		{ "[/a/.]\n", "t.conf:1: [/a/.]: " },
		{ "[:/a]\n", "t.conf:1: [:/a]: no controllers before ':'" },
		{ "[/a]\n\nmode=8\n", "t.conf:3: mode: not an octal mode" },
		{ "[/a]\nmode=010000\n", "t.conf:2: mode: not an octal mode" },
		{ "[/a]\ngroup=no-such-group-here\n", "t.conf:2: group: no such group" },
		{ "[/a]\ncgroup.procs=1\n", "t.conf:2: cgroup.procs: the config makes groups" },
		{ "[/a]\ncpu.shares=1\n cpu.shares[de] = 1\n", "t.conf:3: a localized key" },
		{ "[/a]\ncpu.shares=\xff\n", "t.conf:2: " },
	};

	for (guint i = 0; i < G_N_ELEMENTS(rows); i++) {
		GError *err = NULL;
		struct conf *c = parse(rows[i].text, &err);

		if (c || !err || !g_str_has_prefix(err->message, rows[i].msg))
			FAILF("row %u: '%s' gives '%s', want '%s...'", i, rows[i].text,
			      err ? err->message : "(accepted)", rows[i].msg);
		conf_free(c);
		g_clear_error(&err);
	}
}

static uint64_t group(struct env *e, unsigned h, const char *path)
{
	uint64_t id = 0;

	return cg_path_lookup(e->core, h, path, NULL, &id, NULL) == 0 ? id : 0;
}

/* At start (no config before), a group that exists keeps its values; one
 * that does not is made with all of them. */
static void test_apply_start(void)
{
	GError *err = NULL;
	struct conf *c = parse("[/old]\ncpu.shares=2048\n[/new/child]\ncpu.shares=300\n"
			       "mode=0700\n", &err);
	struct env e;
	struct cg_iattr attr;
	uint64_t old, child;

	env_setup(&e);
	old = mkdir_ok(&e, e.top[0], "old");
	wr_ok(&e, old, "cpu.shares", "512");
	g_assert_cmpint(conf_apply(e.core, c, NULL, NULL, NULL, &err), ==, 0);
	g_assert_no_error(err);
	assert_content(&e, old, "cpu.shares", "512\n");
	child = group(&e, 0, "/new/child");
	g_assert_cmpuint(child, !=, 0);
	assert_content(&e, child, "cpu.shares", "300\n");
	g_assert_cmpint(cg_get_iattr(e.core, child, CG_DIR, &attr), ==, 0);
	g_assert_cmpuint(attr.mode & 07777, ==, 0700);
	g_assert_cmpint(cg_get_iattr(e.core, group(&e, 0, "/new"), CG_DIR, &attr), ==, 0);
	g_assert_cmpuint(attr.mode & 07777, ==, 0755);
	conf_free(c);
	env_teardown(&e);
}

static void count_change(void *data, uint64_t id, unsigned file, const char *name)
{
	(void)id;
	(void)file;
	(void)name;
	++*(unsigned *)data;
}

/* A reload applies what changed since the config before; a refusal undoes
 * everything it did, and changed hears of nothing. */
static void test_apply_reload(void)
{
	GError *err = NULL;
	struct conf *c1 = parse("[/a]\ncpu.shares=2048\ncpu.cfs_quota_us=50000\n", &err);
	struct conf *c2 = parse("[/a]\ncpu.shares=2048\ncpu.cfs_quota_us=20000\nowner=5\n"
				"[/b]\ncpu.shares=10\n", &err);
	struct conf *bad = parse("[/a]\ncpu.shares=4096\nowner=6\n[/c]\ncpu.shares=10\n"
				 "[/c/d]\ncpu.cfs_quota_us=5\n", &err);
	struct env e;
	struct cg_iattr attr;
	unsigned changes = 0;
	uint64_t a;

	g_assert_no_error(err);
	env_setup(&e);
	g_assert_cmpint(conf_apply(e.core, c1, NULL, NULL, NULL, &err), ==, 0);
	a = group(&e, 0, "/a");
	wr_ok(&e, a, "cpu.shares", "700");
	g_assert_cmpint(conf_apply(e.core, c2, c1, count_change, &changes, &err), ==, 0);
	g_assert_no_error(err);
	assert_content(&e, a, "cpu.shares", "700\n");
	assert_content(&e, a, "cpu.cfs_quota_us", "20000\n");
	assert_content(&e, group(&e, 0, "/b"), "cpu.shares", "10\n");
	g_assert_cmpint(cg_get_iattr(e.core, a, file_index(&e, a, "tasks"), &attr), ==, 0);
	g_assert_cmpuint(attr.uid, ==, 5);
	/* /b made, and /a's directory and each of its files chowned. */
	g_assert_cmpuint(changes, >, 2);

	changes = 0;
	g_assert_cmpint(conf_apply(e.core, bad, c2, count_change, &changes, &err), ==, -EINVAL);
	g_assert_nonnull(err);
	g_assert_true(g_str_has_prefix(err->message, "t.conf:7: cpu.cfs_quota_us=5: "));
	g_clear_error(&err);
	g_assert_cmpuint(changes, ==, 0);
	assert_content(&e, a, "cpu.shares", "700\n");
	g_assert_cmpint(cg_get_iattr(e.core, a, CG_DIR, &attr), ==, 0);
	g_assert_cmpuint(attr.uid, ==, 5);
	g_assert_cmpuint(group(&e, 0, "/c"), ==, 0);
	conf_free(bad);
	conf_free(c2);
	conf_free(c1);
	env_teardown(&e);
}

/* A section for one hierarchy, and one for all: a file goes where it is. */
static void test_apply_hierarchies(void)
{
	GError *err = NULL;
	struct conf *c = parse("[cpuset:/p]\ncpuset.mems=0\n[/both]\ncpu.shares=512\n"
			       "[cpuacct,cpu:/q]\n", &err);
	struct conf *none = parse("[/x]\ncpu.nonesuch=1\n", &err);
	struct conf *wrong = parse("[cpu:/x]\n", &err);
	struct env e;

	env_setup_full(&e, true, true);
	g_assert_cmpint(conf_apply(e.core, c, NULL, NULL, NULL, &err), ==, 0);
	g_assert_cmpuint(group(&e, 1, "/p"), !=, 0);
	g_assert_cmpuint(group(&e, 0, "/p"), ==, 0);
	g_assert_cmpuint(group(&e, 1, "/both"), !=, 0);
	assert_content(&e, group(&e, 0, "/both"), "cpu.shares", "512\n");
	/* Controllers in any order. */
	g_assert_cmpuint(group(&e, 0, "/q"), !=, 0);
	g_assert_cmpint(conf_apply(e.core, none, NULL, NULL, NULL, &err), ==, -ENOENT);
	g_assert_true(g_str_has_prefix(err->message, "t.conf:2: cpu.nonesuch: no such"));
	g_clear_error(&err);
	g_assert_cmpuint(group(&e, 0, "/x"), ==, 0);
	g_assert_cmpuint(group(&e, 1, "/x"), ==, 0);
	g_assert_cmpint(conf_apply(e.core, wrong, NULL, NULL, NULL, &err), ==, -ENOENT);
	g_assert_cmpstr(err->message, ==, "t.conf:1: [cpu:/x]: no hierarchy of cpu in this mount "
			"(it has cpu,cpuacct, cpuset): No such file or directory");
	g_clear_error(&err);
	conf_free(wrong);
	conf_free(none);
	conf_free(c);
	env_teardown(&e);
}

int main(int argc, char *argv[])
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/conf/parse", test_parse);
	g_test_add_func("/conf/parse-errors", test_parse_errors);
	g_test_add_func("/conf/apply-start", test_apply_start);
	g_test_add_func("/conf/apply-reload", test_apply_reload);
	g_test_add_func("/conf/apply-hierarchies", test_apply_hierarchies);
	return g_test_run();
}
