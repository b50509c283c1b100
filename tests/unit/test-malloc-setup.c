/* SPDX-License-Identifier: GPL-2.0-or-later */
/* src/malloc_setup.c must set up glibc's malloc and GLib's slice allocator
 * before GLib's constructor runs. This program is linked with it, as the
 * daemon is, and looks at what the allocators do. (Under ASan or valgrind,
 * whose allocators replace glibc's, only the slice test means something;
 * mallinfo2() and malloc_info() then report glibc's unused arenas.) The
 * per-thread caches, which the daemon turns off by starting itself again,
 * are tested in tests/daemon.bats. */
#include <malloc.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

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
 * 1 and 2 MiB); raised, an arena keeps that much free at its top,
 * resident. With them fixed it keeps no more than the trim threshold. */
static void test_arena_trimmed(void)
{
	void *big = g_malloc(1 << 20);
	size_t kept = 0;
	pthread_t thread;

	g_free(big);
	g_assert_cmpint(pthread_create(&thread, NULL, fill_and_free, &kept), ==, 0);
	g_assert_cmpint(pthread_join(thread, NULL), ==, 0);
	g_assert_cmpuint(kept, <=, 256 * 1024);
}

static void *malloc_in_thread(void *arg)
{
	*(void **)arg = g_malloc(64);
	return NULL;
}

/* The heaps malloc_info() describes, one per arena. */
static unsigned nr_arenas(void)
{
	char *xml = NULL, *p;
	size_t len = 0;
	unsigned n = 0;
	FILE *f = open_memstream(&xml, &len);

	g_assert_nonnull(f);
	g_assert_cmpint(malloc_info(0, f), ==, 0);
	g_assert_cmpint(fclose(f), ==, 0);
	for (p = xml; (p = strstr(p, "<heap nr=")); p++)
		n++;
	free(xml);
	return n;
}

/* A new thread's first malloc makes it an arena of its own, up to eight
 * per CPU, unless the arenas are limited: the daemon has one. */
static void test_one_arena(void)
{
	void *block[4];
	pthread_t thread[4];

	for (unsigned i = 0; i < 4; i++)
		g_assert_cmpint(pthread_create(&thread[i], NULL, malloc_in_thread, &block[i]), ==, 0);
	for (unsigned i = 0; i < 4; i++)
		g_assert_cmpint(pthread_join(thread[i], NULL), ==, 0);
	g_assert_cmpuint(nr_arenas(), ==, 1);
	for (unsigned i = 0; i < 4; i++)
		g_free(block[i]);
}

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	/* A failed check fails its case; the next cases still run. */
	g_test_set_nonfatal_assertions();
	g_test_add_func("/malloc-setup/slices-are-malloc-chunks", test_slices_are_malloc_chunks);
	g_test_add_func("/malloc-setup/arena-trimmed", test_arena_trimmed);
	g_test_add_func("/malloc-setup/one-arena", test_one_arena);
	return g_test_run();
}
