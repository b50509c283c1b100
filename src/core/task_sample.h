/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Sampling a subtree's threads for accounting without holding the core
 * lock over /proc: what a read of cpuacct.usage (a CFTYPE_SAMPLES file)
 * does first. The thread ids are copied under the lock, their figures read
 * without it, and charged under it again. A figure read before a move is
 * older than the charge the move made and is ignored (task_charge), so a
 * move meanwhile loses nothing. Readers of one group that come while it
 * is being sampled wait for that sample and share it, and those that come
 * within TASK_SAMPLE_SHARE_NS after share it too: N readers of a
 * 2000-thread group do not read /proc N times. Only threads whose process
 * ran since they were charged are read, and they are charged a batch per
 * write-locked stretch, so a move waits for a batch, not a group. The
 * copy of a group's members is kept while its membership stays
 * (cgroup->members_gen): a sample of a group whose members did not change
 * walks none of them under the lock. */
#ifndef CGFUSED_TASK_SAMPLE_H
#define CGFUSED_TASK_SAMPLE_H

#include "core/cgroup.h"

#define TASK_SAMPLE_SHARE_NS 5000000ULL	/* 5 ms */

/* The table of cg_core's sample_copies. */
GHashTable *task_sample_copies_new(void);

/* Takes the core lock itself (twice, briefly); not called locked. */
void task_sample_subtree(struct cg_core *core, uint64_t cgrp_id);
/* The same, sharing only a sample at most share_ns old (the quota
 * enforcer samples a capped group every millisecond or so). */
void task_sample_subtree_within(struct cg_core *core, uint64_t cgrp_id, uint64_t share_ns);

#endif
