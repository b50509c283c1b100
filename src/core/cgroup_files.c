/* The core's control files (kernel/cgroup/cgroup-v1.c). */
#include "core/cgroup_files.h"

#include <errno.h>
#include <malloc.h>
#include <stdio.h>

#include "core/attach.h"
#include "core/notify.h"
#include "core/task.h"
#include "lib/kparse.h"
#include "v1/release_agent.h"

static int tasks_show(struct css *css, bool procs, GString *out)
{
	GArray *ids = g_array_new(FALSE, FALSE, sizeof(pid_t));
	int ret = cgroup_list_tasks(css->cgroup, procs, ids);
	char line[16];

	/* snprintf, not g_string_append_printf, which mallocs a string
	 * for every line: a 1000-task read was 10% slower without
	 * malloc's per-thread caches (docs/benchmarks.md). */
	for (guint i = 0; ret == 0 && i < ids->len; i++) {
		int len = snprintf(line, sizeof(line), "%d\n", g_array_index(ids, pid_t, i));

		g_string_append_len(out, line, len);
	}
	g_array_unref(ids);
	return ret;
}

static int tasks_seq_show(struct css *css, const struct cftype *cft, GString *out)
{
	(void)cft;
	return tasks_show(css, false, out);
}

static int procs_seq_show(struct css *css, const struct cftype *cft, GString *out)
{
	(void)cft;
	return tasks_show(css, true, out);
}

/* __cgroup1_procs_write(): one id, surrounding white space allowed; 0 is the
 * writer itself. cgroup_attach() checks that the writer may move it. */
static int procs_write(struct cg_file_ctx *ctx, char *buf, bool threadgroup)
{
	int pid;

	/* Overflow is EINVAL here, not ERANGE (measured, and kernel source). */
	if (kstrtoint(kstrstrip(buf), 0, &pid) < 0 || pid < 0)
		return -EINVAL;
	return cgroup_attach(ctx->css->cgroup, pid ? pid : ctx->cred->pid, threadgroup, ctx->cred);
}

static int tasks_write(struct cg_file_ctx *ctx, char *buf, size_t nbytes)
{
	(void)nbytes;
	return procs_write(ctx, buf, false);
}

static int cgroup_procs_write(struct cg_file_ctx *ctx, char *buf, size_t nbytes)
{
	(void)nbytes;
	return procs_write(ctx, buf, true);
}

static uint64_t flag_read(struct css *css, const struct cftype *cft)
{
	return (css->cgroup->flags & (unsigned)cft->private) != 0;
}

static int flag_write(struct css *css, const struct cftype *cft, uint64_t val)
{
	if (val)
		css->cgroup->flags |= (unsigned)cft->private;
	else
		css->cgroup->flags &= ~(unsigned)cft->private;
	return 0;
}

static int release_agent_show(struct css *css, const struct cftype *cft, GString *out)
{
	(void)cft;
	g_string_append_printf(out, "%s\n", css->cgroup->root->release_agent);
	return 0;
}

static int release_agent_write(struct cg_file_ctx *ctx, char *buf, size_t nbytes)
{
	struct cg_root *root = ctx->css->cgroup->root;

	(void)nbytes;
	/* The agent runs with the daemon's rights: whoever owns the file, only
	 * root (the kernel asks for CAP_SYS_ADMIN since 5.17) or the daemon's
	 * own user, who made the hierarchy's root, may set it. */
	if (ctx->cred->uid != 0 && ctx->cred->uid != root->top->creator_uid)
		return -EPERM;
	g_free(root->release_agent);
	root->release_agent = g_strndup(kstrstrip(buf), RELEASE_AGENT_MAX - 1);
	return 0;
}

/* PATH_MAX - 1: a write of 4096 bytes is E2BIG (measured). */
static size_t release_agent_max_write_len(struct kfacade *kf)
{
	(void)kf;
	return RELEASE_AGENT_MAX - 1;
}

static int sane_behavior_show(struct css *css, const struct cftype *cft, GString *out)
{
	(void)css;
	(void)cft;
	g_string_append(out, "0\n");
	return 0;
}

/* What cgfused itself is doing: not a kernel file. */
static int cgfused_stat_show(struct css *css, const struct cftype *cft, GString *out)
{
	struct cg_core *core = css->cgroup->root->core;
	struct mallinfo2 mi = mallinfo2();

	(void)cft;
	task_catch_up(core);
	/* The heap (all arenas): allocated, kept free by malloc, and mapped
	 * apart (large blocks); the soak test tells growth from fragmentation
	 * with them. */
	g_string_append_printf(out, "tracked_tasks %u\ncss_sets %u\nlost_event_resyncs %"
			       G_GUINT64_FORMAT "\nheap_in_use_bytes %zu\nheap_free_bytes %zu\n"
			       "heap_mmap_bytes %zu\n",
			       g_hash_table_size(core->tasks), g_hash_table_size(core->css_sets),
			       core->nr_resyncs, mi.uordblks, mi.fordblks, mi.hblkhd);
	cg_notify(core, stat, out);	/* the allocator's figures */
	return 0;
}

/* In the kernel's order. The flag files name their flag in .private. */
static const struct cftype cgroup_core_files[] = {
	{ .name = "cgroup.procs", .flags = CFTYPE_NO_STATE, .seq_show = procs_seq_show, .write = cgroup_procs_write },
	{ .name = "cgroup.clone_children", .private = CGRP_CPUSET_CLONE_CHILDREN,
	  .read_u64 = flag_read, .write_u64 = flag_write },
	{ .name = "cgroup.sane_behavior", .flags = CFTYPE_ONLY_ON_ROOT,
	  .seq_show = sane_behavior_show },
	{ .name = "tasks", .flags = CFTYPE_NO_STATE, .seq_show = tasks_seq_show, .write = tasks_write },
	{ .name = "notify_on_release", .private = CGRP_NOTIFY_ON_RELEASE,
	  .read_u64 = flag_read, .write_u64 = flag_write },
	{ .name = "release_agent", .flags = CFTYPE_ONLY_ON_ROOT,
	  .max_write_len = release_agent_max_write_len, .seq_show = release_agent_show, .write = release_agent_write },
	{ .name = "cgfused.stat", .flags = CFTYPE_ONLY_ON_ROOT, .seq_show = cgfused_stat_show },
	{ 0 }
};

void cgroup_files_add_core(struct cg_root *root, cg_add_file_fn add)
{
	for (const struct cftype *cft = cgroup_core_files; cft->name; cft++)
		add(root, cft, NULL, -1);
}
