/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The v2 face's base files (kernel/cgroup/cgroup.c cgroup_base_files):
 * the table, and the files with no rule of their own. */
#include "v2/base_files.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <string.h>
#include <unistd.h>

#include "core/notify.h"
#include "lib/kparse.h"
#include "v2/v2.h"

#define NSEC_PER_USEC UINT64_C(1000)

/* frozen: every thread of the subtree stopped for cgroup.freeze (the
 * freezer's enforcer tells, src/enforce/freezer.c). */
static int events_show(struct css *css, const struct cftype *cft, GString *out)
{
	(void)cft;
	g_string_append_printf(out, "populated %d\nfrozen %d\n", cgroup_is_populated(css->cgroup),
			       atomic_load(&css->cgroup->frozen));
	return 0;
}

/* cgroup.max.descendants and cgroup.max.depth: a number, or max (INT_MAX). */
static unsigned *limit(struct css *css, const struct cftype *cft)
{
	return cft->private ? &css->cgroup->max_depth : &css->cgroup->max_descendants;
}

static int limit_show(struct css *css, const struct cftype *cft, GString *out)
{
	unsigned v = *limit(css, cft);

	if (v >= INT_MAX)
		g_string_append(out, "max\n");
	else
		g_string_append_printf(out, "%u\n", v);
	return 0;
}

static int limit_write(struct cg_file_ctx *ctx, char *buf, size_t nbytes)
{
	char *s = kstrstrip(buf);
	int v = INT_MAX, ret;

	(void)nbytes;
	if (strcmp(s, "max") != 0 && (ret = kstrtoint(s, 0, &v)))
		return ret;
	if (v < 0)
		return -ERANGE;
	*limit(ctx->css, ctx->cft) = (unsigned)v;
	return 0;
}

/* Groups of the subtree (cgrp included) that have controller ssid. */
static unsigned nr_subsys(struct cgroup *cgrp, int ssid)
{
	GHashTableIter iter;
	struct cgroup *child;
	unsigned n = cgroup_css_enabled(cgrp, ssid);

	cgroup_for_each_child(child, &iter, cgrp)
		n += nr_subsys(child, ssid);
	return n;
}

/* rmdir frees a group at once here: none is ever dying. */
static int stat_show(struct css *css, const struct cftype *cft, GString *out)
{
	struct cgroup *cgrp = css->cgroup;
	const struct cg_core *core = cg_root_core(cgrp->root);

	(void)cft;
	g_string_append_printf(out, "nr_descendants %u\n", cgrp->nr_descendants);
	for (unsigned i = 0; i < cg_core_nr_subsys(core); i++)
		if (cg_root_subsys_mask(cgrp->root) & (1u << i))
			g_string_append_printf(out, "nr_subsys_%s %u\n", cg_core_subsys(core, i)->name,
					       nr_subsys(cgrp, (int)i));
	g_string_append(out, "nr_dying_descendants 0\n");
	for (unsigned i = 0; i < cg_core_nr_subsys(core); i++)
		if (cg_root_subsys_mask(cgrp->root) & (1u << i))
			g_string_append_printf(out, "nr_dying_subsys_%s 0\n", cg_core_subsys(core, i)->name);
	return 0;
}

static uint64_t freeze_read(struct css *css, const struct cftype *cft)
{
	(void)cft;
	return css->cgroup->freeze;
}

static bool ancestor_freezes(const struct cgroup *cgrp)
{
	for (cgrp = cgrp->parent; cgrp; cgrp = cgrp->parent)
		if (cgrp->freeze)
			return true;
	return false;
}

/* cgroup_freeze_write(): 0 or 1. The freezer's enforcer hears of the
 * write and stops (or lets go) the subtree's threads; a group freezes
 * while it or an ancestor has 1 here. A change that an ancestor's freeze
 * leaves without effect still wakes the group's cgroup.events pollers, as
 * the kernel's cgroup_freeze() does ("no operations in progress"); a
 * write of the value it has wakes nobody. */
static int freeze_write(struct cg_file_ctx *ctx, char *buf, size_t nbytes)
{
	struct cgroup *cgrp = ctx->css->cgroup;
	int freeze, ret = kstrtoint(kstrstrip(buf), 0, &freeze);

	(void)nbytes;
	if (ret)
		return ret;
	if (freeze < 0 || freeze > 1)
		return -ERANGE;
	if (cgrp->freeze == (freeze == 1))
		return 0;
	if (freeze && css_may_trace(ctx->css, "cgroup.freeze 1") < 0)
		return -EPERM;
	cgrp->freeze = freeze;
	if (ancestor_freezes(cgrp)) {
		atomic_fetch_add(&cgrp->events_seq, 1);
		cg_notify_frozen(cg_root_core(cgrp->root), cgrp, atomic_load(&cgrp->frozen));
	}
	return 0;
}

/* Each controller enabled in cgrp adds its lines to cpu.stat (extra) or
 * to cpu.stat.local (local): the kernel's for_each_css() in
 * cgroup_extra_stat_show() and cgroup_local_stat_show(). */
static void enabled_stat_show(struct cgroup *cgrp, bool local, GString *out)
{
	struct cg_core *core = cg_root_core(cgrp->root);

	for (unsigned i = 0; i < cg_core_nr_subsys(core); i++) {
		const struct cgroup_subsys *ss = cg_core_subsys(core, i);
		void (*show)(struct css *, GString *) =
			local ? ss->local_stat_show : ss->extra_stat_show;

		if (show && (cg_root_subsys_mask(cgrp->root) & (1u << i)) &&
		    cgroup_css_enabled(cgrp, (int)i))
			show(cgrp->subsys[i], out);
	}
}

/* cpu.stat's usage part (cgroup_base_stat_cputime_show): the threads'
 * time, the root's from the whole system; then what each enabled
 * controller adds (cpu: its bandwidth figures). */
static int cpu_stat_show(struct css *css, const struct cftype *cft, GString *out)
{
	struct cgroup *cgrp = css->cgroup;
	struct cg_core *core = cg_root_core(cgrp->root);
	uint64_t usage = cgrp->usage_ns, user = cgrp->prev_utime, system = cgrp->prev_stime;

	(void)cft;
	if (!cgrp->parent) {
		struct system_cputime *sys = g_new0(struct system_cputime, 1);

		usage = user = system = 0;
		if (cg_core_kf(core)->ops->system_cputime(cg_core_kf(core), sys) == 0)
			for (unsigned c = 0; c < sys->nr_cpus; c++) {
				usage += sys->run_ns[c];
				user += sys->user_ns[c];
				system += sys->system_ns[c];
			}
		g_free(sys);
	}
	g_string_append_printf(out, "usage_usec %" PRIu64 "\nuser_usec %" PRIu64
			       "\nsystem_usec %" PRIu64 "\n", usage / NSEC_PER_USEC,
			       user / NSEC_PER_USEC, system / NSEC_PER_USEC);
	enabled_stat_show(cgrp, false, out);
	return 0;
}

/* cpu.stat.local (cgroup_local_stat_show): cpu's own figures, while cpu
 * is enabled in the group; nothing otherwise. */
static int cpu_stat_local_show(struct css *css, const struct cftype *cft, GString *out)
{
	(void)cft;
	enabled_stat_show(css->cgroup, true, out);
	return 0;
}

/* In the kernel's order. */
const struct cftype cgroup2_base_files[] = {
	{ .name = "cgroup.type", .flags = CFTYPE_NOT_ON_ROOT, .seq_show = cgroup_type_show,
	  .write = cgroup_type_write, .save_show = cgroup_type_save_show },
	{ .name = "cgroup.procs", .flags = CFTYPE_NO_STATE | CFTYPE_TOP_UNLOCKED, .seq_show = cgroup_procs_show,
	  .write = cgroup_procs_write, .prepare = cgroup_procs_prepare,
	  .free_prep = cgroup_procs_free_prep },
	{ .name = "cgroup.threads", .flags = CFTYPE_NO_STATE | CFTYPE_TOP_UNLOCKED, .seq_show = cgroup_threads_show,
	  .write = cgroup_procs_write, .prepare = cgroup_threads_prepare,
	  .free_prep = cgroup_procs_free_prep },
	{ .name = "cgroup.controllers", .seq_show = cgroup_controllers_show },
	{ .name = "cgroup.subtree_control", .flags = CFTYPE_CSS_MAP,
	  .seq_show = cgroup_subtree_control_show, .write = cgroup_subtree_control_write,
	  .save_show = cgroup_subtree_control_save_show },
	{ .name = "cgroup.events", .flags = CFTYPE_NOT_ON_ROOT | CFTYPE_EVENTS,
	  .seq_show = events_show },
	{ .name = "cgroup.max.descendants", .private = 0, .seq_show = limit_show,
	  .write = limit_write },
	{ .name = "cgroup.max.depth", .private = 1, .seq_show = limit_show, .write = limit_write },
	{ .name = "cgroup.stat", .seq_show = stat_show },
	{ .name = "cgroup.freeze", .flags = CFTYPE_NOT_ON_ROOT, .read_u64 = freeze_read,
	  .write = freeze_write },
	{ .name = "cgroup.kill", .flags = CFTYPE_NOT_ON_ROOT | CFTYPE_NO_STATE,
	  .write = cgroup_kill_write },
	/* The root's figures are the system's (and cpu's atomics), read
	 * without the core lock. */
	{ .name = "cpu.stat", .flags = CFTYPE_SAMPLES | CFTYPE_TOP_UNLOCKED,
	  .seq_show = cpu_stat_show },
	{ .name = "cpu.stat.local", .flags = CFTYPE_TOP_UNLOCKED, .seq_show = cpu_stat_local_show },
	{ 0 }
};
