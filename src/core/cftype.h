/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Control files, described by tables like the kernel's struct cftype.
 *
 * A file has either the u64/s64 accessors (the core formats and parses the
 * number the way kernel/cgroup/cgroup.c does) or seq_show/write for anything
 * else. A file with no write handler is read-only (mode 0444). */
#ifndef CGFUSED_CFTYPE_H
#define CGFUSED_CFTYPE_H

#include <glib.h>
#include <stdint.h>
#include <sys/types.h>

struct css;
struct cftype;
struct cg_core;
struct cg_cred;
struct kfacade;

/* kernfs refuses a write longer than this (E2BIG) to a cgroup file that
 * sets no max_write_len: PAGE_SIZE. */
#define CFTYPE_WRITE_MAX 4096

enum {
	CFTYPE_ONLY_ON_ROOT = 1u << 0,
	CFTYPE_NOT_ON_ROOT = 1u << 1,
	CFTYPE_NO_PREFIX = 1u << 2,	/* no "ctl." in front of the name */
	/* A write is an action, not a setting the state keeps (src/state/state.c):
	 * moving tasks (recorded as memberships instead), resetting a counter. */
	CFTYPE_NO_STATE = 1u << 3,
	/* Shows figures of the subtree's threads: the core samples them
	 * before a read or write, outside its lock (core/task_sample.h). */
	CFTYPE_SAMPLES = 1u << 4,
	/* On a hierarchy's top group (never removed), shown without the core
	 * lock, which the show takes itself: the root's task listings read
	 * /proc first, outside it (cgroup_list_tasks()). */
	CFTYPE_TOP_UNLOCKED = 1u << 5,
	/* A write may change which groups have a controller's css (v2's
	 * cgroup.subtree_control): whoever follows them looks again. */
	CFTYPE_CSS_MAP = 1u << 6,
	/* poll() reports a change of it (kernfs_notify(), v2's
	 * cgroup.events): see cg_file_events(). */
	CFTYPE_EVENTS = 1u << 7,
};

/* What a handler gets besides the css: the file and who writes (the
 * credentials the file was opened with; pid: the writing thread), and
 * what the cftype's prepare returned. */
struct cg_file_ctx {
	struct css *css;
	const struct cftype *cft;
	const struct cg_cred *cred;
	void *prep;
};

struct cftype {
	const char *name;
	unsigned flags;
	int private;			/* for the handlers: which file of several */
	uint64_t (*read_u64)(struct css *css, const struct cftype *cft);
	int64_t (*read_s64)(struct css *css, const struct cftype *cft);
	int (*seq_show)(struct css *css, const struct cftype *cft, GString *out);
	/* 0 or -errno; the value was parsed with kstrtoull / kstrtoll base 0. */
	int (*write_u64)(struct css *css, const struct cftype *cft, uint64_t val);
	int (*write_s64)(struct css *css, const struct cftype *cft, int64_t val);
	/* buf is NUL-terminated at nbytes (so an embedded NUL ends the command,
	 * as in kernfs) and may be modified; returns 0 or -errno. */
	int (*write)(struct cg_file_ctx *ctx, char *buf, size_t nbytes);
	/* Optional: the part of a write that needs system calls, called
	 * without the core lock before write (buf as write gets it, not to be
	 * changed; the group may be gone meanwhile). What it returns (NULL
	 * when buf makes no command) is ctx->prep, which write must check
	 * still holds; free_prep frees it once the lock is let go. */
	void *(*prepare)(struct cg_core *core, const char *buf, const struct cg_cred *cred);
	void (*free_prep)(void *prep);
	/* Optional: what the state saves of the setting, when what the file
	 * shows is not what writing it back takes (cgroup.subtree_control
	 * shows "cpu" but takes "+cpu"); compared with a new group's. */
	int (*save_show)(struct css *css, const struct cftype *cft, GString *out);
	/* The longest write taken (cft->max_write_len, which kernfs checks
	 * before anything else), asked once per hierarchy; NULL: a page. */
	size_t (*max_write_len)(struct kfacade *kf);
};

static inline int cftype_writable(const struct cftype *cft)
{
	return cft->write_u64 || cft->write_s64 || cft->write;
}

/* The mode the kernel gives such a file (cgroup_file_mode()). */
static inline unsigned cftype_mode(const struct cftype *cft)
{
	unsigned mode = 0;

	if (cft->read_u64 || cft->read_s64 || cft->seq_show)
		mode |= 0444;
	if (cftype_writable(cft))
		mode |= 0200;
	return mode;
}

#endif
