/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The core lock taken for a caller's function (see core/core_call.h). */
#include "core/core_call.h"
#include "core/internal.h"

void cg_core_read(struct cg_core *core, cg_core_fn fn, void *data)
{
	unsigned slot = cg_read_lock(&core->lock);

	fn(core, data);
	cg_read_unlock(&core->lock, slot);
}

void cg_core_write_at(struct cg_core *core, cg_core_fn fn, void *data, const char *site)
{
	cg_write_lock_at(&core->lock, site);
	fn(core, data);
	cg_write_unlock(&core->lock);
}

int cg_subscribe_after_at(struct cg_core *core, const struct cg_subscriber *sub,
			  int (*fn)(struct cg_core *core, void *data), void *data,
			  const char *site)
{
	int ret;

	cg_write_lock_at(&core->lock, site);
	ret = fn(core, data);
	if (ret == 0)
		cg_subscribe_locked(core, sub);
	cg_write_unlock(&core->lock);
	return ret;
}

void cg_exec_hook_set(struct cg_core *core, task_exec_hook_fn fn, void *data)
{
	cg_write_lock(&core->lock);
	task_exec_set_hook(fn, data);
	cg_write_unlock(&core->lock);
}

void cg_core_serving(struct cg_core *core)
{
	cg_lock_figures_reset(&core->lock);
}
