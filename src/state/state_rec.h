/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The state's records, one a line (the format is in state.h): the log's
 * hooks and the snapshots make them. Without printf: a move's record is
 * made under the core's lock. */
#ifndef CGFUSED_STATE_REC_H
#define CGFUSED_STATE_REC_H

#include <glib.h>
#include <stdint.h>

#include "core/cgroup.h"

/* A record: rec_begin() (which returns where the record starts), fields,
 * rec_end() (checksum and newline). */
gsize rec_begin(GString *out, const char *type);
void rec_num(GString *out, uint64_t val);
/* Spaces, '#', '%' and anything not printable ASCII are %-escaped. */
void rec_str(GString *out, const char *str);
void rec_end(GString *out, gsize line_start);

/* A group's name in a record: " =root id", 0 for a hierarchy's root. */
void rec_group_id(GString *out, const struct cgroup *cgrp);
/* A record's type and the group it is about. */
void rec_group(GString *out, const char *type, const struct cgroup *cgrp);
/* Whole records (called locked). */
void rec_mkdir(GString *out, const struct cgroup *cgrp);
void rec_attr(GString *out, const struct cgroup *cgrp, unsigned file);
void rec_write(GString *out, const struct cgroup *cgrp, unsigned file, const char *text);
/* task's membership of group (made by rec_group_id()). */
void rec_task(GString *out, const struct task *t, const GString *group);

#endif
