/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cgroup.procs and cgroup.threads (kernel: __cgroup_procs_write()): who
 * may move a task is delegation's rule, write access to cgroup.procs of
 * the common ancestor of its group and the destination, whoever owns the
 * task; where it may go, the no-internal-process rule and threaded mode. */
#include "v2/v2.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/task.h"
#include "lib/kparse.h"

static int cmp_pid(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;

	return (x > y) - (x < y);
}

/* cgrp's ids, and those of the threaded groups below it (a thread root
 * lists its whole threaded subtree's processes, CSS_TASK_ITER_THREADED). */
static int list_subtree(struct cgroup *cgrp, bool procs, bool threaded_below, GArray *ids)
{
	GHashTableIter iter;
	struct cgroup *child;
	int ret = cgroup_list_tasks(cgrp, procs, ids);

	if (threaded_below)
		cgroup_for_each_child(child, &iter, cgrp)
			if (ret == 0 && cgroup_is_threaded(child))
				ret = list_subtree(child, procs, true, ids);
	return ret;
}

static int show_ids(struct cgroup *cgrp, bool procs, GString *out)
{
	GArray *ids = g_array_new(FALSE, FALSE, sizeof(pid_t));
	int ret = list_subtree(cgrp, procs, procs && cgrp->parent, ids);
	char line[16];

	if (ids->len > 1)
		qsort(ids->data, ids->len, sizeof(pid_t), cmp_pid);
	for (guint i = 0; ret == 0 && i < ids->len; i++) {
		if (i && g_array_index(ids, pid_t, i) == g_array_index(ids, pid_t, i - 1))
			continue;
		g_string_append_len(out, line, snprintf(line, sizeof(line), "%d\n",
							 g_array_index(ids, pid_t, i)));
	}
	g_array_unref(ids);
	return ret;
}

int cgroup_procs_show(struct css *css, const struct cftype *cft, GString *out)
{
	(void)cft;
	/* A threaded group's processes are its thread root's to list. */
	if (cgroup_is_threaded(css->cgroup))
		return -EOPNOTSUPP;
	return show_ids(css->cgroup, true, out);
}

int cgroup_threads_show(struct css *css, const struct cftype *cft, GString *out)
{
	(void)cft;
	return show_ids(css->cgroup, false, out);
}

/* What the prepare found: the id written (0: the writer) and the
 * threads to move, read as root's (v2 asks nothing of their owner). */
struct procs_prep {
	pid_t pid;
	bool threadgroup;
	int found;			/* -ESRCH: no such task, checked first */
	struct cg_attach_prep *attach;
};

static void *prepare(struct cg_core *core, const char *buf, const struct cg_cred *cred,
		     bool threadgroup)
{
	static const struct cg_cred root = { 0 };
	char *copy = g_strdup(buf);
	struct procs_prep *p = NULL;
	int pid;

	if (kstrtoint(kstrstrip(copy), 0, &pid) == 0 && pid >= 0) {
		struct task_uids ids;

		p = g_new0(struct procs_prep, 1);
		p->pid = pid ? pid : cred->pid;
		p->threadgroup = threadgroup;
		p->found = cg_core_kf(core)->ops->task_uids(cg_core_kf(core), p->pid, &ids) == -ESRCH ? -ESRCH : 0;
		p->attach = cgroup_attach_prepare(core, p->pid, threadgroup, &root);
	}
	g_free(copy);
	return p;
}

void *cgroup_procs_prepare(struct cg_core *core, const char *buf, const struct cg_cred *cred)
{
	return prepare(core, buf, cred, true);
}

void *cgroup_threads_prepare(struct cg_core *core, const char *buf, const struct cg_cred *cred)
{
	return prepare(core, buf, cred, false);
}

void cgroup_procs_free_prep(void *prep)
{
	struct procs_prep *p = prep;

	cgroup_attach_prep_free(p->attach);
	g_free(p);
}

/* The group of the task (of its process's leader for a whole process):
 * an untracked one is in the root. */
static struct cgroup *task_group(struct cgroup *dst, pid_t pid, bool threadgroup)
{
	struct cg_core *core = cg_root_core(dst->root);
	struct task *t = task_lookup(core, pid);

	if (t && threadgroup)
		t = task_lookup(core, t->ident.tgid);
	return t ? css_set_cgroup(t->cset, dst->root) : cg_root_top(dst->root);
}

static bool is_descendant(const struct cgroup *cgrp, const struct cgroup *ancestor)
{
	for (; cgrp; cgrp = cgrp->parent)
		if (cgrp == ancestor)
			return true;
	return false;
}

/* cgroup_procs_write_permission(): write access to cgroup.procs of the
 * common ancestor. */
static int may_write_ancestor(struct cgroup *src, struct cgroup *dst,
			      const struct cg_cred *cred)
{
	struct cgroup *com = src;
	struct cg_iattr attr;
	unsigned file;

	while (!is_descendant(dst, com))
		com = com->parent;
	if (!cgroup_file_by_name(com, "cgroup.procs", &file))
		return -ENOENT;
	cgroup_iattr(com, file, &attr);
	return iattr_permission(&attr, cred, MAY_WRITE);
}

/* cgroup_migrate_vet_dst(): dst can hold tasks. */
static int vet_dst(struct cgroup *dst)
{
	if (!cgroup_is_valid_domain(dst->dom_cgrp))
		return -EOPNOTSUPP;
	if (cgroup_can_be_thread_root(dst) || cgroup_is_threaded(dst))
		return 0;
	/* the no-internal-process rule */
	return dst->subtree_control ? -EBUSY : 0;
}

int cgroup_procs_write(struct cg_file_ctx *ctx, char *buf, size_t nbytes)
{
	static const struct cg_cred root = { 0 };
	struct procs_prep *p = ctx->prep;
	struct cgroup *dst = ctx->css->cgroup, *src;
	int ret;

	(void)buf;
	(void)nbytes;
	if (!p)
		return -EINVAL;
	if (p->found)
		return p->found;
	src = task_group(dst, p->pid, p->threadgroup);
	ret = may_write_ancestor(src, dst, ctx->cred);
	if (ret == 0)
		ret = vet_dst(dst);
	/* A thread moves only within its domain (its threaded subtree). */
	if (ret == 0 && !p->threadgroup && src->dom_cgrp != dst->dom_cgrp)
		ret = -EOPNOTSUPP;
	if (ret == 0)
		ret = cgroup_attach(dst, p->attach, &root);
	if (ret == 0)
		cgroup_set_flag(dst, CGRP_KILL, false);	/* came after the kill */
	return ret;
}
