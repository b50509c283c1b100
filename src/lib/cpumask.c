/* SPDX-License-Identifier: GPL-2.0-or-later */
/* CPU and node masks in the kernel's list syntax (lib/bitmap-str.c). */
#include "lib/cpumask.h"

#include "lib/kparse.h"

#include <errno.h>
#include <string.h>
#include <strings.h>

static bool end_of_str(char c)
{
	return c == '\0' || c == '\n';
}

static bool between_regions(char c)
{
	return kisspace(c) || c == ',';
}

static bool end_of_region(char c)
{
	return between_regions(c) || end_of_str(c);
}

struct region {
	unsigned start, end, off, group_len, nbits;
};

/* bitmap_getnum(): a decimal number, or 'N' for the last bit. */
static const char *getnum(const char *s, unsigned *num, unsigned lastbit, int *err)
{
	unsigned long long n = 0;
	const char *p = s;
	bool overflow = false;

	if (s[0] == 'N') {
		*num = lastbit;
		return s + 1;
	}
	for (; *p >= '0' && *p <= '9'; p++) {
		if (n > (~0ULL - (unsigned)(*p - '0')) / 10)
			overflow = true;
		n = n * 10 + (unsigned)(*p - '0');
	}
	if (p == s) {
		*err = -EINVAL;
		return NULL;
	}
	if (overflow || n != (unsigned)n) {
		*err = -EOVERFLOW;
		return NULL;
	}
	*num = (unsigned)n;
	return p;
}

/* bitmap_parse_region(): returns where the next region may start, NULL at
 * the end of the string; *err set on a syntax error. */
static const char *parse_region(const char *s, struct region *r, int *err)
{
	unsigned lastbit = r->nbits - 1;

	if (strncasecmp(s, "all", 3) == 0) {
		r->start = 0;
		r->end = lastbit;
		s += 3;
	} else {
		if (!(s = getnum(s, &r->start, lastbit, err)))
			return NULL;
		if (end_of_region(*s)) {
			r->end = r->start;
			goto no_pattern;
		}
		if (*s != '-') {
			*err = -EINVAL;
			return NULL;
		}
		if (!(s = getnum(s + 1, &r->end, lastbit, err)))
			return NULL;
	}
	if (end_of_region(*s))
		goto no_pattern;
	if (*s != ':') {
		*err = -EINVAL;
		return NULL;
	}
	if (!(s = getnum(s + 1, &r->off, lastbit, err)))
		return NULL;
	if (*s != '/') {
		*err = -EINVAL;
		return NULL;
	}
	return getnum(s + 1, &r->group_len, lastbit, err);
no_pattern:
	r->off = r->end + 1;
	r->group_len = r->end + 1;
	return end_of_str(*s) ? NULL : s;
}

int cpumask_parselist(const char *buf, struct cpumask *mask, unsigned nbits)
{
	struct region r = { .nbits = nbits };

	g_assert(nbits > 0 && nbits <= CPUMASK_BITS);
	memset(mask, 0, sizeof(*mask));
	while (buf) {
		int err = 0;

		/* bitmap_find_region(): a newline here is just white space. */
		while (between_regions(*buf))
			buf++;
		if (end_of_str(*buf))
			return 0;
		buf = parse_region(buf, &r, &err);
		if (err)
			return err;
		if (r.start > r.end || r.group_len == 0 || r.off > r.group_len)
			return -EINVAL;
		if (r.end >= r.nbits)
			return -ERANGE;
		for (unsigned start = r.start; start <= r.end; start += r.group_len) {
			unsigned len = MIN(r.end - start + 1, r.off);

			for (unsigned b = start; b < start + len; b++)
				mask->bits[b / 64] |= 1ULL << (b % 64);
		}
	}
	return 0;
}

bool cpumask_test(const struct cpumask *m, unsigned bit)
{
	return bit < CPUMASK_BITS && (m->bits[bit / 64] >> (bit % 64)) & 1;
}

/* The first bit from bit on that is set (or clear, with want_clear), or
 * CPUMASK_BITS: a word at a time, as reading cpuset files is frequent. */
static unsigned find_next(const struct cpumask *m, unsigned bit, bool want_clear)
{
	while (bit < CPUMASK_BITS) {
		uint64_t word = m->bits[bit / 64] ^ (want_clear ? ~0ULL : 0);

		word &= ~0ULL << (bit % 64);
		if (word)
			return bit / 64 * 64 + (unsigned)__builtin_ctzll(word);
		bit = (bit / 64 + 1) * 64;
	}
	return CPUMASK_BITS;
}

void cpumask_print_list(const struct cpumask *mask, GString *out)
{
	const char *sep = "";

	for (unsigned b = find_next(mask, 0, false), e; b < CPUMASK_BITS;
	     b = find_next(mask, e + 1, false)) {
		e = find_next(mask, b, true) - 1;	/* the end of this run */
		g_string_append_printf(out, "%s%u", sep, b);
		if (e > b)
			g_string_append_printf(out, "-%u", e);
		sep = ",";
	}
}

bool cpumask_empty(const struct cpumask *m)
{
	for (unsigned i = 0; i < G_N_ELEMENTS(m->bits); i++)
		if (m->bits[i])
			return false;
	return true;
}

bool cpumask_equal(const struct cpumask *a, const struct cpumask *b)
{
	return memcmp(a, b, sizeof(*a)) == 0;
}

bool cpumask_subset(const struct cpumask *sub, const struct cpumask *super)
{
	for (unsigned i = 0; i < G_N_ELEMENTS(sub->bits); i++)
		if (sub->bits[i] & ~super->bits[i])
			return false;
	return true;
}

void cpumask_and(struct cpumask *dst, const struct cpumask *a, const struct cpumask *b)
{
	for (unsigned i = 0; i < G_N_ELEMENTS(dst->bits); i++)
		dst->bits[i] = a->bits[i] & b->bits[i];
}

void cpumask_or(struct cpumask *dst, const struct cpumask *a, const struct cpumask *b)
{
	for (unsigned i = 0; i < G_N_ELEMENTS(dst->bits); i++)
		dst->bits[i] = a->bits[i] | b->bits[i];
}

void cpumask_andnot(struct cpumask *dst, const struct cpumask *a, const struct cpumask *b)
{
	for (unsigned i = 0; i < G_N_ELEMENTS(dst->bits); i++)
		dst->bits[i] = a->bits[i] & ~b->bits[i];
}

unsigned cpumask_last_plus_one(const struct cpumask *m)
{
	for (unsigned i = G_N_ELEMENTS(m->bits); i > 0; i--)
		if (m->bits[i - 1])
			return (i - 1) * 64 + 64 - (unsigned)__builtin_clzll(m->bits[i - 1]);
	return 0;
}
