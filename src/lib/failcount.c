/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Failures said once, then counted (failcount.h). */
#include "lib/failcount.h"

#include <stdarg.h>
#include <stdbool.h>

static bool power_of_ten(guint n)
{
	while (n % 10 == 0)
		n /= 10;
	return n == 1;
}

void failcount_fail(struct failcount *fc, const char *fmt, ...)
{
	guint n = (guint)g_atomic_int_add(&fc->count, 1) + 1;
	va_list ap;
	char *what;

	if (!power_of_ten(n))
		return;
	va_start(ap, fmt);
	what = g_strdup_vprintf(fmt, ap);
	va_end(ap);
	if (n == 1)
		g_warning("%s (said once; repeats are counted)", what);
	else
		g_warning("%s (%u times in a row)", what, n);
	g_free(what);
}

void failcount_ok(struct failcount *fc, const char *what)
{
	guint n = (guint)g_atomic_int_exchange(&fc->count, 0);

	if (n)
		g_message("%s works again, after %u failure%s", what, n, n == 1 ? "" : "s");
}
