/* SPDX-License-Identifier: GPL-2.0-or-later */
/* notify_on_release: when a cgroup that asked for it loses its last task and
 * its last child, its hierarchy's release_agent runs with the cgroup's path
 * (kernel: cgroup1_check_for_release, cgroup1_release_agent). A subscriber
 * of the core (core/notify.h): it hears of populated changes and removed
 * groups under the core lock, and queues the agent's run for its own
 * thread, as the kernel queues release_agent_work. */
#ifndef CGFUSED_RELEASE_AGENT_H
#define CGFUSED_RELEASE_AGENT_H

#include "core/cgroup.h"

#define RELEASE_AGENT_MAX 4096	/* PATH_MAX, the kernel's release_agent_path */

struct release_agent;

/* Listens to core from now on; agents due are queued until start. */
struct release_agent *release_agent_new(struct cg_core *core);
/* Starts the thread that runs the agents (after the daemon's fork). */
void release_agent_start(struct release_agent *ra);
/* Stops listening, runs what was queued (if started) and frees ra.
 * NULL-safe. */
void release_agent_free(struct release_agent *ra);

#endif
