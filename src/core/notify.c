/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The list of subscribers (see notify.h). */
#include "core/internal.h"
#include "core/notify.h"

void cg_subscribe_locked(struct cg_core *core, const struct cg_subscriber *sub)
{
	g_ptr_array_add(core->subscribers, (gpointer)sub);
}

void cg_unsubscribe_locked(struct cg_core *core, const struct cg_subscriber *sub)
{
	g_ptr_array_remove(core->subscribers, (gpointer)sub);
}

void cg_subscribe(struct cg_core *core, const struct cg_subscriber *sub)
{
	cg_write_lock(&core->lock);
	cg_subscribe_locked(core, sub);
	cg_write_unlock(&core->lock);
}

void cg_unsubscribe(struct cg_core *core, const struct cg_subscriber *sub)
{
	cg_write_lock(&core->lock);
	cg_unsubscribe_locked(core, sub);
	cg_write_unlock(&core->lock);
}

int cg_notify_prepare(struct cg_core *core, const struct cg_change *change)
{
	for (guint i = 0; i < core->subscribers->len; i++) {
		const struct cg_subscriber *sub = core->subscribers->pdata[i];
		int ret = sub->prepare ? sub->prepare(sub->data, change) : 0;

		if (ret)
			return ret;
	}
	return 0;
}

void cg_notify_frozen(struct cg_core *core, struct cgroup *cgrp, bool frozen)
{
	cg_notify(core, frozen, cgrp, frozen);
}
