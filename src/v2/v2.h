/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What the v2 face's files share (kernel/cgroup/cgroup.c, the default
 * hierarchy's half): the threaded-mode predicates and the handlers of
 * the files that have a rule of their own. All called locked (the core's
 * write side, or the read side for the predicates and shows). */
#ifndef CGFUSED_V2_H
#define CGFUSED_V2_H

#include <stdbool.h>

#include "core/face.h"

/* Threaded mode (threaded.c), by the kernel's names. */
bool cgroup_is_threaded(const struct cgroup *cgrp);
bool cgroup_is_thread_root(const struct cgroup *cgrp);
bool cgroup_is_valid_domain(const struct cgroup *cgrp);
bool cgroup_can_be_thread_root(const struct cgroup *cgrp);
/* Controllers that work inside a threaded subtree (ss->threaded). */
unsigned cgroup_threaded_mask(const struct cg_root *root);
int cgroup_type_show(struct css *css, const struct cftype *cft, GString *out);
int cgroup_type_write(struct cg_file_ctx *ctx, char *buf, size_t nbytes);
/* What the state keeps: "threaded" or nothing, the rest follows. */
int cgroup_type_save_show(struct css *css, const struct cftype *cft, GString *out);

/* cgroup.controllers and cgroup.subtree_control (control.c). */
unsigned cgroup_control(const struct cgroup *cgrp);
int cgroup_controllers_show(struct css *css, const struct cftype *cft, GString *out);
int cgroup_subtree_control_show(struct css *css, const struct cftype *cft, GString *out);
/* "+cpu +pids": what writing back takes. */
int cgroup_subtree_control_save_show(struct css *css, const struct cftype *cft, GString *out);
int cgroup_subtree_control_write(struct cg_file_ctx *ctx, char *buf, size_t nbytes);

/* cgroup.procs and cgroup.threads (procs.c). */
int cgroup_procs_show(struct css *css, const struct cftype *cft, GString *out);
int cgroup_threads_show(struct css *css, const struct cftype *cft, GString *out);
void *cgroup_procs_prepare(struct cg_core *core, const char *buf, const struct cg_cred *cred);
void *cgroup_threads_prepare(struct cg_core *core, const char *buf,
			     const struct cg_cred *cred);
void cgroup_procs_free_prep(void *prep);
int cgroup_procs_write(struct cg_file_ctx *ctx, char *buf, size_t nbytes);

/* cgroup.kill (kill.c). */
int cgroup_kill_write(struct cg_file_ctx *ctx, char *buf, size_t nbytes);

#endif
