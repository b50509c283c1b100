/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The kernel's nice to weight table: see sched_prio.h. */
#include "kernel/sched_prio.h"

const int sched_prio_to_weight[NICE_WIDTH] = {
	88761, 71755, 56483, 46273, 36291,
	29154, 23254, 18705, 14949, 11916,
	9548, 7620, 6100, 4904, 3906,
	3121, 2501, 1991, 1586, 1277,
	1024, 820, 655, 526, 423,
	335, 272, 215, 172, 137,
	110, 87, 70, 56, 45,
	36, 29, 23, 18, 15,
};
