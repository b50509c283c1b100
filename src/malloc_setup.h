/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef CGFUSED_MALLOC_SETUP_H
#define CGFUSED_MALLOC_SETUP_H

/* Starts the daemon again with glibc's per-thread malloc caches off,
 * unless GLIBC_TUNABLES already sets their size; returns if it did not
 * (src/malloc_setup.c says why). Call first in main(), with its argv. */
void malloc_setup_exec(char *argv[]);

#endif
