/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cgfused.stat (see core/cgfused_stat.h). */
#include "core/cgfused_stat.h"

#include <malloc.h>

#include "core/cgroup.h"
#include "core/notify.h"

/* The core lock's figures: did a slow operation wait for it, and who held
 * it longest (called read-locked: the writer's are whole). */
static void lock_show(struct cg_lock *l, GString *out)
{
	struct cg_lock_figures f;

	cg_lock_figures(l, &f);
	g_string_append_printf(out, "lock_write_holds %" G_GUINT64_FORMAT
			       "\nlock_write_hold_max_us %" G_GUINT64_FORMAT
			       "\nlock_write_hold_max_site %s\nlock_write_holds_over_1ms %"
			       G_GUINT64_FORMAT "\nlock_write_wait_max_us %" G_GUINT64_FORMAT
			       "\nlock_read_wait_max_us %" G_GUINT64_FORMAT
			       "\nlock_read_waits_over_1ms %" G_GUINT64_FORMAT "\n",
			       f.write_holds, f.write_hold_max_us,
			       f.write_hold_max_site ? f.write_hold_max_site : "-",
			       f.write_holds_over_1ms, f.write_wait_max_us, f.read_wait_max_us,
			       f.read_waits_over_1ms);
}

/* What cgfused itself is doing: not a kernel file. */
static int cgfused_stat_show(struct css *css, const struct cftype *cft, GString *out)
{
	struct cg_core *core = css->cgroup->root->core;
	struct mallinfo2 mi = mallinfo2();

	(void)cft;
	/* The heap (all arenas): allocated, kept free by malloc, and mapped
	 * apart (large blocks); the soak test tells growth from fragmentation
	 * with them. */
	g_string_append_printf(out, "tracked_tasks %u\ncss_sets %u\nlost_event_resyncs %"
			       G_GUINT64_FORMAT "\nheap_in_use_bytes %zu\nheap_free_bytes %zu\n"
			       "heap_mmap_bytes %zu\n",
			       tidmap_size(&core->tasks), g_hash_table_size(core->css_sets),
			       core->nr_resyncs, mi.uordblks, mi.fordblks, mi.hblkhd);
	lock_show(&core->lock, out);
	if (core->kf->ops->watch_stat)
		core->kf->ops->watch_stat(core->kf, out);
	cg_notify(core, stat, out);	/* the allocator's figures, read only */
	return 0;
}

const struct cftype cgfused_files[] = {
	{ .name = "cgfused.stat", .flags = CFTYPE_ONLY_ON_ROOT, .seq_show = cgfused_stat_show },
	{ 0 }
};
