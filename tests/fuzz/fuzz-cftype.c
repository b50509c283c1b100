/* SPDX-License-Identifier: GPL-2.0-or-later */
/* libFuzzer target: arbitrary bytes written to every writable control file
 * of a small hierarchy (root, c, c/d; one process of two threads in c)
 * through the core's cg_file_write(), the way FUSE hands writes over.
 *
 * Input: byte 0 picks the group, byte 1 the file, the rest is written in
 * one write. Properties:
 * - the write returns its full length or an errno the kernel's cgroupfs
 *   can give for it;
 * - a refused write changes nothing: every file of every group reads as
 *   before;
 * - after an accepted one, the file reads back a valid value of its kind
 *   (a number, a CPU list...), and writing that back is accepted and reads
 *   the same;
 * - writing the file's first value back restores the whole state.
 * The hierarchy is built once and restored after each input, so that an
 * execution costs a few writes and reads, not a new core. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/cgroup.h"
#include "core/internal.h"
#include "lib/cpumask.h"
#include "fake-kfacade.h"
#include "lib/kparse.h"
#include "test-env.h"

#define CHECK(cond) do { if (!(cond)) __builtin_trap(); } while (0)
#define PROC 200	/* the process in c: threads 200 and 201 */

static struct env e;
static uint64_t groups[3];
static GArray *writable[3];	/* unsigned file indices, per group */
static GArray *state_files;	/* struct state_file: what snapshot() reads */
static GString *initial, *now;	/* snapshots: at the start, after a write */
static GPtrArray *first[3];	/* each writable file's first content */

struct state_file {
	unsigned group, file;
};

static char *read_file(uint64_t id, unsigned file)
{
	GString *out = g_string_new(NULL);

	CHECK(cg_file_read(e.core, id, file, out) == 0);
	return g_string_free(out, FALSE);
}

/* The state is every readable file of every group; but no cpuacct file
 * (nothing charges time here, so they all read 0, and each read costs a
 * 24 KiB snapshot) and not cgfused.stat (the daemon's own counters). */
static void find_state_files(void)
{
	state_files = g_array_new(FALSE, FALSE, sizeof(struct state_file));
	for (unsigned g = 0; g < 3; g++) {
		struct cgroup *cgrp = cgroup_by_id(e.core, groups[g]);

		for (unsigned i = 0; i < e.root[0]->files->len; i++) {
			const struct cg_file *f = g_ptr_array_index(e.root[0]->files, i);
			struct state_file sf = { g, i };

			if (cgroup_has_file(cgrp, f) && (cftype_mode(f->cft) & 0444) &&
			    !(f->ss && !strcmp(f->ss->name, "cpuacct")) &&
			    strcmp(f->name, "cgfused.stat"))
				g_array_append_val(state_files, sf);
		}
	}
}

/* The state, into out: each file's content after a NUL. */
static void snapshot(GString *out)
{
	g_string_truncate(out, 0);
	for (unsigned i = 0; i < state_files->len; i++) {
		const struct state_file *sf = &g_array_index(state_files, struct state_file, i);

		g_string_append_c(out, '\0');
		CHECK(cg_file_read(e.core, groups[sf->group], sf->file, out) == 0);
	}
}

static void check_state_unchanged(void)
{
	snapshot(now);
	CHECK(now->len == initial->len && memcmp(now->str, initial->str, now->len) == 0);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	env_setup(&e);
	groups[0] = e.top[0];
	groups[1] = mkdir_ok(&e, groups[0], "c");
	groups[2] = mkdir_ok(&e, groups[1], "d");
	wr_ok(&e, groups[2], "cpuset.cpus", "1");	/* d had c's 0-3: clone_children */
	wr_ok(&e, groups[1], "cpuset.cpus", "0-2");
	fake_kf_add_process(e.fk, PROC, 2);
	wr_ok(&e, groups[1], "cgroup.procs", "200");
	for (unsigned g = 0; g < 3; g++) {
		struct cg_root *root = e.root[0];

		writable[g] = g_array_new(FALSE, FALSE, sizeof(unsigned));
		first[g] = g_ptr_array_new();
		for (unsigned i = 0; i < root->files->len; i++) {
			const struct cg_file *f = g_ptr_array_index(root->files, i);
			struct cgroup *cgrp = cgroup_by_id(e.core, groups[g]);

			if (cgroup_has_file(cgrp, f) && cftype_writable(f->cft)) {
				g_array_append_val(writable[g], i);
				g_ptr_array_add(first[g], read_file(groups[g], i));
			}
		}
	}
	find_state_files();
	initial = g_string_new(NULL);
	now = g_string_new(NULL);
	snapshot(initial);
	return 0;
}

static bool is_tasks(const char *name)
{
	return !strcmp(name, "tasks") || !strcmp(name, "cgroup.procs");
}

/* The content is a valid value of the file's kind. */
static void check_valid(const struct cg_file *f, const char *s)
{
	size_t len = strlen(s);

	CHECK(len > 0 && s[len - 1] == '\n');
	if (f->cft->read_u64) {
		unsigned long long v;

		CHECK(s[0] != '+' && kstrtoull(s, 10, &v) == 0);
	} else if (f->cft->read_s64) {
		long long v;

		CHECK(s[0] != '+' && kstrtoll(s, 10, &v) == 0);
	} else if (!strcmp(f->name, "cpuset.cpus") || !strcmp(f->name, "cpuset.mems")) {
		struct cpumask m;
		char *copy = g_strdup(s);

		CHECK(cpumask_parselist(kstrstrip(copy), &m, CPUMASK_BITS) == 0);
		g_free(copy);
	} else if (is_tasks(f->name)) {
		char **lines = g_strsplit(s, "\n", -1);

		for (char **l = lines; *l && **l; l++) {
			int pid;

			CHECK(kstrtoint(*l, 10, &pid) == 0 && (pid == PROC || pid == PROC + 1));
		}
		g_strfreev(lines);
	}	/* release_agent: any bytes, stripped */
}

/* What cgroupfs may answer a write (besides its length). */
static bool allowed_errno(ssize_t ret)
{
	switch (-ret) {
	case EINVAL: case ERANGE: case EOVERFLOW: case E2BIG: case EBUSY: case EACCES:
	case ESRCH: case ENOSPC:
		return true;
	}
	return false;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct cg_cred cred = { .pid = 1 };	/* root, as FUSE tells */
	unsigned g, k, file;
	const struct cg_file *f;
	ssize_t ret;
	char *got;

	if (size < 2)
		return 0;
	g = data[0] % 3;
	k = data[1] % writable[g]->len;
	file = g_array_index(writable[g], unsigned, k);
	f = g_ptr_array_index(e.root[0]->files, file);
	ret = cg_file_write(e.core, groups[g], file, (const char *)data + 2, size - 2, &cred);
	if (ret <= 0) {	/* an empty write is no command */
		CHECK(ret == 0 ? size == 2 : allowed_errno(ret));
		check_state_unchanged();	/* a refused write changed nothing */
		return 0;
	}
	CHECK((size_t)ret == size - 2);
	if (!(cftype_mode(f->cft) & 0444))
		goto restore;
	got = read_file(groups[g], file);
	check_valid(f, got);
	if (!is_tasks(f->name)) {
		/* What reads back is accepted as it is, and stays. */
		char *again;

		CHECK(cg_file_write(e.core, groups[g], file, got, strlen(got), &cred) ==
		      (ssize_t)strlen(got));
		again = read_file(groups[g], file);
		CHECK(strcmp(again, got) == 0);
		g_free(again);
	}
	g_free(got);
restore:
	if (is_tasks(f->name)) {
		unsigned procs = 0;

		cg_write_lock(&e.core->lock);
		CHECK(cgroup_file_by_name(cgroup_by_id(e.core, groups[1]), "cgroup.procs", &procs));
		cg_write_unlock(&e.core->lock);
		CHECK(cg_file_write(e.core, groups[1], procs, "200", 3, &cred) == 3);
	} else {
		const char *was = g_ptr_array_index(first[g], k);
		size_t len = strlen(was);

		CHECK(cg_file_write(e.core, groups[g], file, was, len, &cred) == (ssize_t)len);
	}
	check_state_unchanged();
	return 0;
}
