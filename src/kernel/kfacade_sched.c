/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Scheduling levers on the real kernel (docs/kernel-notes.md: nice and
 * affinity act on one thread; autogroup nice weighs a whole session). */
#include "kernel/kfacade_sched.h"

#include <errno.h>
#include <inttypes.h>
#include <linux/capability.h>
#include <sys/resource.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* Not in the 6.1 headers' glibc wrappers. */
struct sched_attr_v0 {
	uint32_t size;
	uint32_t sched_policy;
	uint64_t sched_flags;
	int32_t sched_nice;
	uint32_t sched_priority;
	uint64_t sched_runtime, sched_deadline, sched_period;
};

#define SCHED_FLAG_KEEP_POLICY 0x08	/* change nice, keep the policy */
#define CPUCLOCK_SCHED 2
#define MAKE_PROCESS_CPUCLOCK(pid, clock) ((clockid_t)((~(unsigned)(pid) << 3) | (clock)))

int ksched_process_cputime(struct kfacade *kf, pid_t tgid, uint64_t *ns)
{
	struct timespec ts;

	(void)kf;
	if (clock_gettime(MAKE_PROCESS_CPUCLOCK(tgid, CPUCLOCK_SCHED), &ts) < 0)
		return errno == EINVAL ? -ESRCH : -errno;
	*ns = (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
	return 0;
}

uint64_t ksched_boottime_ns(struct kfacade *kf)
{
	struct timespec ts;

	(void)kf;
	clock_gettime(CLOCK_BOOTTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* The real and effective uid of a thread and its permitted capabilities,
 * from /proc/TID/status. */
static int task_creds(pid_t tid, uid_t *ruid, uid_t *euid, uint64_t *permitted)
{
	char path[64], *data = NULL, *line, *caps;
	int ret = -ESRCH;

	snprintf(path, sizeof(path), "/proc/%d/status", tid);
	if (!g_file_get_contents(path, &data, NULL, NULL))
		return -ESRCH;
	line = strstr(data, "\nUid:");
	caps = strstr(data, "\nCapPrm:");
	if (line && sscanf(line, "\nUid: %u %u", ruid, euid) == 2 && caps &&
	    sscanf(caps, "\nCapPrm: %" SCNx64, permitted) == 1)
		ret = 0;
	g_free(data);
	return ret;
}

/* The daemon's effective uid, which it never changes: asked once, not
 * with a system call on every move. */
static uid_t daemon_euid(void)
{
	static gsize once;
	static uid_t euid;

	if (g_once_init_enter(&once)) {
		euid = geteuid();
		g_once_init_leave(&once, 1);
	}
	return euid;
}

/* The daemon's credentials, which it never changes: asked once. */
struct daemon_creds {
	uint64_t permitted, effective;	/* its capabilities */
	/* CAP_SYS_NICE where the kernel looks for it: in the initial user
	 * namespace (sched_setattr() and setpriority() ask capable(), not
	 * ns_capable()), so a user namespace's root has it not. The initial
	 * namespace is the one whose uid_map maps every uid to itself. */
	bool sys_nice;
};

static bool in_initial_userns(void)
{
	char *map = NULL, *nl;
	unsigned inside, outside;
	unsigned long len;
	bool init_ns;

	if (!g_file_get_contents("/proc/self/uid_map", &map, NULL, NULL))
		return false;
	init_ns = sscanf(map, "%u %u %lu", &inside, &outside, &len) == 3 && inside == 0 &&
		  outside == 0 && len == 4294967295UL && (!(nl = strchr(map, '\n')) || !nl[1]);
	g_free(map);
	return init_ns;
}

static const struct daemon_creds *daemon_creds(void)
{
	static gsize once;
	static struct daemon_creds c;

	if (g_once_init_enter(&once)) {
		struct __user_cap_header_struct hdr = { _LINUX_CAPABILITY_VERSION_3, 0 };
		struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3] = { { 0 } };

		if (syscall(SYS_capget, &hdr, data) == 0) {
			c.permitted = data[0].permitted | (uint64_t)data[1].permitted << 32;
			c.effective = data[0].effective | (uint64_t)data[1].effective << 32;
			c.sys_nice = data[CAP_TO_INDEX(CAP_SYS_NICE)].effective &
				     CAP_TO_MASK(CAP_SYS_NICE) && in_initial_userns();
		}
		g_once_init_leave(&once, 1);
	}
	return &c;
}

bool ksched_may_lower_nice(struct kfacade *kf)
{
	(void)kf;
	return daemon_creds()->sys_nice;
}

/* The Yama LSM's ptrace_scope: 0 (classic: a user traces its own tasks)
 * where there is no Yama; 1 only descendants, 2 only with CAP_SYS_PTRACE,
 * 3 none. */
static int yama_ptrace_scope(void)
{
	char *text = NULL;
	int scope = 0;

	if (g_file_get_contents("/proc/sys/kernel/yama/ptrace_scope", &text, NULL, NULL))
		scope = atoi(text);
	g_free(text);
	return scope;
}

/* Whether it may trace the tasks it may manage (kfacade.h), asked once. */
bool ksched_may_trace(struct kfacade *kf)
{
	static gsize once;
	static bool may;

	(void)kf;
	if (g_once_init_enter(&once)) {
		int scope = yama_ptrace_scope();
		bool cap = daemon_creds()->effective & (1ULL << CAP_SYS_PTRACE);

		may = scope == 0 || (scope < 3 && cap);
		g_once_init_leave(&once, 1);
	}
	return may;
}

/* Without CAP_SYS_NICE: the kernel's set_one_prio_perm() (the target's
 * real or effective uid is our effective uid: a user namespace's root
 * sees its own as 0) and cap_safe_nice() (the target's permitted
 * capabilities are a subset of ours: root without CAP_SYS_NICE may not
 * renice a root task that has it). Without them attach says EACCES, as
 * cgroup v1 does to a writer who may not move a task. */
int ksched_may_manage(struct kfacade *kf, pid_t tid)
{
	uid_t ruid, euid;
	uint64_t permitted;
	int ret;

	if (ksched_may_lower_nice(kf))
		return 0;
	ret = task_creds(tid, &ruid, &euid, &permitted);
	if (ret < 0)
		return ret;
	if (ruid != daemon_euid() && euid != daemon_euid())
		return -EACCES;
	return (permitted & ~daemon_creds()->permitted) ? -EACCES : 0;
}

int ksched_get_nice(struct kfacade *kf, pid_t tid, int *nice)
{
	struct sched_attr_v0 attr = { 0 };

	(void)kf;
	if (syscall(SYS_sched_getattr, tid, &attr, sizeof(attr), 0) < 0)
		return -errno;
	*nice = attr.sched_nice;
	return 0;
}

int ksched_set_nice(struct kfacade *kf, pid_t tid, int nice)
{
	struct sched_attr_v0 attr = {
		.size = sizeof(attr),
		.sched_flags = SCHED_FLAG_KEEP_POLICY,
		.sched_nice = nice,
	};

	(void)kf;
	return syscall(SYS_sched_setattr, tid, &attr, 0) < 0 ? -errno : 0;
}

int ksched_get_affinity(struct kfacade *kf, pid_t tid, struct cpumask *mask)
{
	cpu_set_t set;

	(void)kf;
	G_STATIC_ASSERT(sizeof(set) == sizeof(mask->bits));
	if (sched_getaffinity(tid, sizeof(set), &set) < 0)
		return -errno;
	memcpy(mask->bits, &set, sizeof(set));
	return 0;
}

int ksched_set_affinity(struct kfacade *kf, pid_t tid, const struct cpumask *mask)
{
	cpu_set_t set;

	(void)kf;
	memcpy(&set, mask->bits, sizeof(set));
	return sched_setaffinity(tid, sizeof(set), &set) < 0 ? -errno : 0;
}

int ksched_get_autogroup(struct kfacade *kf, pid_t tid, int *id, int *nice)
{
	char path[64], *data = NULL;
	int ret = -ESRCH;

	(void)kf;
	snprintf(path, sizeof(path), "/proc/%d/autogroup", tid);
	if (!g_file_get_contents(path, &data, NULL, NULL))
		return -ESRCH;
	if (sscanf(data, "/autogroup-%d nice %d", id, nice) == 2) {
		ret = 0;
	} else if (!*data) {	/* init's session: the root task group */
		*id = AUTOGROUP_ROOT;
		*nice = 0;
		ret = 0;
	}
	g_free(data);
	return ret;
}

int ksched_set_autogroup_nice(struct kfacade *kf, pid_t tid, int nice)
{
	char path[64], buf[16];
	int fd, len, ret = 0;

	(void)kf;
	snprintf(path, sizeof(path), "/proc/%d/autogroup", tid);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? -ESRCH : -errno;	/* no such thread */
	len = snprintf(buf, sizeof(buf), "%d", nice);
	if (write(fd, buf, (size_t)len) != len)
		ret = -errno;
	close(fd);
	return ret;
}

int ksched_nice_rlimit(struct kfacade *kf, pid_t tid, int *rlim)
{
	struct rlimit lim;

	(void)kf;
	if (prlimit(tid, RLIMIT_NICE, NULL, &lim) < 0)
		return -errno;
	*rlim = lim.rlim_cur > 40 ? 40 : (int)lim.rlim_cur;
	return 0;
}

int ksched_get_policy(struct kfacade *kf, pid_t tid, int *policy)
{
	int ret = sched_getscheduler(tid);

	(void)kf;
	if (ret < 0)
		return -errno;
	*policy = ret & ~SCHED_RESET_ON_FORK;
	return 0;
}

/* sched_setscheduler() keeps the nice (sched_setattr would set its own);
 * the reset-on-fork flag is given again, or it would be cleared. */
int ksched_set_policy(struct kfacade *kf, pid_t tid, int policy)
{
	struct sched_param param = { 0 };
	int now = sched_getscheduler(tid);

	(void)kf;
	if (now < 0)
		return -errno;
	return sched_setscheduler(tid, policy | (now & SCHED_RESET_ON_FORK), &param) < 0 ? -errno : 0;
}
