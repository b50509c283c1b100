/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cgfused's own files, in every hierarchy after its face's base files:
 * cgfused.stat, what the daemon itself is doing. Not a kernel file. */
#ifndef CGFUSED_CGFUSED_STAT_H
#define CGFUSED_CGFUSED_STAT_H

#include "core/cftype.h"

/* Terminated by an entry with name NULL. */
extern const struct cftype cgfused_files[];

#endif
