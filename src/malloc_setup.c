/* SPDX-License-Identifier: GPL-2.0-or-later */
/* How the daemon's allocators are set up, so that what a burst of work
 * freed goes back to the kernel once the groups are gone (docs/soak.md,
 * Memory). Made from the executable's .preinit_array, which the dynamic
 * loader runs before any library's constructor: GLib's takes its first
 * block before main(); and, for what glibc reads only at exec, by main()
 * with malloc_setup_exec(). */
#include <malloc.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>

#include <glib.h>

#include "malloc_setup.h"

#define TUNABLES "GLIBC_TUNABLES"
#define TCACHE_COUNT "glibc.malloc.tcache_count"

/* glibc's defaults for both thresholds. Setting them stops glibc from
 * raising them each time a large mmap'd block is freed (up to 32 and
 * 64 MiB): raised, every thread's arena kept up to twice the largest such
 * block free and resident at its top, which only free() trims in a
 * thread's arena (malloc_trim() does not), 3 MiB after a 120 s soak. */
#define MMAP_THRESHOLD (128 * 1024)
#define TRIM_THRESHOLD (128 * 1024)

static void malloc_setup(void)
{
	mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD);
	mallopt(M_TRIM_THRESHOLD, TRIM_THRESHOLD);
	/* One arena for every thread. Each FUSE worker otherwise gets an
	 * arena of its own, which keeps the free space at its top resident:
	 * a thread arena's top shrinks only when a free of 64 KiB or more
	 * reaches it, and malloc_trim() leaves it alone. After a soak that
	 * was 2.1 MiB in eleven arenas. The main arena's top and
	 * free pages are given back by the daemon's malloc_trim(). */
	mallopt(M_ARENA_MAX, 1);
	/* GLib 2.74's slice allocator, which every GHashTable, GString and
	 * GPtrArray header comes from, keeps freed blocks in per-thread
	 * magazines and a whole slab resident for one live block in it:
	 * about 5 MiB over the baseline after a soak with restarts. As plain
	 * malloc chunks they are given back by the daemon's malloc_trim().
	 * GLib 2.76 and later use malloc anyway. (Setting G_SLICE here would
	 * not do: libc's start-up then resets the environment.) */
	G_GNUC_BEGIN_IGNORE_DEPRECATIONS
	g_slice_set_config(G_SLICE_CONFIG_ALWAYS_MALLOC, TRUE);
	G_GNUC_END_IGNORE_DEPRECATIONS
}

__attribute__((section(".preinit_array"), used))
static void (*const malloc_setup_preinit)(void) = malloc_setup;

/* glibc's per-thread caches hold up to 7 freed chunks of each small size
 * for each thread, and to the arena they are still in use: every FUSE
 * worker's cache pins the pages around its chunks and keeps the free
 * chunks beside them from merging: 2.1 MiB free in pieces of 1-4 KiB
 * in the one arena after a 120 s soak (docs/soak.md, Memory). The caches
 * can be turned off only by a tunable, which glibc reads when a program
 * starts, so the daemon starts itself again (same PID, same arguments)
 * with glibc.malloc.tcache_count=0 added to the user's tunables. Not if
 * the user named that tunable (that is also how the second start knows),
 * nor in a secure exec, where glibc drops the tunables. */
void malloc_setup_exec(char *argv[])
{
	char *user = g_strdup(getenv(TUNABLES));
	char *tunables, *self;

	if ((user && strstr(user, TCACHE_COUNT "=")) || getauxval(AT_SECURE)) {
		g_free(user);
		return;
	}
	tunables = user && *user ? g_strconcat(user, ":" TCACHE_COUNT "=0", NULL)
				 : g_strdup(TCACHE_COUNT "=0");
	/* The path readlink gives, not the link itself: under valgrind the
	 * kernel's link leads to valgrind's tool, while readlink (which
	 * valgrind answers) names the daemon. */
	self = g_file_read_link("/proc/self/exe", NULL);
	if (self && setenv(TUNABLES, tunables, 1) == 0) {
		execv(self, argv);
		/* No exec: run on as we are, with the caches. */
		if (user)
			setenv(TUNABLES, user, 1);
		else
			unsetenv(TUNABLES);
	}
	g_free(self);
	g_free(tunables);
	g_free(user);
}
