/* SPDX-License-Identifier: GPL-2.0-or-later */
/* For the helpers that run a command under a seccomp filter (no-ptrace,
 * no-pidfd-thread): the filter's first lines, and installing it before the
 * exec. */
#ifndef CGFUSED_SECCOMP_EXEC_H
#define CGFUSED_SECCOMP_EXEC_H

#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <unistd.h>

#if defined(__x86_64__)
#define SECCOMP_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define SECCOMP_ARCH AUDIT_ARCH_AARCH64
#else
#error "no seccomp arch for this machine"
#endif

/* Allows every call of another architecture, then loads the call's number. */
#define SECCOMP_LOAD_NR \
	BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)), \
	BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SECCOMP_ARCH, 1, 0), \
	BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW), \
	BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr))

/* Installs the n lines of filter and execs argv[1] with its arguments;
 * returns 1 after saying why, as name, when it cannot. */
static inline int seccomp_exec(const char *name, struct sock_filter *filter, unsigned short n,
			       int argc, char **argv)
{
	struct sock_fprog prog = { .len = n, .filter = filter };

	if (argc < 2) {
		fprintf(stderr, "usage: %s COMMAND [ARGS...]\n", name);
		return 1;
	}
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) < 0) {
		fprintf(stderr, "%s: seccomp: ", name);
		perror(NULL);
		return 1;
	}
	execvp(argv[1], argv + 1);
	fprintf(stderr, "%s: exec: ", name);
	perror(NULL);
	return 1;
}

#endif
