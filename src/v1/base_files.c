/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The v1 face's base files (kernel/cgroup/cgroup-v1.c cgroup1_base_files),
 * through what core/face.h gives a face. */
#include "v1/base_files.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "core/face.h"
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
 * writer itself. Parsed by the prepare, which reads the threads to move
 * before the core lock is taken; cgroup_attach() checks that the writer
 * may move them. */
static void *procs_prepare(struct cg_core *core, const char *buf, const struct cg_cred *cred,
			   bool threadgroup)
{
	char *copy = g_strdup(buf);
	int pid;
	void *prep = NULL;

	/* Overflow is EINVAL here, not ERANGE (measured, and kernel source). */
	if (kstrtoint(kstrstrip(copy), 0, &pid) == 0 && pid >= 0)
		prep = cgroup_attach_prepare(core, pid ? pid : cred->pid, threadgroup, cred);
	g_free(copy);
	return prep;
}

static void *tasks_prepare(struct cg_core *core, const char *buf, const struct cg_cred *cred)
{
	return procs_prepare(core, buf, cred, false);
}

static void *cgroup_procs_prepare(struct cg_core *core, const char *buf,
				  const struct cg_cred *cred)
{
	return procs_prepare(core, buf, cred, true);
}

static void free_prep(void *prep)
{
	cgroup_attach_prep_free(prep);
}

/* No prepare: buf was no id. */
static int procs_write(struct cg_file_ctx *ctx, char *buf, size_t nbytes)
{
	(void)buf;
	(void)nbytes;
	return ctx->prep ? cgroup_attach(ctx->css->cgroup, ctx->prep, ctx->cred) : -EINVAL;
}

static uint64_t flag_read(struct css *css, const struct cftype *cft)
{
	return cgroup_flag(css->cgroup, (unsigned)cft->private);
}

static int flag_write(struct css *css, const struct cftype *cft, uint64_t val)
{
	cgroup_set_flag(css->cgroup, (unsigned)cft->private, val != 0);
	return 0;
}

static int release_agent_show(struct css *css, const struct cftype *cft, GString *out)
{
	(void)cft;
	g_string_append_printf(out, "%s\n", cgroup_release_agent(css->cgroup));
	return 0;
}

static int release_agent_write(struct cg_file_ctx *ctx, char *buf, size_t nbytes)
{
	struct cgroup *cgrp = ctx->css->cgroup;
	char *agent = kstrstrip(buf);

	(void)nbytes;
	/* The agent runs with the daemon's rights: whoever owns the file, only
	 * root (the kernel asks for CAP_SYS_ADMIN since 5.17) or the daemon's
	 * own user, who made the hierarchy's root, may set it. */
	if (ctx->cred->uid != 0 && ctx->cred->uid != cgroup_root_owner(cgrp))
		return -EPERM;
	agent[strnlen(agent, RELEASE_AGENT_MAX - 1)] = '\0';
	cgroup_set_release_agent(cgrp, agent);
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

/* In the kernel's order. The flag files name their flag in .private. */
const struct cftype cgroup1_base_files[] = {
	{ .name = "cgroup.procs", .flags = CFTYPE_NO_STATE | CFTYPE_TOP_UNLOCKED, .seq_show = procs_seq_show, .write = procs_write,
	  .prepare = cgroup_procs_prepare, .free_prep = free_prep },
	{ .name = "cgroup.clone_children", .private = CGRP_CPUSET_CLONE_CHILDREN,
	  .read_u64 = flag_read, .write_u64 = flag_write },
	{ .name = "cgroup.sane_behavior", .flags = CFTYPE_ONLY_ON_ROOT,
	  .seq_show = sane_behavior_show },
	{ .name = "tasks", .flags = CFTYPE_NO_STATE | CFTYPE_TOP_UNLOCKED, .seq_show = tasks_seq_show, .write = procs_write,
	  .prepare = tasks_prepare, .free_prep = free_prep },
	{ .name = "notify_on_release", .private = CGRP_NOTIFY_ON_RELEASE,
	  .read_u64 = flag_read, .write_u64 = flag_write },
	{ .name = "release_agent", .flags = CFTYPE_ONLY_ON_ROOT,
	  .max_write_len = release_agent_max_write_len, .seq_show = release_agent_show, .write = release_agent_write },
	{ 0 }
};
