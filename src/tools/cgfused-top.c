/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cgfused-top: the groups of a cgfused mount by CPU use, as systemd-cgtop
 * shows the kernel's.
 *
 *   cgfused-top [--mount DIR] [-b] [-n N] [-d SECONDS] [--order=cpu|tasks|path] [--json]
 *
 * Each refresh reads every group's cpuacct.usage, tasks, cpu.shares,
 * cpu.stat and cpuset.cpus; CPU % is the usage's growth since the last
 * refresh over the time between them (100 = one CPU). */
#include "config.h"

#include <dirent.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

#include "tools/cgmount.h"
#include "tools/top_json.h"

struct row {
	char *path;		/* "/" or "/a/b" */
	bool has_usage, has_tasks;
	guint64 usage;		/* cpuacct.usage, ns */
	double cpu;		/* %, < 0 when unknown */
	guint tasks;		/* threads in the group and below */
	char *shares, *cpus;	/* as read, or NULL */
	guint64 throttled;	/* cpu.stat nr_throttled */
};

struct sample {
	GHashTable *rows;	/* path -> struct row */
	gint64 when;		/* monotonic µs */
	GHashTable *daemon;	/* cgfused.stat: key -> value */
};

static void row_free(void *data)
{
	struct row *r = data;

	g_free(r->path);
	g_free(r->shares);
	g_free(r->cpus);
	g_free(r);
}

static void sample_free(struct sample *s)
{
	if (!s)
		return;
	g_hash_table_unref(s->rows);
	g_hash_table_unref(s->daemon);
	g_free(s);
}

static char *read_line_at(int dirfd, const char *name)
{
	char *text = cg_read_at(dirfd, name);

	return text ? g_strchomp(text) : NULL;
}

static struct row *row_of(GHashTable *rows, const char *path)
{
	struct row *r = g_hash_table_lookup(rows, path);

	if (!r) {
		r = g_new0(struct row, 1);
		r->path = g_strdup(path);
		r->cpu = -1;
		g_hash_table_insert(rows, r->path, r);
	}
	return r;
}

/* Reads the group at dirfd (path in its hierarchy) and its descendants
 * into rows; returns its thread count, descendants' included. */
static guint walk(int dirfd, const char *path, GHashTable *rows)
{
	struct row *r = row_of(rows, path);
	char *text;
	guint tasks = 0;
	DIR *dir;
	struct dirent *e;
	int dupfd;

	/* v1's tasks, or v2's cgroup.threads. */
	if ((text = cg_read_at(dirfd, "tasks")) || (text = cg_read_at(dirfd, "cgroup.threads"))) {
		for (const char *p = text; *p; p++)
			tasks += *p == '\n';
		g_free(text);
	}
	if ((text = read_line_at(dirfd, "cpuacct.usage"))) {
		r->has_usage = g_ascii_string_to_unsigned(text, 10, 0, G_MAXUINT64, &r->usage, NULL);
		g_free(text);
	}
	if ((text = cg_read_at(dirfd, "cpu.stat"))) {
		const char *t = strstr(text, "nr_throttled ");

		r->throttled = t ? g_ascii_strtoull(t + strlen("nr_throttled "), NULL, 10) : 0;
		/* v2 has no cpuacct.usage: its cpu.stat's first line is the
		 * same sum, in µs. */
		if (!r->has_usage && g_str_has_prefix(text, "usage_usec ")) {
			r->usage = g_ascii_strtoull(text + strlen("usage_usec "), NULL, 10) * 1000;
			r->has_usage = true;
		}
		g_free(text);
	}
	if (!r->shares)
		r->shares = read_line_at(dirfd, "cpu.shares");
	if (!r->cpus)
		r->cpus = read_line_at(dirfd, "cpuset.cpus");

	if ((dupfd = dup(dirfd)) < 0 || !(dir = fdopendir(dupfd))) {
		if (dupfd >= 0)
			close(dupfd);
		goto out;
	}
	while ((e = readdir(dir))) {
		int sub;
		char *subpath;

		/* O_DIRECTORY below tells when d_type does not. */
		if ((e->d_type != DT_DIR && e->d_type != DT_UNKNOWN) || strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		sub = openat(dirfd, e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (sub < 0)
			continue;	/* removed meanwhile */
		subpath = strcmp(path, "/") ? g_strconcat(path, "/", e->d_name, NULL)
					    : g_strconcat("/", e->d_name, NULL);
		tasks += walk(sub, subpath, rows);
		g_free(subpath);
		close(sub);
	}
	closedir(dir);
out:
	/* With hierarchies apart, a group's tasks come from the first that
	 * has it (those with cpuacct come first). */
	if (!r->has_tasks) {
		r->has_tasks = true;
		r->tasks = tasks;
	}
	return tasks;
}

static GHashTable *daemon_stat(const struct cg_mount *m)
{
	const struct cg_hier *h = m->hiers->pdata[0];
	int fd = open(h->root, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	GHashTable *kv = cg_stat_read(fd);

	if (fd >= 0)
		close(fd);
	return kv;
}

static bool has_controller(const struct cg_hier *h, const char *name)
{
	return g_strv_contains((const char *const *)h->controllers, name);
}

static struct sample *sample_take(const struct cg_mount *m)
{
	struct sample *s = g_new0(struct sample, 1);
	GPtrArray *order = g_ptr_array_new();

	s->rows = g_hash_table_new_full(g_str_hash, g_str_equal, NULL, row_free);
	for (guint i = 0; i < m->hiers->len; i++)
		if (has_controller(m->hiers->pdata[i], "cpuacct"))
			g_ptr_array_add(order, m->hiers->pdata[i]);
	for (guint i = 0; i < m->hiers->len; i++)
		if (!has_controller(m->hiers->pdata[i], "cpuacct"))
			g_ptr_array_add(order, m->hiers->pdata[i]);
	s->when = g_get_monotonic_time();
	for (guint i = 0; i < order->len; i++) {
		const struct cg_hier *h = order->pdata[i];
		int fd = open(h->root, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

		if (fd >= 0) {
			walk(fd, "/", s->rows);
			close(fd);
		}
	}
	s->daemon = daemon_stat(m);
	g_ptr_array_unref(order);
	return s;
}

/* CPU % of every row of now from its growth since before. */
static void sample_rates(struct sample *now, const struct sample *before)
{
	GHashTableIter it;
	struct row *r;
	double dt_ns = (now->when - before->when) * 1000.0;

	g_hash_table_iter_init(&it, now->rows);
	while (g_hash_table_iter_next(&it, NULL, (void **)&r)) {
		const struct row *b = g_hash_table_lookup(before->rows, r->path);

		/* A group made since, or whose usage was reset, is unknown. */
		if (b && r->has_usage && b->has_usage && r->usage >= b->usage && dt_ns > 0)
			r->cpu = (r->usage - b->usage) * 100.0 / dt_ns;
	}
}

/* The orders of systemd-cgtop's keys: CPU and tasks the most first, then
 * by path. */
static int by_path(const void *a, const void *b)
{
	return strcmp((*(struct row *const *)a)->path, (*(struct row *const *)b)->path);
}

static int by_cpu(const void *a, const void *b)
{
	const struct row *x = *(struct row *const *)a, *y = *(struct row *const *)b;

	if (x->cpu != y->cpu)
		return x->cpu < y->cpu ? 1 : -1;
	return by_path(a, b);
}

static int by_tasks(const void *a, const void *b)
{
	const struct row *x = *(struct row *const *)a, *y = *(struct row *const *)b;

	if (x->tasks != y->tasks)
		return x->tasks < y->tasks ? 1 : -1;
	return by_path(a, b);
}

/* The order a key or --order names ('c', 't', 'p'), or NULL. */
static GCompareFunc order_of(int key)
{
	switch (key) {
	case 'c':
		return by_cpu;
	case 't':
		return by_tasks;
	case 'p':
		return by_path;
	default:
		return NULL;
	}
}

static GPtrArray *sorted_rows(const struct sample *s, GCompareFunc order)
{
	GPtrArray *rows = g_ptr_array_new();
	GHashTableIter it;
	void *r;

	g_hash_table_iter_init(&it, s->rows);
	while (g_hash_table_iter_next(&it, NULL, &r))
		g_ptr_array_add(rows, r);

	g_ptr_array_sort(rows, order);
	return rows;
}

static const char *stat_of(const struct sample *s, const char *key)
{
	const char *v = g_hash_table_lookup(s->daemon, key);

	return v ? v : "?";
}

/* cgfused.stat (cgfused(8)) said as sentences. */
static void print_daemon(GString *out, const struct cg_mount *m, const struct sample *s)
{
	const char *priv = g_hash_table_lookup(s->daemon, "privileged");
	const char *range = g_hash_table_lookup(s->daemon, "nice_range");
	const char *lost = stat_of(s, "lost_event_resyncs");
	guint64 heap = g_ascii_strtoull(stat_of(s, "heap_in_use_bytes"), NULL, 10);
	char *lost_words = strcmp(lost, "0") == 0 ? g_strdup("")
		: g_strdup_printf(", kernel events lost %s times (all threads read again)", lost);
	/* nice_range: "LOWEST 19", LOWEST "own" where nice only goes up. */
	int lowest;
	char *rights = !priv ? g_strdup("rights unknown")
		: strcmp(priv, "1") == 0 ? g_strdup("as root")
		: range && sscanf(range, "%d", &lowest) == 1
			? g_strdup_printf("without CAP_SYS_NICE: nice %d to 19", lowest)
			: g_strdup("without CAP_SYS_NICE: nice only raised");

	/* tracked_tasks: threads ever moved out of the root (until they
	 * exit); managed_threads: those in a group below it now. */
	g_string_append_printf(out,
		"cgfused on %s: %s threads followed, %s in groups below the root, "
		"%s distinct sets of groups%s; %s; heap %" G_GUINT64_FORMAT " KiB\n",
		m->dir, stat_of(s, "tracked_tasks"), stat_of(s, "managed_threads"),
		stat_of(s, "css_sets"), lost_words,
		rights, heap / 1024);
	g_free(lost_words);
	g_free(rights);
	g_string_append_printf(out,
		"Allocator: %s passes, last %s us, median %s us, 99%% under %s us, longest %s us; "
		"%s nice, %s affinity, %s autogroup calls, %s failed; weight error %s ppm\n",
		stat_of(s, "passes"), stat_of(s, "last_pass_us"), stat_of(s, "p50_pass_us"),
		stat_of(s, "p99_pass_us"), stat_of(s, "max_pass_us"), stat_of(s, "nice_calls"),
		stat_of(s, "affinity_calls"), stat_of(s, "autogroup_calls"),
		stat_of(s, "failed_calls"), stat_of(s, "weight_error_ppm"));
}

static void print_table(GString *out, GPtrArray *rows)
{
	bool throttling = false;
	int width = 5;

	for (guint i = 0; i < rows->len; i++) {
		const struct row *r = rows->pdata[i];

		throttling |= r->throttled > 0;
		width = MAX(width, (int)strlen(r->path));
	}
	width = MIN(width, 60);
	g_string_append_printf(out, "\n%-*s %7s %7s %7s%s  %s\n", width, "Group", "Tasks", "%CPU",
			       "Shares", throttling ? " Throttled" : "", "CPUs");
	for (guint i = 0; i < rows->len; i++) {
		const struct row *r = rows->pdata[i];
		char cpu[32];

		if (r->cpu < 0)
			g_strlcpy(cpu, "-", sizeof(cpu));
		else
			g_snprintf(cpu, sizeof(cpu), "%.1f", r->cpu);
		g_string_append_printf(out, "%-*s %7u %7s %7s", width, r->path, r->tasks, cpu,
				       r->shares ? r->shares : "-");
		if (throttling)
			g_string_append_printf(out, " %9" G_GUINT64_FORMAT, r->throttled);
		g_string_append_printf(out, "  %s\n", r->cpus ? r->cpus : "-");
	}
}

/* One refresh as one line of JSON (JSON Lines for -n N). */
static void print_json(GString *out, const struct cg_mount *m, const struct sample *s,
		       GPtrArray *rows, double interval)
{
	GHashTableIter it;
	const char *key, *value;
	bool first = true;

	g_string_append(out, "{\"mount\":");
	json_string(out, m->dir);
	g_string_append_printf(out, ",\"interval_s\":%.3f,\"daemon\":{", interval);
	g_hash_table_iter_init(&it, s->daemon);
	while (g_hash_table_iter_next(&it, (void **)&key, (void **)&value)) {
		g_string_append(out, first ? "" : ",");
		first = false;
		json_string(out, key);
		g_string_append_c(out, ':');
		json_value(out, value);
	}
	g_string_append(out, "},\"groups\":[");
	for (guint i = 0; i < rows->len; i++) {
		const struct row *r = rows->pdata[i];

		g_string_append(out, i ? ",{\"path\":" : "{\"path\":");
		json_string(out, r->path);
		g_string_append_printf(out, ",\"tasks\":%u,\"cpu_percent\":", r->tasks);
		if (r->cpu < 0)
			g_string_append(out, "null");
		else
			g_string_append_printf(out, "%.2f", r->cpu);
		if (r->has_usage)
			g_string_append_printf(out, ",\"cpuacct_usage_ns\":%" G_GUINT64_FORMAT, r->usage);
		if (r->shares) {
			g_string_append(out, ",\"cpu_shares\":");
			json_value(out, r->shares);
		}
		g_string_append_printf(out, ",\"nr_throttled\":%" G_GUINT64_FORMAT, r->throttled);
		if (r->cpus) {
			g_string_append(out, ",\"cpuset_cpus\":");
			json_string(out, r->cpus);
		}
		g_string_append_c(out, '}');
	}
	g_string_append(out, "]}\n");
}

/* What fits a terminal of rows x cols: each line cut at cols characters
 * (a wrapped one would push the first off the screen), and as many lines
 * as leave the last newline on the screen. Not a terminal: text as is. */
static void fit_screen(GString *text)
{
	struct winsize ws;
	GString *out;
	char **lines;
	guint shown = 0;

	if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) != 0 || ws.ws_row < 2 || ws.ws_col < 1)
		return;
	out = g_string_new(NULL);
	lines = g_strsplit(text->str, "\n", -1);
	for (char **l = lines; l[0] && l[1] && shown + 1 < ws.ws_row; l++, shown++) {
		const char *end = *l;

		/* Characters, not bytes, where the line is UTF-8 (a group's name). */
		for (guint col = 0; *end && col < ws.ws_col; col++)
			end = g_utf8_get_char_validated(end, -1) < (gunichar)-2 ? g_utf8_next_char(end)
									      : end + 1;
		g_string_append_len(out, *l, end - *l);
		g_string_append_c(out, '\n');
	}
	g_strfreev(lines);
	g_string_assign(text, out->str);
	g_string_free(out, TRUE);
}

static void usage(FILE *to)
{
	fprintf(to,
		"Usage: cgfused-top [--mount DIR] [-b] [-n N] [-d SECONDS] [--order=cpu|tasks|path] [--json]\n"
		"Show the groups of a cgfused mount by CPU use, refreshing.\n\n"
		"  -m, --mount DIR        the cgfused mount (default: the only one)\n"
		"  -b, --batch            print each refresh after the last, no screen clearing\n"
		"  -n, --iterations N     stop after N refreshes (default: never)\n"
		"  -d, --delay SECONDS    time between refreshes (default 1)\n"
		"  -c, -t, -p, --order=cpu|tasks|path\n"
		"                         order by CPU use (default), tasks or path\n"
		"  -j, --json             one JSON object a line per refresh (implies -b)\n"
		"  -h, --help             show this help\n\n"
		"Keys, on a terminal: q quits; c, t, p order by CPU, tasks, path.\n"
		"The first refresh comes after one delay: CPU %% needs two readings.\n"
		"See cgfused-top(1).\n");
}

/* The terminal's keys (q, c, t, p): read one at a time, unechoed, until
 * tty_restore. Ctrl-C and SIGTERM end the loop (stop) rather than the
 * process, so that the terminal is given back as it was. */
static struct termios tty_saved;
static bool tty_raw;
static volatile sig_atomic_t stop;

static void on_stop(int sig)
{
	(void)sig;
	stop = 1;
}

static void tty_keys(void)
{
	struct sigaction sa = { .sa_handler = on_stop };	/* no SA_RESTART: poll returns */
	struct termios raw;

	if (tcgetattr(STDIN_FILENO, &tty_saved) != 0)
		return;
	raw = tty_saved;
	raw.c_lflag &= ~(tcflag_t)(ICANON | ECHO);
	raw.c_cc[VMIN] = 1;
	raw.c_cc[VTIME] = 0;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	tty_raw = tcsetattr(STDIN_FILENO, TCSANOW, &raw) == 0;
}

static void tty_restore(void)
{
	if (tty_raw)
		tcsetattr(STDIN_FILENO, TCSANOW, &tty_saved);
}

/* Waits until the monotonic time deadline (µs) for a key: the key, 0 at
 * the deadline, -1 to stop (a signal, or the end of the terminal). */
static int wait_key(gint64 deadline)
{
	for (;;) {
		gint64 left = deadline - g_get_monotonic_time();
		struct pollfd pfd = { .fd = STDIN_FILENO, .events = POLLIN };
		unsigned char key;
		int n;

		if (stop)
			return -1;
		if (left <= 0)
			return 0;
		if (!tty_raw) {
			g_usleep((gulong)MIN(left, 100000));	/* signals still stop it */
			continue;
		}
		n = poll(&pfd, 1, (int)MIN((left + 999) / 1000, 1000));
		if (n < 0 || !(pfd.revents & (POLLIN | POLLHUP)))
			continue;	/* EINTR: stop is checked above */
		if (read(STDIN_FILENO, &key, 1) != 1)
			return -1;
		return key;
	}
}

/* One screen of s (its rates from the sample before it). */
static void show(GString *out, const struct cg_mount *m, const struct sample *s,
		 GCompareFunc order, bool json, bool batch, bool first, double interval)
{
	GPtrArray *rows = sorted_rows(s, order);

	if (json) {
		print_json(out, m, s, rows, interval);
	} else {
		if (batch && !first)
			g_string_append_c(out, '\n');
		print_daemon(out, m, s);
		print_table(out, rows);
		if (!batch) {
			fit_screen(out);
			g_string_prepend(out, "\033[H\033[2J");
		}
	}
	g_ptr_array_unref(rows);
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "mount", required_argument, NULL, 'm' },
		{ "batch", no_argument, NULL, 'b' },
		{ "iterations", required_argument, NULL, 'n' },
		{ "delay", required_argument, NULL, 'd' },
		{ "order", required_argument, NULL, 'o' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	const char *mount_dir = NULL;
	bool batch = false, json = false;
	guint64 iterations = 0;	/* 0: until interrupted */
	double delay = 1.0;
	GCompareFunc order = by_cpu;
	struct cg_mount *m;
	struct sample *before;
	char *end;
	int c;

	g_set_prgname("cgfused-top");
	while ((c = getopt_long(argc, argv, "m:bn:d:ctpjh", longopts, NULL)) != -1) {
		switch (c) {
		case 'm':
			mount_dir = optarg;
			break;
		case 'b':
			batch = true;
			break;
		case 'n':
			if (!g_ascii_string_to_unsigned(optarg, 10, 1, G_MAXUINT32, &iterations, NULL)) {
				cg_tool_error("-n %s: expected a number of refreshes, 1 or more", optarg);
				return 2;
			}
			break;
		case 'd':
			delay = g_ascii_strtod(optarg, &end);
			if (*end || end == optarg || !(delay >= 0.01 && delay <= 86400)) {
				cg_tool_error("-d %s: expected seconds between 0.01 and 86400", optarg);
				return 2;
			}
			break;
		case 'c':
		case 't':
		case 'p':
			order = order_of(c);
			break;
		case 'o':
			if (strcmp(optarg, "cpu") && strcmp(optarg, "tasks") && strcmp(optarg, "path")) {
				cg_tool_error("--order=%s: expected cpu, tasks or path", optarg);
				return 2;
			}
			order = order_of(optarg[0]);
			break;
		case 'j':
			json = batch = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc) {
		cg_tool_error("unexpected argument '%s'", argv[optind]);
		usage(stderr);
		return 2;
	}
	if (!(m = cg_mount_find(mount_dir, NULL)))
		return 1;
	if (!batch && isatty(STDIN_FILENO) && isatty(STDOUT_FILENO))
		tty_keys();
	before = sample_take(m);
	for (guint64 i = 0; !iterations || i < iterations;) {
		struct sample *now;
		GString *out = g_string_new(NULL);
		int key = wait_key(before->when + (gint64)(delay * G_USEC_PER_SEC));

		if (key < 0 || key == 'q') {
			g_string_free(out, TRUE);
			break;
		}
		if (key > 0) {
			/* A new order shows the last refresh again at once. */
			if (order_of(key)) {
				order = order_of(key);
				if (i > 0)
					show(out, m, before, order, json, batch, false, 0);
			}
		} else {
			now = sample_take(m);
			sample_rates(now, before);
			show(out, m, now, order, json, batch, i == 0, (now->when - before->when) / 1e6);
			sample_free(before);
			before = now;
			i++;
		}
		if (fwrite(out->str, 1, out->len, stdout) != out->len || fflush(stdout) != 0) {
			g_string_free(out, TRUE);
			break;	/* a closed pipe (head -n): nothing more to say */
		}
		g_string_free(out, TRUE);
	}
	tty_restore();
	sample_free(before);
	cg_mount_free(m);
	return 0;
}
