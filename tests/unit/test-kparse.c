/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests of the kernel-exact parsers: kstrto*(), kstrstrip() and the
 * CPU list syntax (cpumask_parselist/cpumask_print_list).
 *
 * The expected values are the kernel's (lib/kstrtox.c, lib/string.c,
 * lib/bitmap-str.c), as measured on this machine's cgroupfs and recorded in
 * docs/kernel-oracle.md; the few cases not in the oracle were measured the
 * same way (a throw-away group under /sys/fs/cgroup/cpuset) and say so. */
#include <errno.h>
#include <limits.h>
#include <string.h>

#include <glib.h>

#include "lib/cpumask.h"
#include "lib/kparse.h"
#include "test-env.h"

/* A case that does not give what the kernel gives fails the test with
 * its input (escaped, on one line) and the test goes on, so that one run
 * lists every difference. */
static char *esc(const char *in)
{
	return g_strescape(in, NULL);
}

/* ---- kstrtoull ---------------------------------------------------------- */

struct ull_case {
	const char *in;
	unsigned base;
	int ret;
	unsigned long long val;
};

static const struct ull_case ull_cases[] = {
	{ "0", 0, 0, 0 },
	{ "1", 0, 0, 1 },
	{ "100", 0, 0, 100 },
	{ "0x100", 0, 0, 256 },
	{ "0X100", 0, 0, 256 },
	{ "0xff", 0, 0, 255 },
	{ "0xFF", 0, 0, 255 },
	{ "010", 0, 0, 8 },
	{ "0777", 0, 0, 511 },
	{ "00", 0, 0, 0 },
	{ "08", 0, -EINVAL, 0 },
	{ "09", 0, -EINVAL, 0 },
	{ "+5", 0, 0, 5 },
	{ "+0x10", 0, 0, 16 },
	{ "5\n", 0, 0, 5 },
	{ "0x1f\n", 0, 0, 31 },
	{ "5\n\n", 0, -EINVAL, 0 },
	{ "\n", 0, -EINVAL, 0 },
	{ "", 0, -EINVAL, 0 },
	{ " 5", 0, -EINVAL, 0 },
	{ "5 ", 0, -EINVAL, 0 },
	{ "\t5", 0, -EINVAL, 0 },
	{ "5\t", 0, -EINVAL, 0 },
	{ "5\r\n", 0, -EINVAL, 0 },
	{ "-1", 0, -EINVAL, 0 },
	{ "-0", 0, -EINVAL, 0 },
	{ "++5", 0, -EINVAL, 0 },
	{ "+", 0, -EINVAL, 0 },
	{ "abc", 0, -EINVAL, 0 },
	{ "100abc", 0, -EINVAL, 0 },
	{ "0x", 0, -EINVAL, 0 },
	{ "0xg", 0, -EINVAL, 0 },
	{ "true", 0, -EINVAL, 0 },
	{ "18446744073709551615", 0, 0, ULLONG_MAX },
	{ "0xffffffffffffffff", 0, 0, ULLONG_MAX },
	{ "01777777777777777777777", 0, 0, ULLONG_MAX },
	{ "18446744073709551616", 0, -ERANGE, 0 },
	{ "0x10000000000000000", 0, -ERANGE, 0 },
	{ "02000000000000000000000", 0, -ERANGE, 0 },
	{ "99999999999999999999999999", 0, -ERANGE, 0 },
	/* The kernel reports the overflow before looking at what follows. */
	{ "18446744073709551616abc", 0, -ERANGE, 0 },
	/* Fixed bases. */
	{ "010", 10, 0, 10 },
	{ "ff", 16, 0, 255 },
	{ "0x1f", 16, 0, 31 },
	{ "0x", 16, -EINVAL, 0 },
	{ "19", 8, -EINVAL, 0 },
};

static void test_kstrtoull(void)
{
	for (unsigned i = 0; i < G_N_ELEMENTS(ull_cases); i++) {
		const struct ull_case *c = &ull_cases[i];
		unsigned long long v = 12345;
		int ret = kstrtoull(c->in, c->base, &v);

		char *e = esc(c->in);

		EXPECT_INT(ret, c->ret, "kstrtoull(\"%s\", %u) returns", e, c->base);
		if (ret == 0 && v != c->val)
			FAILF("kstrtoull(\"%s\", %u) = %llu, want %llu", e, c->base,
					   v, c->val);
		if (ret < 0 && v != 12345)
			FAILF("kstrtoull(\"%s\") failed but wrote %llu", e, v);
		g_free(e);
	}
}

/* ---- kstrtoll ----------------------------------------------------------- */

struct ll_case {
	const char *in;
	int ret;
	long long val;
};

static const struct ll_case ll_cases[] = {
	{ "0", 0, 0 },
	{ "-0", 0, 0 },
	{ "-1", 0, -1 },
	{ "-1\n", 0, -1 },
	{ "+1", 0, 1 },
	{ "-0x10", 0, -16 },
	{ "-010", 0, -8 },
	{ "-08", -EINVAL, 0 },
	{ "9223372036854775807", 0, LLONG_MAX },
	{ "-9223372036854775807", 0, -LLONG_MAX },
	{ "-9223372036854775808", 0, LLONG_MIN },
	{ "-0x8000000000000000", 0, LLONG_MIN },
	{ "9223372036854775808", -ERANGE, 0 },
	{ "-9223372036854775809", -ERANGE, 0 },
	{ "18446744073709551615", -ERANGE, 0 },
	{ "-18446744073709551615", -ERANGE, 0 },
	{ "18446744073709551616", -ERANGE, 0 },
	{ "-18446744073709551616", -ERANGE, 0 },
	{ "-", -EINVAL, 0 },
	{ "--1", -EINVAL, 0 },
	{ "-+1", -EINVAL, 0 },
	{ "+-1", -EINVAL, 0 },
	{ " -1", -EINVAL, 0 },
	{ "- 1", -EINVAL, 0 },
	{ "-1 ", -EINVAL, 0 },
	{ "-1\n\n", -EINVAL, 0 },
	{ "abc", -EINVAL, 0 },
	{ "", -EINVAL, 0 },
};

static void test_kstrtoll(void)
{
	for (unsigned i = 0; i < G_N_ELEMENTS(ll_cases); i++) {
		const struct ll_case *c = &ll_cases[i];
		long long v = 12345;
		int ret = kstrtoll(c->in, 0, &v);

		char *e = esc(c->in);

		EXPECT_INT(ret, c->ret, "kstrtoll(\"%s\") returns", e);
		if (ret == 0)
			EXPECT_INT(v, c->val, "kstrtoll(\"%s\") value", e);
		else
			EXPECT_INT(v, 12345, "kstrtoll(\"%s\") failed but wrote", e);
		g_free(e);
	}
}

/* ---- kstrtoint ---------------------------------------------------------- */

static const struct ll_case int_cases[] = {
	{ "0", 0, 0 },
	{ "2147483647", 0, INT_MAX },
	{ "0x7fffffff", 0, INT_MAX },
	{ "-2147483648", 0, INT_MIN },
	{ "+7", 0, 7 },
	{ "0x1be3", 0, 0x1be3 },
	{ "015743", 0, 015743 },
	{ "07139", -EINVAL, 0 },
	{ "2147483648", -ERANGE, 0 },
	{ "0x80000000", -ERANGE, 0 },
	{ "-2147483649", -ERANGE, 0 },
	{ "4294967295", -ERANGE, 0 },
	{ "4294967296", -ERANGE, 0 },
	{ "18446744073709551616", -ERANGE, 0 },
	{ "1 2", -EINVAL, 0 },
	{ "1,2", -EINVAL, 0 },
	{ "1\n2", -EINVAL, 0 },
	{ "abc", -EINVAL, 0 },
};

static void test_kstrtoint(void)
{
	for (unsigned i = 0; i < G_N_ELEMENTS(int_cases); i++) {
		const struct ll_case *c = &int_cases[i];
		int v = 12345;
		int ret = kstrtoint(c->in, 0, &v);

		char *e = esc(c->in);

		EXPECT_INT(ret, c->ret, "kstrtoint(\"%s\") returns", e);
		if (ret == 0)
			EXPECT_INT(v, c->val, "kstrtoint(\"%s\") value", e);
		else
			EXPECT_INT(v, 12345, "kstrtoint(\"%s\") failed but wrote", e);
		g_free(e);
	}
}

/* ---- kstrstrip ---------------------------------------------------------- */

static void check_strip(const char *in, const char *want)
{
	char *buf = g_strdup(in);
	char *s = kstrstrip(buf);

	g_assert_true(s >= buf && s <= buf + strlen(in));	/* in place */
	if (strcmp(s, want) != 0) {
		char *e = esc(in), *g = esc(s);

		FAILF("kstrstrip(\"%s\") = \"%s\", want \"%s\"", e, g, want);
		g_free(e);
		g_free(g);
	}
	g_free(buf);
}

static void test_kstrstrip(void)
{
	check_strip("", "");
	check_strip("abc", "abc");
	check_strip("  abc", "abc");
	check_strip("abc  ", "abc");
	check_strip(" \t\n abc \n\t ", "abc");
	check_strip("a b\tc", "a b\tc");
	check_strip("\v\f\r5\r\f\v", "5");
	check_strip("   ", "");
	check_strip("\n", "");
	check_strip("7139\n\n", "7139");
}

/* The kernel's isspace() (lib/ctype.c) counts Latin-1 NBSP (0xa0) as white
 * space, so strstrip() removes it. Measured on this machine:
 * write("\xa0" "PID") to a cpuset group's tasks moves PID, and
 * write("0\xa0" "1") to cpuset.cpus gives 0-1. */
static void test_kstrstrip_latin1_nbsp(void)
{
	check_strip("\xa0" "5\xa0", "5");
	check_strip(" \xa0\t5\n\xa0", "5");
}

/* ---- cpumask ------------------------------------------------------------ */

struct list_case {
	const char *in;
	unsigned nbits;
	int ret;
	const char *out;	/* cpumask_print_list of the result */
};

/* The oracle's cpuset.cpus table (2 CPUs: nbits 2), then more. */
static const struct list_case list_cases[] = {
	{ "0", 2, 0, "0" },
	{ "1", 2, 0, "1" },
	{ "1-1", 2, 0, "1" },
	{ "00", 2, 0, "0" },
	{ "01", 2, 0, "1" },
	{ "0-1", 2, 0, "0-1" },
	{ "0,1", 2, 0, "0-1" },
	{ "1,0", 2, 0, "0-1" },
	{ "0-1\n", 2, 0, "0-1" },
	{ "0,,1", 2, 0, "0-1" },
	{ "0-1,1", 2, 0, "0-1" },
	{ "0 1", 2, 0, "0-1" },
	{ "0\t1", 2, 0, "0-1" },
	{ "0-1:2/2", 2, 0, "0-1" },
	{ " 0 ", 2, 0, "0" },
	{ " 0", 2, 0, "0" },
	{ "0 ", 2, 0, "0" },
	{ ",0", 2, 0, "0" },
	{ "0,", 2, 0, "0" },
	{ "0-1:1/2", 2, 0, "0" },
	{ "", 2, 0, "" },
	{ "\n", 2, 0, "" },
	{ " ", 2, 0, "" },
	{ "1-0", 2, -EINVAL, NULL },
	{ "0-", 2, -EINVAL, NULL },
	{ "-1", 2, -EINVAL, NULL },
	{ "abc", 2, -EINVAL, NULL },
	{ "0x1", 2, -EINVAL, NULL },
	{ "0-1:1", 2, -EINVAL, NULL },
	{ "2", 2, -ERANGE, NULL },
	{ "0-2", 2, -ERANGE, NULL },
	{ "0-3", 2, -ERANGE, NULL },
	{ "4096", 2, -ERANGE, NULL },
	{ "99999999999", 2, -EOVERFLOW, NULL },
	{ "N", 2, 0, "1" },
	{ "N", 4, 0, "3" },
	{ "0-N", 4, 0, "0-3" },
	{ "all", 2, 0, "0-1" },
	{ "all", 4, 0, "0-3" },
	{ "ALL", 4, 0, "0-3" },
	{ "all:1/2", 4, 0, "0,2" },
	{ "0-3:1/2", 4, 0, "0,2" },
	{ "0-7:2/4", 8, 0, "0-1,4-5" },
	{ "0-1:0/2", 2, 0, "" },
	{ "0-1:3/2", 2, -EINVAL, NULL },
	{ "0-1:1/0", 2, -EINVAL, NULL },
	{ "0-1:1/", 2, -EINVAL, NULL },
	{ "0-1/2", 2, -EINVAL, NULL },
	{ "3-1", 4, -EINVAL, NULL },
	/* start > end is checked before the range. */
	{ "5-2", 4, -EINVAL, NULL },
	{ "3,2,0", 4, 0, "0,2-3" },
	{ "0,2-3", 4, 0, "0,2-3" },
	{ "0\n1", 2, 0, "0" },		/* measured: '\n' ends the list */
	{ "63-64,1023", 1024, 0, "63-64,1023" },
	{ "1024", 1024, -ERANGE, NULL },
	/* Measured: the kernel's end + 1 wraps to 0 here, a zero group_len. */
	{ "4294967295", 1024, -EINVAL, NULL },
	{ "0-4294967295", 1024, -EINVAL, NULL },
	{ "4294967294", 1024, -ERANGE, NULL },
	{ "4294967296", 1024, -EOVERFLOW, NULL },
};

static void check_list(const struct list_case *c)
{
	struct cpumask m;
	int ret;

	char *e = esc(c->in);

	memset(&m, 0xa5, sizeof(m));
	ret = cpumask_parselist(c->in, &m, c->nbits);
	EXPECT_INT(ret, c->ret, "cpumask_parselist(\"%s\", %u) returns", e, c->nbits);
	if (ret == 0 && c->ret == 0) {
		GString *out = g_string_new(NULL);

		cpumask_print_list(&m, out);
		if (strcmp(out->str, c->out) != 0)
			FAILF("cpumask_parselist(\"%s\", %u) gives \"%s\", want \"%s\"",
					   e, c->nbits, out->str, c->out);
		/* Nothing at or above nbits, even though m started dirty. */
		EXPECT_INT(cpumask_last_plus_one(&m) <= c->nbits, 1,
			   "cpumask_parselist(\"%s\") set a bit >= nbits", e);
		g_string_free(out, TRUE);
	}
	g_free(e);
}

static void test_cpumask_parselist(void)
{
	for (unsigned i = 0; i < G_N_ELEMENTS(list_cases); i++)
		check_list(&list_cases[i]);
}

/* bitmap_find_region() skips any white space (the kernel's isspace: '\n'
 * and Latin-1 NBSP included) and commas before a region; only a '\n' right
 * after a region ends the list. Measured on this machine with cpuset.cpus
 * of a child of a 0-1 cpuset: "0,\n1" -> 0-1, "0 \n1" -> 0-1,
 * "0\xa0" "1" -> 0-1 (and "0\n1" -> 0). */
static const struct list_case list_ws_cases[] = {
	{ "0,\n1", 2, 0, "0-1" },
	{ "0 \n1", 2, 0, "0-1" },
	{ "0\xa0" "1", 2, 0, "0-1" },
};

static void test_cpumask_parselist_whitespace(void)
{
	for (unsigned i = 0; i < G_N_ELEMENTS(list_ws_cases); i++)
		check_list(&list_ws_cases[i]);
}

static void set_bits(struct cpumask *m, const unsigned *bits, unsigned n)
{
	memset(m, 0, sizeof(*m));
	for (unsigned i = 0; i < n; i++)
		m->bits[bits[i] / 64] |= 1ULL << (bits[i] % 64);
}

static void check_print(const unsigned *bits, unsigned n, const char *want)
{
	struct cpumask m;
	GString *out = g_string_new("x");	/* appends, keeps what was there */

	set_bits(&m, bits, n);
	cpumask_print_list(&m, out);
	g_assert_cmpstr(out->str + 1, ==, want);
	g_assert_cmpint(out->str[0], ==, 'x');
	g_string_free(out, TRUE);
}

static void test_cpumask_print_list(void)
{
	static const unsigned b01[] = { 0, 1 }, b023[] = { 0, 2, 3 }, b0[] = { 0 },
			      b135[] = { 1, 3, 5 }, b6364[] = { 63, 64 }, b1023[] = { 1023 },
			      b_mix[] = { 0, 1, 2, 5, 7, 8, 9, 100 };
	unsigned all[CPUMASK_BITS];

	check_print(b01, 2, "0-1");
	check_print(b023, 3, "0,2-3");
	check_print(NULL, 0, "");
	check_print(b0, 1, "0");
	check_print(b135, 3, "1,3,5");
	check_print(b6364, 2, "63-64");
	check_print(b1023, 1, "1023");
	check_print(b_mix, G_N_ELEMENTS(b_mix), "0-2,5,7-9,100");
	for (unsigned i = 0; i < CPUMASK_BITS; i++)
		all[i] = i;
	check_print(all, CPUMASK_BITS, "0-1023");
}

/* Parsing what print_list wrote gives the same mask back. */
static void test_cpumask_round_trip(void)
{
	for (unsigned seed = 1; seed <= 200; seed++) {
		GRand *rand = g_rand_new_with_seed(seed);
		struct cpumask m, back;
		GString *out = g_string_new(NULL);

		memset(&m, 0, sizeof(m));
		for (unsigned b = 0; b < 256; b++)
			if (g_rand_int_range(rand, 0, 3) == 0)
				m.bits[b / 64] |= 1ULL << (b % 64);
		cpumask_print_list(&m, out);
		g_assert_cmpint(cpumask_parselist(out->str, &back, 256), ==, 0);
		g_assert_true(cpumask_equal(&m, &back));
		g_string_free(out, TRUE);
		g_rand_free(rand);
	}
}

static void test_cpumask_ops(void)
{
	struct cpumask a, b, c;

	g_assert_cmpint(cpumask_parselist("0-3", &a, 4), ==, 0);
	g_assert_cmpint(cpumask_parselist("1,3", &b, 4), ==, 0);
	g_assert_true(cpumask_subset(&b, &a));
	g_assert_false(cpumask_subset(&a, &b));
	cpumask_and(&c, &a, &b);
	g_assert_true(cpumask_equal(&c, &b));
	g_assert_true(cpumask_test(&b, 3));
	g_assert_false(cpumask_test(&b, 2));
	g_assert_cmpuint(cpumask_last_plus_one(&b), ==, 4);
	g_assert_false(cpumask_empty(&b));
	g_assert_cmpint(cpumask_parselist("", &c, 4), ==, 0);
	g_assert_true(cpumask_empty(&c));
	g_assert_cmpuint(cpumask_last_plus_one(&c), ==, 0);
	g_assert_true(cpumask_subset(&c, &b));
}

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	/* A failed check fails its case; the next cases still run. */
	g_test_set_nonfatal_assertions();
	g_test_add_func("/kparse/kstrtoull", test_kstrtoull);
	g_test_add_func("/kparse/kstrtoll", test_kstrtoll);
	g_test_add_func("/kparse/kstrtoint", test_kstrtoint);
	g_test_add_func("/kparse/kstrstrip", test_kstrstrip);
	g_test_add_func("/kparse/kstrstrip-latin1-nbsp", test_kstrstrip_latin1_nbsp);
	g_test_add_func("/cpumask/parselist", test_cpumask_parselist);
	g_test_add_func("/cpumask/parselist-whitespace", test_cpumask_parselist_whitespace);
	g_test_add_func("/cpumask/print-list", test_cpumask_print_list);
	g_test_add_func("/cpumask/round-trip", test_cpumask_round_trip);
	g_test_add_func("/cpumask/ops", test_cpumask_ops);
	return g_test_run();
}
