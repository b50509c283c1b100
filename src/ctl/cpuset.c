/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cpuset: which CPUs and memory nodes a group's tasks may use, with the
 * kernel's v1 (legacy hierarchy) rules from kernel/cgroup/cpuset.c and
 * cpuset-v1.c: a child is a subset of its parent, a populated group cannot
 * be emptied, attaching to an empty cpuset fails, and with clone_children a
 * new group starts with its parent's sets. The flag files (cpu_exclusive,
 * mem_exclusive, sched_load_balance, memory_spread_page ...) keep the
 * kernel's values, defaults, inheritance and rules, exclusive siblings
 * included, but are stored only: cgfused(8), DIFFERENCES FROM THE KERNEL.
 *
 * On the default hierarchy (v2) the rules are cpuset.c's dfl ones: a group
 * asks for any CPUs and nodes, gets them within its parent's effective
 * sets (its parent's when that leaves none), and may be a partition root
 * (cpuset.cpus.partition) that takes its CPUs from its parent's effective
 * ones (those of cpuset.cpus.exclusive when it is set, else those of
 * cpuset.cpus); what is applied as affinity is the effective set either
 * way. */
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
	FILE_ISOLATED_CPULIST,		/* v2 */
	FILE_EXCLUSIVE_CPULIST,		/* v2 */
	FILE_EFFECTIVE_XCPULIST,	/* v2 */
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

/* Partition root states (the kernel's partition_root_state); the
 * negative of one is that state, invalid. */
#define PRS_MEMBER 0
#define PRS_ROOT 1
#define PRS_ISOLATED 2

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
	/* The default hierarchy's cpuset.cpus.partition: PRS_*, negative
	 * when the state asked for cannot be had (then prs_err says why),
	 * and a valid partition's CPUs (the top's: all). */
	int prs;
	int prs_err;
	struct cpumask xcpus;
	/* cpuset.cpus.exclusive: the CPUs a partition made of it is to
	 * take (empty: those of cpuset.cpus). */
	struct cpumask exclusive_cpus;
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
		cs->effective_cpus = cs->xcpus = cs->cpus_allowed;
		cs->effective_mems = cs->mems_allowed;
		cs->prs = PRS_ROOT;
		return;
	}
	struct cpuset *parent = css_cs(css->parent);

	/* v2: nothing asked for, the parent's sets in effect (the kernel's
	 * use_parent_ecpus); no clone_children. */
	if (css_on_dfl(css)) {
		cs->effective_cpus = parent->effective_cpus;
		cs->effective_mems = parent->effective_mems;
		return;
	}

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

/* ---- the default hierarchy (v2): partitions and effective sets ---------- */

/* Why a partition is invalid: the kernel's prs_errcode and perr_strings
 * (those cgfused can meet). */
enum prs_errcode {
	PERR_NONE,
	PERR_INVCPUS,
	PERR_INVPARENT,
	PERR_NOTPART,
	PERR_NOTEXCL,
	PERR_NOCPUS,
	PERR_CPUSEMPTY,
};

static const char *const perr_strings[] = {
	[PERR_INVCPUS] = "Invalid cpu list in cpuset.cpus.exclusive",
	[PERR_INVPARENT] = "Parent is an invalid partition root",
	[PERR_NOTPART] = "Parent is not a partition root",
	[PERR_NOTEXCL] = "Cpu list in cpuset.cpus not exclusive",
	[PERR_NOCPUS] = "Parent unable to distribute cpu downstream",
	[PERR_CPUSEMPTY] = "cpuset.cpus and cpuset.cpus.exclusive are empty",
};

static bool is_partition_valid(const struct cpuset *cs)
{
	return cs->prs > 0;
}

/* partition_is_populated(): whether p has tasks that giving all its CPUs
 * to child partitions would leave with none: its own, or those of a child
 * that is no partition, but excluded (which is to be one). The top always
 * has (the kernel's threads). */
static bool partition_is_populated(struct cpuset *p, const struct cpuset *excluded)
{
	GHashTableIter iter;
	struct cgroup *child;

	if (!p->css.parent || p->css.cgroup->nr_populated_csets)
		return true;
	cgroup_for_each_child(child, &iter, p->css.cgroup) {
		const struct cpuset *c = css_cs(css_in(&p->css, child));

		if (c != excluded && !is_partition_valid(c) && cgroup_is_populated(child))
			return true;
	}
	return false;
}

/* user_xcpus(): the CPUs a partition made of cs asks for. */
static const struct cpumask *user_xcpus(const struct cpuset *cs)
{
	return cpumask_empty(&cs->exclusive_cpus) ? &cs->cpus_allowed : &cs->exclusive_cpus;
}

/* Whether child c of p may be a partition root, taken being the CPUs its
 * siblings' partitions took already: update_prs() and
 * update_parent_effective_cpumask()'s checks, in their order. A partition
 * root is exclusive: no sibling's cpuset.cpus may meet its own; one whose
 * cpuset.cpus.exclusive is set has had its write checked against its
 * siblings' (cpuset_exclusive_write()), which their cpuset.cpus no longer
 * concern. */
static enum prs_errcode partition_check(struct cpuset *p, struct cpuset *c,
					const struct cpumask *taken, struct cpumask *xcpus)
{
	GHashTableIter iter;
	struct cgroup *child;
	struct cpumask avail;

	cgroup_for_each_child(child, &iter, p->css.cgroup) {
		struct cpuset *s = css_cs(css_in(&p->css, child));

		if (s != c && cpumask_empty(&c->exclusive_cpus) &&
		    intersects(user_xcpus(s), &c->cpus_allowed))
			return PERR_NOTEXCL;
	}
	if (cpumask_empty(user_xcpus(c)))
		return PERR_CPUSEMPTY;
	if (!is_partition_valid(p))
		return p->prs ? PERR_INVPARENT : PERR_NOTPART;
	cpumask_and(xcpus, user_xcpus(c), &p->xcpus);
	if (cpumask_empty(xcpus))
		return PERR_INVCPUS;
	cpumask_andnot(&avail, &p->xcpus, taken);
	if (cpumask_subset(&avail, xcpus) && partition_is_populated(p, c))
		return PERR_NOCPUS;
	return PERR_NONE;
}

/* By name, so that which of two partitions that would together leave
 * their parent no CPU is refused does not depend on a hash. */
static gint by_name(gconstpointer a, gconstpointer b)
{
	const struct cpuset *x = *(struct cpuset *const *)a, *y = *(struct cpuset *const *)b;

	return strcmp(x->css.cgroup->name, y->css.cgroup->name);
}

/* Decides which of p's children that ask to be partition roots are, and
 * the CPUs they take from p. */
static void update_child_partitions(struct cpuset *p, struct cpumask *taken)
{
	GPtrArray *asking = g_ptr_array_new();
	GHashTableIter iter;
	struct cgroup *child;

	memset(taken, 0, sizeof(*taken));
	cgroup_for_each_child(child, &iter, p->css.cgroup) {
		struct cpuset *c = css_cs(css_in(&p->css, child));

		if (c->prs != PRS_MEMBER)
			g_ptr_array_add(asking, c);
	}
	g_ptr_array_sort(asking, by_name);
	for (guint i = 0; i < asking->len; i++) {
		struct cpuset *c = g_ptr_array_index(asking, i);
		struct cpumask xcpus;

		c->prs_err = partition_check(p, c, taken, &xcpus);
		c->prs = c->prs_err ? -ABS(c->prs) : ABS(c->prs);
		if (!c->prs_err) {
			c->xcpus = xcpus;
			cpumask_or(taken, taken, &xcpus);
		}
	}
	g_ptr_array_unref(asking);
}

/* update_cpumasks_hier() and update_nodemasks_hier() on the default
 * hierarchy, for cs's subtree: that of the parent of the group whose sets
 * or partition changed (its siblings' partitions, and with them its
 * parent's effective CPUs, may change too; nothing above). A valid
 * partition has its own CPUs less those its child partitions took; any
 * other group what it asks for within its parent's effective sets, or,
 * when that leaves none (or it asks for none), its parent's. */
static void update_dfl(struct cpuset *cs)
{
	GHashTableIter iter;
	struct cgroup *child;
	struct cpumask taken;

	update_child_partitions(cs, &taken);
	if (is_partition_valid(cs))
		cpumask_andnot(&cs->effective_cpus, &cs->xcpus, &taken);
	cgroup_for_each_child(child, &iter, cs->css.cgroup) {
		struct cpuset *c = css_cs(css_in(&cs->css, child));

		if (!is_partition_valid(c)) {
			cpumask_and(&c->effective_cpus, &c->cpus_allowed, &cs->effective_cpus);
			if (cpumask_empty(&c->effective_cpus))
				c->effective_cpus = cs->effective_cpus;
		}
		cpumask_and(&c->effective_mems, &c->mems_allowed, &cs->effective_mems);
		if (cpumask_empty(&c->effective_mems))
			c->effective_mems = cs->effective_mems;
		update_dfl(c);
	}
}

/* cpuset_write_resmask() on the default hierarchy: any CPUs or nodes
 * this machine has, whatever the parent's (only the effective sets are
 * bounded by it); a partition it makes no longer exclusive is invalid,
 * not the write refused. */
static int cpuset_dfl_write_resmask(struct cg_file_ctx *ctx, char *buf, size_t nbytes)
{
	struct cpuset *cs = css_cs(ctx->css), *top = top_cpuset(ctx->css);
	bool cpus = ctx->cft->private == FILE_CPULIST;
	struct cpumask mask = { 0 }, *set = cpus ? &cs->cpus_allowed : &cs->mems_allowed;
	int ret;

	(void)nbytes;
	buf = kstrstrip(buf);
	if (*buf) {
		ret = cpumask_parselist(buf, &mask,
					cpus ? nr_cpu_ids(ctx->css) : CPUSET_NODE_BITS);
		if (ret < 0)
			return ret;
		if (!cpumask_subset(&mask, cpus ? &top->cpus_allowed : &top->mems_allowed))
			return -EINVAL;
	}
	if (cpumask_equal(set, &mask))
		return 0;
	*set = mask;
	update_dfl(css_cs(ctx->css->parent));
	return 0;
}

/* The effective exclusive CPUs (cpuset.cpus.exclusive.effective): a
 * valid partition's (the top's: all), else those of cpuset.cpus.exclusive
 * its parent has. */
static void effective_xcpus(const struct cpuset *cs, struct cpumask *out)
{
	if (!cs->css.parent || is_partition_valid(cs)) {
		*out = cs->xcpus;
		return;
	}
	memset(out, 0, sizeof(*out));
	if (cpumask_empty(&cs->exclusive_cpus))
		return;
	effective_xcpus(css_cs(cs->css.parent), out);
	cpumask_and(out, out, &cs->exclusive_cpus);
}

/* update_exclusive_cpumask(): empty clears; no CPU of a sibling's
 * cpuset.cpus.exclusive or of a sibling partition's, and not all of a
 * sibling's cpuset.cpus (it is to keep one), else EINVAL. */
static int cpuset_exclusive_write(struct cg_file_ctx *ctx, char *buf, size_t nbytes)
{
	struct cpuset *cs = css_cs(ctx->css), *top = top_cpuset(ctx->css);
	struct cpuset *parent = css_cs(ctx->css->parent);
	struct cpumask mask = { 0 };
	GHashTableIter iter;
	struct cgroup *child;
	int ret;

	(void)nbytes;
	buf = kstrstrip(buf);
	if (*buf) {
		ret = cpumask_parselist(buf, &mask, nr_cpu_ids(ctx->css));
		if (ret < 0)
			return ret;
		if (!cpumask_subset(&mask, &top->cpus_allowed))
			return -EINVAL;
	}
	if (cpumask_equal(&cs->exclusive_cpus, &mask))
		return 0;
	if (*buf)
		cgroup_for_each_child(child, &iter, parent->css.cgroup) {
			const struct cpuset *s = css_cs(css_in(&parent->css, child));

			if (s == cs)
				continue;
			if (intersects(&mask, &s->exclusive_cpus) ||
			    (is_partition_valid(s) && intersects(&mask, &s->xcpus)) ||
			    (!cpumask_empty(&s->cpus_allowed) &&
			     cpumask_subset(&s->cpus_allowed, &mask)))
				return -EINVAL;
		}
	cs->exclusive_cpus = mask;
	update_dfl(parent);
	return 0;
}

/* cpuset_partition_write(): the state asked for, made valid or not. */
static int cpuset_partition_write(struct cg_file_ctx *ctx, char *buf, size_t nbytes)
{
	struct cpuset *cs = css_cs(ctx->css);
	int prs;

	(void)nbytes;
	buf = kstrstrip(buf);
	if (strcmp(buf, "root") == 0)
		prs = PRS_ROOT;
	else if (strcmp(buf, "member") == 0)
		prs = PRS_MEMBER;
	else if (strcmp(buf, "isolated") == 0)
		prs = PRS_ISOLATED;
	else
		return -EINVAL;
	if (cs->prs == prs)
		return 0;
	cs->prs = prs;
	cs->prs_err = PERR_NONE;
	update_dfl(css_cs(ctx->css->parent));
	return 0;
}

static int cpuset_partition_show(struct css *css, const struct cftype *cft, GString *out)
{
	static const char *const names[] = { "member", "root", "isolated" };
	struct cpuset *cs = css_cs(css);

	(void)cft;
	if (cs->prs >= 0)
		g_string_append_printf(out, "%s\n", names[cs->prs]);
	else
		g_string_append_printf(out, "%s invalid (%s)\n", names[-cs->prs],
				       perr_strings[cs->prs_err]);
	return 0;
}

/* cpuset.cpus.isolated (the root's): the CPUs of valid isolated
 * partitions. */
static int add_isolated(struct css *css, void *data)
{
	struct cpuset *cs = css_cs(css);

	if (css->parent && cs->prs == PRS_ISOLATED)
		cpumask_or(data, data, &cs->xcpus);
	return 0;
}

static int cpuset_isolated_show(struct css *css, const struct cftype *cft, GString *out)
{
	struct cpumask isolated = { 0 };

	(void)cft;
	css_for_each_descendant_pre(css, add_isolated, &isolated);
	cpumask_print_list(&isolated, out);
	g_string_append_c(out, '\n');
	return 0;
}

/* As css_alloc and css_online make it under its parent (v2 only): asking
 * for nothing, a member; a partition it was gives its CPUs back. */
static void cpuset_css_reset(struct css *css)
{
	struct cpuset *cs = css_cs(css);

	memset(&cs->cpus_allowed, 0, sizeof(cs->cpus_allowed));
	memset(&cs->mems_allowed, 0, sizeof(cs->mems_allowed));
	memset(&cs->xcpus, 0, sizeof(cs->xcpus));
	memset(&cs->exclusive_cpus, 0, sizeof(cs->exclusive_cpus));
	cs->flags = CS_FLAG(FILE_SCHED_LOAD_BALANCE);
	cs->relax_domain_level = -1;
	cs->prs = PRS_MEMBER;
	cs->prs_err = PERR_NONE;
	update_dfl(css_cs(css->parent));
}

/* A partition removed gives its CPUs back to its parent. */
static void cpuset_css_free(struct css *css)
{
	if (css->parent && css_on_dfl(css) && is_partition_valid(css_cs(css)))
		update_dfl(css_cs(css->parent));
	g_free(css_cs(css));
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
	struct cpumask xcpus;
	const struct cpumask *masks[] = {
		[FILE_CPULIST] = &cs->cpus_allowed,
		[FILE_MEMLIST] = &cs->mems_allowed,
		[FILE_EFFECTIVE_CPULIST] = &cs->effective_cpus,
		[FILE_EFFECTIVE_MEMLIST] = &cs->effective_mems,
		[FILE_EXCLUSIVE_CPULIST] = &cs->exclusive_cpus,
		[FILE_EFFECTIVE_XCPULIST] = &xcpus,
	};

	if (cft->private == FILE_EFFECTIVE_XCPULIST)
		effective_xcpus(cs, &xcpus);
	cpumask_print_list(masks[cft->private], out);
	g_string_append_c(out, '\n');
	return 0;
}

/* cpuset_can_attach(): v1 refuses an empty cpuset; v2 a group only
 * whose effective CPUs are none (which its rules never leave). */
static int cpuset_can_attach(struct css *css)
{
	struct cpuset *cs = css_cs(css);

	if (css_on_dfl(css))
		return cpumask_empty(&cs->effective_cpus) ? -ENOSPC : 0;
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

/* The kernel's dfl_files but the debug-only cpus.subpartitions. */
static const struct cftype cpuset_dfl_files[] = {
	{ .name = "cpus", .flags = CFTYPE_NOT_ON_ROOT, .private = FILE_CPULIST,
	  .max_write_len = cpus_max_write_len,
	  .seq_show = cpuset_common_seq_show, .write = cpuset_dfl_write_resmask },
	{ .name = "mems", .flags = CFTYPE_NOT_ON_ROOT, .private = FILE_MEMLIST,
	  .max_write_len = mems_max_write_len,
	  .seq_show = cpuset_common_seq_show, .write = cpuset_dfl_write_resmask },
	{ .name = "cpus.effective", .private = FILE_EFFECTIVE_CPULIST,
	  .seq_show = cpuset_common_seq_show },
	{ .name = "mems.effective", .private = FILE_EFFECTIVE_MEMLIST,
	  .seq_show = cpuset_common_seq_show },
	{ .name = "cpus.partition", .flags = CFTYPE_NOT_ON_ROOT,
	  .seq_show = cpuset_partition_show, .write = cpuset_partition_write },
	{ .name = "cpus.exclusive", .flags = CFTYPE_NOT_ON_ROOT, .private = FILE_EXCLUSIVE_CPULIST,
	  .max_write_len = cpus_max_write_len,
	  .seq_show = cpuset_common_seq_show, .write = cpuset_exclusive_write },
	{ .name = "cpus.exclusive.effective", .flags = CFTYPE_NOT_ON_ROOT,
	  .private = FILE_EFFECTIVE_XCPULIST, .seq_show = cpuset_common_seq_show },
	{ .name = "cpus.isolated", .flags = CFTYPE_ONLY_ON_ROOT, .private = FILE_ISOLATED_CPULIST,
	  .seq_show = cpuset_isolated_show },
	{ 0 }
};

const struct cgroup_subsys cpuset_cgrp_subsys = {
	.name = "cpuset",
	.threaded = true,
	.css_alloc = cpuset_css_alloc,
	.css_online = cpuset_css_online,
	.css_free = cpuset_css_free,
	.css_reset = cpuset_css_reset,
	.can_attach = cpuset_can_attach,
	.legacy_files = cpuset_legacy_files,
	.dfl_files = cpuset_dfl_files,
	.cpus = cpuset_cpus,
	.children_alike = cpuset_children_alike,
};
