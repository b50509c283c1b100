/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A table of entries keyed by a thread or process id that each entry holds
 * (at key_offset), for the per-task tables: the entries are objects of a
 * slab pool (slab.h) and a slot is 4 bytes, an entry's handle (a
 * GHashTable keeps a key, a value and a hash a slot), open addressing with
 * linear probing, deletion by backward shift (no tombstones), grown above
 * 3/4 full and shrunk below 1/8, so that the memory of exited tasks is
 * given back. The entries are the caller's. Not locked. */
#ifndef CGFUSED_TIDMAP_H
#define CGFUSED_TIDMAP_H

#include <glib.h>
#include <sys/types.h>

#include "lib/slab.h"

struct tidmap {
	guint32 *slots;			/* handles in pool, 0: free; NULL while empty */
	guint shift;			/* 32 - log2(slots) */
	guint len;
	gsize key_offset;
	const struct slab_pool *pool;	/* the entries' */
};

void tidmap_init(struct tidmap *m, const struct slab_pool *pool, gsize key_offset);
/* Empties it (the entries are not freed). */
void tidmap_clear(struct tidmap *m);

gpointer tidmap_lookup(const struct tidmap *m, pid_t key);
/* Adds entry, or puts it in place of the one with its key: returns that
 * one (NULL if none). */
gpointer tidmap_insert(struct tidmap *m, gpointer entry);
/* Takes out the entry with this key: returns it, or NULL. */
gpointer tidmap_remove(struct tidmap *m, pid_t key);

static inline guint tidmap_size(const struct tidmap *m)
{
	return m->len;
}

/* The slots (a walk's positions run up to it). */
static inline guint tidmap_slots(const struct tidmap *m)
{
	return m->slots ? 1u << (32 - m->shift) : 0;
}

/* The entries, one a call from *pos = 0 until NULL; any insert or remove
 * ends a walk. */
gpointer tidmap_next(const struct tidmap *m, guint *pos);

#endif
