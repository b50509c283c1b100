/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Threaded mode and cgroup.type (kernel/cgroup/cgroup.c): a domain whose
 * children turned threaded is their thread root ("domain threaded"); a
 * threaded group's threads belong to that root's domain (dom_cgrp); a
 * group below a thread root or a threaded group that is not threaded
 * itself can hold no task ("domain invalid"). */
#include "v2/v2.h"

#include <errno.h>
#include <string.h>

#include "lib/kparse.h"

bool cgroup_is_threaded(const struct cgroup *cgrp)
{
	return cgrp->dom_cgrp != cgrp;
}

/* The root takes both tasks and controllers (cgroup_is_mixable()). */
static bool is_mixable(const struct cgroup *cgrp)
{
	return !cgrp->parent;
}

/* Tasks in cgrp itself; the root holds every untracked one. */
static bool has_tasks(const struct cgroup *cgrp)
{
	return !cgrp->parent || cgrp->nr_populated_csets;
}

unsigned cgroup_threaded_mask(const struct cg_root *root)
{
	unsigned mask = 0;

	for (unsigned i = 0; i < cg_core_nr_subsys(cg_root_core(root)); i++)
		if (cg_core_subsys(cg_root_core(root), i)->threaded)
			mask |= 1u << i;
	return mask & cg_root_subsys_mask(root);
}

bool cgroup_is_thread_root(const struct cgroup *cgrp)
{
	if (cgroup_is_threaded(cgrp))
		return false;
	if (cgrp->nr_threaded_children)
		return true;
	/* A domain with tasks and threaded controllers enabled. */
	return has_tasks(cgrp) && (cgrp->subtree_control & cgroup_threaded_mask(cgrp->root));
}

bool cgroup_is_valid_domain(const struct cgroup *cgrp)
{
	if (cgroup_is_threaded(cgrp))
		return false;
	while ((cgrp = cgrp->parent)) {
		if (!is_mixable(cgrp) && cgroup_is_thread_root(cgrp))
			return false;
		if (cgroup_is_threaded(cgrp))
			return false;
	}
	return true;
}

static bool has_populated_domain_children(const struct cgroup *cgrp)
{
	GHashTableIter iter;
	struct cgroup *child;

	cgroup_for_each_child(child, &iter, (struct cgroup *)cgrp)
		if (!cgroup_is_threaded(child) && cgroup_is_populated(child))
			return true;
	return false;
}

bool cgroup_can_be_thread_root(const struct cgroup *cgrp)
{
	if (is_mixable(cgrp))
		return true;
	if (cgroup_is_threaded(cgrp))
		return false;
	/* Either domain or threaded children, and no domain controller. */
	if (has_populated_domain_children(cgrp))
		return false;
	return !(cgrp->subtree_control & ~cgroup_threaded_mask(cgrp->root));
}

int cgroup_type_show(struct css *css, const struct cftype *cft, GString *out)
{
	struct cgroup *cgrp = css->cgroup;

	(void)cft;
	if (cgroup_is_threaded(cgrp))
		g_string_append(out, "threaded\n");
	else if (!cgroup_is_valid_domain(cgrp))
		g_string_append(out, "domain invalid\n");
	else if (cgroup_is_thread_root(cgrp))
		g_string_append(out, "domain threaded\n");
	else
		g_string_append(out, "domain\n");
	return 0;
}

int cgroup_type_save_show(struct css *css, const struct cftype *cft, GString *out)
{
	(void)cft;
	if (cgroup_is_threaded(css->cgroup))
		g_string_append(out, "threaded\n");
	return 0;
}

static void set_dom(struct cgroup *cgrp, struct cgroup *dom)
{
	GHashTableIter iter;
	struct cgroup *child;

	cgrp->dom_cgrp = dom;
	cgroup_for_each_child(child, &iter, cgrp)
		if (cgroup_is_threaded(child))
			set_dom(child, dom);
}

/* cgroup_enable_threaded(): joins the parent's domain, with the threaded
 * groups below. */
static int enable_threaded(struct cgroup *cgrp)
{
	struct cgroup *parent = cgrp->parent;
	struct cgroup *dom = parent->dom_cgrp;

	if (cgroup_is_threaded(cgrp))
		return 0;
	/* Populated, or with domain controllers enabled: cannot switch. */
	if (cgroup_is_populated(cgrp) ||
	    (cgrp->subtree_control & ~cgroup_threaded_mask(cgrp->root)))
		return -EOPNOTSUPP;
	if (!cgroup_is_valid_domain(dom) || !cgroup_can_be_thread_root(dom))
		return -EOPNOTSUPP;
	set_dom(cgrp, dom);
	parent->nr_threaded_children++;
	return 0;
}

/* Only "threaded" may be written: a group never turns back. */
int cgroup_type_write(struct cg_file_ctx *ctx, char *buf, size_t nbytes)
{
	(void)nbytes;
	if (strcmp(kstrstrip(buf), "threaded"))
		return -EINVAL;
	return enable_threaded(ctx->css->cgroup);
}
