/* SPDX-License-Identifier: GPL-2.0-or-later */
/* CPU time charged to the groups of the default hierarchy (v2's cpu.stat;
 * the kernel's cgroup/rstat.c base stats): see cgroup_charge_cputime(). */
#include <unistd.h>

#include "core/cgroup.h"
#include "core/css_set.h"
#include "core/internal.h"

/* cputime_adjust(): user and system time are ticks sampled by the kernel,
 * the run time is exact; cpu.stat shows the run time split in their
 * proportion, neither part ever going back. Made at the charge, under the
 * write side, so that a read only reads. */
static void cputime_adjust(struct cgroup *c)
{
	uint64_t rtime = c->usage_ns, stime = c->stime, utime = c->utime;

	if (c->prev_stime + c->prev_utime >= rtime)
		return;
	if (stime == 0)
		utime = rtime;
	else if (utime == 0)
		stime = rtime;
	else
		stime = MIN((uint64_t)((unsigned __int128)stime * rtime / (stime + utime)), rtime);
	stime = MAX(stime, c->prev_stime);
	utime = rtime - stime;
	if (utime < c->prev_utime) {
		utime = c->prev_utime;
		stime = rtime - utime;
	}
	c->prev_stime = stime;
	c->prev_utime = utime;
}

void cgroup_charge_cputime(struct cg_core *core, const struct css_set *cset,
			   const struct task_cputime *d)
{
	uint64_t tick_ns = 1000000000ULL / (uint64_t)sysconf(_SC_CLK_TCK);

	for (guint r = 0; r < core->roots->len; r++) {
		const struct cg_root *root = g_ptr_array_index(core->roots, r);

		if (!root->dfl)
			continue;
		for (struct cgroup *c = css_set_cgroup(cset, root); c->parent; c = c->parent) {
			c->usage_ns += d->run_ns;
			c->utime += d->utime * tick_ns;
			c->stime += d->stime * tick_ns;
			cputime_adjust(c);
		}
	}
}
