/* src/malloc_setup.c must set up glibc's malloc and GLib's slice allocator
 * before GLib's constructor runs. This program is linked with it, as the
 * daemon is, and looks at what the allocators do. (Under ASan or valgrind,
 * whose allocators replace glibc's, only the slice test means something;
 * mallinfo2() then reports nothing that moves.) */
#include <malloc.h>
#include <pthread.h>
#include <stdint.h>

#include <glib.h>

#define BLOCK 48
#define NR_BLOCKS 256

/* A slab hands out blocks of one size packed side by side, while malloc
 * puts every chunk behind its own header (and ASan or valgrind behind a
 * red zone): no two malloc'd blocks of 48 bytes can be 48 bytes apart. */
static void test_slices_are_malloc_chunks(void)
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

/* 1.6 MiB in chunks too large for the per-thread caches, freed from the
 * top down so that they all merge into the arena's top chunk. */
#define CHUNK 4096
#define NR_CHUNKS 400

static void *fill_and_free(void *arg)
{
	size_t *kept = arg;
	void *chunks[NR_CHUNKS];
	size_t before = mallinfo2().arena;

	for (unsigned i = 0; i < NR_CHUNKS; i++)
		chunks[i] = g_malloc(CHUNK);
	for (unsigned i = NR_CHUNKS; i-- > 0;)
		g_free(chunks[i]);
	*kept = mallinfo2().arena - before;
	return NULL;
}

/* glibc raises its thresholds when a large mmap'd block is freed (here to
 * 1 and 2 MiB); raised, a thread's arena keeps that much free at its top,
 * resident. With them fixed it keeps no more than the trim threshold. */
static void test_thread_arena_trimmed(void)
{
	void *big = g_malloc(1 << 20);
	size_t kept = 0;
	pthread_t thread;

	g_free(big);
	g_assert_cmpint(pthread_create(&thread, NULL, fill_and_free, &kept), ==, 0);
	g_assert_cmpint(pthread_join(thread, NULL), ==, 0);
	g_assert_cmpuint(kept, <=, 256 * 1024);
}

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/malloc-setup/slices-are-malloc-chunks", test_slices_are_malloc_chunks);
	g_test_add_func("/malloc-setup/thread-arena-trimmed", test_thread_arena_trimmed);
	return g_test_run();
}
