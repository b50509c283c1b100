/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Taskstats over generic netlink: the kernel sends a listener registered
 * for a CPU one message per task that exits on that CPU, holding the
 * thread's final figures (TASKSTATS_TYPE_AGGR_PID) and, for the last thread
 * of a process, the process's totals (AGGR_TGID, skipped here: its threads'
 * own records already carry them). Two sockets: the listener, which only
 * ever receives exit records, and a control socket for the family lookup
 * and live queries, so that neither waits behind the other.
 *
 * The installed headers are Linux 6.1's (struct taskstats version 13); the
 * running kernel may send a longer, newer struct. Versions only append
 * fields, so the few read here are taken at their 6.1 offsets from however
 * many bytes arrive. */
#include "kernel/taskstats.h"

#include <errno.h>
#include <stdbool.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <linux/taskstats.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* The first version with ac_tgid. */
#define TASKSTATS_V_TGID 12
/* Forced receive buffer: the default one loses exits in bursts. */
#define TS_RCVBUF (8 << 20)
/* Bounds a wait for the kernel's answer on the control socket; it answers
 * within the send, so this only guards against the unexpected. */
#define CTL_TIMEOUT_S 1

struct taskstats_listener {
	int nl;			/* registered listener: exit records only */
	int ctl;		/* family lookup and queries */
	uint16_t family;
	uint32_t seq;		/* of the control socket's requests */
	char *cpus;		/* the mask registered, to deregister it */
	uint32_t drops;		/* SK_MEMINFO_DROPS already reported */
	GArray *scratch;	/* a query's parsed reply */
};

/* ---- messages ---------------------------------------------------------- */

struct genl_req {
	struct nlmsghdr h;
	struct genlmsghdr g;
	char attrs[1024];
};

static void req_init(struct genl_req *r, uint16_t type, uint8_t cmd)
{
	memset(r, 0, NLMSG_HDRLEN + GENL_HDRLEN);
	r->h.nlmsg_len = NLMSG_HDRLEN + GENL_HDRLEN;
	r->h.nlmsg_type = type;
	r->h.nlmsg_flags = NLM_F_REQUEST;
	r->g.cmd = cmd;
	r->g.version = TASKSTATS_GENL_VERSION;
}

static int req_put(struct genl_req *r, uint16_t type, const void *data, size_t len)
{
	struct nlattr *a = (struct nlattr *)((char *)r + r->h.nlmsg_len);

	if (r->h.nlmsg_len + NLA_ALIGN(NLA_HDRLEN + len) > sizeof(*r))
		return -E2BIG;
	a->nla_type = type;
	a->nla_len = (uint16_t)(NLA_HDRLEN + len);
	memcpy((char *)a + NLA_HDRLEN, data, len);
	memset((char *)a + NLA_HDRLEN + len, 0, NLA_ALIGN(len) - len);
	r->h.nlmsg_len += NLA_ALIGN(a->nla_len);
	return 0;
}

static int req_send(int fd, const struct genl_req *r)
{
	return send(fd, r, r->h.nlmsg_len, 0) < 0 ? -errno : 0;
}

/* Calls fn for each attribute in [p, p + len). 0, fn's first non-zero
 * return, or -EPROTO when an attribute overruns the buffer. */
static int nla_each(const char *p, size_t len,
		    int (*fn)(uint16_t type, const char *data, size_t len, void *arg), void *arg)
{
	while (len >= NLA_HDRLEN) {
		struct nlattr a;
		size_t step;
		int ret;

		memcpy(&a, p, sizeof(a));
		if (a.nla_len < NLA_HDRLEN || a.nla_len > len)
			return -EPROTO;
		ret = fn(a.nla_type & NLA_TYPE_MASK, p + NLA_HDRLEN, a.nla_len - NLA_HDRLEN, arg);
		if (ret)
			return ret;
		step = NLA_ALIGN(a.nla_len);
		if (step >= len)
			break;
		p += step;
		len -= step;
	}
	return 0;
}

/* ---- parsing records --------------------------------------------------- */

static uint64_t field_u64(const char *stats, size_t off)
{
	uint64_t v;

	memcpy(&v, stats + off, sizeof(v));
	return v;
}

/* The figures of one struct taskstats of len bytes. */
static int parse_stats(const char *stats, size_t len, struct taskstats_record *rec)
{
	uint16_t version;
	uint32_t tgid;

	if (len < offsetof(struct taskstats, ac_tgid) + sizeof(tgid))
		return -EPROTO;
	memcpy(&version, stats + offsetof(struct taskstats, version), sizeof(version));
	if (version < TASKSTATS_V_TGID)
		return -EPROTO;
	memcpy(&tgid, stats + offsetof(struct taskstats, ac_tgid), sizeof(tgid));
	rec->tgid = (pid_t)tgid;
	rec->run_ns = field_u64(stats, offsetof(struct taskstats, cpu_run_virtual_total));
	rec->utime_us = field_u64(stats, offsetof(struct taskstats, ac_utime));
	rec->stime_us = field_u64(stats, offsetof(struct taskstats, ac_stime));
	return 0;
}

/* Inside TASKSTATS_TYPE_AGGR_PID: the thread id, and its stats. */
struct aggr_pid {
	bool have_pid, have_stats, stats_ok;
	struct taskstats_record rec;
};

static int aggr_pid_attr(uint16_t type, const char *data, size_t len, void *arg)
{
	struct aggr_pid *ap = arg;
	uint32_t pid;

	if (type == TASKSTATS_TYPE_PID) {
		if (len < sizeof(pid))
			return -EPROTO;
		memcpy(&pid, data, sizeof(pid));
		ap->rec.tid = (pid_t)pid;
		ap->have_pid = true;
	} else if (type == TASKSTATS_TYPE_STATS) {
		ap->have_stats = true;
		ap->stats_ok = parse_stats(data, len, &ap->rec) == 0;
	}
	/* TASKSTATS_TYPE_NULL pads STATS to 8 bytes: nothing in it. */
	return 0;
}

struct msg_parse {
	GArray *records;
	int unreadable;
};

static int msg_attr(uint16_t type, const char *data, size_t len, void *arg)
{
	struct msg_parse *mp = arg;
	struct aggr_pid ap = { 0 };
	int ret;

	/* AGGR_TGID is the whole process's sum: its threads came one by one. */
	if (type != TASKSTATS_TYPE_AGGR_PID)
		return 0;
	ret = nla_each(data, len, aggr_pid_attr, &ap);
	if (ret)
		return ret;
	if (!ap.have_pid || !ap.have_stats)
		return -EPROTO;
	if (ap.stats_ok)
		g_array_append_val(mp->records, ap.rec);
	else
		mp->unreadable++;
	return 0;
}

int taskstats_parse_msg(const void *msg, size_t len, GArray *records)
{
	const struct nlmsghdr *h = msg;
	struct genlmsghdr g;
	struct msg_parse mp = { records, 0 };
	guint had = records->len;
	int ret;

	if (len < NLMSG_HDRLEN + GENL_HDRLEN || h->nlmsg_len < NLMSG_HDRLEN + GENL_HDRLEN ||
	    h->nlmsg_len > len)
		return -EPROTO;
	memcpy(&g, (const char *)msg + NLMSG_HDRLEN, sizeof(g));
	if (g.cmd != TASKSTATS_CMD_NEW)
		return -EPROTO;
	ret = nla_each((const char *)msg + NLMSG_HDRLEN + GENL_HDRLEN,
		       h->nlmsg_len - NLMSG_HDRLEN - GENL_HDRLEN, msg_attr, &mp);
	if (ret) {
		g_array_set_size(records, had);	/* nothing from a bad message */
		return ret;
	}
	return mp.unreadable;
}

/* ---- the control socket ------------------------------------------------ */

static int nl_socket(int flags)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC | flags, NETLINK_GENERIC);

	if (fd < 0)
		return -errno;
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		int err = errno;

		close(fd);
		return -err;
	}
	return fd;
}

/* Sends r on the control socket and receives the message answering it
 * into buf: 0 with *reply set, the kernel's error, or -errno. */
static int ctl_call(struct taskstats_listener *ts, struct genl_req *r, char *buf, size_t size,
		    const struct nlmsghdr **reply)
{
	int ret;

	r->h.nlmsg_seq = ++ts->seq;
	ret = req_send(ts->ctl, r);
	while (ret == 0) {
		struct sockaddr_nl from;
		socklen_t fromlen = sizeof(from);
		ssize_t len = recvfrom(ts->ctl, buf, size, 0, (struct sockaddr *)&from, &fromlen);

		if (len < 0) {
			if (errno == EINTR)
				continue;
			return errno == EAGAIN ? -ETIMEDOUT : -errno;
		}
		if (from.nl_pid != 0)
			continue;	/* only the kernel answers */
		for (const struct nlmsghdr *h = (const struct nlmsghdr *)buf;
		     NLMSG_OK(h, (size_t)len); h = NLMSG_NEXT(h, len)) {
			if (h->nlmsg_seq != ts->seq)
				continue;	/* an earlier call's late answer */
			if (h->nlmsg_type == NLMSG_ERROR) {
				const struct nlmsgerr *e = NLMSG_DATA(h);

				if (h->nlmsg_len < NLMSG_LENGTH(sizeof(*e)))
					return -EPROTO;
				return e->error ? e->error : -EPROTO;
			}
			*reply = h;
			return 0;
		}
	}
	return ret;
}

static int family_id_attr(uint16_t type, const char *data, size_t len, void *arg)
{
	if (type != CTRL_ATTR_FAMILY_ID || len < sizeof(uint16_t))
		return 0;
	memcpy(arg, data, sizeof(uint16_t));
	return 1;
}

/* The TASKSTATS family's id (CTRL_CMD_GETFAMILY). */
static int resolve_family(struct taskstats_listener *ts)
{
	struct genl_req r;
	char buf[4096] __attribute__((aligned(NLMSG_ALIGNTO)));
	const struct nlmsghdr *h;
	int ret;

	req_init(&r, GENL_ID_CTRL, CTRL_CMD_GETFAMILY);
	req_put(&r, CTRL_ATTR_FAMILY_NAME, TASKSTATS_GENL_NAME, sizeof(TASKSTATS_GENL_NAME));
	ret = ctl_call(ts, &r, buf, sizeof(buf), &h);
	if (ret < 0)
		return ret;
	if (h->nlmsg_len < NLMSG_HDRLEN + GENL_HDRLEN)
		return -EPROTO;
	ret = nla_each((const char *)h + NLMSG_HDRLEN + GENL_HDRLEN,
		       h->nlmsg_len - NLMSG_HDRLEN - GENL_HDRLEN, family_id_attr, &ts->family);
	return ret == 1 ? 0 : -EPROTO;
}

int taskstats_query(struct taskstats_listener *ts, pid_t tid, struct taskstats_record *rec)
{
	struct genl_req r;
	char buf[8192] __attribute__((aligned(NLMSG_ALIGNTO)));
	const struct nlmsghdr *h;
	uint32_t pid = (uint32_t)tid;
	int ret;

	if (tid <= 0)
		return -ESRCH;
	req_init(&r, ts->family, TASKSTATS_CMD_GET);
	req_put(&r, TASKSTATS_CMD_ATTR_PID, &pid, sizeof(pid));
	ret = ctl_call(ts, &r, buf, sizeof(buf), &h);
	if (ret < 0)
		return ret;
	g_array_set_size(ts->scratch, 0);
	ret = taskstats_parse_msg(h, h->nlmsg_len, ts->scratch);
	if (ret < 0)
		return ret;
	if (ret > 0)
		return -EPROTONOSUPPORT;	/* a struct taskstats we cannot read */
	for (guint i = 0; i < ts->scratch->len; i++) {
		const struct taskstats_record *got =
			&g_array_index(ts->scratch, struct taskstats_record, i);

		if (got->tid == tid) {
			*rec = *got;
			return 0;
		}
	}
	return -EPROTO;
}

/* ---- the listener ------------------------------------------------------ */

/* The kernel's count of messages this socket dropped for want of room. */
static uint32_t socket_drops(int fd)
{
	uint32_t mem[SK_MEMINFO_VARS] = { 0 };
	socklen_t len = sizeof(mem);

	if (getsockopt(fd, SOL_SOCKET, SO_MEMINFO, mem, &len) < 0 ||
	    len <= SK_MEMINFO_DROPS * sizeof(uint32_t))
		return 0;	/* unknown: ENOBUFS still tells of losses */
	return mem[SK_MEMINFO_DROPS];
}

static int send_cpumask(struct taskstats_listener *ts, uint16_t attr)
{
	struct genl_req r;
	int ret;

	req_init(&r, ts->family, TASKSTATS_CMD_GET);
	ret = req_put(&r, attr, ts->cpus, strlen(ts->cpus) + 1);
	return ret ? ret : req_send(ts->nl, &r);
}

/* Registers the listener for every possible CPU (a task's record goes to
 * the listeners of the CPU it exits on). Asked without NLM_F_ACK: success
 * sends nothing back, so only exit records ever queue on this socket, and a
 * refusal is the one message an unregistered socket can have. */
static int register_listener(struct taskstats_listener *ts)
{
	struct nlmsgerr e;
	char buf[NLMSG_HDRLEN + sizeof(e)] __attribute__((aligned(NLMSG_ALIGNTO)));
	const struct nlmsghdr *h = (const struct nlmsghdr *)buf;
	ssize_t len;
	int ret = send_cpumask(ts, TASKSTATS_CMD_ATTR_REGISTER_CPUMASK);

	if (ret < 0)
		return ret;
	/* The kernel runs the command within send(): a refusal is queued. */
	len = recv(ts->nl, buf, sizeof(buf), MSG_PEEK | MSG_DONTWAIT | MSG_TRUNC);
	if (len < (ssize_t)sizeof(buf) || h->nlmsg_type != NLMSG_ERROR)
		return 0;
	recv(ts->nl, buf, sizeof(buf), MSG_DONTWAIT);
	memcpy(&e, NLMSG_DATA(h), sizeof(e));
	return e.error ? e.error : -EPROTO;
}

struct taskstats_listener *taskstats_listener_open(void)
{
	struct taskstats_listener *ts = g_new0(struct taskstats_listener, 1);
	struct taskstats_record self;
	struct timeval tv = { .tv_sec = CTL_TIMEOUT_S };
	int size = TS_RCVBUF, ret;

	ts->nl = -1;
	ts->scratch = g_array_new(FALSE, FALSE, sizeof(struct taskstats_record));
	ts->ctl = nl_socket(0);
	if (ts->ctl < 0) {
		ret = ts->ctl;
		goto fail;
	}
	setsockopt(ts->ctl, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	ret = resolve_family(ts);
	/* Also tells EPERM early and checks the struct's version. */
	if (ret == 0)
		ret = taskstats_query(ts, (pid_t)gettid(), &self);
	if (ret < 0)
		goto fail;
	ts->nl = nl_socket(SOCK_NONBLOCK);
	if (ts->nl < 0) {
		ret = ts->nl;
		goto fail;
	}
	/* Forcing needs CAP_NET_ADMIN; otherwise as much as rmem_max allows. */
	if (setsockopt(ts->nl, SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof(size)) < 0)
		setsockopt(ts->nl, SOL_SOCKET, SO_RCVBUF, &size, sizeof(size));
	ts->drops = socket_drops(ts->nl);
	if (!g_file_get_contents("/sys/devices/system/cpu/possible", &ts->cpus, NULL, NULL))
		ts->cpus = g_strdup("0");
	g_strstrip(ts->cpus);
	ret = register_listener(ts);
	if (ret == 0)
		return ts;
	g_clear_pointer(&ts->cpus, g_free);	/* nothing to deregister */
fail:
	taskstats_listener_free(ts);
	errno = -ret;
	return NULL;
}

void taskstats_listener_free(struct taskstats_listener *ts)
{
	if (!ts)
		return;
	if (ts->nl >= 0) {
		if (ts->cpus)
			send_cpumask(ts, TASKSTATS_CMD_ATTR_DEREGISTER_CPUMASK);
		close(ts->nl);
	}
	if (ts->ctl >= 0)
		close(ts->ctl);
	g_free(ts->cpus);
	g_array_unref(ts->scratch);
	g_free(ts);
}

int taskstats_listener_fd(const struct taskstats_listener *ts)
{
	return ts->nl;
}

int taskstats_drain(struct taskstats_listener *ts, GArray *records, uint64_t *lost)
{
	uint64_t overruns = 0, unreadable = 0;
	uint32_t drops;

	for (;;) {
		char buf[16384] __attribute__((aligned(NLMSG_ALIGNTO)));
		struct sockaddr_nl from;
		socklen_t fromlen = sizeof(from);
		ssize_t len = recvfrom(ts->nl, buf, sizeof(buf), MSG_DONTWAIT | MSG_TRUNC,
				       (struct sockaddr *)&from, &fromlen);

		if (len < 0) {
			if (errno == ENOBUFS)
				overruns++;	/* once per overrun; keep reading */
			else if (errno == EAGAIN)
				break;
			else if (errno != EINTR)
				return -errno;
			continue;
		}
		if (from.nl_pid != 0)
			continue;	/* only the kernel sends records */
		if ((size_t)len > sizeof(buf)) {
			unreadable++;	/* cut short: none is this long */
			continue;
		}
		for (const struct nlmsghdr *h = (const struct nlmsghdr *)buf;
		     NLMSG_OK(h, (size_t)len); h = NLMSG_NEXT(h, len)) {
			int ret;

			if (h->nlmsg_type != ts->family)
				continue;
			ret = taskstats_parse_msg(h, h->nlmsg_len, records);
			unreadable += ret < 0 ? 1 : (uint64_t)ret;
		}
	}
	/* Each dropped message counts once in SK_MEMINFO_DROPS; where that is
	 * not to be had, each overrun means at least one. */
	drops = socket_drops(ts->nl);
	*lost = MAX((uint64_t)(uint32_t)(drops - ts->drops), overruns) + unreadable;
	ts->drops = drops;
	return 0;
}
