/* src/slice_malloc.c must switch GLib's slice allocator to malloc before
 * GLib's constructor takes its first block. This program is linked with it, as the
 * daemon is, and looks at where GLib puts its blocks: a slab hands out
 * blocks of one size packed side by side, while malloc puts every chunk
 * behind its own header (and ASan or valgrind behind a red zone), so no
 * two malloc'd blocks of 48 bytes can be 48 bytes apart. */
#include <stdint.h>

#include <glib.h>

#define BLOCK 48
#define NR_BLOCKS 256

static void test_blocks_are_malloc_chunks(void)
{
	void *blocks[NR_BLOCKS];
	unsigned packed = 0;

	for (unsigned i = 0; i < NR_BLOCKS; i++)
		blocks[i] = g_slice_alloc(BLOCK);
	for (unsigned i = 1; i < NR_BLOCKS; i++) {
		intptr_t gap = (intptr_t)blocks[i] - (intptr_t)blocks[i - 1];

		if (gap == BLOCK || gap == -BLOCK)
			packed++;
	}
	for (unsigned i = 0; i < NR_BLOCKS; i++)
		g_slice_free1(BLOCK, blocks[i]);
	g_assert_cmpuint(packed, ==, 0);
}

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/slice-malloc/blocks-are-malloc-chunks", test_blocks_are_malloc_chunks);
	return g_test_run();
}
