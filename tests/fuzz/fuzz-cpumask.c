/* SPDX-License-Identifier: GPL-2.0-or-later */
/* libFuzzer target: cpumask_parselist() (the kernel's bitmap_parselist)
 * on arbitrary bytes. Properties: it accepts or answers EINVAL, ERANGE or
 * EOVERFLOW; an accepted list sets no bit at or past nbits, and its printed
 * form parses back to the same mask and prints the same (a canonical
 * round trip); it stays valid with more bits, where only "N" and "all"
 * change meaning. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/cpumask.h"

#define CHECK(cond) do { if (!(cond)) __builtin_trap(); } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cpumask mask, again;
	unsigned nbits;
	char *s;
	int ret;

	if (size < 1)
		return 0;
	nbits = 1 + (data[0] | (size > 1 ? (data[1] & 3) << 8 : 0)) % CPUMASK_BITS;
	data += size > 1 ? 2 : 1;
	size -= size > 1 ? 2 : 1;
	s = malloc(size + 1);
	memcpy(s, data, size);
	s[size] = '\0';
	ret = cpumask_parselist(s, &mask, nbits);
	CHECK(ret == 0 || ret == -EINVAL || ret == -ERANGE || ret == -EOVERFLOW);
	if (ret == 0) {
		GString *out = g_string_new(NULL), *out2 = g_string_new(NULL);

		CHECK(cpumask_last_plus_one(&mask) <= nbits);
		cpumask_print_list(&mask, out);
		CHECK(cpumask_parselist(out->str, &again, nbits) == 0);
		CHECK(cpumask_equal(&mask, &again));
		cpumask_print_list(&again, out2);
		CHECK(strcmp(out->str, out2->str) == 0);
		/* Any list valid for nbits is valid for more, and the same
		 * unless it names the last bit ("N", "all"). */
		CHECK(cpumask_parselist(s, &again, CPUMASK_BITS) == 0);
		CHECK(strpbrk(s, "NaA") || cpumask_equal(&mask, &again));
		g_string_free(out, TRUE);
		g_string_free(out2, TRUE);
	}
	free(s);
	return 0;
}
