/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The scheduling levers of the real kernel facade (kfacade_linux.c puts
 * them in its ops table): per-thread nice through sched_setattr, affinity,
 * session autogroups, and who may be managed. */
#ifndef CGFUSED_KFACADE_SCHED_H
#define CGFUSED_KFACADE_SCHED_H

#include "kernel/kfacade.h"

int ksched_process_cputime(struct kfacade *kf, pid_t tgid, uint64_t *ns);
uint64_t ksched_boottime_ns(struct kfacade *kf);
int ksched_may_manage(struct kfacade *kf, pid_t tid);
bool ksched_may_lower_nice(struct kfacade *kf);
bool ksched_may_trace(struct kfacade *kf);
int ksched_get_nice(struct kfacade *kf, pid_t tid, int *nice);
int ksched_set_nice(struct kfacade *kf, pid_t tid, int nice);
int ksched_get_affinity(struct kfacade *kf, pid_t tid, struct cpumask *mask);
int ksched_set_affinity(struct kfacade *kf, pid_t tid, const struct cpumask *mask);
int ksched_get_autogroup(struct kfacade *kf, pid_t tid, int *id, int *nice);
int ksched_set_autogroup_nice(struct kfacade *kf, pid_t tid, int nice);
int ksched_nice_rlimit(struct kfacade *kf, pid_t tid, int *rlim);
int ksched_get_policy(struct kfacade *kf, pid_t tid, int *policy);
int ksched_set_policy(struct kfacade *kf, pid_t tid, int policy);

#endif
