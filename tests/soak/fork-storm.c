/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fork-storm TASKS_FILE PROCS THREADS: joins the group of TASKS_FILE, then
 * forks PROCS short-lived processes and starts THREADS short-lived threads,
 * in batches, and checks the group's listing against what it knows:
 *   missing  a child or thread blocked (so certainly alive) while the
 *            listing was read, and not listed (fork tracking lost it);
 *   stale    one reaped (waitpid/join returned) before the read began and
 *            still listed a second later (exit tracking lost it);
 *   transient  the same, on the first read only: the kernel reports an
 *            exit to the proc connector after the parent may reap it
 *            (a joined thread: long after; the kernel's own cgroupfs
 *            lists it too until its cgroup_exit()).
 * Half of the processes exit at once and are reaped without a check
 * (churn). Prints one line of figures; exits 1 when missing or stale. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define BATCH 100

static const char *tasks_file;
static unsigned long nr_reads, nr_missing, nr_stale, nr_transient_procs, nr_transient_threads;

/* The group's listing as a sorted array of ids. */
static int list_ids(pid_t **ids)
{
	static char buf[1 << 20];
	int fd = open(tasks_file, O_RDONLY | O_CLOEXEC), n = 0, cap = 256;
	ssize_t len = 0, r;

	if (fd < 0) {
		perror(tasks_file);
		exit(2);
	}
	while ((r = read(fd, buf + len, sizeof(buf) - 1 - (size_t)len)) > 0)
		len += r;
	close(fd);
	if (r < 0) {
		perror(tasks_file);
		exit(2);
	}
	buf[len] = 0;
	*ids = malloc(sizeof(pid_t) * (size_t)cap);
	for (char *p = buf, *end; *p; p = end) {
		long id = strtol(p, &end, 10);

		if (end == p)
			break;
		if (n == cap)
			*ids = realloc(*ids, sizeof(pid_t) * (size_t)(cap *= 2));
		(*ids)[n++] = (pid_t)id;
		while (*end == '\n')
			end++;
	}
	nr_reads++;
	return n;
}

static bool listed(const pid_t *ids, int n, pid_t id)
{
	for (int i = 0; i < n; i++)
		if (ids[i] == id)
			return true;
	return false;
}

/* Every id in want is alive: count those not listed. */
static void check_present(const pid_t *want, int nr)
{
	pid_t *ids;
	int n = list_ids(&ids);

	for (int i = 0; i < nr; i++)
		nr_missing += !listed(ids, n, want[i]);
	free(ids);
}

static unsigned count_listed(const pid_t *gone, int nr)
{
	pid_t *ids;
	int n = list_ids(&ids);
	unsigned c = 0;

	for (int i = 0; i < nr; i++)
		c += listed(ids, n, gone[i]);
	free(ids);
	return c;
}

/* Every id in gone was reaped: none may stay listed. */
static void check_absent(const pid_t *gone, int nr, unsigned long *transient)
{
	unsigned c = count_listed(gone, nr);

	if (!c)
		return;
	*transient += c;
	/* An exiting thread may wait for a CPU before its report is sent:
	 * give it a second on this busy machine. */
	for (int i = 0; i < 10 && c; i++) {
		usleep(100000);
		c = count_listed(gone, nr);
	}
	nr_stale += c;
}

static int gate[2];		/* children and threads wait for its EOF */

static void *thread_main(void *arg)
{
	char c;

	__atomic_store_n((pid_t *)arg, (pid_t)syscall(SYS_gettid), __ATOMIC_RELEASE);
	if (read(gate[0], &c, 1) < 0)
		return NULL;
	return NULL;
}

/* A new gate for a batch: its children wait on it to be listed. */
static void open_gate(void)
{
	if (pipe2(gate, O_CLOEXEC) < 0) {
		perror("pipe");
		exit(2);
	}
}

static void storm_procs(int nr)
{
	pid_t kids[BATCH];

	for (int done = 0; done < nr; done += BATCH) {
		int n = nr - done < BATCH ? nr - done : BATCH;

		open_gate();
		for (int i = 0; i < n; i++) {
			pid_t pid = fork();
			char c;

			if (pid < 0) {
				perror("fork");
				exit(2);
			}
			if (pid == 0) {
				close(gate[1]);
				/* Half wait to be listed; half are churn. */
				if (i % 2 == 0 && read(gate[0], &c, 1) < 0)
					_exit(1);
				_exit(0);
			}
			kids[i] = pid;
		}
		close(gate[0]);
		/* The churn half may be gone already: check the waiting half. */
		pid_t waiting[BATCH];
		int nw = 0;

		for (int i = 0; i < n; i += 2)
			waiting[nw++] = kids[i];
		check_present(waiting, nw);
		close(gate[1]);
		for (int i = 0; i < n; i++)
			while (waitpid(kids[i], NULL, 0) < 0 && errno == EINTR)
				;
		check_absent(kids, n, &nr_transient_procs);
	}
}

static void storm_threads(int nr)
{
	pthread_t th[BATCH];
	pid_t tids[BATCH];

	for (int done = 0; done < nr; done += BATCH) {
		int n = nr - done < BATCH ? nr - done : BATCH;

		open_gate();
		for (int i = 0; i < n; i++) {
			tids[i] = 0;
			if (pthread_create(&th[i], NULL, thread_main, &tids[i])) {
				perror("pthread_create");
				exit(2);
			}
		}
		for (int i = 0; i < n; i++)
			while (!__atomic_load_n(&tids[i], __ATOMIC_ACQUIRE))
				usleep(100);
		check_present(tids, n);
		close(gate[1]);
		for (int i = 0; i < n; i++)
			pthread_join(th[i], NULL);
		close(gate[0]);
		check_absent(tids, n, &nr_transient_threads);
	}
}

int main(int argc, char **argv)
{
	char me[32];
	int fd, len;

	if (argc != 4) {
		fprintf(stderr, "usage: %s TASKS_FILE PROCS THREADS\n", argv[0]);
		return 2;
	}
	tasks_file = argv[1];
	fd = open(tasks_file, O_WRONLY | O_CLOEXEC);
	len = snprintf(me, sizeof(me), "%d", getpid());
	if (fd < 0 || write(fd, me, (size_t)len) != len) {
		perror(tasks_file);
		return 2;
	}
	close(fd);
	storm_procs(atoi(argv[2]));
	storm_threads(atoi(argv[3]));
	printf("procs %s threads %s reads %lu missing %lu stale %lu transient_procs %lu "
	       "transient_threads %lu\n", argv[2], argv[3], nr_reads, nr_missing, nr_stale,
	       nr_transient_procs, nr_transient_threads);
	return nr_missing || nr_stale;
}
