/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * no-ptrace COMMAND [ARGS...]: runs COMMAND where ptrace(2) is refused, as
 * in a container whose seccomp profile denies it: a seccomp filter makes
 * every ptrace() fail with EPERM, then COMMAND is exec'd. Exits 1 if the
 * filter cannot be installed.
 */
#include <errno.h>
#include <sys/syscall.h>

#include "seccomp-exec.h"

int main(int argc, char **argv)
{
	struct sock_filter filter[] = {
		SECCOMP_LOAD_NR,
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_ptrace, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};

	return seccomp_exec("no-ptrace", filter, sizeof(filter) / sizeof(filter[0]), argc, argv);
}
