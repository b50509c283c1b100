/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A process's /proc, as the exec rules read it: see kfacade_exec.h. */
#include "kernel/kfacade_exec.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* The "Uid:" / "Gid:" line's second (effective) id. */
static bool status_id(const char *status, const char *key, unsigned *id)
{
	const char *line = strstr(status, key);

	return line && sscanf(line + strlen(key), "%*u %u", id) == 1;
}

static bool read_small(int dfd, const char *name, char *buf, size_t size)
{
	int fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, size - 1);

	if (fd >= 0)
		close(fd);
	if (n < 0)
		return false;
	buf[n] = '\0';
	return true;
}

/* Whether the process's last exec is done with its new image: an exec
 * gives the process its new command name and executable first, and only
 * then (binfmt_elf's create_elf_tables) the bounds of its arguments and
 * environment, which read empty meanwhile; the bounds of its code are set
 * after those. "stat" shows them as 0 until then (1 1 to a reader that may
 * not see them, which cannot read the environment either; 0 in a zombie). */
static bool exec_settled(int dfd)
{
	char stat[2048], *fields;
	unsigned long start_code, end_code;

	if (!read_small(dfd, "stat", stat, sizeof(stat)) || !(fields = strrchr(stat, ')')))
		return false;
	/* After "pid (comm)": state is field 3, startcode 26, endcode 27. */
	if (sscanf(fields + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d "
		   "%*d %*d %*d %*d %*u %*u %*d %*u %lu %lu", &start_code, &end_code) != 2)
		return false;
	return start_code || end_code;
}

bool kexec_proc_open_at(struct kfacade *kf, int dfd, struct exec_proc *p)
{
	char status[4096];
	ssize_t n;

	p->dfd = dfd;
	if (p->dfd < 0 || !read_small(p->dfd, "status", status, sizeof(status)) ||
	    !status_id(status, "\nUid:", &p->uid) || !status_id(status, "\nGid:", &p->gid) ||
	    !read_small(p->dfd, "comm", p->comm, sizeof(p->comm))) {
		kexec_proc_close(kf, p);
		return false;
	}
	p->comm[strcspn(p->comm, "\n")] = '\0';
	/* A kernel thread has no exe: "". */
	n = readlinkat(p->dfd, "exe", p->exe, sizeof(p->exe) - 1);
	p->exe[n < 0 ? 0 : n] = '\0';
	/* Checked after the name and exe, before the environment: what was
	 * read is of a finished exec's image, or of one the report of a
	 * later exec (still under way) makes moot. */
	if (!exec_settled(p->dfd)) {
		kexec_proc_close(kf, p);
		return false;
	}
	return true;
}

bool kexec_proc_open(struct kfacade *kf, pid_t pid, struct exec_proc *p)
{
	char path[32];

	snprintf(path, sizeof(path), "/proc/%d", (int)pid);
	return kexec_proc_open_at(kf, open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC),
				  p);
}

bool kexec_proc_has_env(struct kfacade *kf, const struct exec_proc *p, const char *entry,
			size_t max)
{
	int fd = openat(p->dfd, "environ", O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	GString *env = g_string_new(NULL);
	char buf[65536];
	bool found = false;
	ssize_t n;

	(void)kf;
	while (fd >= 0 && env->len < max && (n = read(fd, buf, sizeof(buf))) > 0)
		g_string_append_len(env, buf, n);
	for (gsize at = 0; at < env->len; at += strlen(env->str + at) + 1)
		if ((found = strcmp(env->str + at, entry) == 0))
			break;
	if (fd >= 0)
		close(fd);
	g_string_free(env, TRUE);
	return found;
}

void kexec_proc_close(struct kfacade *kf, struct exec_proc *p)
{
	(void)kf;
	if (p->dfd >= 0)
		close(p->dfd);
	p->dfd = -1;
}
