/* SPDX-License-Identifier: GPL-2.0-or-later */
/* libFuzzer target: the kernel's number parsers (kstrtoull, kstrtoll,
 * kstrtoint, kstrstrip) against a plain model of lib/kstrtox.c's grammar:
 * [+] (0x hex | 0 octal | decimal) [\n], nothing else; '-' for the signed
 * ones. Accepted means the grammar matched and the value fits; a matching
 * string whose digits overflow is ERANGE, whatever follows them; anything
 * else EINVAL. */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/kparse.h"

#define CHECK(cond) do { if (!(cond)) __builtin_trap(); } while (0)

/* The model: 0 and the magnitude, -ERANGE, or -EINVAL. */
static int model_ull(const char *s, unsigned long long *val)
{
	unsigned base = 10;
	unsigned __int128 v = 0;
	const char *digits;

	if (*s == '+')
		s++;
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X') &&
	    strchr("0123456789abcdefABCDEF", s[2]) && s[2])
		base = 16, s += 2;
	else if (s[0] == '0')
		base = 8;
	digits = s;
	for (;; s++) {
		int d;

		if (*s >= '0' && *s <= '9')
			d = *s - '0';
		else if (*s >= 'a' && *s <= 'f')
			d = *s - 'a' + 10;
		else if (*s >= 'A' && *s <= 'F')
			d = *s - 'A' + 10;
		else
			break;
		if ((unsigned)d >= base)
			break;
		v = v * base + (unsigned)d;
		if (v > ULLONG_MAX)
			v = (unsigned __int128)ULLONG_MAX + 1;	/* saturate: too big */
	}
	/* _kstrtoull(): overflow first, whatever follows the digits. */
	if (v > ULLONG_MAX)
		return -ERANGE;
	if (s == digits)
		return -EINVAL;
	if (*s == '\n')
		s++;
	if (*s)
		return -EINVAL;
	*val = (unsigned long long)v;
	return 0;
}

static void check_ull(const char *s)
{
	unsigned long long got = 12345, want = 0;
	int ret = kstrtoull(s, 0, &got), mret = model_ull(s, &want);

	CHECK(ret == mret);
	CHECK(ret != 0 || got == want);
	CHECK(ret == 0 || got == 12345);	/* untouched on error */
}

static void check_ll(const char *s)
{
	long long got = 12345;
	unsigned long long mag = 0;
	bool neg = s[0] == '-';
	int ret = kstrtoll(s, 0, &got);
	/* "-+5" is EINVAL: the sign is one character. */
	int mret = neg && s[1] == '+' ? -EINVAL : model_ull(s + neg, &mag);
	int iret;
	int ival = 777;

	if (mret == 0 && (neg ? mag > (unsigned long long)LLONG_MAX + 1 : mag > LLONG_MAX))
		mret = -ERANGE;
	CHECK(ret == mret);
	if (ret == 0)
		CHECK(got == (neg ? (long long)(0 - mag) : (long long)mag));
	else
		CHECK(got == 12345);
	iret = kstrtoint(s, 0, &ival);
	if (ret == 0 && (got < INT_MIN || got > INT_MAX))
		CHECK(iret == -ERANGE && ival == 777);
	else
		CHECK(iret == ret && (ret != 0 || ival == got));
}

static void check_strip(char *s)
{
	size_t len = strlen(s);
	char *copy = strdup(s);
	char *t = kstrstrip(s);
	size_t tlen = strlen(t);

	CHECK(t >= s && t + tlen <= s + len);
	CHECK(tlen == 0 || (!kisspace(t[0]) && !kisspace(t[tlen - 1])));
	/* Only white space was removed, on both sides. */
	CHECK(memcmp(copy + (t - s), t, tlen) == 0);
	for (const char *p = copy; p < copy + (t - s); p++)
		CHECK(kisspace(*p));
	for (const char *p = copy + (t - s) + tlen; p < copy + len; p++)
		CHECK(kisspace(*p));
	free(copy);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);

	memcpy(s, data, size);
	s[size] = '\0';	/* a NUL inside ends the string, as in a write */
	check_ull(s);
	check_ll(s);
	check_strip(s);
	free(s);
	return 0;
}
