/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Reading and writing control files: the kernel's cgroup_seqfile_show() and
 * cgroup_file_write() over the cftype tables. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <string.h>

#include "core/cgroup.h"
#include "core/internal.h"
#include "core/notify.h"
#include "core/task.h"
#include "core/task_sample.h"
#include "core/task_catch_up.h"
#include "lib/kparse.h"

static struct css *file_css(struct cgroup *cgrp, const struct cg_file *f)
{
	return f->ssid < 0 ? &cgrp->self : cgrp->subsys[f->ssid];
}

/* The file, if cgrp_id is a live cgroup that has it; -ENODEV once gone. */
static int resolve(struct cg_core *core, uint64_t cgrp_id, unsigned file,
		   struct cgroup **cgrp, const struct cg_file **f)
{
	*cgrp = cgroup_by_id(core, cgrp_id);
	if (!*cgrp)
		return -ENODEV;
	if (file >= (*cgrp)->root->files->len)
		return -ENOENT;
	*f = g_ptr_array_index((*cgrp)->root->files, file);
	return cgroup_has_file(*cgrp, *f) ? 0 : -ENOENT;
}

/* may_open(): the access the flags ask for; O_TRUNC needs write access and
 * dates the file (do_truncate() with ATTR_MTIME | ATTR_CTIME), although
 * nothing is truncated. */
int cg_file_open(struct cg_core *core, uint64_t cgrp_id, unsigned file, int flags,
		 const struct cg_cred *cred)
{
	static const struct cg_setattr trunc = { .valid = CG_ATTR_MTIME | CG_ATTR_FILE };
	struct cgroup *cgrp;
	const struct cg_file *f;
	struct cg_iattr attr;
	int mask = (flags & O_ACCMODE) == O_RDONLY ? MAY_READ :
		   (flags & O_ACCMODE) == O_WRONLY ? MAY_WRITE : MAY_READ | MAY_WRITE;
	int ret;

	unsigned slot = 0;

	/* Only O_TRUNC changes something (the times): a plain open reads. */
	if (flags & O_TRUNC) {
		mask |= MAY_WRITE;
		cg_write_lock(&core->lock);
	} else {
		slot = cg_read_lock(&core->lock);
	}
	ret = resolve(core, cgrp_id, file, &cgrp, &f);
	if (ret == 0) {
		cgroup_iattr(cgrp, file, &attr);
		ret = iattr_permission(&attr, cred, mask);
	}
	if (flags & O_TRUNC) {
		if (ret == 0)
			iattr_setattr(cgroup_iattr_mut(cgrp, file), &trunc, cred);
		cg_write_unlock(&core->lock);
	} else {
		cg_read_unlock(&core->lock, slot);
	}
	return ret;
}

int cgroup_file_show(struct cgroup *cgrp, unsigned file, GString *out)
{
	const struct cg_file *f = g_ptr_array_index(cgrp->root->files, file);
	struct css *css = file_css(cgrp, f);

	if (f->cft->read_u64)
		g_string_append_printf(out, "%" PRIu64 "\n", f->cft->read_u64(css, f->cft));
	else if (f->cft->read_s64)
		g_string_append_printf(out, "%" PRId64 "\n", f->cft->read_s64(css, f->cft));
	else if (f->cft->seq_show)
		return f->cft->seq_show(css, f->cft, out);
	else
		return -EINVAL;
	return 0;
}

int cgroup_file_show_setting(struct cgroup *cgrp, unsigned file, GString *out)
{
	const struct cg_file *f = g_ptr_array_index(cgrp->root->files, file);

	if (f->cft->save_show)
		return f->cft->save_show(file_css(cgrp, f), f->cft, out);
	return cgroup_file_show(cgrp, file, out);
}

int cg_file_events(struct cg_core *core, uint64_t cgrp_id, unsigned file, unsigned *seq)
{
	struct cgroup *cgrp;
	const struct cg_file *f;
	unsigned slot = cg_read_lock(&core->lock);
	int ret = resolve(core, cgrp_id, file, &cgrp, &f);

	if (ret == 0 && !(f->cft->flags & CFTYPE_EVENTS))
		ret = -ENOENT;
	if (ret == 0)
		*seq = cgrp->events_seq;
	cg_read_unlock(&core->lock, slot);
	return ret;
}

/* The file, if cgrp_id's hierarchy has it, with no lock: hierarchies and
 * their files never change once the daemon serves them. */
static const struct cg_file *served_file(struct cg_core *core, uint64_t cgrp_id, unsigned file)
{
	unsigned index = cgrp_id & ((1u << CG_ID_ROOT_BITS) - 1);
	const struct cg_root *root;

	if (index >= core->roots->len)
		return NULL;
	root = g_ptr_array_index(core->roots, index);
	return file < root->files->len ? g_ptr_array_index(root->files, file) : NULL;
}

unsigned cg_file_flags(struct cg_core *core, uint64_t cgrp_id, unsigned file)
{
	const struct cg_file *f = served_file(core, cgrp_id, file);

	return f ? f->cft->flags : 0;
}

/* Whether the file shows its subtree's thread figures, which are then
 * sampled first, outside the lock. */
static bool file_samples(struct cg_core *core, uint64_t cgrp_id, unsigned file)
{
	const struct cg_file *f = served_file(core, cgrp_id, file);

	return f && (f->cft->flags & CFTYPE_SAMPLES);
}

/* The top group, if cgrp_id is one and the file is shown there without
 * the lock (CFTYPE_TOP_UNLOCKED); a top lives as long as its hierarchy. */
static struct cgroup *unlocked_top(struct cg_core *core, uint64_t cgrp_id, unsigned file)
{
	const struct cg_file *f = served_file(core, cgrp_id, file);
	const struct cg_root *root;

	if (!f || !(f->cft->flags & CFTYPE_TOP_UNLOCKED))
		return NULL;
	root = g_ptr_array_index(core->roots, cgrp_id & ((1u << CG_ID_ROOT_BITS) - 1));
	return root->top->id == cgrp_id ? root->top : NULL;
}

int cg_file_read(struct cg_core *core, uint64_t cgrp_id, unsigned file, GString *out)
{
	struct cgroup *cgrp;
	const struct cg_file *f;
	unsigned slot;
	int ret;

	if (file_samples(core, cgrp_id, file))
		task_sample_subtree(core, cgrp_id);
	/* Reports taken in first: the read side changes no task. */
	cg_catch_up_if_pending(core);
	cgrp = unlocked_top(core, cgrp_id, file);
	if (cgrp)
		return cgroup_file_show(cgrp, file, out);
	slot = cg_read_lock(&core->lock);
	ret = resolve(core, cgrp_id, file, &cgrp, &f);
	if (ret == 0)
		ret = cgroup_file_show(cgrp, file, out);
	cg_read_unlock(&core->lock, slot);
	return ret;
}

ssize_t cg_file_write(struct cg_core *core, uint64_t cgrp_id, unsigned file,
		      const char *buf, size_t len, const struct cg_cred *cred)
{
	const struct cg_file *served = served_file(core, cgrp_id, file);
	struct cg_root *root;
	struct cgroup *cgrp;
	const struct cg_file *f;
	void *prep = NULL;
	char *copy;
	int ret;

	if (len == 0)
		return 0;
	if (file_samples(core, cgrp_id, file))
		task_sample_subtree(core, cgrp_id);	/* a reset charges what ran first */
	/* NUL-terminated at len: an embedded NUL ends the command, as in kernfs. */
	copy = g_strndup(buf, len);
	if (served && served->cft->prepare && len <= served->max_write_len)
		prep = served->cft->prepare(core, copy, cred);
	task_pull_if_pending(core);
	cg_write_lock(&core->lock);
	/* kernfs checks the length (atomic_write_len) first: even a removed
	 * group's file answers E2BIG, not ENODEV. */
	root = cgroup_id_root(core, cgrp_id);
	if (root && file < root->files->len &&
	    len > ((const struct cg_file *)g_ptr_array_index(root->files, file))->max_write_len) {
		ret = -E2BIG;
		goto out;
	}
	task_catch_up(core);	/* handlers may ask whether a group is populated */
	ret = resolve(core, cgrp_id, file, &cgrp, &f);
	if (ret == 0)
		ret = cg_notify_prepare(core, &(struct cg_change){
			.kind = CG_CHANGE_WRITE, .cgrp = cgrp, .file = file, .buf = buf, .len = len });
	if (ret == 0) {
		struct cg_file_ctx ctx = { file_css(cgrp, f), f->cft, cred, prep };
		const struct cftype *cft = f->cft;

		if (cft->write) {
			ret = cft->write(&ctx, copy, len);
		} else if (cft->write_u64) {
			unsigned long long v;

			ret = kstrtoull(copy, 0, &v);
			if (ret == 0)
				ret = cft->write_u64(ctx.css, cft, v);
		} else if (cft->write_s64) {
			long long v;

			ret = kstrtoll(copy, 0, &v);
			if (ret == 0)
				ret = cft->write_s64(ctx.css, cft, v);
		} else {
			ret = -EINVAL;	/* root may open a 0444 file for writing */
		}
	}
	if (ret == 0 && !(f->cft->flags & CFTYPE_NO_STATE))
		cgrp->nr_writes++;
	if (ret == 0) {
		if (!(f->cft->flags & CFTYPE_NO_STATE) && cg_notify_wanted(core, write)) {
			/* As written: the handler may have cut copy up. */
			char *text = g_strndup(buf, len);

			cg_notify(core, write, cgrp, file, text);
			g_free(text);
		}
		cg_notify(core, changed, cgrp, file);
	}
out:
	cg_write_unlock(&core->lock);
	if (prep)
		served->cft->free_prep(prep);
	g_free(copy);
	return ret < 0 ? ret : (ssize_t)len;
}
