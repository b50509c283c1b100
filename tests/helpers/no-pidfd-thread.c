/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * no-pidfd-thread COMMAND [ARGS...]: runs COMMAND as on a kernel before
 * Linux 6.9, which has no PIDFD_THREAD: a seccomp filter makes pidfd_open()
 * with that flag fail with EINVAL (an unknown flag), then COMMAND is
 * exec'd. Exits 1 if the filter cannot be installed.
 */
#include <errno.h>
#include <fcntl.h>
#include <sys/syscall.h>

#include "seccomp-exec.h"

#ifndef PIDFD_THREAD
#define PIDFD_THREAD O_EXCL
#endif

int main(int argc, char **argv)
{
	struct sock_filter filter[] = {
		SECCOMP_LOAD_NR,
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_pidfd_open, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		/* flags, the low 32 bits of the second argument */
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[1])),
		BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, PIDFD_THREAD, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EINVAL),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};

	return seccomp_exec("no-pidfd-thread", filter, sizeof(filter) / sizeof(filter[0]), argc,
			    argv);
}
