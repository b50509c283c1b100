/* SPDX-License-Identifier: GPL-2.0-or-later */
/* css_set lookup, reference counting and linking to cgroups. */
#include "core/css_set.h"
#include "core/internal.h"

/* splitmix64's finaliser: every input bit reaches every output bit. */
static uint64_t mix64(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebULL;
	x ^= x >> 31;
	return x;
}

guint css_set_hash_subsys(struct css *const *subsys, unsigned nr)
{
	uint64_t h = 0;

	for (unsigned i = 0; i < nr; i++)
		h = mix64(h ^ (uint64_t)(uintptr_t)subsys[i]);
	return (guint)(h ^ (h >> 32));
}

static guint css_set_hash(gconstpointer key)
{
	return ((const struct css_set *)key)->hash;
}

static gboolean css_set_equal(gconstpointer a, gconstpointer b)
{
	const struct css_set *x = a, *y = b;

	return memcmp(x->subsys, y->subsys, sizeof(x->subsys)) == 0;
}

GHashTable *css_set_table_new(void)
{
	return g_hash_table_new(css_set_hash, css_set_equal);
}

struct cgroup *css_set_cgroup(const struct css_set *cset, const struct cg_root *root)
{
	return cset->subsys[__builtin_ctz(root->subsys_mask)]->cgroup;
}

void get_css_set(struct css_set *cset)
{
	cset->refcount++;
}

struct css_set *find_css_set(struct cg_core *core, struct css *const *subsys)
{
	struct css_set key = { 0 }, *cset;

	memcpy(key.subsys, subsys, sizeof(key.subsys));
	key.hash = css_set_hash_subsys(key.subsys, CG_MAX_SUBSYS);
	cset = g_hash_table_lookup(core->css_sets, &key);
	if (cset) {
		get_css_set(cset);
		return cset;
	}

	cset = g_new0(struct css_set, 1);
	cset->refcount = 1;
	cset->hash = key.hash;
	memcpy(cset->subsys, key.subsys, sizeof(cset->subsys));
	INIT_LIST_HEAD(&cset->tasks);
	for (unsigned i = 0; i < CG_MAX_SUBSYS; i++)
		if (cset->subsys[i])
			css_get(cset->subsys[i]);
	for (unsigned r = 0; r < core->roots->len; r++) {
		struct cgroup *cgrp = css_set_cgroup(cset, g_ptr_array_index(core->roots, r));

		g_queue_push_tail(&cgrp->csets, cset);
		cset->cgrp_link[r] = cgrp->csets.tail;
		cgroup_update_populated(cgrp, true);
	}
	g_hash_table_add(core->css_sets, cset);
	return cset;
}

void put_css_set(struct cg_core *core, struct css_set *cset)
{
	g_assert(cset->refcount > 0);
	if (--cset->refcount)
		return;
	g_assert(list_empty(&cset->tasks));
	g_hash_table_remove(core->css_sets, cset);
	for (unsigned r = 0; r < core->roots->len; r++) {
		struct cgroup *cgrp = css_set_cgroup(cset, g_ptr_array_index(core->roots, r));

		g_queue_delete_link(&cgrp->csets, cset->cgrp_link[r]);
		cgroup_update_populated(cgrp, false);
	}
	for (unsigned i = 0; i < CG_MAX_SUBSYS; i++)
		if (cset->subsys[i])
			css_put(cset->subsys[i]);
	g_free(cset);
}

struct css_set *css_set_for_move(struct cg_core *core, struct css_set *cset,
				 struct cgroup *cgrp)
{
	struct css *subsys[CG_MAX_SUBSYS];

	memcpy(subsys, cset->subsys, sizeof(subsys));
	for (unsigned i = 0; i < CG_MAX_SUBSYS; i++)
		if (cgrp->root->subsys_mask & (1u << i))
			subsys[i] = cgrp->subsys[i];
	return find_css_set(core, subsys);
}
