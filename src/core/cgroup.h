/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The cgroup core: hierarchies, cgroups, css, css_sets and tasks.
 *
 * Names follow the kernel (kernel/cgroup/cgroup.c) because readers know them.
 * Nothing here knows FUSE or any controller by name: controllers are handed in
 * as a table (struct cgroup_subsys) and the filesystem layer serves files from
 * the cftype tables it finds here.
 *
 * Locking: one reader-writer lock per core (the kernel's cgroup_mutex, made
 * a struct cg_lock): every change takes its write side, every read that
 * changes nothing (a control file's content, lookups, attributes, listings)
 * its read side, side by side with other readers. Functions named cg_*
 * take it themselves; those documented "called locked" expect it held (the
 * write side unless they say "read-locked"), and are for src/core and what
 * it calls: code outside hands its function to cg_core_read() or
 * cg_core_write() (core/core_call.h). See struct cg_core (core/internal.h)
 * for what it guards, docs/design.md "Locks and threads" for the lock
 * order. */
#ifndef CGFUSED_CGROUP_H
#define CGFUSED_CGROUP_H

#include <glib.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include <stdatomic.h>

#include "core/cftype.h"
#include "core/core_lock.h"
#include "core/iattr.h"
#include "kernel/kfacade.h"
#include "lib/list.h"
#include "lib/tidmap.h"

/* The kernel's CGROUP_SUBSYS_COUNT: room for cgfused's five controllers
 * (ctl/controllers.c) and three more. Every cgroup and css_set carries
 * arrays of this many pointers: 16 cost an empty group 64 bytes more
 * (the 1 KiB a group the scale goals allow). */
#define CG_MAX_SUBSYS 8
#define CG_NAME_MAX 4095	/* kernfs has no NAME_MAX: getname()'s PATH_MAX */
#define CG_DIR UINT_MAX		/* as a file index: the cgroup's directory itself */

struct cg_core;
struct cg_face;
struct cg_root;
struct cgroup;
struct css_set;
struct task;

/* cgroup_subsys_state: one controller's state in one cgroup. Controllers
 * embed it at the start of their own struct. */
struct css {
	struct cgroup *cgroup;
	const struct cgroup_subsys *ss;	/* NULL for cgroup->self */
	int ssid;			/* index in core->subsys, -1 for self */
	struct css *parent;
	unsigned refcnt;		/* the cgroup's own + one per css_set */
};

/* can_fork's kill_as: whose right to kill a refused child carries. */
#define CG_KILL_AS_ROOT ((uid_t)0)
#define CG_KILL_AS_NONE ((uid_t)-1)

/* A controller, like the kernel's struct cgroup_subsys. */
struct cgroup_subsys {
	const char *name;
	/* Allocates the css of a new cgroup (parent NULL for a root). The cgroup's
	 * flags (clone_children) are already inherited when this is called. */
	struct css *(*css_alloc)(struct css *parent);
	/* Called once css->cgroup and css->parent are set (may be NULL). */
	void (*css_online)(struct css *css);
	void (*css_free)(struct css *css);
	/* v2: the css is gone from its group (its controller disabled in the
	 * parent's cgroup.subtree_control): give it the settings css_alloc
	 * and css_online give under its parent, as the new css the kernel
	 * makes when the controller is enabled again (NULL: nothing kept).
	 * What it counts of its tasks stays true. */
	void (*css_reset)(struct css *css);
	/* May veto moving tasks into css: 0 or -errno (e.g. cpuset's ENOSPC). */
	int (*can_attach)(struct css *css);
	/* Its files, each table terminated by an entry with name NULL (or
	 * NULL: none): on a v1 hierarchy and on the default (v2) one, as the
	 * kernel's legacy_cftypes and dfl_cftypes. The face picks one. */
	const struct cftype *legacy_files;
	const struct cftype *dfl_files;
	/* For the allocator: the CFS weight (cpu.shares) of the css's group. */
	uint64_t (*weight)(struct css *css);
	/* For the allocator: the CPUs the css's tasks may run on. */
	const struct cpumask *(*cpus)(struct css *css);
	/* Accounting: a member thread ran for delta, on CPU delta->cpu. */
	void (*charge)(struct css *css, const struct task_cputime *delta);
	/* Whether a child made under css starts the same whatever its
	 * siblings are (NULL: always). cpuset: nothing is cloned beside an
	 * exclusive sibling, so a child's start depends on the order its
	 * siblings were made in; the state then saves them in full. */
	bool (*children_alike)(struct css *css);
	/* Counting: task t left css from for css to (from NULL: t is new;
	 * to NULL: t exited), called on every such change, t->dying as it
	 * is then. */
	void (*migrate)(const struct task *t, struct css *from, struct css *to);
	/* A child a member of css forked is about to join css: 0, or -EAGAIN
	 * when the kernel's fork would have failed (pids.max). User space
	 * cannot fail a fork: the core kills the child once it lets the lock
	 * go, with the right to kill that *kill_as names (set on -EAGAIN):
	 * CG_KILL_AS_ROOT, any child (marked dying before it joins, migrate);
	 * a uid, only a child that user could kill (kill(2): its real or
	 * saved uid), which is looked up after the unlock; CG_KILL_AS_NONE,
	 * none. */
	int (*can_fork)(struct css *css, uid_t *kill_as);
	/* Not on the default hierarchy (v2): a v1-only controller, as the
	 * kernel's cpuacct and v1 freezer (cgrp_dfl_inhibit_ss_mask). */
	bool legacy_only;
	/* Works inside a threaded subtree (the kernel's ss->threaded): the
	 * others are domain controllers, which the no-internal-process rule
	 * and threaded mode concern. */
	bool threaded;
	/* v2's cpu.stat: the lines after the core's usage ones, while the
	 * controller is enabled in the group (the kernel's cpu_extra_stat_show). */
	void (*extra_stat_show)(struct css *css, GString *out);
	/* v2's cpu.stat.local, while the controller is enabled in the group
	 * (the kernel's css_local_stat_show). */
	void (*local_stat_show)(struct css *css, GString *out);
};

/* Bits of cgroup->flags, as in the kernel. */
enum {
	CGRP_NOTIFY_ON_RELEASE = 1u << 0,
	CGRP_CPUSET_CLONE_CHILDREN = 1u << 1,
	/* v2: cgroup.kill was written; a child forked there is killed too,
	 * until the group is empty or a task is moved in. */
	CGRP_KILL = 1u << 2,
};

/* One control file of a hierarchy: a cftype and the controller it belongs to
 * (NULL for the core's own files), with its full name ("cpu.shares"). Files
 * are numbered by their position in their hierarchy's (cg_root_file()). */
struct cg_file {
	const struct cftype *cft;
	const struct cgroup_subsys *ss;
	int ssid;			/* index in core->subsys, -1 for core files */
	char *name;
	size_t max_write_len;		/* longer writes are E2BIG */
};

/* A hierarchy (the kernel's cgroup_root). */
struct cg_root;		/* its fields: core/internal.h */

struct cgroup {
	uint64_t id;			/* never reused; see cgroup_id_root() */
	char *name;			/* "" for a root */
	struct cgroup *parent;
	struct cg_root *root;
	GHashTable *children;		/* name -> struct cgroup * */
	GQueue csets;			/* struct css_set * whose css here is ours */
	unsigned flags;
	int64_t ctime_ns;		/* creation time, CLOCK_REALTIME */
	/* Boot time of its threads' last sample: readers claim a sample with
	 * a compare-and-swap (task_sample.c), under the read side. */
	_Atomic uint64_t sampled_ns;
	/* Bumped, under the write side, when a task joins or leaves it or a
	 * descendant: a sample reuses its copy of the members while this
	 * stays (task_sample.c). */
	uint64_t members_gen;
	/* Linked css_sets, and children that are populated (the kernel's
	 * counts, kept by cgroup_update_populated()). */
	unsigned nr_populated_csets, nr_populated_children;
	struct cg_iattr attr;		/* of its directory */
	/* Who made it: its files belong to them until chown. */
	uid_t creator_uid;
	gid_t creator_gid;
	GArray *file_iattrs;		/* files whose attributes changed, or NULL */
	/* Writes that changed a setting (not CFTYPE_NO_STATE), and its
	 * parent's count when it was made: a group written to since neither
	 * has the settings it was made with (the state's snapshot saves only
	 * what differs from those, src/state/state.c). */
	uint64_t nr_writes, parent_nr_writes;
	/* v2 (the default hierarchy): the controllers enabled for the
	 * children (bits of core->subsys, cgroup.subtree_control); the
	 * domain this group's threads belong to (itself, unless threaded);
	 * its threaded children; its own cgroup.max.depth and
	 * cgroup.max.descendants (UINT_MAX: max) and the groups below it. */
	unsigned subtree_control;
	struct cgroup *dom_cgrp;
	unsigned nr_threaded_children;
	unsigned max_depth, max_descendants, nr_descendants;
	/* cgroup.events changed (populated, frozen) this many times: poll()
	 * reports a change against what an open file last read. */
	_Atomic unsigned events_seq;
	/* v2's freezer: cgroup.freeze as written (the core lock's), and
	 * whether every thread of the subtree is stopped for it, as the
	 * freezer's enforcer found (cgroup.events' frozen). */
	bool freeze;
	_Atomic bool frozen;
	/* CPU time of its threads and its descendants' (v2's cpu.stat), in
	 * ns: run time, user and system time as /proc counts them (ticks),
	 * and cputime_adjust()'s split of the run time, which cpu.stat shows. */
	uint64_t usage_ns, utime, stime, prev_utime, prev_stime;
	struct css self;		/* the cgroup's own css, for core files */
	struct css *subsys[CG_MAX_SUBSYS];
};

/* The daemon's whole model (its fields: core/internal.h, for src/core
 * alone). */
struct cg_core;


/* What cg_core_new() sets: generous, but finite (the state on disk and
 * the daemon's memory grow with the groups a user may make). */
#define CG_MAX_DEPTH_DEFAULT 64
#define CG_MAX_DESCENDANTS_DEFAULT 1000000

/* Creating the model. A hierarchy binds the controllers named in subsys_mask
 * (bits index the array given to cg_core_new) and shows them through face
 * (v1: cgroup1_face, src/v1/face.h). Hierarchies may be added only before
 * the first task is attached. */
struct cg_core *cg_core_new(const struct cgroup_subsys *const *subsys, unsigned nr,
			    struct kfacade *kf);
struct cg_root *cg_root_new(struct cg_core *core, const struct cg_face *face,
			    unsigned subsys_mask, bool clone_children);
void cg_core_free(struct cg_core *core);

/* What the layers above read of the core (set before it serves, or never
 * changed: no lock needed). */
struct kfacade *cg_core_kf(const struct cg_core *core);
unsigned cg_core_nr_subsys(const struct cg_core *core);
const struct cgroup_subsys *cg_core_subsys(const struct cg_core *core, unsigned ssid);
unsigned cg_core_nr_roots(const struct cg_core *core);
struct cg_root *cg_core_root(const struct cg_core *core, unsigned index);
/* Whether a saved state is being replayed (restore.h); called locked. */
bool cg_core_loading(const struct cg_core *core);
/* v2's cgroup.max.depth and cgroup.max.descendants for every group, before
 * the core serves (default: CG_MAX_*_DEFAULT). */
void cg_core_set_limits(struct cg_core *core, unsigned max_depth, unsigned max_descendants);

/* What the layers above read of a hierarchy (set when it is made; the
 * release agent: called locked). */
struct cg_core *cg_root_core(const struct cg_root *root);
bool cg_root_dfl(const struct cg_root *root);		/* the default (v2) one */
unsigned cg_root_index(const struct cg_root *root);	/* cg_core_root()'s */
unsigned cg_root_subsys_mask(const struct cg_root *root);	/* bit i: subsys i bound */
const char *cg_root_name(const struct cg_root *root);	/* "cpu,cpuacct,cpuset" */
struct cgroup *cg_root_top(const struct cg_root *root);	/* its root cgroup */
const char *cg_root_release_agent(const struct cg_root *root);
/* Its files, in directory order (a cgroup's file index is one of them). */
unsigned cg_root_nr_files(const struct cg_root *root);
const struct cg_file *cg_root_file(const struct cg_root *root, unsigned index);

/* The longest write any control file of any hierarchy takes. */
size_t cg_core_max_write_len(struct cg_core *core);

/* A hierarchy's root belongs to root, mode 0555, as on the kernel; with
 * this, to a daemon's user who is not root: mode 0755, as that user has no
 * root's override to make groups in a directory without write permission. */
void cg_root_set_owner(struct cg_root *root, uid_t uid, gid_t gid);

/* Directory operations: 0 or -errno, with the kernel's errno values, cred
 * being who asks: the VFS's checks (search and write permission on the
 * parent, its sticky bit) come first, in the kernel's order. A new group
 * and its files belong to its maker (cgroup_kn_set_ugid), the directory
 * with mode & 01777 (the caller applied its umask). */
int cg_mkdir(struct cg_core *core, uint64_t parent_id, const char *name, mode_t mode,
	     const struct cg_cred *cred, uint64_t *new_id);
int cg_rmdir(struct cg_core *core, uint64_t parent_id, const char *name,
	     const struct cg_cred *cred);
int cg_rename(struct cg_core *core, uint64_t parent_id, const char *name,
	      uint64_t new_parent_id, const char *new_name, const struct cg_cred *cred);
/* cgroupfs cannot unlink: what the VFS answers (ENOENT, EACCES, EPERM for
 * a sticky parent, EISDIR for a group, else EPERM). */
int cg_unlink(struct cg_core *core, uint64_t parent_id, const char *name,
	      const struct cg_cred *cred);

/* Attributes of a cgroup's directory (file CG_DIR) or of one of its files:
 * 0, or -ENOENT when there is no such cgroup or file. */
int cg_get_iattr(struct cg_core *core, uint64_t cgrp_id, unsigned file, struct cg_iattr *out);
/* chmod, chown, utimes, truncate: checked as by the kernel, see
 * iattr_setattr(). */
int cg_setattr(struct cg_core *core, uint64_t cgrp_id, unsigned file,
	       const struct cg_setattr *req, const struct cg_cred *cred);
/* access(2) and the like: 0 or -EACCES for the MAY_* bits in mask. */
int cg_permission(struct cg_core *core, uint64_t cgrp_id, unsigned file, int mask,
		  const struct cg_cred *cred);

/* A cgroup id is a sequence number with its hierarchy's index in the low
 * bits, so that even a removed cgroup's id tells its hierarchy (an fd kept
 * open after rmdir can still be described, as on the kernel). */
#define CG_ID_ROOT_BITS 4
G_STATIC_ASSERT(CG_MAX_SUBSYS <= (1 << CG_ID_ROOT_BITS));


/* Called locked. */
struct cgroup *cgroup_by_id(struct cg_core *core, uint64_t id);
/* Every group of every hierarchy (roots too), appended to out in no order. */
void cgroup_list_all(struct cg_core *core, GPtrArray *out);
struct cgroup *cgroup_child(struct cgroup *cgrp, const char *name);
bool cgroup_has_file(const struct cgroup *cgrp, const struct cg_file *f);
const struct cg_file *cgroup_file_by_name(const struct cgroup *cgrp, const char *name,
					  unsigned *index);
/* Whether a task is in cgrp or below (a root always is). */
bool cgroup_is_populated(const struct cgroup *cgrp);
/* The attributes of the directory (CG_DIR) or a file it has. */
void cgroup_iattr(const struct cgroup *cgrp, unsigned file, struct cg_iattr *out);
/* Whether the file's attributes were changed (it has its own copy). */
bool cgroup_iattr_own(const struct cgroup *cgrp, unsigned file);
char *cgroup_path(const struct cgroup *cgrp);	/* "/a/b", "/" for a root */

/* Control files: open checks cred's permission for the access flags ask
 * (O_ACCMODE, O_TRUNC) and does what O_TRUNC does to the times; read
 * builds the whole content at once (the kernel's seq_file snapshot); write
 * is one command. All return 0/length or -errno; -ENODEV once the cgroup is
 * gone. As on the kernel, a write is checked against the credentials the
 * file was opened with (of->file->f_cred), not again for permission on the
 * file; cred->pid is the writing thread (what "0" names). */
int cg_file_open(struct cg_core *core, uint64_t cgrp_id, unsigned file, int flags,
		 const struct cg_cred *cred);
int cg_file_read(struct cg_core *core, uint64_t cgrp_id, unsigned file, GString *out);
/* The same, called read-locked, for a file the cgroup has: show
 * functions (read_u64, read_s64, seq_show) only read. */
int cgroup_file_show(struct cgroup *cgrp, unsigned file, GString *out);
/* The same as the state saves it (cft->save_show, else as shown). */
int cgroup_file_show_setting(struct cgroup *cgrp, unsigned file, GString *out);
/* The cftype's CFTYPE_ flags of a file of cgrp_id's hierarchy (0: no
 * such file), with no lock: hierarchies never change once served. */
unsigned cg_file_flags(struct cg_core *core, uint64_t cgrp_id, unsigned file);
/* For poll(): how many times the file's content changed by itself
 * (CFTYPE_EVENTS: cgroup.events), or -errno (-ENODEV once the group is
 * gone, -ENOENT for a file that never changes so). */
int cg_file_events(struct cg_core *core, uint64_t cgrp_id, unsigned file, unsigned *seq);
ssize_t cg_file_write(struct cg_core *core, uint64_t cgrp_id, unsigned file,
		      const char *buf, size_t len, const struct cg_cred *cred);

/* Called locked: what a group made now under parent would start with (its
 * flags and every controller's css, as mkdir makes them), for comparing
 * (the state saves what differs); unnumbered, unknown to the core and to
 * subscribers. Controllers' css_alloc and css_online touch nothing but
 * the new css, so making and freeing one changes nothing. */
struct cgroup *cgroup_probe_new(struct cgroup *parent);
void cgroup_probe_free(struct cgroup *probe);
/* Called locked: whether every child made under cgrp starts as the probe
 * does, whatever order its siblings are made in (children_alike). */
bool cgroup_children_alike(struct cgroup *cgrp);

/* Called locked (read side enough), for the default hierarchy (v2):
 * whether cgrp has controller ssid's css in the kernel's sense (its
 * parent's subtree_control enables it; a root has all its own), and the
 * css its tasks are governed by: its own, or the nearest ancestor's that
 * has one (the kernel's cgroup_e_css()). On v1 every group has every css
 * of its hierarchy. */
bool cgroup_css_enabled(const struct cgroup *cgrp, int ssid);
static inline struct css *cgroup_e_css(struct cgroup *cgrp, int ssid)
{
	if (cg_root_dfl(cgrp->root))
		while (cgrp->parent && !(cgrp->parent->subtree_control & (1u << ssid)))
			cgrp = cgrp->parent;
	return cgrp->subsys[ssid];
}

/* Called locked: whether a child forked by a member of cset is to be
 * killed (its group of the default hierarchy is being killed, CGRP_KILL). */
bool cgroup_kill_pending(struct cg_core *core, const struct css_set *cset);


/* Iterates a cgroup's live children (called locked). */
#define cgroup_for_each_child(pos, iter, cgrp)					\
	for (g_hash_table_iter_init((iter), (cgrp)->children);			\
	     g_hash_table_iter_next((iter), NULL, (gpointer *)&(pos));)

/* The same controller's css in a child cgroup. */
static inline struct css *css_in(const struct css *css, const struct cgroup *cgrp)
{
	return css->ssid < 0 ? (struct css *)&cgrp->self : cgrp->subsys[css->ssid];
}

/* Calls fn on css and then on every descendant, parents first; stops at the
 * first non-zero return and returns it (called locked). */
int css_for_each_descendant_pre(struct css *css, int (*fn)(struct css *, void *), void *data);

/* The kernel facade of the core this css lives in. */
static inline struct kfacade *css_kfacade(const struct css *css)
{
	return cg_core_kf(cg_root_core(css->cgroup->root));
}

/* -EPERM for a write the daemon could not enforce or undo; the log says
 * why the first time (*said: the caller's, one per reason). */
int cg_refuse_once(gsize *said, const char *what, const char *why);

/* 0 if the daemon may ptrace the tasks it manages, which the freezer and
 * the quota stop with it; else -EPERM, and the log says why once, naming
 * file: a freeze or a quota it could not enforce is refused, not
 * accepted. */
int css_may_trace(const struct css *css, const char *file);

#endif
