/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The enforcement thread: the one tracer of every thread held stopped
 * (enforce/tracees.h), for the freezer and the CPU quota, and cpu.idle's
 * worker. Its end lets every held thread go and gives back every policy;
 * a daemon that dies frees them too (the kernel detaches a dead tracer's
 * tracees). */
#ifndef CGFUSED_ENFORCE_THREAD_H
#define CGFUSED_ENFORCE_THREAD_H

#include "enforce/freezer.h"
#include "enforce/idle.h"
#include "enforce/quota.h"
#include "enforce/tracees.h"

struct enforce_thread;

/* Passes of each enforcer given (any may be NULL) when due and at its
 * kicks. NULL (nothing started) when none is given. */
struct enforce_thread *enforce_thread_start(struct tracees *tr, struct freezer_enforcer *fe,
					    struct quota_enforcer *qe, struct idle_enforcer *ie);
void enforce_thread_stop(struct enforce_thread *th);

#endif
