/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Clocks in nanoseconds: the monotonic one (vDSO, no system call) and the
 * calling thread's CPU time (a system call). */
#ifndef CGFUSED_CLOCK_H
#define CGFUSED_CLOCK_H

#include <stdint.h>
#include <time.h>

static inline uint64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static inline uint64_t mono_ns(void)
{
	return clock_ns(CLOCK_MONOTONIC);
}

static inline uint64_t thread_cpu_ns(void)
{
	return clock_ns(CLOCK_THREAD_CPUTIME_ID);
}

#endif
