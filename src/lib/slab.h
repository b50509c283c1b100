/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Fixed-size objects in slabs of SLAB_OBJS, for the per-task structs:
 * no malloc header and no rounding up to a malloc chunk an object, and a
 * 32-bit handle for each (what the tidmaps keep in their slots, half a
 * pointer). A slab is given back as soon as its last object is freed, so
 * that the memory of exited tasks goes back to malloc. Not locked. */
#ifndef CGFUSED_SLAB_H
#define CGFUSED_SLAB_H

#include <glib.h>

#define SLAB_SHIFT 6
#define SLAB_OBJS (1u << SLAB_SHIFT)	/* one bit each in a slab's free mask */

struct slab {
	guint64 free;			/* bit i: object i is free */
	struct slab *prev, *next;	/* in the pool's partial list */
	guint number;			/* its place in pool->slabs */
	char objs[] __attribute__((aligned(8)));
};

struct slab_pool {
	gsize size;			/* an object's bytes, rounded up to 8 */
	/* NULL while the pool is empty: */
	GPtrArray *slabs;		/* struct slab *, by number; NULL: given back */
	GPtrArray *by_addr;		/* the same slabs, by address (slab_handle) */
	struct slab *partial;		/* the slabs with a free object */
	guint first_hole;		/* no NULL in slabs before it */
	guint len;			/* objects in use */
};

void slab_pool_init(struct slab_pool *p, gsize size);
/* Gives back every slab (the objects must be freed already, or be
 * dropped with them). */
void slab_pool_clear(struct slab_pool *p);

/* A new zeroed object. */
gpointer slab_alloc(struct slab_pool *p);
void slab_free(struct slab_pool *p, gpointer obj);

/* An object's handle: never 0 (a tidmap's empty slot). */
guint32 slab_handle(const struct slab_pool *p, gconstpointer obj);

/* The object of a handle slab_handle() gave. */
static inline gpointer slab_object(const struct slab_pool *p, guint32 handle)
{
	const struct slab *s = p->slabs->pdata[(handle - 1) >> SLAB_SHIFT];

	return (gpointer)(s->objs + ((handle - 1) & (SLAB_OBJS - 1)) * p->size);
}

#endif
