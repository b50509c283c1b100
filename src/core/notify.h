/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Subscribers: who hears of the core's changes. The core names none of its
 * consumers (the allocator, the state, the release agent): they subscribe,
 * as kernel/cgroup/cgroup.c notifies and its consumers listen.
 *
 * Context. Every callback runs with the core lock (core->lock) held, in the
 * thread that made the change, once the change succeeded and before it is
 * answered (prepare: before it is applied): its write side, but for stat,
 * which a read of cgfused.stat calls under the read side, side by side
 * with other readers (and other stat calls): stat only reads, its own
 * figures included, and writes nothing shared. A callback may read the tree
 * and the tasks, and must not change them, take the core lock, call any
 * cg_* function (they lock), or subscribe or unsubscribe anyone.
 *
 * No slow work (docs/design.md, "Locks and threads": the rule, its
 * exceptions and the lock order): a callback records what it needs (a
 * copy, a counter, a flag) and leaves the rest to its own thread: the
 * allocator records and kicks its thread, the release agent queues the
 * path for its worker, the state copies its record into its mapped log.
 * A subscriber's thread that holds its own lock never takes the core lock.
 *
 * Cost: an event nobody listens to costs a walk of the (short) list and
 * nothing else; the core allocates nothing for an event (no copy, no
 * string) unless some subscriber has its callback. */
#ifndef CGFUSED_NOTIFY_H
#define CGFUSED_NOTIFY_H

#include <glib.h>
#include <stdbool.h>

#include "core/cgroup.h"

/* A change about to be applied, for prepare. */
enum cg_change_kind {
	CG_CHANGE_MKDIR,
	CG_CHANGE_WRITE,
	CG_CHANGE_ATTACH,
};

struct cg_change {
	enum cg_change_kind kind;
	struct cgroup *cgrp;		/* mkdir: the parent; write, attach: the group */
	const char *name;		/* mkdir: the new group's name */
	unsigned file;			/* write: the file's index */
	const char *buf;		/* write: as written, len bytes, not terminated */
	size_t len;
	unsigned nr_tasks;		/* attach: how many threads move */
};

/* Any callback may be NULL. */
struct cg_subscriber {
	void *data;
	/* Veto: called after the core's own checks passed and before the
	 * change is applied; 0 lets it go on, -errno refuses it with that
	 * errno and nothing changes (e.g. -ENOSPC from a state that could not
	 * record it). The first subscriber to refuse ends the round: a
	 * subscriber that reserved something in prepare cannot count on
	 * hearing of the change (the change may still fail its own checks,
	 * e.g. a value out of range), so prepare should reserve nothing. */
	int (*prepare)(void *data, const struct cg_change *change);

	void (*mkdir)(void *data, struct cgroup *cgrp);
	/* An rmdir passed its checks: cgrp is removed right after (rmdir
	 * follows); the last moment its id can be read. */
	void (*removing)(void *data, struct cgroup *cgrp);
	/* After the group parent/name is gone (a snapshot made now has it
	 * no more). */
	void (*rmdir)(void *data, struct cgroup *parent, const char *name);
	void (*rename)(void *data, struct cgroup *cgrp, const char *old_name);
	/* A control file whose cftype has no CFTYPE_NO_STATE was written
	 * text (as written, NUL-terminated). */
	void (*write)(void *data, struct cgroup *cgrp, unsigned file, const char *text);
	/* Any control file was written successfully: a setting may have
	 * changed (the allocator's cue). Called after write. */
	void (*changed)(void *data, struct cgroup *cgrp, unsigned file);
	/* chmod, chown (file CG_DIR: the directory itself). */
	void (*setattr)(void *data, struct cgroup *cgrp, unsigned file);
	/* Tasks moved to one group of root (one attach): each task's cset
	 * says where it is now (core->init_css_set: in the root of every
	 * hierarchy). */
	void (*attach)(void *data, struct task *const *tasks, unsigned n,
		       const struct cg_root *root);
	/* A child joined its parent's groups in every hierarchy (a fork the
	 * kernel reported, or found after lost reports). */
	void (*fork)(void *data, struct task *parent, struct task *child);
	/* A tracked task is about to be dropped (it exited, or was made for
	 * an attach that failed): drop what is kept for it. */
	void (*exit)(void *data, struct task *t);
	/* cgrp became populated (a task in it or below) or empty; called for
	 * each ancestor whose state changed too, lowest first (the kernel's
	 * cgroup_update_populated). */
	void (*populated)(void *data, struct cgroup *cgrp, bool populated);
	/* cgrp's cgroup.events' frozen changed (v2; the freezer's enforcer
	 * calls it under the read side), or its cgroup.freeze changed with
	 * no effect, an ancestor freezing (the write, under the write side). */
	void (*frozen)(void *data, struct cgroup *cgrp, bool frozen);
	/* Appends the subscriber's lines to cgfused.stat: called under the
	 * core lock's read side, concurrently with other readers; it must
	 * change nothing (figures it reads may be a pass old). */
	void (*stat)(void *data, GString *out);
};

/* Adds or removes a subscriber (kept by pointer: it must outlive its
 * subscription; removing one that is not subscribed does nothing). The first two take the core lock; the _locked ones are
 * for a subscriber that must start listening at a precise point (the state,
 * right after its snapshot). */
void cg_subscribe(struct cg_core *core, const struct cg_subscriber *sub);
void cg_unsubscribe(struct cg_core *core, const struct cg_subscriber *sub);
void cg_subscribe_locked(struct cg_core *core, const struct cg_subscriber *sub);
void cg_unsubscribe_locked(struct cg_core *core, const struct cg_subscriber *sub);

/* The freezer's enforcer tells the subscribers that cgrp's frozen state
 * changed (called locked; the read side will do, see frozen above). */
void cg_notify_frozen(struct cg_core *core, struct cgroup *cgrp, bool frozen);

/* For the core (called locked). */

/* Calls every subscriber's callback fn. */
#define cg_notify(core, fn, ...)						\
	do {									\
		GPtrArray *s_ = (core)->subscribers;				\
		for (guint i_ = 0; i_ < s_->len; i_++) {			\
			const struct cg_subscriber *sub_ = s_->pdata[i_];	\
			if (sub_->fn)						\
				sub_->fn(sub_->data, __VA_ARGS__);		\
		}								\
	} while (0)

/* Whether any subscriber has callback fn (before building its argument). */
#define cg_notify_wanted(core, fn)						\
	({									\
		GPtrArray *s_ = (core)->subscribers;				\
		bool w_ = false;						\
		for (guint i_ = 0; !w_ && i_ < s_->len; i_++)			\
			w_ = ((const struct cg_subscriber *)s_->pdata[i_])->fn != NULL; \
		w_;								\
	})

/* Asks every subscriber's prepare: 0, or the first -errno. */
int cg_notify_prepare(struct cg_core *core, const struct cg_change *change);

#endif
