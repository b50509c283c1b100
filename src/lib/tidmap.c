/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Per-task tables keyed by id: see tidmap.h. */
#include "lib/tidmap.h"

#define MIN_SHIFT 29			/* 8 slots */

static inline pid_t key_of(const struct tidmap *m, gconstpointer entry)
{
	return *(const pid_t *)((const char *)entry + m->key_offset);
}

static inline gpointer entry_at(const struct tidmap *m, guint32 handle)
{
	return slab_object(m->pool, handle);
}

static inline pid_t key_at(const struct tidmap *m, guint32 handle)
{
	return key_of(m, entry_at(m, handle));
}

/* Fibonacci hashing: the top bits of the product, well spread for the
 * consecutive ids threads get. */
static inline guint home(const struct tidmap *m, pid_t key)
{
	return ((guint32)key * 2654435769u) >> m->shift;
}

void tidmap_init(struct tidmap *m, const struct slab_pool *pool, gsize key_offset)
{
	*m = (struct tidmap){ .key_offset = key_offset, .pool = pool };
}

void tidmap_clear(struct tidmap *m)
{
	g_free(m->slots);
	tidmap_init(m, m->pool, m->key_offset);
}

gpointer tidmap_lookup(const struct tidmap *m, pid_t key)
{
	guint mask = tidmap_slots(m) - 1;

	if (!m->slots)
		return NULL;
	for (guint i = home(m, key);; i = (i + 1) & mask) {
		guint32 h = m->slots[i];

		if (!h)
			return NULL;
		if (key_at(m, h) == key)
			return entry_at(m, h);
	}
}

/* Puts an entry whose key is not there in its first free slot. */
static void place(struct tidmap *m, guint32 handle)
{
	guint mask = tidmap_slots(m) - 1;
	guint i = home(m, key_at(m, handle));

	while (m->slots[i])
		i = (i + 1) & mask;
	m->slots[i] = handle;
}

static void resize(struct tidmap *m, guint shift)
{
	guint32 *old = m->slots;
	guint n = tidmap_slots(m);

	m->slots = g_new0(guint32, (gsize)1 << (32 - shift));
	m->shift = shift;
	for (guint i = 0; i < n; i++)
		if (old[i])
			place(m, old[i]);
	g_free(old);
}

gpointer tidmap_insert(struct tidmap *m, gpointer entry)
{
	pid_t key = key_of(m, entry);
	guint32 handle = slab_handle(m->pool, entry);
	guint mask;

	if (!m->slots)
		resize(m, MIN_SHIFT);
	else if ((m->len + 1) * 4 > tidmap_slots(m) * 3)
		resize(m, m->shift - 1);
	mask = tidmap_slots(m) - 1;
	for (guint i = home(m, key);; i = (i + 1) & mask) {
		guint32 h = m->slots[i];

		if (!h || key_at(m, h) == key) {
			m->slots[i] = handle;
			m->len += !h;
			return h ? entry_at(m, h) : NULL;
		}
	}
}

gpointer tidmap_remove(struct tidmap *m, pid_t key)
{
	guint mask = tidmap_slots(m) - 1, i, j;
	gpointer found;

	if (!m->slots)
		return NULL;
	for (i = home(m, key);; i = (i + 1) & mask) {
		if (!m->slots[i])
			return NULL;
		if (key_at(m, m->slots[i]) == key)
			break;
	}
	found = entry_at(m, m->slots[i]);
	/* Backward shift: an entry further on whose home is not in (i, j]
	 * moves into the hole, so that no lookup stops short of it. */
	for (j = (i + 1) & mask; m->slots[j]; j = (j + 1) & mask) {
		guint h = home(m, key_at(m, m->slots[j]));

		if (((j - h) & mask) >= ((j - i) & mask)) {
			m->slots[i] = m->slots[j];
			i = j;
		}
	}
	m->slots[i] = 0;
	if (!--m->len)
		tidmap_clear(m);
	else if (m->shift < MIN_SHIFT && m->len * 8 < tidmap_slots(m))
		resize(m, m->shift + 1);
	return found;
}

gpointer tidmap_next(const struct tidmap *m, guint *pos)
{
	guint n = tidmap_slots(m);

	while (*pos < n) {
		guint32 h = m->slots[(*pos)++];

		if (h)
			return entry_at(m, h);
	}
	return NULL;
}
