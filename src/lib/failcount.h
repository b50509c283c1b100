/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef CGFUSED_FAILCOUNT_H
#define CGFUSED_FAILCOUNT_H

#include <glib.h>

/* A failure that may repeat on every pass is said once, then counted: a
 * warning for the first, one more at the 10th, 100th, 1000th ... in a
 * row, saying how many, and a message at the first success after them.
 * Zeroed memory is a fresh count; safe from any thread. */
struct failcount {
	guint count;	/* failures in a row */
};

/* Another failure: fmt says what failed (a warning, when one is due). */
void failcount_fail(struct failcount *fc, const char *fmt, ...) G_GNUC_PRINTF(2, 3);

/* A success: if failures came before it, says "WHAT works again". */
void failcount_ok(struct failcount *fc, const char *what);

#endif
