/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cgfused-exec: run a command in groups of a cgfused mount, as libcgroup's
 * cgexec does on the kernel's cgroupfs.
 *
 *   cgfused-exec [--mount DIR] [--sticky] -g CONTROLLERS:PATH [-g ...] COMMAND [ARGS]
 *
 * Moves itself (its whole thread group, through cgroup.procs) into every
 * group named, then execs COMMAND, which so starts there, as do its
 * children. With --sticky, CGFUSED_STICKY=1 in COMMAND's environment tells
 * the daemon's rules to leave it (and its children that keep it) there. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "tools/cgmount.h"

/* As env(1), nice(1) and timeout(1): our own failure, a command that
 * cannot run, one that was not found. */
enum { EXIT_TOOL = 125, EXIT_CANNOT_RUN = 126, EXIT_NOT_FOUND = 127 };

static void usage(FILE *to)
{
	fprintf(to,
		"Usage: cgfused-exec [--mount DIR] [--sticky] -g CONTROLLERS:PATH [-g ...] COMMAND [ARGS]\n"
		"Run COMMAND in groups of a cgfused mount.\n\n"
		"  -g CONTROLLERS:PATH  the group PATH of the hierarchy with CONTROLLERS\n"
		"                       (cpu,cpuacct:/build); *:PATH for every hierarchy\n"
		"  -m, --mount DIR      the cgfused mount to use (default: the only one\n"
		"                       with the controllers named)\n"
		"  -s, --sticky         the daemon's rules (cgfused.rules(5)) do not move\n"
		"                       COMMAND or its children when they exec\n"
		"  -h, --help           show this help\n\n"
		"Exit status: COMMAND's; 125 if cgfused-exec failed, 126 if COMMAND\n"
		"cannot run, 127 if it is not found. See cgfused-exec(1).\n");
}

int main(int argc, char **argv)
{
	g_autoptr(GPtrArray) specs = g_ptr_array_new_with_free_func((GDestroyNotify)cg_spec_free);
	g_autoptr(GPtrArray) targets = NULL;
	const char *mount_dir = NULL;
	bool sticky = false;
	struct cg_mount *m;
	int err;

	g_set_prgname("cgfused-exec");
	err = cg_tool_options(argc, argv, &sticky, specs, &mount_dir, usage, "command", EXIT_TOOL);
	if (err >= 0)
		return err;
	if (!(m = cg_mount_find(mount_dir, specs)))
		return EXIT_TOOL;
	/* Every group is opened before any move: a missing one moves nothing. */
	targets = cg_targets_open(m, specs);
	for (guint i = 0; targets && i < targets->len; i++) {
		const struct cg_target *t = targets->pdata[i];

		/* A failure here leaves us in the groups before it, but we
		 * exit without running anything: nothing stays there. */
		if ((err = cg_target_move(t, getpid()))) {
			cg_tool_error("cannot move into %s: %s", t->dir, g_strerror(err));
			g_clear_pointer(&targets, g_ptr_array_unref);
		}
	}
	cg_mount_free(m);
	if (!targets)
		return EXIT_TOOL;
	g_clear_pointer(&targets, g_ptr_array_unref);	/* closes the cgroup.procs files */
	if (sticky && setenv("CGFUSED_STICKY", "1", 1) < 0) {
		cg_tool_error("cannot set CGFUSED_STICKY: %s", g_strerror(errno));
		return EXIT_TOOL;
	}
	execvp(argv[optind], argv + optind);
	err = errno;
	cg_tool_error("%s: %s", argv[optind], g_strerror(err));
	return err == ENOENT ? EXIT_NOT_FOUND : EXIT_CANNOT_RUN;
}
