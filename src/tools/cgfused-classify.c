/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cgfused-classify: move running processes into groups of a cgfused
 * mount, as libcgroup's cgclassify does on the kernel's cgroupfs.
 *
 *   cgfused-classify [--mount DIR] -g CONTROLLERS:PATH [-g ...] PID...
 *
 * Each PID's whole thread group moves, through cgroup.procs. */
#include "config.h"

#include <stdio.h>
#include <unistd.h>

#include "tools/cgmount.h"

static void usage(FILE *to)
{
	fprintf(to,
		"Usage: cgfused-classify [--mount DIR] -g CONTROLLERS:PATH [-g ...] PID...\n"
		"Move running processes (all their threads) into groups of a cgfused mount.\n\n"
		"  -g CONTROLLERS:PATH  the group PATH of the hierarchy with CONTROLLERS\n"
		"                       (cpu,cpuacct:/build); *:PATH for every hierarchy\n"
		"  -m, --mount DIR      the cgfused mount to use (default: the only one\n"
		"                       with the controllers named)\n"
		"  -h, --help           show this help\n\n"
		"Exit status: 0 if every PID moved, 1 if one did not (a line for each),\n"
		"2 on bad arguments or groups. See cgfused-classify(1).\n");
}

/* A process id as the kernel would take it from cgroup.procs: > 0. */
static bool parse_pid(const char *arg, pid_t *pid)
{
	guint64 v;

	if (!g_ascii_string_to_unsigned(arg, 10, 1, G_MAXINT32, &v, NULL))
		return false;
	*pid = (pid_t)v;
	return true;
}

/* Moves pid into every target; prints a line for the first that fails. */
static bool classify(GPtrArray *targets, const char *arg)
{
	pid_t pid;

	if (!parse_pid(arg, &pid)) {
		cg_tool_error("%s: not a process id", arg);
		return false;
	}
	for (guint i = 0; i < targets->len; i++) {
		const struct cg_target *t = targets->pdata[i];
		int err = cg_target_move(t, pid);

		if (err) {
			char *text = cg_errno_text(err);

			cg_tool_error("%d: cannot move into %s: %s%s", (int)pid, t->dir, text,
				      i ? " (moved in the hierarchies before it)" : "");
			g_free(text);
			return false;
		}
	}
	return true;
}

int main(int argc, char **argv)
{
	g_autoptr(GPtrArray) specs = g_ptr_array_new_with_free_func((GDestroyNotify)cg_spec_free);
	g_autoptr(GPtrArray) targets = NULL;
	const char *mount_dir = NULL;
	struct cg_mount *m;
	int status;

	g_set_prgname("cgfused-classify");
	status = cg_tool_options(argc, argv, NULL, specs, &mount_dir, usage, "process id", 2);
	if (status >= 0)
		return status;
	status = 0;
	if (!(m = cg_mount_find(mount_dir, specs)))
		return 2;
	targets = cg_targets_open(m, specs);
	for (int i = optind; targets && i < argc; i++)
		if (!classify(targets, argv[i]))
			status = 1;
	cg_mount_free(m);
	return targets ? status : 2;
}
