/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cpuset: which CPUs and memory nodes a group's tasks may use, with the
 * kernel's v1 (legacy hierarchy) rules from kernel/cgroup/cpuset.c and
 * cpuset-v1.c: a child is a subset of its parent, a populated group cannot
 * be emptied, attaching to an empty cpuset fails, and with clone_children a
 * new group starts with its parent's sets. */
#include <errno.h>

#include <string.h>

#include "lib/cpumask.h"
#include "lib/kparse.h"
#include "ctl/ctl.h"

enum cpuset_filetype {
	FILE_CPULIST,
	FILE_MEMLIST,
	FILE_EFFECTIVE_CPULIST,
	FILE_EFFECTIVE_MEMLIST,
};

/* A node list may name nodes below MAX_NUMNODES (1024 here, as in the
 * kernel measured; ERANGE beyond); a CPU
 * list, CPUs below nr_cpu_ids, which the facade tells. */
#define CPUSET_NODE_BITS CPUMASK_BITS

static unsigned nr_cpu_ids(struct css *css)
{
	struct kfacade *kf = css_kfacade(css);

	return kf->ops->nr_cpu_ids(kf);
}

struct cpuset {
	struct css css;
	struct cpumask cpus_allowed, mems_allowed;
	struct cpumask effective_cpus, effective_mems;
};

static struct cpuset *css_cs(struct css *css)
{
	return (struct cpuset *)css;
}

static struct css *cpuset_css_alloc(struct css *parent)
{
	struct cpuset *cs = g_new0(struct cpuset, 1);

	(void)parent;
	return &cs->css;
}

static void cpuset_css_online(struct css *css)
{
	struct cpuset *cs = css_cs(css);

	if (!css->parent) {
		/* top_cpuset: everything that is online. */
		struct kfacade *kf = css_kfacade(css);

		cpumask_parselist(kf->ops->online_cpus(kf), &cs->cpus_allowed, nr_cpu_ids(css));
		cpumask_parselist(kf->ops->online_mems(kf), &cs->mems_allowed, CPUSET_NODE_BITS);
		cs->effective_cpus = cs->cpus_allowed;
		cs->effective_mems = cs->mems_allowed;
		return;
	}
	if (!(css->cgroup->flags & CGRP_CPUSET_CLONE_CHILDREN))
		return;
	struct cpuset *parent = css_cs(css->parent);

	cs->cpus_allowed = cs->effective_cpus = parent->cpus_allowed;
	cs->mems_allowed = cs->effective_mems = parent->mems_allowed;
}

static void cpuset_css_free(struct css *css)
{
	g_free(css_cs(css));
}

static struct cpuset *top_cpuset(struct css *css)
{
	while (css->parent)
		css = css->parent;
	return css_cs(css);
}

static bool is_cpuset_subset(const struct cpuset *p, const struct cpuset *q)
{
	return cpumask_subset(&p->cpus_allowed, &q->cpus_allowed) &&
	       cpumask_subset(&p->mems_allowed, &q->mems_allowed);
}

/* validate_change(), legacy hierarchy. */
static int validate_change(struct cpuset *cur, const struct cpuset *trial)
{
	GHashTableIter iter;
	struct cgroup *child;

	cgroup_for_each_child(child, &iter, cur->css.cgroup)
		if (!is_cpuset_subset(css_cs(css_in(&cur->css, child)), trial))
			return -EBUSY;
	if (!cur->css.parent)
		return 0;
	if (!is_cpuset_subset(trial, css_cs(cur->css.parent)))
		return -EACCES;
	/* 6.18 says EBUSY here where older kernels said ENOSPC (measured). */
	if (cgroup_is_populated(cur->css.cgroup)) {
		if (!cpumask_empty(&cur->cpus_allowed) && cpumask_empty(&trial->cpus_allowed))
			return -EBUSY;
		if (!cpumask_empty(&cur->mems_allowed) && cpumask_empty(&trial->mems_allowed))
			return -EBUSY;
	}
	return 0;
}

/* update_cpumasks_hier()/update_nodemasks_hier() on v1: a group's effective
 * sets are its own within its parent's effective ones. */
static int update_effective(struct css *css, void *data)
{
	struct cpuset *cs = css_cs(css);

	(void)data;
	if (!css->parent)
		return 0;
	cpumask_and(&cs->effective_cpus, &cs->cpus_allowed, &css_cs(css->parent)->effective_cpus);
	cpumask_and(&cs->effective_mems, &cs->mems_allowed, &css_cs(css->parent)->effective_mems);
	return 0;
}

/* update_cpumask() and update_nodemask(). */
static int update_mask(struct cpuset *cs, enum cpuset_filetype type, const char *buf)
{
	struct cpuset trial = *cs, *top = top_cpuset(&cs->css);
	struct cpumask *mask = type == FILE_CPULIST ? &trial.cpus_allowed : &trial.mems_allowed;
	const struct cpumask *all = type == FILE_CPULIST ? &top->cpus_allowed : &top->mems_allowed;
	const struct cpumask *cur = type == FILE_CPULIST ? &cs->cpus_allowed : &cs->mems_allowed;
	int ret;

	if (cs == top)
		return -EACCES;
	if (!*buf) {
		memset(mask, 0, sizeof(*mask));
	} else {
		ret = cpumask_parselist(buf, mask,
					type == FILE_CPULIST ? nr_cpu_ids(&cs->css) : CPUSET_NODE_BITS);
		if (ret < 0)
			return ret;
		if (!cpumask_subset(mask, all))
			return -EINVAL;
	}
	if (cpumask_equal(cur, mask))
		return 0;
	ret = validate_change(cs, &trial);
	if (ret < 0)
		return ret;
	*(type == FILE_CPULIST ? &cs->cpus_allowed : &cs->mems_allowed) = *mask;
	return css_for_each_descendant_pre(&cs->css, update_effective, NULL);
}

/* cpuset_write_resmask() */
static int cpuset_write_resmask(struct cg_file_ctx *ctx, char *buf, size_t nbytes)
{
	(void)nbytes;
	return update_mask(css_cs(ctx->css), (enum cpuset_filetype)ctx->cft->private,
			   kstrstrip(buf));
}

static int cpuset_common_seq_show(struct css *css, const struct cftype *cft, GString *out)
{
	struct cpuset *cs = css_cs(css);
	const struct cpumask *masks[] = {
		[FILE_CPULIST] = &cs->cpus_allowed,
		[FILE_MEMLIST] = &cs->mems_allowed,
		[FILE_EFFECTIVE_CPULIST] = &cs->effective_cpus,
		[FILE_EFFECTIVE_MEMLIST] = &cs->effective_mems,
	};

	cpumask_print_list(masks[cft->private], out);
	g_string_append_c(out, '\n');
	return 0;
}

static int cpuset_can_attach(struct css *css)
{
	struct cpuset *cs = css_cs(css);

	if (cpumask_empty(&cs->cpus_allowed) || cpumask_empty(&cs->mems_allowed))
		return -ENOSPC;
	return 0;
}

/* What the allocator gives member threads as their affinity. */
static const struct cpumask *cpuset_cpus(struct css *css)
{
	return &css_cs(css)->effective_cpus;
}

/* The kernel's max_write_len: room for a list of every CPU or node. */
static size_t cpus_max_write_len(struct kfacade *kf)
{
	return 100 + 6 * (size_t)kf->ops->nr_cpus(kf);
}

static size_t mems_max_write_len(struct kfacade *kf)
{
	(void)kf;
	return 100 + 6 * CPUSET_NODE_BITS;	/* MAX_NUMNODES: 6244 bytes measured */
}

static const struct cftype cpuset_legacy_files[] = {
	{ .name = "cpus", .private = FILE_CPULIST, .max_write_len = cpus_max_write_len,
	  .seq_show = cpuset_common_seq_show, .write = cpuset_write_resmask },
	{ .name = "mems", .private = FILE_MEMLIST, .max_write_len = mems_max_write_len,
	  .seq_show = cpuset_common_seq_show, .write = cpuset_write_resmask },
	{ .name = "effective_cpus", .private = FILE_EFFECTIVE_CPULIST,
	  .seq_show = cpuset_common_seq_show },
	{ .name = "effective_mems", .private = FILE_EFFECTIVE_MEMLIST,
	  .seq_show = cpuset_common_seq_show },
	{ 0 }
};

const struct cgroup_subsys cpuset_cgrp_subsys = {
	.name = "cpuset",
	.css_alloc = cpuset_css_alloc,
	.css_online = cpuset_css_online,
	.css_free = cpuset_css_free,
	.can_attach = cpuset_can_attach,
	.legacy_files = cpuset_legacy_files,
	.cpus = cpuset_cpus,
};
