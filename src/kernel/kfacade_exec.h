/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The exec rules' look at a process in the real kernel facade
 * (kfacade_linux.c puts them in its ops table): /proc/PID's status, comm,
 * exe and environ, through one descriptor of the directory. */
#ifndef CGFUSED_KFACADE_EXEC_H
#define CGFUSED_KFACADE_EXEC_H

#include "kernel/kfacade.h"

bool kexec_proc_open(struct kfacade *kf, pid_t pid, struct exec_proc *p);
/* The same of the /proc/PID directory open as dfd (taken over, also on
 * failure; -1: none). False too for a process in the middle of an exec:
 * that exec's own report follows. */
bool kexec_proc_open_at(struct kfacade *kf, int dfd, struct exec_proc *p);
bool kexec_proc_has_env(struct kfacade *kf, const struct exec_proc *p, const char *entry,
			size_t max);
void kexec_proc_close(struct kfacade *kf, struct exec_proc *p);

#endif
