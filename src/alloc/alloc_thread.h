/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The allocator's thread: a pass soon after each kick (at most one every
 * ALLOC_KICK_GAP_MS, so that a storm of attaches costs a few passes, not
 * one each), a sampling pass every ALLOC_PERIOD_MS, and between them a
 * re-read of repeat affinity wideners every ALLOC_RECHECK_MS. */
#ifndef CGFUSED_ALLOC_THREAD_H
#define CGFUSED_ALLOC_THREAD_H

#include "alloc/alloc.h"

#define ALLOC_KICK_GAP_MS 20

struct alloc_thread;

struct alloc_thread *alloc_thread_start(struct allocator *a);
void alloc_thread_stop(struct alloc_thread *th);

#endif
