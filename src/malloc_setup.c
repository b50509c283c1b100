/* How the daemon's allocators are set up, so that what a burst of work
 * freed goes back to the kernel once the groups are gone (docs/soak.md,
 * Memory). Made from the executable's .preinit_array, which the dynamic
 * loader runs before any library's constructor: GLib's takes its first
 * block before main(). */
#include <malloc.h>

#include <glib.h>

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
