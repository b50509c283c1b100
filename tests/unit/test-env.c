/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The unit tests' shared harness (see test-env.h). */
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "core/cgroup.h"
#include "core/internal.h"
#include "ctl/ctl.h"
#include "fake-kfacade.h"
#include "test-env.h"
#include "v1/face.h"

const struct cg_cred root_cred = { .pid = 1 };

static unsigned nr_controllers(void)
{
	unsigned n = 0;

	while (cgfused_controllers[n])
		n++;
	return n;
}

unsigned ctl_bit(const char *name)
{
	for (unsigned i = 0; cgfused_controllers[i]; i++)
		if (strcmp(cgfused_controllers[i]->name, name) == 0)
			return 1u << i;
	g_assert_not_reached();
	return 0;
}

void env_setup_full(struct env *e, bool two_hierarchies, bool clone_children)
{
	memset(e, 0, sizeof(*e));
	e->writer = 1;
	e->fk = fake_kf_new();
	e->core = cg_core_new(cgfused_controllers, nr_controllers(), fake_kf_facade(e->fk));
	if (!two_hierarchies) {
		e->root[0] = cg_root_new(e->core, &cgroup1_face, ctl_bit("cpu") |
					 ctl_bit("cpuacct") | ctl_bit("cpuset"), clone_children);
	} else {
		e->root[0] = cg_root_new(e->core, &cgroup1_face, ctl_bit("cpu") | ctl_bit("cpuacct"),
					 clone_children);
		e->root[1] = cg_root_new(e->core, &cgroup1_face, ctl_bit("cpuset"), clone_children);
		e->top[1] = e->root[1]->top->id;
	}
	e->top[0] = e->root[0]->top->id;
}

void env_setup_root(struct env *e, const struct cg_face *face, unsigned mask)
{
	memset(e, 0, sizeof(*e));
	e->writer = 1;
	e->fk = fake_kf_new();
	e->core = cg_core_new(cgfused_controllers, nr_controllers(), fake_kf_facade(e->fk));
	e->root[0] = cg_root_new(e->core, face, mask, face == &cgroup1_face);
	e->top[0] = e->root[0]->top->id;
}

void env_setup(struct env *e)
{
	env_setup_full(e, false, true);
}

void env_teardown(struct env *e)
{
	cg_core_free(e->core);
	g_assert_cmpuint(fake_kf_open_count(e->fk), ==, 0);
	fake_kf_free(e->fk);
}

uint64_t mkdir_ok(struct env *e, uint64_t parent, const char *name)
{
	uint64_t id = 0;

	g_assert_cmpint(cg_mkdir(e->core, parent, name, 0755, &root_cred, &id), ==, 0);
	g_assert_cmpuint(id, !=, 0);
	return id;
}

unsigned file_index(struct env *e, uint64_t cgrp_id, const char *name)
{
	struct cgroup *cgrp;
	unsigned index = ~0u;

	cg_write_lock(&e->core->lock);
	cgrp = cgroup_by_id(e->core, cgrp_id);
	g_assert_nonnull(cgrp);
	g_assert_nonnull(cgroup_file_by_name(cgrp, name, &index));
	cg_write_unlock(&e->core->lock);
	return index;
}

ssize_t wrn(struct env *e, uint64_t cgrp_id, const char *file, const char *buf, size_t len,
	    pid_t writer)
{
	struct cg_cred cred = { .pid = writer };

	return cg_file_write(e->core, cgrp_id, file_index(e, cgrp_id, file), buf, len, &cred);
}

ssize_t wr(struct env *e, uint64_t cgrp_id, const char *file, const char *str)
{
	return wrn(e, cgrp_id, file, str, strlen(str), e->writer);
}

void wr_ok(struct env *e, uint64_t cgrp_id, const char *file, const char *str)
{
	ssize_t ret = wr(e, cgrp_id, file, str);

	if (ret != (ssize_t)strlen(str))
		g_test_message("writing '%s' to %s gave %zd", str, file, ret);
	g_assert_cmpint(ret, ==, (ssize_t)strlen(str));
}

char *rd(struct env *e, uint64_t cgrp_id, const char *file)
{
	GString *out = g_string_new(NULL);

	g_assert_cmpint(cg_file_read(e->core, cgrp_id, file_index(e, cgrp_id, file), out), ==, 0);
	return g_string_free(out, FALSE);
}

void assert_content(struct env *e, uint64_t cgrp_id, const char *file, const char *want)
{
	char *got = rd(e, cgrp_id, file);

	g_assert_cmpstr(got, ==, want);
	g_free(got);
}

void expect_content(struct env *e, uint64_t cgrp_id, const char *file, const char *want)
{
	char *got = rd(e, cgrp_id, file);

	if (strcmp(got, want) != 0) {
		char *g = g_strescape(got, NULL), *w = g_strescape(want, NULL);

		FAILF("%s reads \"%s\", want \"%s\"", file, g, w);
		g_free(g);
		g_free(w);
	}
	g_free(got);
}

long long max_events(struct env *e, uint64_t cgrp_id, const char *file)
{
	char *s = rd(e, cgrp_id, file);
	long long v;

	g_assert_true(g_str_has_prefix(s, "max "));
	v = g_ascii_strtoll(s + 4, NULL, 10);
	g_free(s);
	return v;
}

bool lists(struct env *e, uint64_t cgrp_id, const char *file, pid_t id)
{
	char *got = rd(e, cgrp_id, file);
	char **lines = g_strsplit(got, "\n", -1);
	bool found = false;

	for (char **l = lines; *l; l++)
		if (**l && atoi(*l) == id)
			found = true;
	g_strfreev(lines);
	g_free(got);
	return found;
}

unsigned nr_css_sets(struct env *e)
{
	unsigned n;

	cg_write_lock(&e->core->lock);
	n = g_hash_table_size(e->core->css_sets);
	cg_write_unlock(&e->core->lock);
	return n;
}

unsigned nr_tasks(struct env *e)
{
	unsigned n;

	cg_write_lock(&e->core->lock);
	n = tidmap_size(&e->core->tasks);
	cg_write_unlock(&e->core->lock);
	return n;
}
