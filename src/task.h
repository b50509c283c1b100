/* Tasks (threads) the core tracks: those that were ever attached, until they
 * exit. Every other thread of the system is implicitly in init_css_set and
 * has no struct task. All functions are called locked. */
#ifndef CGFUSED_TASK_H
#define CGFUSED_TASK_H

#include "cgroup.h"
#include "css_set.h"

struct task {
	pid_t tid;
	struct task_ident ident;
	struct css_set *cset;
	GList *cset_node;		/* our node in cset->tasks */
};

/* The tracked task with this id, or NULL (it is then in init_css_set). */
struct task *task_lookup(struct cg_core *core, pid_t tid);

/* The tracked task, or a new one in init_css_set for a live thread.
 * -ESRCH/-EINVAL from the facade. *created tells which. */
int task_get(struct cg_core *core, pid_t tid, struct task **out, bool *created);

/* Moves a task into cset (referenced by the caller, who keeps its ref). */
void task_set_css_set(struct cg_core *core, struct task *t, struct css_set *cset);

/* Stops tracking a task wherever it is (it has exited, or it was made for
 * an attach that failed). */
void task_drop(struct cg_core *core, struct task *t);

/* Takes in what the kernel reported: children join their parent's groups,
 * exited tasks are forgotten. Called before anything reads or changes
 * memberships, so that no exited task is listed or counted and every child
 * is where the kernel would have put it. */
void task_catch_up(struct cg_core *core);

/* The css_set a thread is in, tracked or not. */
struct css_set *task_css_set(struct cg_core *core, pid_t tid);

void task_table_free(struct cg_core *core);

#endif
