/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A hierarchy's face: the files it shows and its rules, chosen when the
 * hierarchy is made, as the kernel's css_populate_dir() picks
 * cgroup1_base_files or cgroup_base_files by cgroup_on_dfl(). mkdir,
 * rmdir, attach and css_sets exist once, in the core; a face adds its
 * base files and says where its rules differ.
 *
 * What a face takes from the core is declared here and nowhere else
 * (kernel/cgroup/cgroup-internal.h is that list for cgroup-v1.c): the
 * functions below, and cgroup_attach() and cgroup_list_tasks() from
 * core/attach.h. A face's files and hooks are called locked, and so are
 * these, but for a cftype's prepare and cgroup_attach_prepare(), which run
 * before the lock is taken (core/cftype.h). */
#ifndef CGFUSED_FACE_H
#define CGFUSED_FACE_H

#include <stdbool.h>
#include <sys/types.h>

#include "core/attach.h"
#include "core/cgroup.h"

struct cg_face {
	/* First in every directory (each keeps its CFTYPE_ flags),
	 * terminated by an entry with name NULL. */
	const struct cftype *base_files;
	/* Which table of each controller it shows: dfl_files (the default
	 * hierarchy, v2) or legacy_files (v1). */
	bool dfl;
	/* Whether cgrp may take new_name in new_parent, asked after the
	 * VFS's checks and the name's length: 0 or -errno. NULL: no group
	 * is ever renamed (EPERM, kernfs without a rename operation). */
	int (*rename)(struct cgroup *cgrp, struct cgroup *new_parent, const char *new_name);
	/* A new group (never a root), its parent set, before its
	 * controllers' css are made: what it takes from its parent, which
	 * css_alloc may read. NULL: nothing. */
	void (*mkdir)(struct cgroup *cgrp);
};

/* cgroup->flags, the CGRP_* bits. */
bool cgroup_flag(const struct cgroup *cgrp, unsigned flag);
void cgroup_set_flag(struct cgroup *cgrp, unsigned flag, bool on);

/* The release agent of cgrp's hierarchy ("": none), and setting it (a
 * copy of agent is kept). */
const char *cgroup_release_agent(const struct cgroup *cgrp);
void cgroup_set_release_agent(struct cgroup *cgrp, const char *agent);

/* Who owns cgrp's hierarchy: the user who made its root (root, or the
 * daemon's user, see cg_root_set_owner()). */
uid_t cgroup_root_owner(const struct cgroup *cgrp);

#endif
