/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cgfused.stat (see core/cgfused_stat.h). */
#include "core/cgfused_stat.h"

#include <malloc.h>

#include "core/cgroup.h"
#include "core/notify.h"

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
	cg_notify(core, stat, out);	/* the allocator's figures, read only */
	return 0;
}

const struct cftype cgfused_files[] = {
	{ .name = "cgfused.stat", .flags = CFTYPE_ONLY_ON_ROOT, .seq_show = cgfused_stat_show },
	{ 0 }
};
