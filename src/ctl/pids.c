/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pids: the number of tasks of a subtree and its limit
 * (kernel/cgroup/pids.c: v1's files, and v2's with pids.events.local). A
 * group counts every thread of its subtree, kept up to date as tasks join, fork and exit (the core's migrate
 * calls). The kernel fails a fork that takes a group or an ancestor past
 * its pids.max with EAGAIN; user space cannot, so the core kills such a
 * child as soon as the kernel reports it, if those who may write the limit
 * could (can_fork's kill_as; cgfused(8) tells what differs). */
#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#include "core/task.h"
#include "ctl/ctl.h"
#include "lib/kparse.h"

/* PID_MAX_LIMIT of a 64-bit kernel (include/linux/threads.h); pids.max
 * shows this plus one as "max". */
#define PID_MAX_LIMIT (4 * 1024 * 1024)
#define PIDS_MAX (PID_MAX_LIMIT + 1LL)

struct pids {
	struct css css;
	int64_t counter;	/* tasks of the subtree, dying ones too */
	int64_t dying;		/* of those: killed for a fork over a limit */
	int64_t limit;		/* PIDS_MAX: none */
	int64_t watermark;	/* the most counter has been */
	/* Forks in this group that a limit refused: what v1's pids.events
	 * shows (the kernel's events_local[PIDCG_FORKFAIL]). */
	int64_t forkfail;
	/* v2's: forks refused by this group's limit (events_local[PIDCG_MAX],
	 * pids.events.local), and by its own or a descendant's
	 * (events[PIDCG_MAX], pids.events). */
	int64_t max_local, max_events;
};

static struct pids *css_pids(struct css *css)
{
	return (struct pids *)css;
}

static struct css *pids_css_alloc(struct css *parent)
{
	struct pids *p = g_new0(struct pids, 1);

	(void)parent;
	p->limit = PIDS_MAX;
	return &p->css;
}

/* A fresh css counts the tasks it is given: its peak is what it holds. */
static void pids_css_reset(struct css *css)
{
	struct pids *p = css_pids(css);

	p->limit = PIDS_MAX;
	p->watermark = p->counter;
	p->forkfail = p->max_local = p->max_events = 0;
}

static void pids_css_free(struct css *css)
{
	g_free(css_pids(css));
}

/* The group and every ancestor but the root, which counts nothing (as
 * the kernel's does not). */
static void pids_charge(struct css *css, int64_t n, bool dying)
{
	for (; css && css->parent; css = css->parent) {
		struct pids *p = css_pids(css);

		p->counter += n;
		if (dying)
			p->dying += n;
		p->watermark = MAX(p->watermark, p->counter);
	}
}

static void pids_migrate(const struct task *t, struct css *from, struct css *to)
{
	pids_charge(from, -1, t->dying);
	pids_charge(to, 1, t->dying);
}

/* pids_event(): a fork in forking's group refused by over_limit's limit,
 * counted for both faces (the default hierarchy's pids_localevents mount
 * option, which shows v1's figure, is not offered). */
static void pids_event(struct css *forking, struct css *over_limit)
{
	css_pids(forking)->forkfail++;
	css_pids(over_limit)->max_local++;
	for (struct css *c = over_limit; c->parent; c = c->parent)
		css_pids(c)->max_events++;
}

static int pids_max_write(struct cg_file_ctx *ctx, char *buf, size_t nbytes);

/* Who may kill for css's limit: whoever may write its pids.max. Root
 * alone (a file of root's, or one its owner may not write): any child;
 * its owner alone: only children its owner could kill; a group or others
 * too: none (one of them could not). */
static uid_t limit_kill_as(struct css *css)
{
	const struct cg_root *root = css->cgroup->root;
	unsigned nr = cg_root_nr_files(root);

	for (unsigned i = 0; i < nr; i++) {
		const struct cg_file *f = cg_root_file(root, i);
		struct cg_iattr a;

		if (f->cft->write != pids_max_write)
			continue;
		cgroup_iattr(css->cgroup, i, &a);
		if (a.mode & (S_IWGRP | S_IWOTH))
			return CG_KILL_AS_NONE;
		return (a.mode & S_IWUSR) ? a.uid : CG_KILL_AS_ROOT;
	}
	return CG_KILL_AS_ROOT;
}

/* pids_try_charge(): one more task must keep the group and every ancestor
 * within its limit; the children being killed are not counted, as their
 * forks failed on the kernel. The event is the innermost limit's; the kill
 * is root's if any limit passed is, else the innermost's (cgfused(8)). */
static int pids_can_fork(struct css *css, uid_t *kill_as)
{
	bool refused = false;

	for (struct css *c = css; c->parent; c = c->parent) {
		struct pids *p = css_pids(c);
		uid_t as;

		if (p->counter - p->dying + 1 <= p->limit)
			continue;
		as = limit_kill_as(c);
		if (!refused) {
			pids_event(css, c);
			*kill_as = as;
			refused = true;
		}
		if (as == CG_KILL_AS_ROOT) {
			*kill_as = as;
			break;
		}
	}
	return refused ? -EAGAIN : 0;
}

static int pids_max_write(struct cg_file_ctx *ctx, char *buf, size_t nbytes)
{
	long long limit;
	int ret;

	(void)nbytes;
	buf = kstrstrip(buf);
	if (strcmp(buf, "max") == 0) {
		limit = PIDS_MAX;
	} else {
		ret = kstrtoll(buf, 0, &limit);
		if (ret < 0)
			return ret;
		if (limit < 0 || limit >= PIDS_MAX)
			return -EINVAL;
	}
	css_pids(ctx->css)->limit = limit;
	return 0;
}

static int pids_max_show(struct css *css, const struct cftype *cft, GString *out)
{
	int64_t limit = css_pids(css)->limit;

	(void)cft;
	if (limit >= PIDS_MAX)
		g_string_append(out, "max\n");
	else
		g_string_append_printf(out, "%" G_GINT64_FORMAT "\n", limit);
	return 0;
}

static int64_t pids_current_read(struct css *css, const struct cftype *cft)
{
	(void)cft;
	return css_pids(css)->counter;
}

static int64_t pids_peak_read(struct css *css, const struct cftype *cft)
{
	(void)cft;
	return css_pids(css)->watermark;
}

static int pids_events_show(struct css *css, const struct cftype *cft, GString *out)
{
	(void)cft;
	g_string_append_printf(out, "max %" G_GINT64_FORMAT "\n", css_pids(css)->forkfail);
	return 0;
}

/* The default hierarchy's pids.events and pids.events.local:
 * __pids_events_show() there. */
static int pids_events_dfl_show(struct css *css, const struct cftype *cft, GString *out)
{
	struct pids *p = css_pids(css);

	g_string_append_printf(out, "max %" G_GINT64_FORMAT "\n",
			       cft->private ? p->max_local : p->max_events);
	return 0;
}

/* pids_files_legacy: none on the root. */
static const struct cftype pids_files_legacy[] = {
	{ .name = "max", .flags = CFTYPE_NOT_ON_ROOT, .seq_show = pids_max_show, .write = pids_max_write },
	{ .name = "current", .flags = CFTYPE_NOT_ON_ROOT, .read_s64 = pids_current_read },
	{ .name = "peak", .flags = CFTYPE_NOT_ON_ROOT, .read_s64 = pids_peak_read },
	{ .name = "events", .flags = CFTYPE_NOT_ON_ROOT, .seq_show = pids_events_show },
	{ 0 }
};

/* pids_files: the same storage and enforcement; events hierarchical, and
 * events.local. */
static const struct cftype pids_files[] = {
	{ .name = "max", .flags = CFTYPE_NOT_ON_ROOT, .seq_show = pids_max_show, .write = pids_max_write },
	{ .name = "current", .flags = CFTYPE_NOT_ON_ROOT, .read_s64 = pids_current_read },
	{ .name = "peak", .flags = CFTYPE_NOT_ON_ROOT, .read_s64 = pids_peak_read },
	{ .name = "events", .flags = CFTYPE_NOT_ON_ROOT, .seq_show = pids_events_dfl_show },
	{ .name = "events.local", .flags = CFTYPE_NOT_ON_ROOT, .private = 1,
	  .seq_show = pids_events_dfl_show },
	{ 0 }
};

const struct cgroup_subsys pids_cgrp_subsys = {
	.name = "pids",
	.threaded = true,
	.css_alloc = pids_css_alloc,
	.css_free = pids_css_free,
	.css_reset = pids_css_reset,
	.legacy_files = pids_files_legacy,
	.dfl_files = pids_files,
	.migrate = pids_migrate,
	.can_fork = pids_can_fork,
};
