/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Kernel-exact number parsing (lib/kstrtox.c). */
#include "lib/kparse.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <string.h>

bool kisspace(char c)
{
	return c == ' ' || (c >= '\t' && c <= '\r') || (unsigned char)c == 0xa0;
}

char *kstrstrip(char *s)
{
	size_t len;

	while (kisspace(*s))
		s++;
	len = strlen(s);
	while (len && kisspace(s[len - 1]))
		s[--len] = '\0';
	return s;
}

static const char *parse_base(const char *s, unsigned *base)
{
	if (*base == 0) {
		if (s[0] == '0') {
			if ((s[1] | 0x20) == 'x' && isxdigit((unsigned char)s[2]))
				*base = 16;
			else
				*base = 8;
		} else {
			*base = 10;
		}
	}
	if (*base == 16 && s[0] == '0' && (s[1] | 0x20) == 'x')
		s += 2;
	return s;
}

/* _kstrtoull: digits, then at most one '\n', then the end. */
static int parse_ull(const char *s, unsigned base, unsigned long long *res)
{
	unsigned long long val = 0;
	const char *start;

	s = parse_base(s, &base);
	start = s;
	for (;; s++) {
		unsigned c = (unsigned char)*s, digit;

		if (c >= '0' && c <= '9')
			digit = c - '0';
		else if ((c | 0x20) >= 'a' && (c | 0x20) <= 'f')
			digit = (c | 0x20) - 'a' + 10;
		else
			break;
		if (digit >= base)
			break;
		if (val > (ULLONG_MAX - digit) / base)
			return -ERANGE;
		val = val * base + digit;
	}
	if (s == start)
		return -EINVAL;
	if (*s == '\n')
		s++;
	if (*s)
		return -EINVAL;
	*res = val;
	return 0;
}

int kstrtoull(const char *s, unsigned base, unsigned long long *res)
{
	if (s[0] == '+')
		s++;
	return parse_ull(s, base, res);
}

int kstrtoll(const char *s, unsigned base, long long *res)
{
	unsigned long long tmp;
	int ret;

	if (s[0] == '-') {
		ret = parse_ull(s + 1, base, &tmp);
		if (ret < 0)
			return ret;
		if ((long long)-tmp > 0)
			return -ERANGE;
		*res = (long long)-tmp;
	} else {
		ret = kstrtoull(s, base, &tmp);
		if (ret < 0)
			return ret;
		if ((long long)tmp < 0)
			return -ERANGE;
		*res = (long long)tmp;
	}
	return 0;
}

int kstrtoint(const char *s, unsigned base, int *res)
{
	long long tmp;
	int ret = kstrtoll(s, base, &tmp);

	if (ret < 0)
		return ret;
	if (tmp != (int)tmp)
		return -ERANGE;
	*res = (int)tmp;
	return 0;
}
