/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The proc connector source: forks, execs and exits of every task from the
 * kernel's netlink connector, exits with their last figures from taskstats
 * (root only; else from /proc while a leader is still a zombie). */
#include "kernel/watch_sources.h"

#include "kernel/task_cputime.h"
#include "kernel/taskstats.h"

#include <errno.h>
#include <linux/cn_proc.h>
#include <linux/connector.h>
#include <linux/netlink.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* Since 6.6 a listener may ask for some events only; older kernels read
 * only mcast_op and send everything, which costs time but is still right. */
struct cgfused_proc_input {
	uint32_t mcast_op;
	uint32_t event_type;
};

/* Forced receive buffer: the default one loses exits in bursts. */
#define CN_RCVBUF (8 << 20)

struct watch_connector {
	struct watch_source base;
	int nl;
	/* Read during the probe, handed out first. */
	GArray *probed;
	bool probe_lost;
	/* Exited threads' last CPU figures (root only; NULL otherwise), and
	 * what was drained of them: tid -> struct taskstats_record, this
	 * call's and the previous call's (a record comes before its exit
	 * report, but may be drained a call earlier). */
	struct taskstats_listener *ts;
	GHashTable *exits, *exits_before;
	uint64_t events, overruns;
};

static struct watch_connector *to_cn(struct watch_source *ws)
{
	return (struct watch_connector *)ws;
}

/* USER_HZ ticks of user and system time in run_ns, split as the exit
 * record's tick samples split. */
static void final_from_record(const struct taskstats_record *r, struct task_cputime *out)
{
	uint64_t ticks = r->run_ns / (1000000000ULL / (uint64_t)sysconf(_SC_CLK_TCK));
	uint64_t sampled = r->utime_us + r->stime_us;

	*out = (struct task_cputime){ .run_ns = r->run_ns, .cpu = -1 };
	out->utime = sampled ? ticks * r->utime_us / sampled : ticks;
	out->stime = ticks - out->utime;
}

/* Gives exit events the thread's last figures: from taskstats as root,
 * else from /proc while a process leader is still a zombie. */
static void add_final_figures(struct watch_connector *cn, struct task_event *ev, unsigned n)
{
	if (cn->ts) {
		GArray *records = g_array_new(FALSE, FALSE, sizeof(struct taskstats_record));
		GHashTable *old = cn->exits_before;
		uint64_t lost;

		taskstats_drain(cn->ts, records, &lost);
		cn->exits_before = cn->exits;
		cn->exits = old;
		g_hash_table_remove_all(cn->exits);
		for (guint i = 0; i < records->len; i++) {
			struct taskstats_record *r = &g_array_index(records, struct taskstats_record, i);

			g_hash_table_insert(cn->exits, GINT_TO_POINTER(r->tid), g_memdup2(r, sizeof(*r)));
		}
		g_array_unref(records);
	}
	for (unsigned i = 0; i < n; i++) {
		struct taskstats_record *r = NULL;
		struct proc_task_cputime ct;

		if (ev[i].what != TASK_EVENT_EXIT)
			continue;
		if (cn->ts && !(r = g_hash_table_lookup(cn->exits, GINT_TO_POINTER(ev[i].tid))))
			r = g_hash_table_lookup(cn->exits_before, GINT_TO_POINTER(ev[i].tid));
		if (r) {
			final_from_record(r, &ev[i].final);
			ev[i].final_valid = true;
		} else if (!cn->ts && task_cputime_read(ev[i].tgid, ev[i].tid, &ct) == 0) {
			ev[i].final = (struct task_cputime){ ct.run_ns, ct.wait_ns, ct.utime_ticks,
							     ct.stime_ticks, ct.processor, false };
			ev[i].final_valid = true;
		}
	}
}

/* What the socket holds now, at most max: how many, *lost set when the
 * kernel dropped some (the receive buffer overran) or max was too small. */
static unsigned cn_read(int nl, struct task_event *out, unsigned max, bool *lost)
{
	unsigned n = 0;

	while (n < max) {
		char buf[4096] __attribute__((aligned(NLMSG_ALIGNTO)));
		ssize_t len = recv(nl, buf, sizeof(buf), MSG_DONTWAIT);

		if (len < 0 && errno == ENOBUFS) {
			*lost = true;	/* once per overrun; keep reading */
			continue;
		}
		if (len <= 0)
			break;		/* EAGAIN: nothing more now */
		for (struct nlmsghdr *h = (struct nlmsghdr *)buf; NLMSG_OK(h, (size_t)len);
		     h = NLMSG_NEXT(h, len)) {
			struct cn_msg *msg = NLMSG_DATA(h);
			struct proc_event ev = { 0 };

			if (h->nlmsg_type != NLMSG_DONE || msg->id.idx != CN_IDX_PROC)
				continue;
			if (n == max) {
				*lost = true;	/* the connector sends one per message */
				break;
			}
			/* The event sits 4-byte aligned in the message; it has u64s. */
			memcpy(&ev, msg->data, MIN(msg->len, sizeof(ev)));
			if (ev.what == PROC_EVENT_EXIT)
				out[n++] = (struct task_event){
					.what = TASK_EVENT_EXIT,
					.tid = ev.event_data.exit.process_pid,
					.tgid = ev.event_data.exit.process_tgid,
				};
			else if (ev.what == PROC_EVENT_FORK)
				out[n++] = (struct task_event){
					.what = TASK_EVENT_FORK,
					.tid = ev.event_data.fork.child_pid,
					.tgid = ev.event_data.fork.child_tgid,
					.parent = ev.event_data.fork.parent_pid,
				};
			else if (ev.what == PROC_EVENT_EXEC)
				out[n++] = (struct task_event){
					.what = TASK_EVENT_EXEC,
					.tid = ev.event_data.exec.process_pid,
					.tgid = ev.event_data.exec.process_tgid,
				};
		}
	}
	return n;
}

static int cn_events(struct watch_source *ws, struct task_event *out, unsigned max)
{
	struct watch_connector *cn = to_cn(ws);
	bool lost = false;
	unsigned n = 0;

	/* The probe's first, in the kernel's order. */
	if (cn->probed) {
		n = MIN(max, cn->probed->len);
		if (n) {
			memcpy(out, cn->probed->data, n * sizeof(*out));
			g_array_remove_range(cn->probed, 0, n);
		}
		if (!cn->probed->len) {
			g_array_unref(cn->probed);
			cn->probed = NULL;
			lost = cn->probe_lost;
		}
	}
	n += cn_read(cn->nl, out + n, max - n, &lost);
	cn->events += n;
	if (lost) {
		cn->overruns++;
		return -EOVERFLOW;
	}
	add_final_figures(cn, out, n);
	return (int)n;
}

static int cn_event_fd(struct watch_source *ws)
{
	return to_cn(ws)->nl;
}

static void cn_stat(struct watch_source *ws, GString *out)
{
	struct watch_connector *cn = to_cn(ws);

	g_string_append_printf(out, "task_watch_events %" G_GUINT64_FORMAT "\n"
			       "task_watch_overruns %" G_GUINT64_FORMAT "\n",
			       cn->events, cn->overruns);
}

static int cn_send_op(int nl, uint32_t op)
{
	struct {
		struct nlmsghdr h;
		struct cn_msg msg;
		struct cgfused_proc_input in;
	} __attribute__((packed)) req = { 0 };

	req.h.nlmsg_len = sizeof(req);
	req.h.nlmsg_type = NLMSG_DONE;
	req.h.nlmsg_pid = (uint32_t)getpid();
	req.msg.id.idx = CN_IDX_PROC;
	req.msg.id.val = CN_VAL_PROC;
	req.msg.len = sizeof(req.in);
	req.in.mcast_op = op;
	req.in.event_type = PROC_EVENT_FORK | PROC_EVENT_EXEC | PROC_EVENT_EXIT;
	return send(nl, &req, sizeof(req), 0) < 0 ? -errno : 0;
}

static void cn_free(struct watch_source *ws)
{
	struct watch_connector *cn = to_cn(ws);

	cn_send_op(cn->nl, PROC_CN_MCAST_IGNORE);
	close(cn->nl);
	if (cn->ts)
		taskstats_listener_free(cn->ts);
	if (cn->probed)
		g_array_unref(cn->probed);
	g_hash_table_unref(cn->exits);
	g_hash_table_unref(cn->exits_before);
	g_free(cn);
}

static const struct watch_source_ops connector_ops = {
	.name = "connector",
	.events = cn_events,
	.event_fd = cn_event_fd,
	.stat = cn_stat,
	.free = cn_free,
};

static int cn_open(void)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK, .nl_groups = CN_IDX_PROC };
	int size = CN_RCVBUF;
	int nl = socket(PF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_CONNECTOR);

	if (nl < 0)
		return -errno;
	/* Forcing needs CAP_NET_ADMIN; otherwise as much as rmem_max allows. */
	if (setsockopt(nl, SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof(size)) < 0)
		setsockopt(nl, SOL_SOCKET, SO_RCVBUF, &size, sizeof(size));
	if (bind(nl, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    cn_send_op(nl, PROC_CN_MCAST_LISTEN) < 0) {
		int err = errno;

		close(nl);
		return -err;
	}
	return nl;
}

/* The kernel accepts a subscription it then never serves (cn_proc sends
 * nothing to a listener outside the initial user and PID namespaces): a
 * child forked and reaped here must be reported within WATCH_PROBE_MS.
 * Whatever else comes meanwhile is kept in cn->probed. */
static bool cn_probe(struct watch_connector *cn)
{
	int64_t deadline = g_get_monotonic_time() + WATCH_PROBE_MS * 1000;
	pid_t child = fork();
	bool seen = false;

	if (child < 0)
		return false;
	if (child == 0)
		_exit(0);
	waitpid(child, NULL, 0);
	cn->probed = g_array_new(FALSE, FALSE, sizeof(struct task_event));
	while (!seen) {
		int64_t left = deadline - g_get_monotonic_time();
		struct pollfd pfd = { .fd = cn->nl, .events = POLLIN };
		struct task_event ev[64];
		unsigned n;

		/* Past the deadline, what is already there is still read (the
		 * daemon may not have run meanwhile, on a loaded machine). */
		if (poll(&pfd, 1, left > 0 ? (int)((left + 999) / 1000) : 0) <= 0)
			break;
		n = cn_read(cn->nl, ev, G_N_ELEMENTS(ev), &cn->probe_lost);
		for (unsigned i = 0; i < n; i++)
			seen |= ev[i].what == TASK_EVENT_FORK && ev[i].tid == child;
		g_array_append_vals(cn->probed, ev, n);
		if (left <= 0)
			break;
	}
	return seen;
}

struct watch_source *watch_connector_new(GString *why)
{
	struct watch_connector *cn;
	int nl = cn_open();

	if (nl < 0) {
		g_string_append_printf(why, "the proc connector is refused (%s: it needs "
				       "CAP_NET_ADMIN in the initial user namespace)",
				       g_strerror(-nl));
		return NULL;
	}
	cn = g_new0(struct watch_connector, 1);
	cn->base.ops = &connector_ops;
	cn->nl = nl;
	cn->exits = g_hash_table_new_full(NULL, NULL, NULL, g_free);
	cn->exits_before = g_hash_table_new_full(NULL, NULL, NULL, g_free);
	if (!cn_probe(cn)) {
		g_string_append(why, "the proc connector does not deliver in this PID "
			"namespace (a fork probe was not reported within "
			G_STRINGIFY(WATCH_PROBE_MS) " ms)");
		cn_free(&cn->base);
		return NULL;
	}
	cn->ts = taskstats_listener_open();
	if (!cn->ts)
		g_message("no taskstats (%s): an exited thread's last moments of CPU time "
			  "are counted only as far as its last sample", g_strerror(errno));
	return &cn->base;
}
