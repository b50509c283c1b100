/* GLib 2.74's slice allocator, which every GHashTable, GString and
 * GPtrArray header comes from, keeps freed blocks in per-thread magazines
 * and a whole slab resident for one live block in it. After a soak it held
 * about 5 MiB more than the daemon's baseline once every group was gone
 * (docs/soak.md, Memory). Told to always malloc, it hands out plain malloc
 * chunks, which the daemon's malloc_trim() gives back. GLib 2.76 and later
 * use malloc anyway.
 *
 * The setting must come before GLib's first block, which its own
 * constructor takes (for its quark table), before main(). The dynamic
 * loader runs an executable's .preinit_array before any library's
 * constructor, so it is made there. (Setting G_SLICE there would not do:
 * libc's own start-up then resets the environment to the one exec gave.) */
#include <glib.h>

static void slice_malloc(void)
{
	G_GNUC_BEGIN_IGNORE_DEPRECATIONS
	g_slice_set_config(G_SLICE_CONFIG_ALWAYS_MALLOC, TRUE);
	G_GNUC_END_IGNORE_DEPRECATIONS
}

__attribute__((section(".preinit_array"), used))
static void (*const slice_malloc_preinit)(void) = slice_malloc;
