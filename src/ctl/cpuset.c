/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cpuset: which CPUs and memory nodes a group's tasks may use, with the
 * kernel's v1 (legacy hierarchy) rules from kernel/cgroup/cpuset.c and
 * cpuset-v1.c: a child is a subset of its parent, a populated group cannot
 * be emptied, attaching to an empty cpuset fails, and with clone_children a
 * new group starts with its parent's sets. The flag files (cpu_exclusive,
 * mem_exclusive, sched_load_balance, memory_spread_page ...) keep the
 * kernel's values, defaults, inheritance and rules, exclusive siblings
 * included, but are stored only: cgfused(8), DIFFERENCES FROM THE KERNEL. */
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
	FILE_CPU_EXCLUSIVE,
	FILE_MEM_EXCLUSIVE,
	FILE_MEM_HARDWALL,
	FILE_SCHED_LOAD_BALANCE,
	FILE_MEMORY_MIGRATE,
	FILE_MEMORY_PRESSURE,
	FILE_SPREAD_PAGE,
	FILE_SPREAD_SLAB,
	FILE_MEMORY_PRESSURE_ENABLED,
};

/* A cpuset's flags, one bit per flag file: the kernel's cpuset_flagbits_t
 * as far as v1 shows them. */
#define CS_FLAG(type) (1u << (type))
#define CS_EXCLUSIVE_FLAGS (CS_FLAG(FILE_CPU_EXCLUSIVE) | CS_FLAG(FILE_MEM_EXCLUSIVE))

/* sched_relax_domain_level takes -1 (the system's default) up to
 * sched_domain_level_max + 1, which depends on the machine's scheduling
 * domains and is not shown anywhere; 2 is what this kernel takes on a
 * 2-CPU machine (measured: 3 is EINVAL). */
#define RELAX_DOMAIN_LEVEL_MAX 2

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
	unsigned flags;			/* CS_FLAG()s */
	/* A child has had an exclusive flag: only then does a mkdir look
	 * at its siblings (a walk of them all, kept off the common path). */
	bool child_was_exclusive;
	int64_t relax_domain_level;
	bool memory_pressure_enabled;	/* the top cpuset's: the hierarchy's */
};

static struct cpuset *css_cs(struct css *css)
{
	return (struct cpuset *)css;
}

static struct css *cpuset_css_alloc(struct css *parent)
{
	struct cpuset *cs = g_new0(struct cpuset, 1);

	cs->flags = CS_FLAG(FILE_SCHED_LOAD_BALANCE);
	/* top_cpuset is exclusive: its children may be. */
	if (!parent)
		cs->flags |= CS_EXCLUSIVE_FLAGS;
	cs->relax_domain_level = -1;
	return &cs->css;
}

static bool has_exclusive_child(struct css *css)
{
	GHashTableIter iter;
	struct cgroup *child;

	if (!css_cs(css)->child_was_exclusive)
		return false;
	cgroup_for_each_child(child, &iter, css->cgroup)
		if (css_cs(css_in(css, child))->flags & CS_EXCLUSIVE_FLAGS)
			return true;
	return false;
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
	struct cpuset *parent = css_cs(css->parent);

	cs->flags |= parent->flags & (CS_FLAG(FILE_SPREAD_PAGE) | CS_FLAG(FILE_SPREAD_SLAB));
	/* The kernel clones nothing when a sibling is exclusive (the new
	 * group, not yet among its parent's children, would overlap it). */
	if (!(css->cgroup->flags & CGRP_CPUSET_CLONE_CHILDREN) || has_exclusive_child(css->parent))
		return;
	cs->cpus_allowed = cs->effective_cpus = parent->cpus_allowed;
	cs->mems_allowed = cs->effective_mems = parent->mems_allowed;
}

static bool cpuset_children_alike(struct css *css)
{
	return !(css->cgroup->flags & CGRP_CPUSET_CLONE_CHILDREN) || !has_exclusive_child(css);
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

static bool has_flag(const struct cpuset *cs, enum cpuset_filetype type)
{
	return cs->flags & CS_FLAG(type);
}

/* Also: an exclusive flag only where q has it too. */
static bool is_cpuset_subset(const struct cpuset *p, const struct cpuset *q)
{
	return cpumask_subset(&p->cpus_allowed, &q->cpus_allowed) &&
	       cpumask_subset(&p->mems_allowed, &q->mems_allowed) &&
	       has_flag(p, FILE_CPU_EXCLUSIVE) <= has_flag(q, FILE_CPU_EXCLUSIVE) &&
	       has_flag(p, FILE_MEM_EXCLUSIVE) <= has_flag(q, FILE_MEM_EXCLUSIVE);
}

static bool intersects(const struct cpumask *a, const struct cpumask *b)
{
	struct cpumask both;

	cpumask_and(&both, a, b);
	return !cpumask_empty(&both);
}

/* Two siblings conflict if either is exclusive and their sets meet. */
static bool excl_conflict(const struct cpuset *a, const struct cpuset *b)
{
	if ((has_flag(a, FILE_CPU_EXCLUSIVE) || has_flag(b, FILE_CPU_EXCLUSIVE)) &&
	    intersects(&a->cpus_allowed, &b->cpus_allowed))
		return true;
	return (has_flag(a, FILE_MEM_EXCLUSIVE) || has_flag(b, FILE_MEM_EXCLUSIVE)) &&
	       intersects(&a->mems_allowed, &b->mems_allowed);
}

/* validate_change(), legacy hierarchy. (Its EBUSY for shrinking an
 * exclusive group below its SCHED_DEADLINE tasks' bandwidth has no
 * counterpart: cgfused manages no deadline task.) */
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
	cgroup_for_each_child(child, &iter, cur->css.parent->cgroup) {
		struct cpuset *c = css_cs(css_in(cur->css.parent, child));

		if (c != cur && excl_conflict(trial, c))
			return -EINVAL;
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

static uint64_t cpuset_read_u64(struct css *css, const struct cftype *cft)
{
	struct cpuset *cs = css_cs(css);

	switch (cft->private) {
	case FILE_MEMORY_PRESSURE:
		return 0;	/* no reclaim is counted (memory_pressure_enabled or not) */
	case FILE_MEMORY_PRESSURE_ENABLED:
		return cs->memory_pressure_enabled;
	default:
		return has_flag(cs, (enum cpuset_filetype)cft->private);
	}
}

/* cpuset_update_flag(): the kernel takes the value as an int, so 2 sets a
 * flag and 2^32 clears it (measured). */
static int cpuset_write_u64(struct css *css, const struct cftype *cft, uint64_t val)
{
	struct cpuset *cs = css_cs(css), trial = *cs;
	int turning_on = (int)val;
	int ret;

	if (cft->private == FILE_MEMORY_PRESSURE_ENABLED) {
		cs->memory_pressure_enabled = !!val;
		return 0;
	}
	if (turning_on)
		trial.flags |= CS_FLAG(cft->private);
	else
		trial.flags &= ~CS_FLAG(cft->private);
	ret = validate_change(cs, &trial);
	if (ret == 0)
		cs->flags = trial.flags;
	if (ret == 0 && (cs->flags & CS_EXCLUSIVE_FLAGS) && css->parent)
		css_cs(css->parent)->child_was_exclusive = true;
	return ret;
}

static int64_t cpuset_read_s64(struct css *css, const struct cftype *cft)
{
	(void)cft;
	return css_cs(css)->relax_domain_level;
}

/* update_relax_domain_level() */
static int cpuset_write_s64(struct css *css, const struct cftype *cft, int64_t val)
{
	(void)cft;
	if (val < -1 || val > RELAX_DOMAIN_LEVEL_MAX)
		return -EINVAL;
	css_cs(css)->relax_domain_level = val;
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
	/* The kernel's order (cpuset1_files); the state replays a group's
	 * settings in it, the sets before the exclusive flags that need them
	 * not to overlap. */
	{ .name = "cpu_exclusive", .private = FILE_CPU_EXCLUSIVE,
	  .read_u64 = cpuset_read_u64, .write_u64 = cpuset_write_u64 },
	{ .name = "mem_exclusive", .private = FILE_MEM_EXCLUSIVE,
	  .read_u64 = cpuset_read_u64, .write_u64 = cpuset_write_u64 },
	{ .name = "mem_hardwall", .private = FILE_MEM_HARDWALL,
	  .read_u64 = cpuset_read_u64, .write_u64 = cpuset_write_u64 },
	{ .name = "sched_load_balance", .private = FILE_SCHED_LOAD_BALANCE,
	  .read_u64 = cpuset_read_u64, .write_u64 = cpuset_write_u64 },
	{ .name = "sched_relax_domain_level",
	  .read_s64 = cpuset_read_s64, .write_s64 = cpuset_write_s64 },
	{ .name = "memory_migrate", .private = FILE_MEMORY_MIGRATE,
	  .read_u64 = cpuset_read_u64, .write_u64 = cpuset_write_u64 },
	{ .name = "memory_pressure", .private = FILE_MEMORY_PRESSURE,
	  .read_u64 = cpuset_read_u64 },
	{ .name = "memory_spread_page", .private = FILE_SPREAD_PAGE,
	  .read_u64 = cpuset_read_u64, .write_u64 = cpuset_write_u64 },
	{ .name = "memory_spread_slab", .private = FILE_SPREAD_SLAB,
	  .read_u64 = cpuset_read_u64, .write_u64 = cpuset_write_u64 },
	{ .name = "memory_pressure_enabled", .flags = CFTYPE_ONLY_ON_ROOT,
	  .private = FILE_MEMORY_PRESSURE_ENABLED,
	  .read_u64 = cpuset_read_u64, .write_u64 = cpuset_write_u64 },
	{ 0 }
};

const struct cgroup_subsys cpuset_cgrp_subsys = {
	.name = "cpuset",
	.threaded = true,
	.css_alloc = cpuset_css_alloc,
	.css_online = cpuset_css_online,
	.css_free = cpuset_css_free,
	.can_attach = cpuset_can_attach,
	.legacy_files = cpuset_legacy_files,
	.cpus = cpuset_cpus,
	.children_alike = cpuset_children_alike,
};
