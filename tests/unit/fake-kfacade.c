/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The fake kernel facade: see fake-kfacade.h. */
#include "fake-kfacade.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct fake_thread {
	pid_t tid, tgid, ppid;
	bool kthread;
	guint64 ino;
	uint64_t start_ns;
	struct task_cputime cputime;
	int nice, autogroup;
	int policy;		/* SCHED_OTHER (0) unless set */
	struct cpumask cpus;
	struct task_uids uids;	/* all 0 (root) unless set */
	/* What exec_proc_open() reads of a process (its leader's): "" unless
	 * set (fake_kf_set_exec()); env: one environment string. */
	gid_t egid;
	char comm[64], exe[64], env[64];
	int nice_rlimit;	/* 0 unless set */
	/* ptrace, as the freezer uses it. */
	bool traced;		/* by the facade's caller */
	bool traced_by_other;	/* by a debugger: cannot be traced */
	pid_t tracer;		/* that debugger, if known (fake_kf_set_tracer) */
	bool sig_stopped;	/* stopped by a SIGSTOP its tracer has not passed */
	int conts;		/* SIGCONTs sent to it */
	bool stopped;		/* in a ptrace-stop */
	bool stop_held;		/* in uninterruptible sleep: stops when let go */
	bool in_vfork;		/* waits for its vfork child */
	int pending_sig;	/* a signal on its way: its stop takes it */
	int given_back;		/* the signal the last thaw gave back */
	bool trace_pending;	/* fake_kf_set_trace_pending() */
};

/* One identity the core tracks (between task_open and task_close). */
/* A thread's open identities: a pidfd each, as many as were opened (an
 * attach's own and the one a fork report's catch-up opens may overlap). */
struct fake_open {
	guint64 ino;
	pid_t tid;
	unsigned n;
};

struct fake_kf {
	struct kfacade base;	/* first: the core's kf points here */
	GMutex lock;
	GHashTable *threads;	/* tid -> struct fake_thread *, live ones */
	GHashTable *opens;	/* ino -> struct fake_open * */
	GQueue pending;		/* struct task_event *, in order */
	GQueue late;		/* exit reports not sent yet */
	bool lost;		/* exit reports were dropped: say so once */
	guint64 next_ino;
	unsigned bad_closes;
	unsigned sys_calls;	/* calls that are system calls on Linux */
	bool (*forbid_when)(void *data);	/* fake_kf_forbid_when() */
	void *forbid_data;
	uint64_t clock_ns;	/* the boot-time clock: +1 ms per new thread,
				 * +50 ms per look at it unless held */
	bool clock_held;
	uint64_t exited_run_ns;	/* the system's time of threads gone */
	bool privileged;
	bool no_trace;		/* may_trace says no (Yama) */
	GHashTable *ag_nice;	/* autogroup id -> nice */
	struct fake_kf_calls calls;
	GArray *killed;		/* pid_t: the threads task_kill() was aimed at */
	GQueue trace_reports;	/* struct trace_report *, in order */
	unsigned nr_traced;
	bool cputime_held;	/* fake_kf_hold_cputime() */
	unsigned cputime_waiting;
	GCond cputime_cond;
};

static struct fake_kf *to_fake(struct kfacade *kf)
{
	return (struct fake_kf *)kf;
}

static void count_sys_call(struct fake_kf *fk)
{
	if (fk->forbid_when && fk->forbid_when(fk->forbid_data))
		g_error("a system call while the forbidding condition holds");
	g_mutex_lock(&fk->lock);
	fk->sys_calls++;
	g_mutex_unlock(&fk->lock);
}

static int cmp_pid(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;

	return (x > y) - (x < y);
}

/* task_ident and task_hold, one system call (task_open) or two. */
static int ident_of(struct fake_kf *fk, pid_t tid, struct task_ident *id)
{
	struct fake_thread *t;
	int ret = 0;

	g_mutex_lock(&fk->lock);
	t = tid > 0 ? g_hash_table_lookup(fk->threads, GINT_TO_POINTER(tid)) : NULL;
	if (!t) {
		ret = -ESRCH;
	} else if (t->kthread) {
		ret = -EINVAL;
	} else {
		id->ino = t->ino;
		id->tgid = t->tgid;
	}
	g_mutex_unlock(&fk->lock);
	return ret;
}

/* The watch source's hold (with ptrace, a PTRACE_SEIZE): counted. */
static int hold(struct fake_kf *fk, pid_t tid, const struct task_ident *id)
{
	struct fake_thread *t;
	struct fake_open *o;
	int ret = 0;

	g_mutex_lock(&fk->lock);
	t = tid > 0 ? g_hash_table_lookup(fk->threads, GINT_TO_POINTER(tid)) : NULL;
	if (!t || t->ino != id->ino) {
		ret = -ESRCH;
	} else {
		o = g_hash_table_lookup(fk->opens, &t->ino);
		if (!o) {
			o = g_new0(struct fake_open, 1);
			o->ino = t->ino;
			o->tid = tid;
			g_hash_table_insert(fk->opens, &o->ino, o);
		}
		o->n++;
		fk->calls.holds++;
	}
	g_mutex_unlock(&fk->lock);
	return ret;
}

static int fake_task_ident(struct kfacade *kf, pid_t tid, struct task_ident *id)
{
	count_sys_call(to_fake(kf));
	return ident_of(to_fake(kf), tid, id);
}

static int fake_task_hold(struct kfacade *kf, pid_t tid, const struct task_ident *id)
{
	count_sys_call(to_fake(kf));
	return hold(to_fake(kf), tid, id);
}

static int fake_task_open(struct kfacade *kf, pid_t tid, struct task_ident *id)
{
	int ret;

	count_sys_call(to_fake(kf));
	ret = ident_of(to_fake(kf), tid, id);
	return ret < 0 ? ret : hold(to_fake(kf), tid, id);
}

static void fake_task_close(struct kfacade *kf, const struct task_ident *id)
{
	struct fake_kf *fk = to_fake(kf);
	struct fake_open *o;

	g_mutex_lock(&fk->lock);
	o = g_hash_table_lookup(fk->opens, &id->ino);
	if (!o) {
		fk->bad_closes++;
	} else if (--o->n == 0) {
		g_hash_table_remove(fk->opens, &id->ino);	/* frees o */
	}
	g_mutex_unlock(&fk->lock);
}

static int fake_task_events(struct kfacade *kf, struct task_event *ev, unsigned max)
{
	struct fake_kf *fk = to_fake(kf);
	unsigned n = 0;

	count_sys_call(to_fake(kf));
	g_mutex_lock(&fk->lock);
	if (fk->lost) {
		fk->lost = false;
		g_mutex_unlock(&fk->lock);
		return -EOVERFLOW;
	}
	while (n < max && !g_queue_is_empty(&fk->pending)) {
		struct task_event *e = g_queue_pop_head(&fk->pending);

		ev[n++] = *e;
		g_free(e);
	}
	g_mutex_unlock(&fk->lock);
	return (int)n;
}

static bool fake_task_alive(struct kfacade *kf, pid_t tid, const struct task_ident *id)
{
	struct fake_kf *fk = to_fake(kf);
	struct fake_thread *t;
	bool alive;

	count_sys_call(to_fake(kf));
	g_mutex_lock(&fk->lock);
	t = g_hash_table_lookup(fk->threads, GINT_TO_POINTER(tid));
	alive = t && t->ino == id->ino;
	g_mutex_unlock(&fk->lock);
	return alive;
}

static bool fake_task_in_vfork(struct kfacade *kf, pid_t tid, const struct task_ident *id)
{
	struct fake_kf *fk = to_fake(kf);
	struct fake_thread *t;
	bool waits;

	count_sys_call(fk);
	g_mutex_lock(&fk->lock);
	t = g_hash_table_lookup(fk->threads, GINT_TO_POINTER(tid));
	waits = t && t->ino == id->ino && t->in_vfork;
	g_mutex_unlock(&fk->lock);
	return waits;
}

static void exit_process_locked(struct fake_kf *fk, pid_t tgid);

/* SIGKILL ends the whole process, as on the kernel. */
static int fake_task_kill(struct kfacade *kf, pid_t tid, const struct task_ident *id)
{
	struct fake_kf *fk = to_fake(kf);
	struct fake_thread *t;
	int ret = -ESRCH;

	count_sys_call(to_fake(kf));
	g_mutex_lock(&fk->lock);
	t = g_hash_table_lookup(fk->threads, GINT_TO_POINTER(tid));
	if (t && t->ino == id->ino) {
		g_array_append_val(fk->killed, tid);
		exit_process_locked(fk, t->tgid);
		ret = 0;
	}
	g_mutex_unlock(&fk->lock);
	return ret;
}

/* Called locked. */
static void append_threads_of(struct fake_kf *fk, pid_t tgid, GArray *tids)
{
	GHashTableIter iter;
	struct fake_thread *t;
	guint start = tids->len;

	g_hash_table_iter_init(&iter, fk->threads);
	while (g_hash_table_iter_next(&iter, NULL, (gpointer *)&t))
		if (t->tgid == tgid)
			g_array_append_val(tids, t->tid);
	qsort(&g_array_index(tids, pid_t, start), tids->len - start, sizeof(pid_t), cmp_pid);
}

static int fake_thread_ids(struct kfacade *kf, pid_t tid, GArray *tids)
{
	struct fake_kf *fk = to_fake(kf);
	struct fake_thread *t;
	int ret = 0;

	count_sys_call(to_fake(kf));
	g_mutex_lock(&fk->lock);
	t = tid > 0 ? g_hash_table_lookup(fk->threads, GINT_TO_POINTER(tid)) : NULL;
	if (t)
		append_threads_of(fk, t->tgid, tids);
	else
		ret = -ESRCH;
	g_mutex_unlock(&fk->lock);
	return ret;
}

static int fake_all_tasks(struct kfacade *kf, GArray *ids, bool procs)
{
	struct fake_kf *fk = to_fake(kf);
	GHashTable *seen = g_hash_table_new(NULL, NULL);
	GHashTableIter iter;
	struct fake_thread *t;
	guint start = ids->len;

	count_sys_call(to_fake(kf));
	g_mutex_lock(&fk->lock);
	g_hash_table_iter_init(&iter, fk->threads);
	while (g_hash_table_iter_next(&iter, NULL, (gpointer *)&t)) {
		pid_t id = procs ? t->tgid : t->tid;

		if (g_hash_table_add(seen, GINT_TO_POINTER(id)))
			g_array_append_val(ids, id);
	}
	g_mutex_unlock(&fk->lock);
	if (ids->len > start)	/* an empty GArray's data may be NULL */
		qsort(&g_array_index(ids, pid_t, start), ids->len - start, sizeof(pid_t), cmp_pid);
	g_hash_table_unref(seen);
	return 0;
}

static const char *fake_online_cpus(struct kfacade *kf)
{
	(void)kf;
	return FAKE_KF_ONLINE_CPUS;
}

static const char *fake_online_mems(struct kfacade *kf)
{
	(void)kf;
	return FAKE_KF_ONLINE_MEMS;
}

static unsigned fake_nr_cpu_ids(struct kfacade *kf)
{
	(void)kf;
	return FAKE_KF_NR_CPU_IDS;
}

static unsigned fake_nr_cpus(struct kfacade *kf)
{
	(void)kf;
	return FAKE_KF_NR_CPUS;
}

static int fake_event_fd(struct kfacade *kf)
{
	(void)kf;
	return -1;	/* the tests take events in through file operations */
}

static struct fake_thread *lookup_locked(struct fake_kf *fk, pid_t tid)
{
	return tid > 0 ? g_hash_table_lookup(fk->threads, GINT_TO_POINTER(tid)) : NULL;
}

/* A copy of the live thread tid; false if there is none. */
static bool thread_copy(struct fake_kf *fk, pid_t tid, struct fake_thread *out)
{
	struct fake_thread *t;

	g_mutex_lock(&fk->lock);
	t = lookup_locked(fk, tid);
	if (t)
		*out = *t;
	g_mutex_unlock(&fk->lock);
	return t != NULL;
}

static int fake_task_cputime(struct kfacade *kf, pid_t tgid, pid_t tid,
			     struct task_cputime *out)
{
	struct fake_thread t;

	count_sys_call(to_fake(kf));
	g_mutex_lock(&to_fake(kf)->lock);
	to_fake(kf)->calls.task_cputime++;
	g_mutex_unlock(&to_fake(kf)->lock);
	if (!thread_copy(to_fake(kf), tid, &t) || t.tgid != tgid)
		return -ESRCH;
	*out = t.cputime;
	return 0;
}

static int fake_process_cputime(struct kfacade *kf, pid_t tgid, uint64_t *ns)
{
	struct fake_kf *fk = to_fake(kf);
	GHashTableIter iter;
	struct fake_thread *t;
	bool found = false;

	count_sys_call(to_fake(kf));
	*ns = 0;
	g_mutex_lock(&fk->lock);
	fk->cputime_waiting++;
	while (fk->cputime_held)
		g_cond_wait(&fk->cputime_cond, &fk->lock);
	fk->cputime_waiting--;
	fk->calls.process_cputime++;
	g_hash_table_iter_init(&iter, fk->threads);
	while (g_hash_table_iter_next(&iter, NULL, (gpointer *)&t)) {
		if (t->tgid == tgid) {
			*ns += t->cputime.run_ns;
			found = true;
		}
	}
	g_mutex_unlock(&fk->lock);
	return found ? 0 : -ESRCH;
}

static int fake_task_origin(struct kfacade *kf, pid_t tid, struct task_origin *out)
{
	struct fake_thread t;

	count_sys_call(to_fake(kf));
	if (!thread_copy(to_fake(kf), tid, &t))
		return -ESRCH;
	*out = (struct task_origin){ t.tgid, t.ppid, t.start_ns };
	return 0;
}

static uint64_t fake_boottime_ns(struct kfacade *kf)
{
	struct fake_kf *fk = to_fake(kf);
	uint64_t now;

	g_mutex_lock(&fk->lock);
	now = fk->clock_ns;
	if (!fk->clock_held)
		fk->clock_ns += 50000000;	/* time goes by between two looks */
	g_mutex_unlock(&fk->lock);
	return now;
}

/* The system's time: every thread's, live or gone, on its last CPU. */
static int fake_system_cputime(struct kfacade *kf, struct system_cputime *out)
{
	struct fake_kf *fk = to_fake(kf);
	GHashTableIter iter;
	struct fake_thread *t;

	memset(out, 0, sizeof(*out));
	out->nr_cpus = FAKE_KF_NR_CPU_IDS;
	g_mutex_lock(&fk->lock);
	out->run_ns[0] = fk->exited_run_ns;
	g_hash_table_iter_init(&iter, fk->threads);
	while (g_hash_table_iter_next(&iter, NULL, (gpointer *)&t)) {
		out->run_ns[t->cputime.cpu] += t->cputime.run_ns;
		out->user_ns[t->cputime.cpu] += t->cputime.utime * FAKE_KF_TICK_NS;
		out->system_ns[t->cputime.cpu] += t->cputime.stime * FAKE_KF_TICK_NS;
	}
	g_mutex_unlock(&fk->lock);
	return 0;
}

static int fake_may_manage(struct kfacade *kf, pid_t tid)
{
	(void)kf;
	(void)tid;
	return 0;
}

static bool fake_may_lower_nice(struct kfacade *kf)
{
	return to_fake(kf)->privileged;
}

static bool fake_may_trace(struct kfacade *kf)
{
	return !to_fake(kf)->no_trace;
}

static int fake_get_nice(struct kfacade *kf, pid_t tid, int *nice)
{
	struct fake_thread t;

	if (!thread_copy(to_fake(kf), tid, &t))
		return -ESRCH;
	*nice = t.nice;
	return 0;
}

/* As the kernel (can_nice()): unprivileged, nice may only go up, or down
 * as far as 20 - the thread's RLIMIT_NICE. */
static int fake_set_nice(struct kfacade *kf, pid_t tid, int nice)
{
	struct fake_kf *fk = to_fake(kf);
	struct fake_thread *t;
	int ret = 0;

	g_mutex_lock(&fk->lock);
	fk->calls.nice++;
	t = lookup_locked(fk, tid);
	if (!t)
		ret = -ESRCH;
	else if (nice < t->nice && !fk->privileged && 20 - nice > t->nice_rlimit)
		ret = -EPERM;
	else
		t->nice = nice;
	g_mutex_unlock(&fk->lock);
	return ret;
}

static int fake_get_affinity(struct kfacade *kf, pid_t tid, struct cpumask *mask)
{
	struct fake_kf *fk = to_fake(kf);
	struct fake_thread t;

	g_mutex_lock(&fk->lock);
	fk->calls.get_affinity++;
	g_mutex_unlock(&fk->lock);
	if (!thread_copy(fk, tid, &t))
		return -ESRCH;
	*mask = t.cpus;
	return 0;
}

static int fake_set_affinity(struct kfacade *kf, pid_t tid, const struct cpumask *mask)
{
	struct fake_kf *fk = to_fake(kf);
	struct fake_thread *t;

	g_mutex_lock(&fk->lock);
	fk->calls.affinity++;
	t = lookup_locked(fk, tid);
	if (t)
		t->cpus = *mask;
	g_mutex_unlock(&fk->lock);
	return t ? 0 : -ESRCH;
}

static int fake_get_autogroup(struct kfacade *kf, pid_t tid, int *id, int *nice)
{
	struct fake_kf *fk = to_fake(kf);
	struct fake_thread t;

	if (!thread_copy(fk, tid, &t))
		return -ESRCH;
	*id = t.autogroup;
	*nice = fake_kf_autogroup_nice(fk, t.autogroup);
	return 0;
}

static int fake_set_autogroup_nice(struct kfacade *kf, pid_t tid, int nice)
{
	struct fake_kf *fk = to_fake(kf);
	struct fake_thread *t;

	g_mutex_lock(&fk->lock);
	fk->calls.autogroup++;
	t = lookup_locked(fk, tid);
	if (t && t->autogroup == AUTOGROUP_ROOT) {	/* as the kernel's */
		g_mutex_unlock(&fk->lock);
		return -EINVAL;
	}
	if (t)
		g_hash_table_insert(fk->ag_nice, GINT_TO_POINTER(t->autogroup),
				    GINT_TO_POINTER(nice));
	g_mutex_unlock(&fk->lock);
	return t ? 0 : -ESRCH;
}

static int fake_task_uids(struct kfacade *kf, pid_t tid, struct task_uids *uids)
{
	struct fake_thread t;

	if (!thread_copy(to_fake(kf), tid, &t))
		return -ESRCH;
	*uids = t.uids;
	return 0;
}

static int fake_nice_rlimit(struct kfacade *kf, pid_t tid, int *rlim)
{
	struct fake_thread t;

	if (!thread_copy(to_fake(kf), tid, &t))
		return -ESRCH;
	*rlim = t.nice_rlimit;
	return 0;
}

/* Called locked: the thread comes to its ptrace-stop, which is reported. */
static void stop_locked(struct fake_kf *fk, struct fake_thread *t)
{
	struct trace_report *r = g_new0(struct trace_report, 1);

	t->stopped = true;
	r->tid = t->tid;
	r->what = TRACE_STOPPED;
	r->sig = t->pending_sig;
	t->pending_sig = 0;
	g_queue_push_tail(&fk->trace_reports, r);
}

static int fake_trace_freeze(struct kfacade *kf, pid_t tid)
{
	struct fake_kf *fk = to_fake(kf);
	struct fake_thread *t;
	int ret = 0;

	g_mutex_lock(&fk->lock);
	t = g_hash_table_lookup(fk->threads, GINT_TO_POINTER(tid));
	if (!t)
		ret = -ESRCH;
	else if (t->trace_pending)
		ret = -EAGAIN;
	else if (t->traced || t->traced_by_other)
		ret = -EPERM;
	else {
		t->traced = true;
		fk->nr_traced++;
		fk->calls.trace_freeze++;
		if (!t->stop_held)
			stop_locked(fk, t);
	}
	g_mutex_unlock(&fk->lock);
	return ret;
}

static int fake_trace_status(struct kfacade *kf, pid_t tid, struct trace_status *st)
{
	struct fake_thread t;

	count_sys_call(to_fake(kf));
	if (!thread_copy(to_fake(kf), tid, &t))
		return -ESRCH;
	*st = (struct trace_status){ t.traced_by_other ? t.tracer : 0, t.stopped || t.sig_stopped };
	return 0;
}

/* SIGSTOP stops a thread another tracer has (until that tracer passes
 * it: fake_kf_tracer_resumes); a SIGCONT is counted. */
static int fake_trace_signal(struct kfacade *kf, pid_t tid, int sig)
{
	struct fake_kf *fk = to_fake(kf);
	struct fake_thread *t;

	count_sys_call(fk);
	g_mutex_lock(&fk->lock);
	t = g_hash_table_lookup(fk->threads, GINT_TO_POINTER(tid));
	if (t && sig == SIGSTOP && t->traced_by_other)
		t->sig_stopped = true;
	else if (t && sig == SIGCONT)
		t->conts++;
	g_mutex_unlock(&fk->lock);
	return t ? 0 : -ESRCH;
}

static int fake_trace_report(struct kfacade *kf, struct trace_report *out)
{
	struct fake_kf *fk = to_fake(kf);
	struct trace_report *r;
	int ret;

	g_mutex_lock(&fk->lock);
	r = g_queue_pop_head(&fk->trace_reports);
	if (r) {
		*out = *r;
		if (r->what == TRACE_GONE)
			fk->nr_traced--;
		g_free(r);
		ret = 1;
	} else {
		ret = fk->nr_traced ? 0 : -ECHILD;
	}
	g_mutex_unlock(&fk->lock);
	return ret;
}

static int fake_trace_thaw(struct kfacade *kf, pid_t tid, int sig)
{
	struct fake_kf *fk = to_fake(kf);
	struct fake_thread *t;
	int ret = 0;

	g_mutex_lock(&fk->lock);
	t = g_hash_table_lookup(fk->threads, GINT_TO_POINTER(tid));
	if (!t || !t->traced || !t->stopped) {
		ret = -ESRCH;
	} else {
		t->traced = t->stopped = false;
		t->given_back = sig;
		fk->nr_traced--;
		fk->calls.trace_thaw++;
	}
	g_mutex_unlock(&fk->lock);
	return ret;
}

static int fake_get_policy(struct kfacade *kf, pid_t tid, int *policy)
{
	struct fake_thread t;

	if (!thread_copy(to_fake(kf), tid, &t))
		return -ESRCH;
	*policy = t.policy;
	return 0;
}

static int fake_set_policy(struct kfacade *kf, pid_t tid, int policy)
{
	struct fake_kf *fk = to_fake(kf);
	struct fake_thread *t;

	g_mutex_lock(&fk->lock);
	t = g_hash_table_lookup(fk->threads, GINT_TO_POINTER(tid));
	if (t) {
		t->policy = policy;
		fk->calls.policy++;
	}
	g_mutex_unlock(&fk->lock);
	return t ? 0 : -ESRCH;
}

/* As /proc/TID/task/TID/children: the processes thread tid forked (a
 * fake process's ppid is its forking thread). */
static int fake_task_children(struct kfacade *kf, pid_t tid, GArray *pids)
{
	struct fake_kf *fk = to_fake(kf);
	GHashTableIter iter;
	struct fake_thread *t;
	int ret = -ESRCH;

	count_sys_call(fk);
	g_mutex_lock(&fk->lock);
	if (lookup_locked(fk, tid)) {
		ret = 0;
		g_hash_table_iter_init(&iter, fk->threads);
		while (g_hash_table_iter_next(&iter, NULL, (gpointer *)&t))
			if (t->ppid == tid && t->tid == t->tgid)
				g_array_append_val(pids, t->tid);
	}
	g_mutex_unlock(&fk->lock);
	return ret;
}

/* As /proc/PID: a live process's leader; the handle is its id. */
static bool fake_exec_proc_open(struct kfacade *kf, pid_t pid, struct exec_proc *p)
{
	struct fake_thread t;

	count_sys_call(to_fake(kf));
	if (!thread_copy(to_fake(kf), pid, &t) || t.tgid != pid) {
		p->dfd = -1;
		return false;
	}
	*p = (struct exec_proc){ .uid = t.uids.euid, .gid = t.egid, .dfd = pid };
	g_strlcpy(p->comm, t.comm, sizeof(p->comm));
	g_strlcpy(p->exe, t.exe, sizeof(p->exe));
	return true;
}

static bool fake_exec_proc_has_env(struct kfacade *kf, const struct exec_proc *p,
				   const char *entry, size_t max)
{
	struct fake_thread t;

	count_sys_call(to_fake(kf));
	return thread_copy(to_fake(kf), p->dfd, &t) && strlen(t.env) < max &&
	       strcmp(t.env, entry) == 0;
}

static void fake_exec_proc_close(struct kfacade *kf, struct exec_proc *p)
{
	(void)kf;
	g_assert_cmpint(p->dfd, >=, 0);		/* closed once */
	p->dfd = -1;
}

static const struct kfacade_ops fake_ops = {
	.task_open = fake_task_open,
	.task_ident = fake_task_ident,
	.task_hold = fake_task_hold,
	.task_close = fake_task_close,
	.task_events = fake_task_events,
	.event_fd = fake_event_fd,
	.task_alive = fake_task_alive,
	.task_in_vfork = fake_task_in_vfork,
	.task_kill = fake_task_kill,
	.thread_ids = fake_thread_ids,
	.all_tasks = fake_all_tasks,
	.online_cpus = fake_online_cpus,
	.online_mems = fake_online_mems,
	.nr_cpu_ids = fake_nr_cpu_ids,
	.nr_cpus = fake_nr_cpus,
	.task_cputime = fake_task_cputime,
	.process_cputime = fake_process_cputime,
	.task_origin = fake_task_origin,
	.boottime_ns = fake_boottime_ns,
	.system_cputime = fake_system_cputime,
	.may_manage = fake_may_manage,
	.may_lower_nice = fake_may_lower_nice,
	.may_trace = fake_may_trace,
	.get_nice = fake_get_nice,
	.set_nice = fake_set_nice,
	.get_affinity = fake_get_affinity,
	.set_affinity = fake_set_affinity,
	.get_autogroup = fake_get_autogroup,
	.set_autogroup_nice = fake_set_autogroup_nice,
	.task_uids = fake_task_uids,
	.nice_rlimit = fake_nice_rlimit,
	.trace_freeze = fake_trace_freeze,
	.trace_report = fake_trace_report,
	.trace_thaw = fake_trace_thaw,
	.trace_status = fake_trace_status,
	.trace_signal = fake_trace_signal,
	.get_policy = fake_get_policy,
	.set_policy = fake_set_policy,
	.task_children = fake_task_children,
	.exec_proc_open = fake_exec_proc_open,
	.exec_proc_has_env = fake_exec_proc_has_env,
	.exec_proc_close = fake_exec_proc_close,
};

struct fake_kf *fake_kf_new(void)
{
	struct fake_kf *fk = g_new0(struct fake_kf, 1);

	fk->base.ops = &fake_ops;
	/* fake_kf_exit_late_known() reports like a late source. */
	fk->base.late_exits = true;
	fk->base.holds_threads = true;
	g_mutex_init(&fk->lock);
	g_cond_init(&fk->cputime_cond);
	fk->threads = g_hash_table_new_full(NULL, NULL, NULL, g_free);
	fk->opens = g_hash_table_new_full(g_int64_hash, g_int64_equal, NULL, g_free);
	g_queue_init(&fk->pending);
	g_queue_init(&fk->late);
	fk->next_ino = 1000;
	fk->privileged = true;
	fk->ag_nice = g_hash_table_new(NULL, NULL);
	fk->killed = g_array_new(FALSE, FALSE, sizeof(pid_t));
	return fk;
}

void fake_kf_free(struct fake_kf *fk)
{
	g_assert_cmpuint(g_hash_table_size(fk->opens), ==, 0);
	g_assert_cmpuint(fk->bad_closes, ==, 0);
	g_queue_clear_full(&fk->pending, g_free);
	g_queue_clear_full(&fk->late, g_free);
	g_queue_clear_full(&fk->trace_reports, g_free);
	g_hash_table_unref(fk->opens);
	g_hash_table_unref(fk->threads);
	g_hash_table_unref(fk->ag_nice);
	g_array_unref(fk->killed);
	g_cond_clear(&fk->cputime_cond);
	g_mutex_clear(&fk->lock);
	g_free(fk);
}

struct kfacade *fake_kf_facade(struct fake_kf *fk)
{
	return &fk->base;
}

/* Called locked. */
static void add_locked(struct fake_kf *fk, pid_t tid, pid_t tgid, bool kthread)
{
	struct fake_thread *t = g_new0(struct fake_thread, 1);

	g_assert_cmpint(tid, >, 0);
	g_assert_false(g_hash_table_contains(fk->threads, GINT_TO_POINTER(tid)));
	t->tid = tid;
	t->tgid = tgid;
	t->kthread = kthread;
	t->ino = fk->next_ino++;
	fk->clock_ns += 1000000;
	t->start_ns = fk->clock_ns;
	cpumask_parselist(FAKE_KF_ONLINE_CPUS, &t->cpus, CPUMASK_BITS);
	g_hash_table_insert(fk->threads, GINT_TO_POINTER(tid), t);
}

/* Called locked: queues an event, as the proc connector would. */
static void report_locked(struct fake_kf *fk, int what, pid_t tid, pid_t tgid, pid_t parent)
{
	struct task_event *e = g_new0(struct task_event, 1);

	e->what = what;
	e->tid = tid;
	e->tgid = tgid;
	e->parent = parent;
	g_queue_push_tail(&fk->pending, e);
}

/* Called locked: tid exits and is reported. */
static void exit_locked(struct fake_kf *fk, pid_t tid)
{
	struct fake_thread *t = g_hash_table_lookup(fk->threads, GINT_TO_POINTER(tid));

	if (!t)
		return;
	report_locked(fk, TASK_EVENT_EXIT, tid, t->tgid, 0);
	if (t->traced) {
		struct trace_report *r = g_new0(struct trace_report, 1);

		r->tid = tid;
		r->what = TRACE_GONE;
		g_queue_push_tail(&fk->trace_reports, r);
	}
	/* The last figures come with the exit, as taskstats gives them. */
	((struct task_event *)fk->pending.tail->data)->final_valid = true;
	((struct task_event *)fk->pending.tail->data)->final = t->cputime;
	fk->exited_run_ns += t->cputime.run_ns;
	g_hash_table_remove(fk->threads, GINT_TO_POINTER(tid));
}

void fake_kf_add_process(struct fake_kf *fk, pid_t tgid, unsigned nthreads)
{
	g_mutex_lock(&fk->lock);
	for (unsigned i = 0; i < nthreads; i++)
		add_locked(fk, tgid + (pid_t)i, tgid, false);
	g_mutex_unlock(&fk->lock);
}

void fake_kf_add_kthread(struct fake_kf *fk, pid_t tid)
{
	g_mutex_lock(&fk->lock);
	add_locked(fk, tid, tid, true);
	g_mutex_unlock(&fk->lock);
}

void fake_kf_exit(struct fake_kf *fk, pid_t tid)
{
	g_mutex_lock(&fk->lock);
	exit_locked(fk, tid);
	g_mutex_unlock(&fk->lock);
}

void fake_kf_exit_late(struct fake_kf *fk, pid_t tid)
{
	g_mutex_lock(&fk->lock);
	if (g_hash_table_contains(fk->threads, GINT_TO_POINTER(tid))) {
		exit_locked(fk, tid);
		g_queue_push_tail(&fk->late, g_queue_pop_tail(&fk->pending));
	}
	g_mutex_unlock(&fk->lock);
}

void fake_kf_exit_late_known(struct fake_kf *fk, pid_t tid)
{
	struct fake_thread *t;

	g_mutex_lock(&fk->lock);
	t = g_hash_table_lookup(fk->threads, GINT_TO_POINTER(tid));
	if (t) {
		guint64 ino = t->ino;

		exit_locked(fk, tid);
		((struct task_event *)g_queue_peek_tail(&fk->pending))->ino = ino;
		g_queue_push_tail(&fk->late, g_queue_pop_tail(&fk->pending));
	}
	g_mutex_unlock(&fk->lock);
}

void fake_kf_report_late(struct fake_kf *fk)
{
	g_mutex_lock(&fk->lock);
	while (!g_queue_is_empty(&fk->late))
		g_queue_push_tail(&fk->pending, g_queue_pop_head(&fk->late));
	g_mutex_unlock(&fk->lock);
}

/* Called locked. */
static void exit_process_locked(struct fake_kf *fk, pid_t tgid)
{
	GArray *tids = g_array_new(FALSE, FALSE, sizeof(pid_t));

	append_threads_of(fk, tgid, tids);
	for (guint i = 0; i < tids->len; i++)
		exit_locked(fk, g_array_index(tids, pid_t, i));
	g_array_unref(tids);
}

void fake_kf_exit_process(struct fake_kf *fk, pid_t tgid)
{
	g_mutex_lock(&fk->lock);
	exit_process_locked(fk, tgid);
	g_mutex_unlock(&fk->lock);
}

void fake_kf_killed(struct fake_kf *fk, GArray *tids)
{
	g_mutex_lock(&fk->lock);
	g_array_append_vals(tids, fk->killed->data, fk->killed->len);
	g_mutex_unlock(&fk->lock);
}

void fake_kf_exec(struct fake_kf *fk, pid_t tid)
{
	GArray *tids = g_array_new(FALSE, FALSE, sizeof(pid_t));
	struct fake_thread *t, *leader;
	pid_t tgid;

	g_mutex_lock(&fk->lock);
	t = lookup_locked(fk, tid);
	g_assert_nonnull(t);
	tgid = t->tgid;
	append_threads_of(fk, tgid, tids);
	for (guint i = 0; i < tids->len; i++) {
		pid_t other = g_array_index(tids, pid_t, i);

		if (other != tid && other != tgid)
			exit_locked(fk, other);
	}
	if (tid != tgid) {
		leader = lookup_locked(fk, tgid);
		g_assert_nonnull(leader);
		t->ino = leader->ino;
		t->start_ns = leader->start_ns;
		t->ppid = leader->ppid;
		exit_locked(fk, tgid);
		g_hash_table_steal(fk->threads, GINT_TO_POINTER(tid));
		t->tid = tgid;
		g_hash_table_insert(fk->threads, GINT_TO_POINTER(tgid), t);
	}
	if (!fk->lost)
		report_locked(fk, TASK_EVENT_EXEC, tgid, tgid, 0);
	g_mutex_unlock(&fk->lock);
	g_array_unref(tids);
}

void fake_kf_reuse(struct fake_kf *fk, pid_t tid, pid_t tgid)
{
	g_mutex_lock(&fk->lock);
	exit_locked(fk, tid);
	add_locked(fk, tid, tgid, false);
	g_mutex_unlock(&fk->lock);
}

void fake_kf_hold_cputime(struct fake_kf *fk, bool held)
{
	g_mutex_lock(&fk->lock);
	fk->cputime_held = held;
	g_cond_broadcast(&fk->cputime_cond);
	g_mutex_unlock(&fk->lock);
}

unsigned fake_kf_cputime_waiting(struct fake_kf *fk)
{
	unsigned n;

	g_mutex_lock(&fk->lock);
	n = fk->cputime_waiting;
	g_mutex_unlock(&fk->lock);
	return n;
}

void fake_kf_forbid_when(struct fake_kf *fk, bool (*held)(void *data), void *data)
{
	fk->forbid_when = held;
	fk->forbid_data = data;
}

unsigned fake_kf_sys_calls(struct fake_kf *fk)
{
	unsigned n;

	g_mutex_lock(&fk->lock);
	n = fk->sys_calls;
	g_mutex_unlock(&fk->lock);
	return n;
}

guint64 fake_kf_ino(struct fake_kf *fk, pid_t tid)
{
	struct fake_thread *t;
	guint64 ino;

	g_mutex_lock(&fk->lock);
	t = g_hash_table_lookup(fk->threads, GINT_TO_POINTER(tid));
	ino = t ? t->ino : 0;
	g_mutex_unlock(&fk->lock);
	return ino;
}

unsigned fake_kf_open_count(struct fake_kf *fk)
{
	return fake_kf_open_count_tid(fk, 0);
}

unsigned fake_kf_open_count_tid(struct fake_kf *fk, pid_t tid)
{
	GHashTableIter iter;
	struct fake_open *o;
	unsigned n = 0;

	g_mutex_lock(&fk->lock);
	g_hash_table_iter_init(&iter, fk->opens);
	while (g_hash_table_iter_next(&iter, NULL, (gpointer *)&o))
		if (!tid || o->tid == tid)
			n += o->n;
	g_mutex_unlock(&fk->lock);
	return n;
}

unsigned fake_kf_pending_exits(struct fake_kf *fk)
{
	unsigned n = 0;

	g_mutex_lock(&fk->lock);
	for (GList *l = fk->pending.head; l; l = l->next)
		n += ((struct task_event *)l->data)->what == TASK_EVENT_EXIT;
	g_mutex_unlock(&fk->lock);
	return n;
}

void fake_kf_lose_exits(struct fake_kf *fk)
{
	g_mutex_lock(&fk->lock);
	g_queue_clear_full(&fk->pending, g_free);
	fk->lost = true;
	g_mutex_unlock(&fk->lock);
}

void fake_kf_set_exec(struct fake_kf *fk, pid_t tgid, gid_t egid, const char *comm,
		      const char *exe, const char *env)
{
	struct fake_thread *t;

	g_mutex_lock(&fk->lock);
	t = lookup_locked(fk, tgid);
	g_assert_nonnull(t);
	t->egid = egid;
	g_strlcpy(t->comm, comm, sizeof(t->comm));
	g_strlcpy(t->exe, exe, sizeof(t->exe));
	g_strlcpy(t->env, env ? env : "", sizeof(t->env));
	g_mutex_unlock(&fk->lock);
}

void fake_kf_set_uids(struct fake_kf *fk, pid_t tid, const struct task_uids *uids)
{
	struct fake_thread *t;

	g_mutex_lock(&fk->lock);
	t = lookup_locked(fk, tid);
	g_assert_nonnull(t);
	t->uids = *uids;
	g_mutex_unlock(&fk->lock);
}

void fake_kf_set_nice_rlimit(struct fake_kf *fk, pid_t tid, int rlim)
{
	struct fake_thread *t;

	g_mutex_lock(&fk->lock);
	t = lookup_locked(fk, tid);
	g_assert_nonnull(t);
	t->nice_rlimit = rlim;
	g_mutex_unlock(&fk->lock);
}

void fake_kf_fork(struct fake_kf *fk, pid_t parent, pid_t tid, pid_t tgid)
{
	struct fake_thread *p, *c;

	g_mutex_lock(&fk->lock);
	add_locked(fk, tid, tgid, false);
	/* Born with its parent's nice, affinity and session. */
	p = lookup_locked(fk, parent);
	c = lookup_locked(fk, tid);
	if (p) {
		c->nice = p->nice;
		c->policy = p->policy;
		c->cpus = p->cpus;
		c->autogroup = p->autogroup;
	}
	c->ppid = tid == tgid ? parent : 0;
	/* For a new thread the connector names the process's parent, which
	 * the fake does not know: 0. */
	if (!fk->lost)
		report_locked(fk, TASK_EVENT_FORK, tid, tgid, tid == tgid ? parent : 0);
	g_mutex_unlock(&fk->lock);
}

static void run(struct fake_kf *fk, pid_t tid, uint64_t run_ns, uint64_t wait_ns, int cpu,
		bool in_kernel)
{
	struct fake_thread *t;

	g_mutex_lock(&fk->lock);
	t = lookup_locked(fk, tid);
	g_assert_nonnull(t);
	t->cputime.run_ns += run_ns;
	t->cputime.wait_ns += wait_ns;
	/* In ticks of USER_HZ 100, as /proc/TID/stat counts them. */
	*(in_kernel ? &t->cputime.stime : &t->cputime.utime) += run_ns / FAKE_KF_TICK_NS;
	t->cputime.cpu = cpu;
	t->cputime.runnable = run_ns + wait_ns > 0;
	g_mutex_unlock(&fk->lock);
}

void fake_kf_run(struct fake_kf *fk, pid_t tid, uint64_t run_ns, uint64_t wait_ns, int cpu)
{
	run(fk, tid, run_ns, wait_ns, cpu, false);
}

void fake_kf_run_system(struct fake_kf *fk, pid_t tid, uint64_t run_ns, int cpu)
{
	run(fk, tid, run_ns, 0, cpu, true);
}

int fake_kf_nice(struct fake_kf *fk, pid_t tid)
{
	int nice = 0;

	g_assert_cmpint(fake_get_nice(&fk->base, tid, &nice), ==, 0);
	return nice;
}

void fake_kf_renice(struct fake_kf *fk, pid_t tid, int nice)
{
	struct fake_thread *t;

	g_mutex_lock(&fk->lock);
	t = lookup_locked(fk, tid);
	g_assert_nonnull(t);
	t->nice = nice;
	g_mutex_unlock(&fk->lock);
}

void fake_kf_affinity(struct fake_kf *fk, pid_t tid, GString *list)
{
	struct fake_thread t;

	g_assert_true(thread_copy(fk, tid, &t));
	g_string_truncate(list, 0);
	cpumask_print_list(&t.cpus, list);
}

void fake_kf_set_own_affinity(struct fake_kf *fk, pid_t tid, const char *list)
{
	struct fake_thread *t;
	struct cpumask mask;

	g_assert_cmpint(cpumask_parselist(list, &mask, FAKE_KF_NR_CPU_IDS), ==, 0);
	g_mutex_lock(&fk->lock);
	t = lookup_locked(fk, tid);
	g_assert_nonnull(t);
	t->cpus = mask;
	g_mutex_unlock(&fk->lock);
}

void fake_kf_set_session(struct fake_kf *fk, pid_t tgid, int autogroup)
{
	GHashTableIter iter;
	struct fake_thread *t;

	g_mutex_lock(&fk->lock);
	g_hash_table_iter_init(&iter, fk->threads);
	while (g_hash_table_iter_next(&iter, NULL, (gpointer *)&t))
		if (t->tgid == tgid)
			t->autogroup = autogroup;
	g_mutex_unlock(&fk->lock);
}

int fake_kf_autogroup_nice(struct fake_kf *fk, int autogroup)
{
	int nice;

	g_mutex_lock(&fk->lock);
	nice = GPOINTER_TO_INT(g_hash_table_lookup(fk->ag_nice, GINT_TO_POINTER(autogroup)));
	g_mutex_unlock(&fk->lock);
	return nice;
}

void fake_kf_set_holds_threads(struct fake_kf *fk, bool holds)
{
	fk->base.holds_threads = holds;	/* set before the core's threads read it */
}

void fake_kf_set_may_trace(struct fake_kf *fk, bool may)
{
	g_mutex_lock(&fk->lock);
	fk->no_trace = !may;
	g_mutex_unlock(&fk->lock);
}

void fake_kf_set_privileged(struct fake_kf *fk, bool privileged)
{
	g_mutex_lock(&fk->lock);
	fk->privileged = privileged;
	g_mutex_unlock(&fk->lock);
}

struct fake_kf_calls fake_kf_calls(struct fake_kf *fk)
{
	struct fake_kf_calls c;

	g_mutex_lock(&fk->lock);
	c = fk->calls;
	g_mutex_unlock(&fk->lock);
	return c;
}

void fake_kf_hold_clock(struct fake_kf *fk, bool held)
{
	g_mutex_lock(&fk->lock);
	fk->clock_held = held;
	if (!held)
		fk->clock_ns += 50000000;
	g_mutex_unlock(&fk->lock);
}

/* Called locked. */
static struct fake_thread *thread_locked(struct fake_kf *fk, pid_t tid)
{
	struct fake_thread *t = g_hash_table_lookup(fk->threads, GINT_TO_POINTER(tid));

	g_assert_nonnull(t);
	return t;
}

bool fake_kf_frozen(struct fake_kf *fk, pid_t tid)
{
	struct fake_thread *t;
	bool frozen;

	g_mutex_lock(&fk->lock);
	t = g_hash_table_lookup(fk->threads, GINT_TO_POINTER(tid));
	frozen = t && t->traced && t->stopped;
	g_mutex_unlock(&fk->lock);
	return frozen;
}

bool fake_kf_traced(struct fake_kf *fk, pid_t tid)
{
	bool traced;

	g_mutex_lock(&fk->lock);
	traced = thread_locked(fk, tid)->traced;
	g_mutex_unlock(&fk->lock);
	return traced;
}

void fake_kf_set_debugged(struct fake_kf *fk, pid_t tid, bool debugged)
{
	g_mutex_lock(&fk->lock);
	thread_locked(fk, tid)->traced_by_other = debugged;
	g_mutex_unlock(&fk->lock);
}

void fake_kf_set_trace_pending(struct fake_kf *fk, pid_t tid, bool pending)
{
	g_mutex_lock(&fk->lock);
	thread_locked(fk, tid)->trace_pending = pending;
	g_mutex_unlock(&fk->lock);
}

void fake_kf_set_vfork(struct fake_kf *fk, pid_t tid, bool waits)
{
	g_mutex_lock(&fk->lock);
	thread_locked(fk, tid)->in_vfork = waits;
	g_mutex_unlock(&fk->lock);
	fake_kf_hold_stop(fk, tid, waits);
}

void fake_kf_set_tracer(struct fake_kf *fk, pid_t tid, pid_t tracer)
{
	g_mutex_lock(&fk->lock);
	thread_locked(fk, tid)->traced_by_other = tracer != 0;
	thread_locked(fk, tid)->tracer = tracer;
	g_mutex_unlock(&fk->lock);
}

bool fake_kf_tracer_resumes(struct fake_kf *fk, pid_t tid)
{
	struct fake_thread *t, *tracer;
	bool resumed;

	g_mutex_lock(&fk->lock);
	t = thread_locked(fk, tid);
	tracer = g_hash_table_lookup(fk->threads, GINT_TO_POINTER(t->tracer));
	resumed = !(tracer && tracer->traced && tracer->stopped);
	if (resumed)
		t->sig_stopped = false;
	g_mutex_unlock(&fk->lock);
	return resumed;
}

bool fake_kf_sig_stopped(struct fake_kf *fk, pid_t tid)
{
	bool stopped;

	g_mutex_lock(&fk->lock);
	stopped = thread_locked(fk, tid)->sig_stopped;
	g_mutex_unlock(&fk->lock);
	return stopped;
}

int fake_kf_conts(struct fake_kf *fk, pid_t tid)
{
	int n;

	g_mutex_lock(&fk->lock);
	n = thread_locked(fk, tid)->conts;
	g_mutex_unlock(&fk->lock);
	return n;
}

void fake_kf_hold_stop(struct fake_kf *fk, pid_t tid, bool held)
{
	struct fake_thread *t;

	g_mutex_lock(&fk->lock);
	t = thread_locked(fk, tid);
	t->stop_held = held;
	if (!held && t->traced && !t->stopped)
		stop_locked(fk, t);
	g_mutex_unlock(&fk->lock);
}

void fake_kf_send_signal(struct fake_kf *fk, pid_t tid, int sig)
{
	g_mutex_lock(&fk->lock);
	thread_locked(fk, tid)->pending_sig = sig;
	g_mutex_unlock(&fk->lock);
}

int fake_kf_given_back(struct fake_kf *fk, pid_t tid)
{
	int sig;

	g_mutex_lock(&fk->lock);
	sig = thread_locked(fk, tid)->given_back;
	g_mutex_unlock(&fk->lock);
	return sig;
}

int fake_kf_policy(struct fake_kf *fk, pid_t tid)
{
	struct fake_thread t;

	g_assert_true(thread_copy(fk, tid, &t));
	return t.policy;
}

void fake_kf_set_own_policy(struct fake_kf *fk, pid_t tid, int policy)
{
	struct fake_thread *t;

	g_mutex_lock(&fk->lock);
	t = lookup_locked(fk, tid);
	g_assert_nonnull(t);
	t->policy = policy;
	g_mutex_unlock(&fk->lock);
}
