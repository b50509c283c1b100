/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The unit tests' shared harness: a core on the fake kernel facade with one
 * or two hierarchies, control files written and read by name through
 * cg_file_write/cg_file_read, and checks that fail a test without stopping
 * it. */
#ifndef CGFUSED_TEST_ENV_H
#define CGFUSED_TEST_ENV_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include <glib.h>

#include "core/iattr.h"

struct fake_kf;
struct cg_core;
struct cg_root;
struct cg_face;

/* A failed check of a table row fails the test and says which row, and the
 * test goes on, so that one run lists every difference from the kernel. */
#define FAILF(...)								\
	do {									\
		char *m_ = g_strdup_printf(__VA_ARGS__);			\
		g_test_message("FAIL: %s", m_);					\
		g_test_fail_printf("%s", m_);					\
		g_free(m_);							\
	} while (0)

#define EXPECT_INT(got, want, fmt, ...)						\
	do {									\
		long long got_ = (long long)(got), want_ = (long long)(want);	\
		if (got_ != want_)						\
			FAILF(fmt ": got %lld, want %lld", __VA_ARGS__, got_, want_); \
	} while (0)

/* Root, as who makes, removes and renames groups in the tests that are not
 * about permissions. */
extern const struct cg_cred root_cred;

/* The subsys_mask bit of a controller, by name. */
unsigned ctl_bit(const char *name);

struct env {
	struct fake_kf *fk;
	struct cg_core *core;
	struct cg_root *root[2];
	uint64_t top[2];	/* ids of the hierarchy roots */
	pid_t writer;		/* the thread wr() writes as; 1 after setup */
};

/* One hierarchy with every controller, or with two the kernel's usual
 * split (cpu,cpuacct and cpuset); clone_children true is main's default. */
void env_setup_full(struct env *e, bool two_hierarchies, bool clone_children);
/* One hierarchy, clone_children: env_setup_full(e, false, true). */
void env_setup(struct env *e);
/* One hierarchy of face (&cgroup1_face: clone_children) with the
 * controllers of mask (ctl_bit()s), no thread yet. */
void env_setup_root(struct env *e, const struct cg_face *face, unsigned mask);
/* Frees the core, then checks that it closed every identity it opened. */
void env_teardown(struct env *e);

uint64_t mkdir_ok(struct env *e, uint64_t parent, const char *name);
/* The index of the file name in group cgrp_id (which must have it). */
unsigned file_index(struct env *e, uint64_t cgrp_id, const char *name);

/* One write of len bytes to a file by thread writer, as root. */
ssize_t wrn(struct env *e, uint64_t cgrp_id, const char *file, const char *buf, size_t len,
	    pid_t writer);
/* One write of str to a file; the writer is thread e->writer. */
ssize_t wr(struct env *e, uint64_t cgrp_id, const char *file, const char *str);
void wr_ok(struct env *e, uint64_t cgrp_id, const char *file, const char *str);
/* The whole content of a file (must be readable); g_free() it. */
char *rd(struct env *e, uint64_t cgrp_id, const char *file);
void assert_content(struct env *e, uint64_t cgrp_id, const char *file, const char *want);
/* The same, but not fatal. */
void expect_content(struct env *e, uint64_t cgrp_id, const char *file, const char *want);
/* The count of a "max N" file (pids.events, pids.events.local). */
long long max_events(struct env *e, uint64_t cgrp_id, const char *file);
/* Whether the list in file contains id as a line. */
bool lists(struct env *e, uint64_t cgrp_id, const char *file, pid_t id);

/* How many css_sets and tasks the core has now. */
unsigned nr_css_sets(struct env *e);
unsigned nr_tasks(struct env *e);

#endif
