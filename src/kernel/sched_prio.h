/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The kernel's nice range and the CFS weight of each nice
 * (kernel/sched/core.c's sched_prio_to_weight): what the allocator aims
 * at and what cpu.weight.nice reads and writes. */
#ifndef CGFUSED_SCHED_PRIO_H
#define CGFUSED_SCHED_PRIO_H

#define NICE_MIN (-20)
#define NICE_MAX 19
#define NICE_WIDTH 40

/* The kernel's sched_prio_to_weight[nice + 20]. */
extern const int sched_prio_to_weight[NICE_WIDTH];

static inline int nice_to_weight(int nice)
{
	return sched_prio_to_weight[nice - NICE_MIN];
}

#endif
