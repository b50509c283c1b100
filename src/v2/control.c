/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cgroup.controllers and cgroup.subtree_control: top-down, a group has the
 * controllers its parent's subtree_control enables (the root: every one of
 * its hierarchy), and enables some of them for its children. */
#include "v2/v2.h"

#include <errno.h>
#include <string.h>

#include "lib/kparse.h"

/* cgroup_control(): what cgrp may enable for its children. */
unsigned cgroup_control(const struct cgroup *cgrp)
{
	unsigned mask;

	if (!cgrp->parent)
		return cg_root_subsys_mask(cgrp->root);
	mask = cgrp->parent->subtree_control;
	/* Threaded groups have threaded controllers only. */
	if (cgroup_is_threaded(cgrp))
		mask &= cgroup_threaded_mask(cgrp->root);
	return mask;
}

/* Names in the controllers' order, space-separated (each after prefix),
 * one line. */
static void show_mask(const struct cgroup *cgrp, unsigned mask, const char *prefix,
		      GString *out)
{
	const struct cg_core *core = cg_root_core(cgrp->root);
	bool first = true;

	for (unsigned i = 0; i < cg_core_nr_subsys(core); i++) {
		if (!(mask & (1u << i)))
			continue;
		g_string_append_printf(out, "%s%s%s", first ? "" : " ", prefix,
				       cg_core_subsys(core, i)->name);
		first = false;
	}
	g_string_append_c(out, '\n');
}

int cgroup_controllers_show(struct css *css, const struct cftype *cft, GString *out)
{
	(void)cft;
	show_mask(css->cgroup, cgroup_control(css->cgroup), "", out);
	return 0;
}

int cgroup_subtree_control_show(struct css *css, const struct cftype *cft, GString *out)
{
	(void)cft;
	show_mask(css->cgroup, css->cgroup->subtree_control, "", out);
	return 0;
}

int cgroup_subtree_control_save_show(struct css *css, const struct cftype *cft, GString *out)
{
	(void)cft;
	if (css->cgroup->subtree_control)
		show_mask(css->cgroup, css->cgroup->subtree_control, "+", out);
	return 0;
}

/* The controller of this hierarchy named name, or -1. */
static int ssid_by_name(const struct cg_root *root, const char *name)
{
	for (unsigned i = 0; i < cg_core_nr_subsys(cg_root_core(root)); i++)
		if ((cg_root_subsys_mask(root) & (1u << i)) &&
		    strcmp(cg_core_subsys(cg_root_core(root), i)->name, name) == 0)
			return (int)i;
	return -1;
}

/* cgroup_vet_subtree_control_enable(): the no-internal-process rule and
 * threaded mode, for the controllers about to be enabled. */
static int vet_enable(struct cgroup *cgrp, unsigned enable)
{
	unsigned domain_enable = enable & ~cgroup_threaded_mask(cgrp->root);

	if (!enable)
		return 0;
	if (!cgroup_is_valid_domain(cgrp->dom_cgrp))
		return -EOPNOTSUPP;
	if (!cgrp->parent)
		return 0;	/* the root takes both */
	if (domain_enable) {
		/* no domain controller inside a threaded subtree */
		if (cgroup_is_thread_root(cgrp) || cgroup_is_threaded(cgrp))
			return -EOPNOTSUPP;
	} else if (cgroup_can_be_thread_root(cgrp) || cgroup_is_threaded(cgrp)) {
		return 0;	/* threaded controllers bear internal tasks */
	}
	/* Children would compete with the group's own tasks. */
	return cgrp->nr_populated_csets ? -EBUSY : 0;
}

/* A controller disabled for cgrp's children: each child's css of it
 * goes (the kernel kills it and makes a new one with the defaults when
 * the controller is enabled again); here it stays, with the defaults. */
static void reset_children_css(struct cgroup *cgrp, unsigned disable)
{
	const struct cg_core *core = cg_root_core(cgrp->root);
	GHashTableIter iter;
	struct cgroup *child;

	for (unsigned i = 0; i < cg_core_nr_subsys(core); i++) {
		const struct cgroup_subsys *ss = cg_core_subsys(core, i);

		if (!(disable & (1u << i)) || !ss->css_reset)
			continue;
		cgroup_for_each_child(child, &iter, cgrp)
			ss->css_reset(child->subsys[i]);
	}
}

/* cgroup_subtree_control_write(): "+cpu -cpuset", all or nothing. */
int cgroup_subtree_control_write(struct cg_file_ctx *ctx, char *buf, size_t nbytes)
{
	struct cgroup *cgrp = ctx->css->cgroup;
	unsigned enable = 0, disable = 0;
	char *tok, *p = kstrstrip(buf);
	GHashTableIter iter;
	struct cgroup *child;
	int ret;

	(void)nbytes;
	while ((tok = strsep(&p, " "))) {
		int ssid;

		if (!*tok)
			continue;
		ssid = ssid_by_name(cgrp->root, tok + 1);
		if (ssid < 0 || (*tok != '+' && *tok != '-'))
			return -EINVAL;
		if (*tok == '+') {
			enable |= 1u << ssid;
			disable &= ~(1u << ssid);
		} else {
			disable |= 1u << ssid;
			enable &= ~(1u << ssid);
		}
	}
	for (unsigned i = 0; i < CG_MAX_SUBSYS; i++) {
		unsigned bit = 1u << i;

		if (enable & bit) {
			if (cgrp->subtree_control & bit)
				enable &= ~bit;
			else if (!(cgroup_control(cgrp) & bit))
				return -ENOENT;
		} else if (disable & bit) {
			if (!(cgrp->subtree_control & bit)) {
				disable &= ~bit;
				continue;
			}
			cgroup_for_each_child(child, &iter, cgrp)
				if (child->subtree_control & bit)
					return -EBUSY;
		}
	}
	ret = vet_enable(cgrp, enable);
	if (ret)
		return ret;
	cgrp->subtree_control = (cgrp->subtree_control | enable) & ~disable;
	reset_children_css(cgrp, disable);
	return 0;
}
