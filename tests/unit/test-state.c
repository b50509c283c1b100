/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The state without FUSE: records written by the core's hooks, reloaded
 * into a new core on the same fake system, torn and garbled lines, a log
 * of an older generation, compaction, identities that changed. A "crash"
 * is state_free() without state_snapshot(): what kill -9 leaves. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <glib.h>
#include <glib/gstdio.h>

#include "core/cgroup.h"
#include "core/css_set.h"
#include "core/internal.h"
#include "core/task.h"
#include "ctl/ctl.h"
#include "fake-kfacade.h"
#include "state/state.h"
#include "state/state_log.h"
#include "state/state_replay.h"
#include "state/state_snap.h"
#include "test-env.h"
#include "v1/face.h"
#include "v2/face.h"

#define BOOT "boot-1"

struct st_env {
	struct env e;
	char *dir, *path, *log_path, *log2_path;
	struct cg_state *st;
};

/* The core and the files' names, no state open yet. */
static void st_setup_closed(struct st_env *s, bool two_hierarchies)
{
	env_setup_full(&s->e, two_hierarchies, true);
	s->dir = g_dir_make_tmp("test-state.XXXXXX", NULL);
	g_assert_nonnull(s->dir);
	s->path = g_build_filename(s->dir, "s.state", NULL);
	s->log_path = g_strconcat(s->path, ".log", NULL);
	s->log2_path = g_strconcat(s->path, ".log2", NULL);
	s->st = NULL;
}

static void st_setup_full(struct st_env *s, bool two_hierarchies)
{
	st_setup_closed(s, two_hierarchies);
	s->st = state_open(s->e.core, s->path, BOOT, NULL);
	g_assert_nonnull(s->st);
}

static void st_setup(struct st_env *s)
{
	st_setup_full(s, false);
}

/* The daemon dies: no snapshot, the log as it is. */
static void st_crash(struct st_env *s)
{
	state_free(s->st);
	s->st = NULL;
}

/* The daemon dies (if it has not) and a new one starts on the same system,
 * hierarchies and state file, with boot id boot. */
/* A new core on the same system and hierarchies, nothing replayed. */
static void st_new_core(struct st_env *s)
{
	unsigned nr = 0, masks[2] = { 0 };
	const struct cg_face *faces[2] = { NULL };

	for (unsigned r = 0; r < 2 && s->e.root[r]; r++) {
		masks[r] = s->e.root[r]->subsys_mask;
		faces[r] = s->e.root[r]->face;
	}
	cg_core_free(s->e.core);
	while (cgfused_controllers[nr])
		nr++;
	s->e.core = cg_core_new(cgfused_controllers, nr, fake_kf_facade(s->e.fk));
	for (unsigned r = 0; r < 2 && masks[r]; r++) {
		s->e.root[r] = cg_root_new(s->e.core, faces[r], masks[r], faces[r] == &cgroup1_face);
		s->e.top[r] = s->e.root[r]->top->id;
	}
}

static void st_restart(struct st_env *s, const char *boot)
{
	GError *err = NULL;

	if (s->st)
		st_crash(s);
	st_new_core(s);
	s->st = state_open(s->e.core, s->path, boot, &err);
	g_assert_no_error(err);
	g_assert_nonnull(s->st);
}

static void st_teardown(struct st_env *s)
{
	if (s->st)
		state_free(s->st);
	env_teardown(&s->e);
	g_unlink(s->log_path);
	g_unlink(s->log2_path);
	g_unlink(s->path);
	g_rmdir(s->dir);
	g_free(s->log_path);
	g_free(s->log2_path);
	g_free(s->path);
	g_free(s->dir);
}

/* The id of the group at path in hierarchy r, 0 if none. */
static uint64_t group_in(struct st_env *s, unsigned r, const char *path)
{
	char **names = g_strsplit(path, "/", -1);
	struct cgroup *cgrp;
	uint64_t id;

	cg_write_lock(&s->e.core->lock);
	cgrp = s->e.root[r]->top;
	for (char **n = names; cgrp && *n; n++)
		if (**n)
			cgrp = cgroup_child(cgrp, *n);
	id = cgrp ? cgrp->id : 0;
	cg_write_unlock(&s->e.core->lock);
	g_strfreev(names);
	return id;
}

static uint64_t group(struct st_env *s, const char *path)
{
	return group_in(s, 0, path);
}

static unsigned count_lines(const char *path)
{
	char *data = NULL;
	unsigned n = 0;

	if (!g_file_get_contents(path, &data, NULL, NULL))
		return 0;
	for (char *p = data; *p; p++)
		n += *p == '\n';
	g_free(data);
	return n;
}

static void append_text(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_APPEND);

	g_assert_cmpint(fd, >=, 0);
	g_assert_cmpint(write(fd, text, strlen(text)), ==, (ssize_t)strlen(text));
	close(fd);
}

/* Groups, values, owners and modes, and members come back after a crash. */
static void test_reload(void)
{
	struct st_env s;
	uint64_t a, b, c;
	struct cg_iattr attr;
	struct cg_setattr chown_b = { .valid = CG_ATTR_UID | CG_ATTR_GID, .uid = 1000, .gid = 100 };
	struct cg_setattr chmod_shares = { .valid = CG_ATTR_MODE, .mode = 0600 };

	st_setup(&s);
	a = mkdir_ok(&s.e, s.e.top[0], "a");
	b = mkdir_ok(&s.e, a, "b c");		/* a name with a space */
	c = mkdir_ok(&s.e, a, "gone");
	mkdir_ok(&s.e, a, "old");
	g_assert_cmpint(cg_rename(s.e.core, a, "old", a, "new%", &root_cred), ==, 0);
	wr_ok(&s.e, a, "cpu.shares", "2048");
	wr_ok(&s.e, b, "cpuset.cpus", "1-2\n");
	wr_ok(&s.e, b, "notify_on_release", "1");
	wr_ok(&s.e, s.e.top[0], "release_agent", "/bin/agent with space");
	g_assert_cmpint(cg_setattr(s.e.core, b, CG_DIR, &chown_b, &root_cred), ==, 0);
	g_assert_cmpint(cg_setattr(s.e.core, a, file_index(&s.e, a, "cpu.shares"),
				   &chmod_shares, &root_cred), ==, 0);
	g_assert_cmpint(cg_rmdir(s.e.core, a, "gone", &root_cred), ==, 0);
	(void)c;
	fake_kf_add_process(s.e.fk, 100, 3);
	fake_kf_add_process(s.e.fk, 200, 1);
	wr_ok(&s.e, b, "cgroup.procs", "100");
	wr_ok(&s.e, a, "tasks", "200");
	wr_ok(&s.e, b, "tasks", "200");		/* the last move counts */
	wr_ok(&s.e, s.e.top[0], "tasks", "102");	/* back to the root */

	st_restart(&s, BOOT);
	a = group(&s, "/a");
	b = group(&s, "/a/b c");
	g_assert_cmpuint(a, !=, 0);
	g_assert_cmpuint(b, !=, 0);
	g_assert_cmpuint(group(&s, "/a/gone"), ==, 0);
	g_assert_cmpuint(group(&s, "/a/old"), ==, 0);
	g_assert_cmpuint(group(&s, "/a/new%"), !=, 0);
	assert_content(&s.e, a, "cpu.shares", "2048\n");
	assert_content(&s.e, b, "cpuset.cpus", "1-2\n");
	assert_content(&s.e, b, "notify_on_release", "1\n");
	assert_content(&s.e, s.e.top[0], "release_agent", "/bin/agent with space\n");
	g_assert_cmpint(cg_get_iattr(s.e.core, b, CG_DIR, &attr), ==, 0);
	EXPECT_INT(attr.uid, 1000, "%s", "owner of a/b c");
	EXPECT_INT(attr.gid, 100, "%s", "group of a/b c");
	g_assert_cmpint(cg_get_iattr(s.e.core, a, file_index(&s.e, a, "cpu.shares"), &attr), ==, 0);
	EXPECT_INT(attr.mode & 07777, 0600, "%s", "mode of a/cpu.shares");
	assert_content(&s.e, b, "tasks", "100\n101\n200\n");
	assert_content(&s.e, a, "tasks", "");
	g_assert_false(lists(&s.e, b, "tasks", 102));
	EXPECT_INT(nr_tasks(&s.e), 3, "%s", "tracked tasks");
	st_teardown(&s);
}

/* Members whose id now names another thread, or nothing, stay out; so do
 * all of them when the machine rebooted. */
static void test_identity(void)
{
	struct st_env s;
	uint64_t a;

	st_setup(&s);
	a = mkdir_ok(&s.e, s.e.top[0], "a");
	fake_kf_add_process(s.e.fk, 300, 1);
	fake_kf_add_process(s.e.fk, 301, 1);
	fake_kf_add_process(s.e.fk, 302, 1);
	wr_ok(&s.e, a, "tasks", "300");
	wr_ok(&s.e, a, "tasks", "301");
	wr_ok(&s.e, a, "tasks", "302");
	st_crash(&s);
	fake_kf_reuse(s.e.fk, 300, 300);	/* another process got the id */
	fake_kf_exit(s.e.fk, 301);		/* gone */

	st_restart(&s, BOOT);
	a = group(&s, "/a");
	assert_content(&s.e, a, "tasks", "302\n");
	EXPECT_INT(nr_tasks(&s.e), 1, "%s", "tracked tasks");
	EXPECT_INT(fake_kf_open_count_tid(s.e.fk, 300), 0, "%s", "identities of 300 left open");

	st_restart(&s, "boot-2");		/* the snapshot is of boot-1 */
	a = group(&s, "/a");
	g_assert_cmpuint(a, !=, 0);
	assert_content(&s.e, a, "tasks", "");
	st_teardown(&s);
}

/* A child forked while no daemon ran joins its parent's group; one forked
 * into the root before its parent joined does not. */
static void test_forks_while_down(void)
{
	struct st_env s;
	uint64_t a;

	st_setup(&s);
	a = mkdir_ok(&s.e, s.e.top[0], "a");
	fake_kf_add_process(s.e.fk, 400, 1);
	fake_kf_fork(s.e.fk, 400, 401, 401);	/* before the parent joined */
	wr_ok(&s.e, a, "tasks", "400");
	st_crash(&s);
	fake_kf_fork(s.e.fk, 400, 402, 402);
	fake_kf_fork(s.e.fk, 402, 403, 403);	/* a grandchild */

	st_restart(&s, BOOT);
	a = group(&s, "/a");
	assert_content(&s.e, a, "tasks", "400\n402\n403\n");
	st_teardown(&s);
}

/* With two hierarchies, a member is in a group of each; a child forked
 * while the daemon ran is recorded in both, and comes back although its
 * parent has gone. */
static void test_two_hierarchies(void)
{
	struct st_env s;
	uint64_t a, b;

	st_setup_full(&s, true);
	a = mkdir_ok(&s.e, s.e.top[0], "a");
	b = mkdir_ok(&s.e, s.e.top[1], "b");
	fake_kf_add_process(s.e.fk, 700, 1);
	wr_ok(&s.e, a, "tasks", "700");
	wr_ok(&s.e, b, "tasks", "700");
	fake_kf_fork(s.e.fk, 700, 701, 701);
	g_assert_true(lists(&s.e, a, "tasks", 701));	/* the fork is taken in */
	fake_kf_exit_process(s.e.fk, 700);
	g_assert_false(lists(&s.e, a, "tasks", 700));

	st_restart(&s, BOOT);
	assert_content(&s.e, group_in(&s, 0, "/a"), "tasks", "701\n");
	assert_content(&s.e, group_in(&s, 1, "/b"), "tasks", "701\n");
	st_teardown(&s);
}

/* What kill -9 leaves of the mapped log: the records, then the zeros of
 * its last chunk (state_free() cuts them off; a crash does not). They
 * are no torn line, and a record cut by the crash is one. */
static void test_zero_tail(void)
{
	struct st_env s;
	struct state_load load;
	struct env fresh;
	unsigned applied;
	int fd;

	st_setup(&s);
	mkdir_ok(&s.e, s.e.top[0], "a");
	mkdir_ok(&s.e, s.e.top[0], "b");
	st_crash(&s);
	env_setup(&fresh);
	g_assert_cmpint(state_replay(fresh.core, s.path, BOOT, &load), ==, 0);
	env_teardown(&fresh);
	applied = load.applied;
	fd = open(s.log_path, O_WRONLY);
	g_assert_cmpint(fd, >=, 0);
	g_assert_cmpint(ftruncate(fd, 1 << 20), ==, 0);
	close(fd);

	env_setup(&fresh);
	g_assert_cmpint(state_replay(fresh.core, s.path, BOOT, &load), ==, 0);
	EXPECT_INT(load.torn, 0, "%s", "torn lines");
	EXPECT_INT(load.applied, applied, "%s", "records applied");
	env_teardown(&fresh);

	st_restart(&s, BOOT);
	g_assert_cmpuint(group(&s, "/b"), !=, 0);
	st_teardown(&s);
}

/* The mapped log grows past its first chunks and keeps every byte in
 * order; a clean close cuts the zeros off; a reset empties it. */
static void test_log_growth(void)
{
	char *dir = g_dir_make_tmp("test-state-log-XXXXXX", NULL);
	char *path = g_build_filename(dir, "log", NULL);
	struct state_log log = { .fd = open(path, O_RDWR | O_CREAT, 0600) };
	GString *want = g_string_new(NULL);
	char *data;
	gsize len;

	g_assert_cmpint(log.fd, >=, 0);
	g_assert_cmpint(state_log_reset(&log, "head\n", 5), ==, 0);
	g_string_append(want, "head\n");
	for (unsigned i = 0; i < 100000; i++) {
		char rec[32];
		int n = g_snprintf(rec, sizeof(rec), "record %u\n", i);

		g_assert_cmpint(state_log_append(&log, rec, (size_t)n), ==, 0);
		g_string_append_len(want, rec, n);
	}
	g_assert_cmpuint(log.len, >, 1u << 20);
	g_assert_cmpint(state_log_close(&log), ==, 0);
	g_assert_true(g_file_get_contents(path, &data, &len, NULL));
	g_assert_cmpuint(len, ==, want->len);
	g_assert_true(memcmp(data, want->str, len) == 0);
	g_free(data);
	g_assert_cmpint(state_log_reset(&log, "x\n", 2), ==, 0);
	g_assert_cmpint(state_log_close(&log), ==, 0);
	g_assert_true(g_file_get_contents(path, &data, &len, NULL));
	g_assert_cmpstr(data, ==, "x\n");
	g_free(data);
	close(log.fd);
	g_unlink(path);
	g_rmdir(dir);
	g_string_free(want, TRUE);
	g_free(path);
	g_free(dir);
}

/* A torn last line (the write a crash cut) is ignored; a garbled line
 * stops the reading there. */
static void test_torn_and_garbled(void)
{
	struct st_env s;
	struct state_load load;
	struct env fresh;
	char *data, *bad;

	st_setup(&s);
	mkdir_ok(&s.e, s.e.top[0], "a");
	mkdir_ok(&s.e, s.e.top[0], "b");
	mkdir_ok(&s.e, s.e.top[0], "c");
	st_crash(&s);
	append_text(s.log_path, "mkdir =cpu,cpuacct,cpuset 99 0 =d 493 0");

	env_setup(&fresh);
	g_assert_cmpint(state_replay(fresh.core, s.path, BOOT, &load), ==, 0);
	EXPECT_INT(load.torn, 1, "%s", "torn lines");
	EXPECT_INT(load.refused, 0, "%s", "refused records");
	env_teardown(&fresh);

	st_restart(&s, BOOT);
	g_assert_cmpuint(group(&s, "/c"), !=, 0);
	g_assert_cmpuint(group(&s, "/d"), ==, 0);

	/* "mkdir ... =y" with one byte changed: y and all after it are lost. */
	mkdir_ok(&s.e, s.e.top[0], "x");
	mkdir_ok(&s.e, s.e.top[0], "y");
	mkdir_ok(&s.e, s.e.top[0], "z");
	st_crash(&s);
	g_assert_true(g_file_get_contents(s.log_path, &data, NULL, NULL));
	bad = strstr(data, " =y ");
	g_assert_nonnull(bad);
	bad[2] = 'Y';
	g_assert_true(g_file_set_contents(s.log_path, data, -1, NULL));
	g_free(data);

	env_setup(&fresh);
	g_test_expect_message(G_LOG_DOMAIN, G_LOG_LEVEL_WARNING, "*garbled record*");
	g_assert_cmpint(state_replay(fresh.core, s.path, BOOT, &load), ==, 0);
	g_test_assert_expected_messages();
	EXPECT_INT(load.torn, 1, "%s", "garbled lines");
	env_teardown(&fresh);

	g_test_expect_message(G_LOG_DOMAIN, G_LOG_LEVEL_WARNING, "*garbled record*");
	st_restart(&s, BOOT);
	g_test_assert_expected_messages();
	g_assert_cmpuint(group(&s, "/x"), !=, 0);
	g_assert_cmpuint(group(&s, "/y"), ==, 0);
	g_assert_cmpuint(group(&s, "/Y"), ==, 0);
	g_assert_cmpuint(group(&s, "/z"), ==, 0);
	st_teardown(&s);
}

/* A crash between a snapshot's rename and the log's truncation leaves a
 * log of the previous generation: it is not replayed over the snapshot. */
static void test_old_generation(void)
{
	struct st_env s;
	struct state_load load;
	struct env fresh;
	char *old_log;
	gsize len;

	st_setup(&s);
	mkdir_ok(&s.e, s.e.top[0], "x");
	g_assert_true(g_file_get_contents(s.log_path, &old_log, &len, NULL));
	g_assert_cmpint(cg_rmdir(s.e.core, s.e.top[0], "x", &root_cred), ==, 0);
	g_assert_cmpint(state_snapshot(s.st), ==, 0);
	st_crash(&s);
	g_assert_true(g_file_set_contents(s.log_path, old_log, (gssize)len, NULL));
	g_free(old_log);

	env_setup(&fresh);
	g_assert_cmpint(state_replay(fresh.core, s.path, BOOT, &load), ==, 0);
	g_assert_true(load.log_ignored);
	env_teardown(&fresh);

	st_restart(&s, BOOT);
	g_assert_cmpuint(group(&s, "/x"), ==, 0);
	st_teardown(&s);
}

/* The log is folded into the snapshot once it is long enough, and what it
 * held survives. */
static void test_compaction(void)
{
	struct st_env s;
	uint64_t a, b;
	unsigned moves = STATE_COMPACT_MIN + 11;

	st_setup(&s);
	a = mkdir_ok(&s.e, s.e.top[0], "a");
	b = mkdir_ok(&s.e, s.e.top[0], "b");
	fake_kf_add_process(s.e.fk, 500, 1);
	for (unsigned i = 0; i < moves; i++)
		wr_ok(&s.e, i % 2 ? b : a, "tasks", "500");
	/* 2 mkdirs and the moves: compacted once, at record 4096. */
	EXPECT_INT(state_log_records(s.st), moves + 2 - STATE_COMPACT_MIN, "%s", "log records");
	/* The records since in one log, a header alone in the other. */
	EXPECT_INT(count_lines(s.log_path) + count_lines(s.log2_path),
		   moves + 2 - STATE_COMPACT_MIN + 2, "%s", "log lines");
	g_assert_cmpuint(state_snapshot_records(s.st), <, 100);
	EXPECT_INT(count_lines(s.path), state_snapshot_records(s.st) + 1, "%s", "snapshot lines");

	st_restart(&s, BOOT);
	a = group(&s, "/a");
	b = group(&s, "/b");
	assert_content(&s.e, moves % 2 ? a : b, "tasks", "500\n");
	assert_content(&s.e, moves % 2 ? b : a, "tasks", "");
	st_teardown(&s);
}

/* The crash tests' child: the compaction step it dies at, by kill -9 (the
 * page cache keeps what was written). The sync thread waits at the first
 * step of the build (go: changes land on a snapshot half built) and at
 * the switch (go: changes land in the next log while the snapshot is
 * written); at its step it tells the parent (die), which SIGKILLs the
 * child from outside: no exit handler runs (valgrind's leak check at an
 * exit, even at a SIGKILL the child sent itself, would scan the logs'
 * mappings, gigabytes of address space, for minutes). */
static const char *crash_step;
static int crash_go[2], crash_die[2];

static void crash_wait(void)
{
	char c;

	if (read(crash_go[0], &c, 1) != 1)
		_exit(6);
}

static void crash_hook(const char *step)
{
	static unsigned gates;

	if (gates == 0) {
		gates = 1;
		crash_wait();
		return;		/* the build's first step: it dies at a later one */
	}
	if (gates == 1 && strcmp(step, "switched") == 0) {
		gates = 2;
		crash_wait();
	}
	if (strcmp(step, crash_step) != 0)
		return;
	if (write(crash_die[1], "d", 1) != 1)
		_exit(7);
	for (;;)
		pause();
}

/* The changes acknowledged while the snapshot is built, and those after
 * the switch. */
static void crash_during_build(struct st_env *s, uint64_t a)
{
	uint64_t b;

	g_assert_cmpint(cg_rename(s->e.core, a, "old", a, "new", &root_cred), ==, 0);
	g_assert_cmpint(cg_rmdir(s->e.core, a, "gone", &root_cred), ==, 0);
	b = mkdir_ok(&s->e, a, "after");
	wr_ok(&s->e, b, "cpu.shares", "777");
	wr_ok(&s->e, b, "tasks", "801");
	wr_ok(&s->e, group(s, "/a/new"), "tasks", "800");
}

static void crash_after_switch(struct st_env *s, uint64_t a)
{
	g_assert_cmpint(cg_rename(s->e.core, a, "new", a, "newer", &root_cred), ==, 0);
	wr_ok(&s->e, mkdir_ok(&s->e, a, "late"), "tasks", "802");
	wr_ok(&s->e, group(s, "/a/after"), "cpu.shares", "555");
}

/* In a child: changes, then more until one sets off a compaction, whose
 * snapshot is built a group a step; changes while it is built, and after
 * the switch (none if it dies before); dies at step. Exits non-zero if
 * anything failed before. */
static void crash_child(struct st_env *s, const char *step)
{
	uint64_t a;
	unsigned before;

	s->st = state_open(s->e.core, s->path, BOOT, NULL);
	if (!s->st)
		_exit(2);
	a = mkdir_ok(&s->e, s->e.top[0], "a");
	mkdir_ok(&s->e, a, "old");
	mkdir_ok(&s->e, a, "gone");
	for (unsigned i = 0; i < 8; i++) {
		char name[8];

		g_snprintf(name, sizeof(name), "s%u", i);
		mkdir_ok(&s->e, s->e.top[0], name);
	}
	wr_ok(&s->e, a, "tasks", "800");
	crash_step = step;
	state_step_hook = crash_hook;
	state_step_groups = 1;
	state_sync_start(s->st);
	/* The compaction begins with the record that reaches the mark. */
	while (state_log_records(s->st) < STATE_COMPACT_MIN)
		wr_ok(&s->e, a, "cpu.shares", state_log_records(s->st) % 2 ? "1024" : "2048");
	crash_during_build(s, a);
	if (g_test_failed())
		_exit(4);
	if (write(crash_go[1], "g", 1) != 1)
		_exit(5);
	/* Until the switch (never, if it dies while building). A pause
	 * between writes lets the sync thread build: under valgrind, which
	 * runs one thread at a time, a writer that never sleeps wrote
	 * millions of records (500 MB of log) before the build could end. */
	do {
		before = state_log_records(s->st);
		wr_ok(&s->e, a, "cpu.shares", before % 2 ? "1024" : "2048");
		g_usleep(200);
	} while (state_log_records(s->st) > before);
	crash_after_switch(s, a);
	if (g_test_failed())
		_exit(4);
	if (write(crash_go[1], "g", 1) != 1)
		_exit(5);
	for (;;)
		pause();
}

/* What crash_child() did, all of it, once (after: with the changes made
 * after the switch). */
static void assert_crash_state(struct st_env *s, const char *step, bool after)
{
	uint64_t a = group(s, "/a"), b = group(s, "/a/after"), l = group(s, "/a/late");

	EXPECT_INT(a != 0, 1, "%s: /a", step);
	EXPECT_INT(b != 0, 1, "%s: /a/after", step);
	EXPECT_INT(group(s, "/a/new") != 0, !after, "%s: /a/new", step);
	EXPECT_INT(group(s, "/a/newer") != 0, after, "%s: /a/newer", step);
	EXPECT_INT(l != 0, after, "%s: /a/late", step);
	EXPECT_INT(group(s, "/a/old"), 0, "%s: /a/old", step);
	EXPECT_INT(group(s, "/a/gone"), 0, "%s: /a/gone", step);
	for (unsigned i = 0; i < 8; i++) {
		char path[8];

		g_snprintf(path, sizeof(path), "/s%u", i);
		EXPECT_INT(group(s, path) != 0, 1, "%s: %s", step, path);
	}
	if (!a || !b)
		return;
	assert_content(&s->e, b, "cpu.shares", after ? "555\n" : "777\n");
	assert_content(&s->e, b, "tasks", "801\n");
	assert_content(&s->e, group(s, after ? "/a/newer" : "/a/new"), "tasks", "800\n");
	if (l)
		assert_content(&s->e, l, "tasks", "802\n");
}

/* kill -9 at each step of a compaction, while its snapshot is built
 * (with changes acknowledged between its steps) and while it is written
 * (with changes acknowledged between the switch and the snapshot's
 * rename): every change comes back, none twice, and again after a second
 * and third start. */
static void test_compaction_crash(void)
{
	static const char *const steps[] = {
		"step", "switched", "begin", "old-log-synced", "tmp-written", "tmp-synced", "renamed",
		"dir-synced", "next-log-ready",
	};

	for (guint i = 0; i < G_N_ELEMENTS(steps); i++) {
		struct st_env s;
		struct state_load load;
		struct pollfd pfd;
		int status = -1;
		bool died, after;
		pid_t pid;
		char c;

		st_setup_closed(&s, false);
		fake_kf_add_process(s.e.fk, 800, 1);
		fake_kf_add_process(s.e.fk, 801, 1);
		fake_kf_add_process(s.e.fk, 802, 1);
		g_assert_cmpint(pipe(crash_go), ==, 0);
		g_assert_cmpint(pipe(crash_die), ==, 0);
		pid = fork();
		g_assert_cmpint(pid, >=, 0);
		if (pid == 0)
			crash_child(&s, steps[i]);
		close(crash_go[0]);
		close(crash_go[1]);
		close(crash_die[1]);
		/* The step, or the child's end (an exit status) or 300 s. */
		pfd = (struct pollfd){ .fd = crash_die[0], .events = POLLIN };
		died = poll(&pfd, 1, 300 * 1000) == 1 && read(crash_die[0], &c, 1) == 1;
		close(crash_die[0]);
		kill(pid, SIGKILL);
		g_assert_cmpint(waitpid(pid, &status, 0), ==, pid);
		EXPECT_INT(died, 1, "%s: the step came", steps[i]);
		EXPECT_INT(WIFSIGNALED(status) ? WTERMSIG(status) : 100 + WEXITSTATUS(status),
			   SIGKILL, "%s: the child's end (100 + an exit status)", steps[i]);

		st_new_core(&s);
		g_assert_cmpint(state_replay(s.e.core, s.path, BOOT, &load), ==, 0);
		EXPECT_INT(load.refused, 0, "%s: refused records", steps[i]);
		EXPECT_INT(load.torn, 0, "%s: torn records", steps[i]);
		after = strcmp(steps[i], "step") != 0;
		assert_crash_state(&s, steps[i], after);
		for (int again = 0; again < 2; again++) {
			st_restart(&s, BOOT);
			assert_crash_state(&s, steps[i], after);
		}
		st_teardown(&s);
	}
}

/* The rmdir whose record sets off a compaction stays done: the snapshot
 * is taken after the group is gone (it was taken before, and the
 * truncated log took the rmdir with it). */
static void test_compaction_at_rmdir(void)
{
	static const struct cg_cred root = { 0 };
	struct st_env s;
	uint64_t a;

	st_setup(&s);
	a = mkdir_ok(&s.e, s.e.top[0], "a");
	mkdir_ok(&s.e, s.e.top[0], "gone");
	while (state_log_records(s.st) < STATE_COMPACT_MIN - 1)
		wr_ok(&s.e, a, "cpu.shares", state_log_records(s.st) % 2 ? "2048" : "1024");
	g_assert_cmpint(cg_rmdir(s.e.core, s.e.top[0], "gone", &root), ==, 0);
	EXPECT_INT(state_log_records(s.st), 0, "%s", "log records after the compaction");

	st_crash(&s);
	st_restart(&s, BOOT);
	g_assert_cmpuint(group(&s, "/a"), !=, 0);
	EXPECT_INT(group(&s, "/gone"), 0, "%s", "the removed group's id");
	st_teardown(&s);
}

/* One attach of a process writes a record per thread; reads, failed
 * writes and actions (cpuacct.usage) write none. */
static void test_what_is_logged(void)
{
	struct st_env s;
	uint64_t a;
	unsigned before;

	st_setup(&s);
	a = mkdir_ok(&s.e, s.e.top[0], "a");
	fake_kf_add_process(s.e.fk, 600, 4);
	before = state_log_records(s.st);
	wr_ok(&s.e, a, "cgroup.procs", "600");
	EXPECT_INT(state_log_records(s.st) - before, 4, "%s", "records of one attach");
	before = state_log_records(s.st);
	g_free(rd(&s.e, a, "cpu.shares"));
	EXPECT_INT(wr(&s.e, a, "cpu.shares", "bogus"), -EINVAL, "%s", "bad write");
	wr_ok(&s.e, a, "cpuacct.usage", "0");
	EXPECT_INT(state_log_records(s.st) - before, 0, "%s", "records of nothing");
	st_teardown(&s);
}

/* A file that is not a state (a wrong -o state=) is refused and left as
 * it is, not replaced by a snapshot. */
static void test_foreign(void)
{
	struct st_env s;
	struct env other;
	GError *err = NULL;
	char *data;

	st_setup(&s);
	st_crash(&s);
	g_assert_true(g_file_set_contents(s.path, "root:x:0:0:root:/root:/bin/sh\n", -1, NULL));
	env_setup(&other);
	g_assert_null(state_open(other.core, s.path, BOOT, &err));
	g_assert_nonnull(err);
	g_assert_nonnull(strstr(err->message, "not a cgfused state"));
	g_clear_error(&err);
	g_assert_true(g_file_get_contents(s.path, &data, NULL, NULL));
	g_assert_cmpstr(data, ==, "root:x:0:0:root:/root:/bin/sh\n");
	g_free(data);
	env_teardown(&other);
	st_teardown(&s);
}

/* body with its checksum, as a line of a state file. */
static void add_line(GString *out, const char *body)
{
	g_string_append_printf(out, "%s #%08x\n", body, state_rec_hash(body, strlen(body)));
}

/* A version-1 state (groups named by path) is replayed, and replaced by a
 * version-2 snapshot that names them by id. */
static void test_version1(void)
{
	struct st_env s;
	GString *snap = g_string_new(NULL), *log = g_string_new(NULL);
	char *data;

	st_setup(&s);
	st_crash(&s);
	add_line(snap, "cgfused-state 1 7 =" BOOT);
	add_line(snap, "mkdir =cpuset,cpu,cpuacct =/a 493 0 0");
	add_line(snap, "mkdir =cpuset,cpu,cpuacct =/a/b 448 0 0");
	add_line(snap, "write =cpuset,cpu,cpuacct =/a =cpu.shares =2048");
	add_line(log, "cgfused-log 1 7");
	add_line(log, "mkdir =cpuset,cpu,cpuacct =/a/old 493 0 0");
	add_line(log, "rename =cpuset,cpu,cpuacct =/a =old =new");
	add_line(log, "rmdir =cpuset,cpu,cpuacct =/a/b");
	add_line(log, "write =cpuset,cpu,cpuacct =/a/new =cpu.shares =512");
	g_assert_true(g_file_set_contents(s.path, snap->str, -1, NULL));
	g_assert_true(g_file_set_contents(s.log_path, log->str, -1, NULL));

	st_restart(&s, BOOT);
	g_assert_cmpuint(group(&s, "/a"), !=, 0);
	g_assert_cmpuint(group(&s, "/a/b"), ==, 0);
	g_assert_cmpuint(group(&s, "/a/old"), ==, 0);
	g_assert_cmpuint(group(&s, "/a/new"), !=, 0);
	assert_content(&s.e, group(&s, "/a/new"), "cpu.shares", "512\n");
	g_assert_true(g_file_get_contents(s.path, &data, NULL, NULL));
	g_assert_true(g_str_has_prefix(data, "cgfused-state 3 8 "));
	g_assert_null(strstr(data, "=/a"));
	g_free(data);

	/* And the version-2 state comes back the same. */
	st_restart(&s, BOOT);
	g_assert_cmpuint(group(&s, "/a/new"), !=, 0);
	assert_content(&s.e, group(&s, "/a/new"), "cpu.shares", "512\n");
	g_string_free(log, TRUE);
	g_string_free(snap, TRUE);
	st_teardown(&s);
}

/* A clean stop: the whole state as one snapshot, the logs emptied. */
static void st_stop(struct st_env *s)
{
	g_assert_cmpint(state_snapshot(s->st), ==, 0);
	state_free(s->st);
	s->st = NULL;
}

/* Every setting (a writable file the state keeps) of cgrp and below, as
 * "path file=value" lines. Called locked. */
static void dump_group(struct cgroup *cgrp, GPtrArray *lines)
{
	GHashTableIter iter;
	struct cgroup *child;
	char *path = cgroup_path(cgrp);
	GString *val = g_string_new(NULL);

	for (unsigned i = 0; i < cgrp->root->files->len; i++) {
		const struct cg_file *f = g_ptr_array_index(cgrp->root->files, i);

		if (!cgroup_has_file(cgrp, f) || !cftype_writable(f->cft) ||
		    (f->cft->flags & CFTYPE_NO_STATE))
			continue;
		g_string_truncate(val, 0);
		g_assert_cmpint(cgroup_file_show(cgrp, i, val), ==, 0);
		g_ptr_array_add(lines, g_strdup_printf("%s %s=%s", path, f->name, val->str));
	}
	g_string_free(val, TRUE);
	g_free(path);
	cgroup_for_each_child(child, &iter, cgrp)
		dump_group(child, lines);
}

static gint cmp_str(gconstpointer a, gconstpointer b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Every setting of every group, sorted, in one text. */
static char *settings_dump(struct st_env *s)
{
	GPtrArray *lines = g_ptr_array_new_with_free_func(g_free);
	char *text;

	cg_write_lock(&s->e.core->lock);
	dump_group(s->e.root[0]->top, lines);
	cg_write_unlock(&s->e.core->lock);
	g_ptr_array_sort(lines, cmp_str);
	g_ptr_array_add(lines, NULL);
	text = g_strjoinv("", (char **)lines->pdata);
	g_ptr_array_unref(lines);
	return text;
}

/* How many lines of the snapshot start with prefix. */
static unsigned snapshot_lines(struct st_env *s, const char *prefix)
{
	char *data = NULL, **lines;
	unsigned n = 0;

	g_assert_true(g_file_get_contents(s->path, &data, NULL, NULL));
	lines = g_strsplit(data, "\n", -1);
	for (char **l = lines; *l; l++)
		n += g_str_has_prefix(*l, prefix);
	g_strfreev(lines);
	g_free(data);
	return n;
}

/* A snapshot's write records of group id, which mkdir numbered. */
static unsigned writes_of(struct st_env *s, uint64_t id)
{
	char *prefix = g_strdup_printf("write =cpuset,cpu,cpuacct %" G_GUINT64_FORMAT " ", id);
	unsigned n = snapshot_lines(s, prefix);

	g_free(prefix);
	return n;
}

/* Starts the daemon again (same boot) and checks that every setting
 * reads as in before. */
static void restart_same(struct st_env *s, const char *before)
{
	char *after;

	st_restart(s, BOOT);
	after = settings_dump(s);
	g_assert_cmpstr(after, ==, before);
	g_free(after);
}

/* Values a group inherits at mkdir (notify_on_release, clone_children,
 * and with it its parent's cpuset) and values written, with parents
 * changed after their children were made: a snapshot keeps only what
 * differs from what mkdir under the parent's final values gives, and the
 * tree comes back the same after kill -9 (the log), a clean stop (the
 * snapshot), and again. */
static void test_inherited(void)
{
	struct st_env s;
	uint64_t a, b, c, d, e, f;
	char *before;

	st_setup(&s);
	a = mkdir_ok(&s.e, s.e.top[0], "a");		/* notify 0, cpus 0-3 */
	wr_ok(&s.e, s.e.top[0], "notify_on_release", "1");
	b = mkdir_ok(&s.e, s.e.top[0], "b");		/* notify 1, inherited */
	wr_ok(&s.e, b, "notify_on_release", "0");
	wr_ok(&s.e, b, "notify_on_release", "1");	/* written, as inherited */
	wr_ok(&s.e, b, "cpu.shares", "2048");
	wr_ok(&s.e, a, "cpuset.cpus", "1");
	c = mkdir_ok(&s.e, a, "c");			/* cpus 1, a's then */
	wr_ok(&s.e, a, "cpuset.cpus", "1-2");
	wr_ok(&s.e, a, "cgroup.clone_children", "0");
	d = mkdir_ok(&s.e, a, "d");			/* clone 0, no cpus */
	wr_ok(&s.e, a, "cgroup.clone_children", "1");
	e = mkdir_ok(&s.e, a, "e");			/* a's final values */
	wr_ok(&s.e, e, "cpu.shares", "1024");		/* the default, written */
	f = mkdir_ok(&s.e, a, "f");			/* nothing written */
	before = settings_dump(&s);

	st_crash(&s);
	restart_same(&s, before);
	st_stop(&s);
	/* The snapshot of the restarted daemon: its ids are those of the
	 * groups it made, in the order of the log's records. */
	restart_same(&s, before);
	a = group(&s, "/a");
	b = group(&s, "/b");
	c = group(&s, "/a/c");
	d = group(&s, "/a/d");
	e = group(&s, "/a/e");
	f = group(&s, "/a/f");
	assert_content(&s.e, a, "notify_on_release", "0\n");
	assert_content(&s.e, b, "notify_on_release", "1\n");
	assert_content(&s.e, b, "cpu.shares", "2048\n");
	assert_content(&s.e, c, "cpuset.cpus", "1\n");
	assert_content(&s.e, d, "cpuset.cpus", "\n");
	assert_content(&s.e, d, "cgroup.clone_children", "0\n");
	assert_content(&s.e, d, "cpuset.mems", "\n");
	assert_content(&s.e, e, "cpuset.cpus", "1-2\n");
	assert_content(&s.e, e, "cgroup.clone_children", "1\n");

	/* Its own snapshot, after a clean stop: only what differs. */
	st_stop(&s);
	EXPECT_INT(writes_of(&s, a), 2, "%s", "writes of a (notify, cpus)");
	EXPECT_INT(writes_of(&s, b), 1, "%s", "writes of b (shares)");
	EXPECT_INT(writes_of(&s, c), 1, "%s", "writes of c (cpus)");
	EXPECT_INT(writes_of(&s, d), 3, "%s", "writes of d (clone, cpus, mems)");
	EXPECT_INT(writes_of(&s, e), 0, "%s", "writes of e");
	EXPECT_INT(writes_of(&s, f), 0, "%s", "writes of f");
	EXPECT_INT(snapshot_lines(&s, "mkdir "), 6, "%s", "mkdir records");
	restart_same(&s, before);
	g_free(before);
	st_teardown(&s);
}

/* An exclusive cpuset makes a sibling made beside it start with no CPUs
 * (nothing cloned), whatever its parent has: such children are saved in
 * full, and one made so and never written keeps its empty sets after
 * the exclusive sibling has gone back to sharing. */
static void test_exclusive_siblings(void)
{
	struct st_env s;
	uint64_t a, b, d;
	char *before;

	st_setup(&s);
	a = mkdir_ok(&s.e, s.e.top[0], "a");		/* cloned: cpus 0-3 */
	wr_ok(&s.e, a, "cpuset.cpus", "0");
	wr_ok(&s.e, a, "cpuset.cpu_exclusive", "1");
	b = mkdir_ok(&s.e, s.e.top[0], "b");		/* beside it: nothing */
	assert_content(&s.e, b, "cpuset.cpus", "\n");
	wr_ok(&s.e, a, "cpuset.cpu_exclusive", "0");
	mkdir_ok(&s.e, s.e.top[0], "c");		/* cloned again */
	before = settings_dump(&s);
	for (int round = 0; round < 2; round++) {
		st_stop(&s);
		/* Its empty sets differ from what a mkdir gives now. */
		EXPECT_INT(writes_of(&s, b), 2, "%s", "writes of b (cpus, mems)");
		restart_same(&s, before);
		b = group(&s, "/b");
		assert_content(&s.e, b, "cpuset.cpus", "\n");
		assert_content(&s.e, b, "cpuset.mems", "\n");
	}
	/* Exclusive siblings at the stop: every sibling in full. */
	wr_ok(&s.e, group(&s, "/c"), "cpuset.cpus", "1-2");
	wr_ok(&s.e, group(&s, "/c"), "cpuset.mems", "\n");
	d = mkdir_ok(&s.e, s.e.top[0], "d");
	wr_ok(&s.e, d, "cpuset.cpus", "3");
	wr_ok(&s.e, d, "cpuset.mems", "\n");
	wr_ok(&s.e, d, "cpuset.cpu_exclusive", "1");
	wr_ok(&s.e, group(&s, "/a"), "cpuset.mem_exclusive", "1");
	g_free(before);
	before = settings_dump(&s);
	for (int round = 0; round < 2; round++) {
		st_stop(&s);
		restart_same(&s, before);
	}
	g_free(before);
	st_teardown(&s);
}

/* Thousands of groups: records that cross the reader's chunks come back
 * whole; a line longer than a chunk, garbled, stops the replay there. */
static void test_many(void)
{
	struct st_env s;
	struct state_load load;
	char *before, *after, *big;
	GString *rec = g_string_new(NULL);
	uint64_t top;

	st_setup(&s);
	top = mkdir_ok(&s.e, s.e.top[0], "top");
	for (unsigned i = 0; i < 3000; i++) {
		char name[32];
		uint64_t g;

		g_snprintf(name, sizeof(name), "group %u with a longer name", i);
		g = mkdir_ok(&s.e, top, name);
		if (i % 3 == 0)
			wr_ok(&s.e, g, "cpu.shares", i % 2 ? "512" : "4096");
	}
	before = settings_dump(&s);
	st_stop(&s);
	g_assert_cmpuint(snapshot_lines(&s, "mkdir "), ==, 3001);
	restart_same(&s, before);

	big = g_strnfill(200 << 10, 'x');
	st_crash(&s);
	append_text(s.log_path, big);
	append_text(s.log_path, "\n");
	add_line(rec, "mkdir =cpuset,cpu,cpuacct 99999 0 =after 493 0 0");
	append_text(s.log_path, rec->str);
	st_new_core(&s);
	g_test_expect_message(G_LOG_DOMAIN, G_LOG_LEVEL_WARNING, "*garbled record*");
	g_assert_cmpint(state_replay(s.e.core, s.path, BOOT, &load), ==, 0);
	g_test_assert_expected_messages();
	EXPECT_INT(load.torn, 1, "%s", "torn records");
	EXPECT_INT(load.refused, 0, "%s", "refused records");
	g_assert_cmpuint(group(&s, "/after"), ==, 0);
	after = settings_dump(&s);
	g_assert_cmpstr(after, ==, before);
	g_free(after);
	g_string_free(rec, TRUE);
	g_free(big);
	g_free(before);
	st_teardown(&s);
}

/* A version-3 snapshot of the previous release, which wrote every
 * setting, defaults too, is replayed, its log after it; the snapshot
 * written then has only what differs. */
static void test_version3_full(void)
{
	static const char *const defaults[] = {
		"cpu.idle =0", "cpu.cfs_period_us =100000", "cpu.cfs_quota_us =-1",
		"cpu.cfs_burst_us =0", "cpu.rt_period_us =1000000", "cpuset.mems =0",
	};
	struct st_env s;
	GString *snap = g_string_new(NULL), *log = g_string_new(NULL);
	uint64_t a, b;

	st_setup(&s);
	st_crash(&s);
	add_line(snap, "cgfused-state 3 7 =" BOOT);
	add_line(snap, "write =cpuset,cpu,cpuacct 0 =cgroup.clone_children =1%0A");
	add_line(snap, "write =cpuset,cpu,cpuacct 0 =notify_on_release =0%0A");
	add_line(snap, "write =cpuset,cpu,cpuacct 0 =release_agent =/bin/agent%0A");
	add_line(snap, "mkdir =cpuset,cpu,cpuacct 32 0 =a 493 0 0");
	add_line(snap, "write =cpuset,cpu,cpuacct 32 =cgroup.clone_children =1%0A");
	add_line(snap, "write =cpuset,cpu,cpuacct 32 =notify_on_release =1%0A");
	add_line(snap, "write =cpuset,cpu,cpuacct 32 =cpu.shares =512%0A");
	add_line(snap, "write =cpuset,cpu,cpuacct 32 =cpuset.cpus =1-2%0A");
	add_line(snap, "mkdir =cpuset,cpu,cpuacct 48 32 =b 493 0 0");
	add_line(snap, "write =cpuset,cpu,cpuacct 48 =cgroup.clone_children =0%0A");
	add_line(snap, "write =cpuset,cpu,cpuacct 48 =notify_on_release =1%0A");
	add_line(snap, "write =cpuset,cpu,cpuacct 48 =cpu.shares =1024%0A");
	add_line(snap, "write =cpuset,cpu,cpuacct 48 =cpuset.cpus =2%0A");
	for (guint i = 0; i < G_N_ELEMENTS(defaults); i++) {
		char *line = g_strdup_printf("write =cpuset,cpu,cpuacct 32 =%s%%0A", defaults[i]);

		add_line(snap, line);
		line[strlen("write =cpuset,cpu,cpuacct ")] = '4';
		line[strlen("write =cpuset,cpu,cpuacct 4")] = '8';
		add_line(snap, line);
		g_free(line);
	}
	add_line(log, "cgfused-log 3 7");
	add_line(log, "write =cpuset,cpu,cpuacct 48 =cpu.shares =300");
	g_assert_true(g_file_set_contents(s.path, snap->str, -1, NULL));
	g_assert_true(g_file_set_contents(s.log_path, log->str, -1, NULL));

	st_restart(&s, BOOT);
	a = group(&s, "/a");
	b = group(&s, "/a/b");
	g_assert_cmpuint(b, !=, 0);
	assert_content(&s.e, s.e.top[0], "release_agent", "/bin/agent\n");
	assert_content(&s.e, a, "notify_on_release", "1\n");
	assert_content(&s.e, a, "cpu.shares", "512\n");
	assert_content(&s.e, a, "cpuset.cpus", "1-2\n");
	assert_content(&s.e, b, "cgroup.clone_children", "0\n");
	assert_content(&s.e, b, "notify_on_release", "1\n");
	assert_content(&s.e, b, "cpu.shares", "300\n");
	assert_content(&s.e, b, "cpuset.cpus", "2\n");
	assert_content(&s.e, b, "cpu.cfs_quota_us", "-1\n");
	/* a: notify, shares, cpus; b: clone, shares, cpus (its notify is a's). */
	EXPECT_INT(writes_of(&s, a), 3, "%s", "writes of a");
	EXPECT_INT(writes_of(&s, b), 3, "%s", "writes of b");
	EXPECT_INT(snapshot_lines(&s, "cgfused-state 3 8 "), 1, "%s", "the new snapshot's header");
	g_string_free(log, TRUE);
	g_string_free(snap, TRUE);
	st_teardown(&s);
}

/* Compactions built in steps (state_snap.h). */

/* What the state keeps of cgrp and below, by path (ids change at a
 * restart): settings, changed attributes, members. Called locked. */
static void dump_all(struct cgroup *cgrp, GPtrArray *lines)
{
	const char *root = cgrp->root->name;
	char *path = cgroup_path(cgrp);
	GString *val = g_string_new(NULL);
	GHashTableIter iter;
	struct cgroup *child;
	struct cg_iattr attr;
	struct task *t;

	cgroup_iattr(cgrp, CG_DIR, &attr);
	g_ptr_array_add(lines, g_strdup_printf("%s:%s %u %u %o", root, path, attr.uid, attr.gid,
					       attr.mode & 07777));
	for (unsigned i = 0; i < cgrp->root->files->len; i++) {
		const struct cg_file *f = g_ptr_array_index(cgrp->root->files, i);

		if (!cgroup_has_file(cgrp, f))
			continue;
		if (cgroup_iattr_own(cgrp, i)) {
			cgroup_iattr(cgrp, i, &attr);
			g_ptr_array_add(lines, g_strdup_printf("%s:%s %s %u %u %o", root, path,
							       f->name, attr.uid, attr.gid,
							       attr.mode & 07777));
		}
		if (!cftype_writable(f->cft) || (f->cft->flags & CFTYPE_NO_STATE))
			continue;
		g_string_truncate(val, 0);
		g_assert_cmpint(cgroup_file_show(cgrp, i, val), ==, 0);
		g_ptr_array_add(lines, g_strdup_printf("%s:%s %s=%s", root, path, f->name, val->str));
	}
	for (GList *l = cgrp->parent ? cgrp->csets.head : NULL; l; l = l->next)
		css_set_for_each_task(t, (struct css_set *)l->data)
			g_ptr_array_add(lines, g_strdup_printf("%s:%s task %d", root, path, t->tid));
	g_string_free(val, TRUE);
	g_free(path);
	cgroup_for_each_child(child, &iter, cgrp)
		dump_all(child, lines);
}

static char *join_sorted(GPtrArray *lines)
{
	char *text;

	g_ptr_array_sort(lines, cmp_str);
	g_ptr_array_add(lines, NULL);
	text = g_strjoinv("\n", (char **)lines->pdata);
	g_ptr_array_unref(lines);
	return text;
}

/* Every hierarchy's groups and members, sorted, in one text. */
static char *state_dump(struct st_env *s)
{
	GPtrArray *lines = g_ptr_array_new_with_free_func(g_free);

	cg_write_lock(&s->e.core->lock);
	for (unsigned r = 0; r < 2 && s->e.root[r]; r++)
		dump_all(s->e.root[r]->top, lines);
	cg_write_unlock(&s->e.core->lock);
	return join_sorted(lines);
}

/* The snapshot file's records (its header left out), sorted. */
static char *snapshot_body_sorted(struct st_env *s)
{
	GPtrArray *lines = g_ptr_array_new_with_free_func(g_free);
	char *data = NULL, **split;

	g_assert_true(g_file_get_contents(s->path, &data, NULL, NULL));
	split = g_strsplit(data, "\n", -1);
	for (char **l = split + 1; *l; l++)
		if (**l)
			g_ptr_array_add(lines, g_strdup(*l));
	g_strfreev(split);
	g_free(data);
	return join_sorted(lines);
}

/* The records of the core now, as a snapshot made under one hold of the
 * lock has them, sorted. */
static char *core_body_sorted(struct st_env *s)
{
	GPtrArray *lines = g_ptr_array_new_with_free_func(g_free);
	GString *now = g_string_new(NULL);
	unsigned nr = 0;
	char **split;

	cg_write_lock(&s->e.core->lock);
	snap_groups(now, s->e.core, &nr);
	snap_tasks(now, s->e.core, &nr);
	cg_write_unlock(&s->e.core->lock);
	split = g_strsplit(now->str, "\n", -1);
	for (char **l = split; *l; l++)
		if (**l)
			g_ptr_array_add(lines, g_strdup(*l));
	g_strfreev(split);
	g_string_free(now, TRUE);
	return join_sorted(lines);
}

/* The changes made between the steps of a build: change(s, i) before
 * step i + 1, until it says there are no more. */
static struct st_env *steps_env;
static bool (*steps_change)(struct st_env *s, unsigned i);
static unsigned steps_made;
static bool steps_over;

static void steps_hook(const char *step)
{
	if (strcmp(step, "step") == 0 && !steps_over) {
		steps_over = !steps_change(steps_env, steps_made);
		steps_made += !steps_over;
	}
}

/* A clean stop whose snapshot is built a group a step, with changes
 * landing between the steps (and so on groups visited before and after
 * them): the snapshot holds exactly what the core held at its switch
 * (nothing changes after it), and a restart from it restores it all,
 * refusing no record, and again after another start. */
static void check_steps(struct st_env *s, bool (*change)(struct st_env *s, unsigned i),
			unsigned nr_changes)
{
	struct state_load load;
	char *before, *snap, *core, *after;

	steps_env = s;
	steps_change = change;
	steps_made = 0;
	steps_over = false;
	state_step_hook = steps_hook;
	state_step_groups = 1;
	g_assert_cmpint(state_snapshot(s->st), ==, 0);
	state_step_hook = NULL;
	state_step_groups = 0;
	EXPECT_INT(steps_made, nr_changes, "%s", "changes made between steps");

	before = state_dump(s);
	snap = snapshot_body_sorted(s);
	core = core_body_sorted(s);
	g_assert_cmpstr(snap, ==, core);
	st_crash(s);
	st_new_core(s);
	g_assert_cmpint(state_replay(s->e.core, s->path, BOOT, &load), ==, 0);
	EXPECT_INT(load.refused, 0, "%s", "refused records");
	EXPECT_INT(load.torn, 0, "%s", "torn records");
	after = state_dump(s);
	g_assert_cmpstr(after, ==, before);
	g_free(after);
	for (int again = 0; again < 2; again++) {
		st_restart(s, BOOT);
		after = state_dump(s);
		g_assert_cmpstr(after, ==, before);
		g_free(after);
	}
	g_free(before);
	g_free(snap);
	g_free(core);
}

static void chmod_ok(struct st_env *s, uint64_t id, unsigned file, mode_t mode)
{
	struct cg_setattr req = { .valid = CG_ATTR_MODE, .mode = mode };

	g_assert_cmpint(cg_setattr(s->e.core, id, file, &req, &root_cred), ==, 0);
}

static void rename_ok(struct st_env *s, uint64_t parent, const char *from, const char *to)
{
	g_assert_cmpint(cg_rename(s->e.core, parent, from, parent, to, &root_cred), ==, 0);
}

static void rmdir_ok(struct st_env *s, uint64_t parent, const char *name)
{
	g_assert_cmpint(cg_rmdir(s->e.core, parent, name, &root_cred), ==, 0);
}

static uint64_t child_id(struct st_env *s, unsigned r, const char *name)
{
	char *path = g_strconcat("/", name, NULL);
	uint64_t id = group_in(s, r, path);

	g_free(path);
	g_assert_cmpuint(id, !=, 0);
	return id;
}

/* v1, two hierarchies (cpu,cpuacct and cpuset, clone_children). */
static bool v1_change(struct st_env *s, unsigned i)
{
	struct env *e = &s->e;
	uint64_t id;

	switch (i) {
	case 0:
		id = mkdir_ok(e, child_id(s, 0, "g0"), "new");
		wr_ok(e, id, "cpu.shares", "300");
		return true;
	case 1:
		rmdir_ok(s, e->top[0], "g3");
		return true;
	case 2:
		rename_ok(s, e->top[0], "g4", "g4r");
		return true;
	case 3:	/* what a mkdir under g0 gives changes (the top's would
		 * have every group visited again) */
		wr_ok(e, child_id(s, 0, "g0"), "notify_on_release", "1");
		return true;
	case 4:
		wr_ok(e, child_id(s, 0, "g5"), "tasks", "500");
		return true;
	case 5:
		wr_ok(e, child_id(s, 0, "g6"), "tasks", "500");
		wr_ok(e, child_id(s, 0, "g6"), "cgroup.procs", "510");
		return true;
	case 6:
		id = child_id(s, 0, "g7");
		chmod_ok(s, id, CG_DIR, 0700);
		chmod_ok(s, id, file_index(e, id, "cpu.shares"), 0600);
		return true;
	case 7:
		id = mkdir_ok(e, child_id(s, 0, "g8"), "sub");
		wr_ok(e, id, "tasks", "520");
		return true;
	case 8:	/* a fork joins g6, a thread of 510 exits: told at the next change */
		fake_kf_fork(e->fk, 500, 530, 530);
		fake_kf_exit(e->fk, 511);
		wr_ok(e, child_id(s, 0, "g9"), "cpu.shares", "700");
		return true;
	case 9:	/* the same name, another group */
		rmdir_ok(s, e->top[0], "g10");
		wr_ok(e, mkdir_ok(e, e->top[0], "g10"), "cpu.shares", "900");
		return true;
	case 10:
		rename_ok(s, e->top[0], "g11", "tmp");
		rename_ok(s, e->top[0], "g12", "g11");
		rename_ok(s, e->top[0], "tmp", "g12");
		return true;
	case 11:	/* the top's children no longer start alike */
		wr_ok(e, child_id(s, 1, "h2"), "cpuset.cpu_exclusive", "1");
		return true;
	case 12:
		wr_ok(e, child_id(s, 1, "h3"), "tasks", "500");
		wr_ok(e, mkdir_ok(e, child_id(s, 1, "h4"), "x"), "cpuset.cpus", "1");
		return true;
	}
	return false;
}

static void test_steps_v1(void)
{
	struct st_env s;
	char name[8];
	uint64_t id;

	st_setup_full(&s, true);
	fake_kf_add_process(s.e.fk, 500, 1);
	fake_kf_add_process(s.e.fk, 510, 3);
	fake_kf_add_process(s.e.fk, 520, 1);
	for (unsigned i = 0; i < 20; i++) {
		g_snprintf(name, sizeof(name), "g%u", i);
		id = mkdir_ok(&s.e, s.e.top[0], name);
		if (i % 3 == 0)
			wr_ok(&s.e, id, "cpu.shares", "2000");
	}
	for (unsigned i = 0; i < 3; i++) {
		g_snprintf(name, sizeof(name), "c%u", i);
		mkdir_ok(&s.e, child_id(&s, 0, "g0"), name);
	}
	/* h2's cpus apart, to be made exclusive */
	for (unsigned i = 0; i < 10; i++) {
		g_snprintf(name, sizeof(name), "h%u", i);
		wr_ok(&s.e, mkdir_ok(&s.e, s.e.top[1], name), "cpuset.cpus", i == 2 ? "3" : "0-2");
	}
	wr_ok(&s.e, child_id(&s, 0, "g1"), "tasks", "500");
	wr_ok(&s.e, child_id(&s, 0, "g2"), "cgroup.procs", "510");
	wr_ok(&s.e, child_id(&s, 1, "h1"), "cgroup.procs", "510");
	check_steps(&s, v1_change, 13);
	st_teardown(&s);
}

/* v2: cgroup.subtree_control and cgroup.type written while the snapshot
 * is built, threads placed in a threaded subtree. */
static bool v2_change(struct st_env *s, unsigned i)
{
	struct env *e = &s->e;
	uint64_t p = child_id(s, 0, "p"), d = child_id(s, 0, "d");

	switch (i) {
	case 0:
		wr_ok(e, e->top[0], "cgroup.subtree_control", "+pids");
		wr_ok(e, p, "cgroup.subtree_control", "+pids");
		return true;
	case 1:
		wr_ok(e, group(s, "/p/c1"), "cpu.weight", "300");
		wr_ok(e, group(s, "/p/c2"), "pids.max", "40");
		return true;
	case 2:	/* d a threaded domain, t2 invalid */
		wr_ok(e, group(s, "/d/t1"), "cgroup.type", "threaded");
		return true;
	case 3:
		mkdir_ok(e, group(s, "/d/t1"), "tt");
		wr_ok(e, d, "cgroup.procs", "600");
		wr_ok(e, group(s, "/d/t1"), "cgroup.threads", "601");
		return true;
	case 4:
		rmdir_ok(s, e->top[0], "q2");
		wr_ok(e, child_id(s, 0, "q3"), "cgroup.procs", "610");
		return true;
	case 5:	/* c1 loses its cpu.weight */
		wr_ok(e, p, "cgroup.subtree_control", "-cpu");
		return true;
	case 6:
		wr_ok(e, group(s, "/p/c3"), "pids.max", "7");
		return true;
	}
	return false;
}

static void test_steps_v2(void)
{
	unsigned nr = 0, mask = 0;
	struct st_env s;
	char name[8];

	st_setup_closed(&s, false);
	cg_core_free(s.e.core);
	while (cgfused_controllers[nr])
		nr++;
	for (unsigned i = 0; i < nr; i++)
		if (!cgfused_controllers[i]->legacy_only)
			mask |= 1u << i;
	s.e.core = cg_core_new(cgfused_controllers, nr, fake_kf_facade(s.e.fk));
	s.e.root[0] = cg_root_new(s.e.core, &cgroup2_face, mask, false);
	s.e.top[0] = s.e.root[0]->top->id;
	s.st = state_open(s.e.core, s.path, BOOT, NULL);
	g_assert_nonnull(s.st);
	fake_kf_add_process(s.e.fk, 600, 3);
	fake_kf_add_process(s.e.fk, 610, 1);
	wr_ok(&s.e, s.e.top[0], "cgroup.subtree_control", "+cpu");
	mkdir_ok(&s.e, s.e.top[0], "p");
	wr_ok(&s.e, child_id(&s, 0, "p"), "cgroup.subtree_control", "+cpu");
	for (unsigned i = 1; i <= 3; i++) {
		g_snprintf(name, sizeof(name), "c%u", i);
		mkdir_ok(&s.e, child_id(&s, 0, "p"), name);
	}
	mkdir_ok(&s.e, s.e.top[0], "d");
	mkdir_ok(&s.e, child_id(&s, 0, "d"), "t1");
	mkdir_ok(&s.e, child_id(&s, 0, "d"), "t2");
	for (unsigned i = 0; i < 6; i++) {
		g_snprintf(name, sizeof(name), "q%u", i);
		mkdir_ok(&s.e, s.e.top[0], name);
	}
	check_steps(&s, v2_change, 7);
	st_teardown(&s);
}

/* Only one daemon uses a state file. */
static void test_lock(void)
{
	struct st_env s;
	struct env other;
	GError *err = NULL;

	st_setup(&s);
	env_setup(&other);
	g_assert_null(state_open(other.core, s.path, BOOT, &err));
	g_assert_nonnull(err);
	g_assert_nonnull(strstr(err->message, "in use"));
	g_clear_error(&err);
	env_teardown(&other);
	st_teardown(&s);
}

static void test_default_path(void)
{
	char *p = state_default_path("/sys/fs/cgroup/my-cg");

	if (geteuid() == 0)
		g_assert_cmpstr(p, ==, STATE_DIR "/sys-fs-cgroup-my%2Dcg.state");
	else
		g_assert_true(g_str_has_suffix(p, "/cgfused/sys-fs-cgroup-my%2Dcg.state"));
	g_free(p);
}

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	/* A failed check fails its case; the next cases still run. */
	g_test_set_nonfatal_assertions();
	g_test_add_func("/state/reload", test_reload);
	g_test_add_func("/state/identity", test_identity);
	g_test_add_func("/state/forks-while-down", test_forks_while_down);
	g_test_add_func("/state/two-hierarchies", test_two_hierarchies);
	g_test_add_func("/state/zero-tail", test_zero_tail);
	g_test_add_func("/state/log-growth", test_log_growth);
	g_test_add_func("/state/torn-and-garbled", test_torn_and_garbled);
	g_test_add_func("/state/old-generation", test_old_generation);
	g_test_add_func("/state/compaction", test_compaction);
	g_test_add_func("/state/compaction-at-rmdir", test_compaction_at_rmdir);
	g_test_add_func("/state/compaction-crash", test_compaction_crash);
	g_test_add_func("/state/steps-v1", test_steps_v1);
	g_test_add_func("/state/steps-v2", test_steps_v2);
	g_test_add_func("/state/what-is-logged", test_what_is_logged);
	g_test_add_func("/state/foreign", test_foreign);
	g_test_add_func("/state/version1", test_version1);
	g_test_add_func("/state/inherited", test_inherited);
	g_test_add_func("/state/exclusive-siblings", test_exclusive_siblings);
	g_test_add_func("/state/version3-full", test_version3_full);
	g_test_add_func("/state/many", test_many);
	g_test_add_func("/state/lock", test_lock);
	g_test_add_func("/state/default-path", test_default_path);
	return g_test_run();
}
