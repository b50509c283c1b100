/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Fixed-size objects in slabs: see slab.h. */
#include "lib/slab.h"

#include <string.h>

#define ALL_FREE G_MAXUINT64

void slab_pool_init(struct slab_pool *p, gsize size)
{
	*p = (struct slab_pool){ .size = (size + 7) & ~(gsize)7 };
}

void slab_pool_clear(struct slab_pool *p)
{
	if (p->slabs) {
		for (guint i = 0; i < p->slabs->len; i++)
			g_free(p->slabs->pdata[i]);
		g_ptr_array_unref(p->slabs);
		g_ptr_array_unref(p->by_addr);
	}
	slab_pool_init(p, p->size);
}

static void partial_add(struct slab_pool *p, struct slab *s)
{
	s->prev = NULL;
	s->next = p->partial;
	if (p->partial)
		p->partial->prev = s;
	p->partial = s;
}

static void partial_del(struct slab_pool *p, struct slab *s)
{
	if (s->prev)
		s->prev->next = s->next;
	else
		p->partial = s->next;
	if (s->next)
		s->next->prev = s->prev;
	s->prev = s->next = NULL;
}

/* Where a slab at addr is, or goes, in by_addr. */
static guint addr_index(const struct slab_pool *p, gconstpointer addr)
{
	guint lo = 0, hi = p->by_addr ? p->by_addr->len : 0;

	while (lo < hi) {
		guint mid = lo + (hi - lo) / 2;

		if ((gconstpointer)p->by_addr->pdata[mid] < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The slab that holds obj: the last one that starts before it. */
static struct slab *slab_of(const struct slab_pool *p, gconstpointer obj)
{
	guint i = addr_index(p, obj);

	g_assert(i > 0);
	return p->by_addr->pdata[i - 1];
}

static struct slab *slab_new(struct slab_pool *p)
{
	struct slab *s = g_malloc(sizeof(*s) + SLAB_OBJS * p->size);

	if (!p->slabs) {
		p->slabs = g_ptr_array_new();
		p->by_addr = g_ptr_array_new();
	}
	s->free = ALL_FREE;
	while (p->first_hole < p->slabs->len && p->slabs->pdata[p->first_hole])
		p->first_hole++;
	s->number = p->first_hole;
	if (s->number == p->slabs->len)
		g_ptr_array_add(p->slabs, s);
	else
		p->slabs->pdata[s->number] = s;
	g_ptr_array_insert(p->by_addr, (gint)addr_index(p, s), s);
	partial_add(p, s);
	return s;
}

static void slab_give_back(struct slab_pool *p, struct slab *s)
{
	partial_del(p, s);
	g_ptr_array_remove_index(p->by_addr, addr_index(p, s));
	p->slabs->pdata[s->number] = NULL;
	p->first_hole = MIN(p->first_hole, s->number);
	/* The array ends with a slab in use. */
	while (p->slabs->len && !p->slabs->pdata[p->slabs->len - 1])
		g_ptr_array_set_size(p->slabs, p->slabs->len - 1);
	g_free(s);
	if (!p->len)
		slab_pool_clear(p);	/* its arrays too */
}

gpointer slab_alloc(struct slab_pool *p)
{
	struct slab *s = p->partial ? p->partial : slab_new(p);
	guint i = (guint)__builtin_ctzll(s->free);
	gpointer obj = s->objs + i * p->size;

	s->free &= ~((guint64)1 << i);
	if (!s->free)
		partial_del(p, s);
	p->len++;
	memset(obj, 0, p->size);
	return obj;
}

void slab_free(struct slab_pool *p, gpointer obj)
{
	struct slab *s = slab_of(p, obj);
	guint i = (guint)(((char *)obj - s->objs) / p->size);

	g_assert(!(s->free & ((guint64)1 << i)));
	if (!s->free)
		partial_add(p, s);
	s->free |= (guint64)1 << i;
	p->len--;
	if (s->free == ALL_FREE)
		slab_give_back(p, s);
}

guint32 slab_handle(const struct slab_pool *p, gconstpointer obj)
{
	const struct slab *s = slab_of(p, obj);

	return (guint32)(s->number * SLAB_OBJS + ((const char *)obj - s->objs) / p->size + 1);
}
