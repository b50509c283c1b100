/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Parsers that behave exactly like the kernel's (lib/kstrtox.c, strstrip,
 * lib/bitmap-str.c), so that every control file accepts and refuses what the
 * kernel's does, with the same errno. */
#ifndef CGFUSED_KPARSE_H
#define CGFUSED_KPARSE_H

#include <stdbool.h>
#include <stdint.h>

/* The kernel's isspace(): C's, plus Latin-1's no-break space (0xa0). */
bool kisspace(char c);

/* Strips leading and trailing white space in place; returns the start. */
char *kstrstrip(char *s);

/* base 0: "0x" hex, leading "0" octal, else decimal; one leading '+', one
 * trailing '\n'. 0, -EINVAL or -ERANGE. */
int kstrtoull(const char *s, unsigned base, unsigned long long *res);
int kstrtoll(const char *s, unsigned base, long long *res);
int kstrtoint(const char *s, unsigned base, int *res);

#endif
