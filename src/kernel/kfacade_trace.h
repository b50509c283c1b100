/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The freezer's lever on the running kernel: ptrace (see kfacade.h). */
#ifndef CGFUSED_KFACADE_TRACE_H
#define CGFUSED_KFACADE_TRACE_H

#include "kernel/kfacade.h"

int ktrace_freeze(struct kfacade *kf, pid_t tid);
int ktrace_report(struct kfacade *kf, struct trace_report *r);
int ktrace_thaw(struct kfacade *kf, pid_t tid, int sig);
int ktrace_status(struct kfacade *kf, pid_t tid, struct trace_status *st);
int ktrace_signal(struct kfacade *kf, pid_t tid, int sig);

#endif
