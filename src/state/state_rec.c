/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The state's records (the format is in state.h). */
#include "state/state_rec.h"

#include "core/css_set.h"
#include "core/task.h"
#include "state/state.h"

gsize rec_begin(GString *out, const char *type)
{
	gsize start = out->len;

	g_string_append(out, type);
	return start;
}

void rec_num(GString *out, uint64_t val)
{
	char buf[24], *p = buf + sizeof(buf);

	do
		*--p = (char)('0' + val % 10);
	while ((val /= 10));
	*--p = ' ';
	g_string_append_len(out, p, buf + sizeof(buf) - p);
}

void rec_str(GString *out, const char *str)
{
	g_string_append(out, " =");
	for (const unsigned char *p = (const unsigned char *)str; *p; p++) {
		if (*p <= ' ' || *p >= 0x7f || *p == '%' || *p == '#')
			g_string_append_printf(out, "%%%02X", *p);
		else
			g_string_append_c(out, (char)*p);
	}
}

guint state_rec_hash(const char *body, gsize len)
{
	guint hash = 5381;

	for (gsize i = 0; i < len; i++)
		hash = (hash << 5) + hash + (guint)(signed char)body[i];
	return hash;
}

void rec_end(GString *out, gsize line_start)
{
	static const char hex[] = "0123456789abcdef";
	guint hash = state_rec_hash(out->str + line_start, out->len - line_start);
	char buf[12] = " #";

	for (int i = 0; i < 8; i++)
		buf[2 + i] = hex[(hash >> (28 - 4 * i)) & 0xf];
	buf[10] = '\n';
	g_string_append_len(out, buf, 11);
}

/* Records of the core's objects. */

/* A group is named by its hierarchy and its id, 0 for the hierarchy's
 * root: " =root id". Ids are the daemon's own; a snapshot and its log
 * share them, and replay maps them to the new daemon's. */
void rec_group_id(GString *out, const struct cgroup *cgrp)
{
	rec_str(out, cg_root_name(cgrp->root));
	rec_num(out, cgrp->parent ? cgrp->id : 0);
}

void rec_group(GString *out, const char *type, const struct cgroup *cgrp)
{
	rec_begin(out, type);
	rec_group_id(out, cgrp);
}

/* The same with the group's name made already (in moves, where many
 * records name one group). */
static void rec_group_esc(GString *out, const char *type, const GString *group)
{
	rec_begin(out, type);
	g_string_append_len(out, group->str, group->len);
}

/* The new group's id, then its parent and its own name: the records'
 * size grows with the number of groups and their names' bytes, not
 * with their depth. */
void rec_mkdir(GString *out, const struct cgroup *cgrp)
{
	gsize start = out->len;

	rec_group(out, "mkdir", cgrp);
	rec_num(out, cgrp->parent->parent ? cgrp->parent->id : 0);
	rec_str(out, cgrp->name);
	rec_num(out, cgrp->attr.mode & 07777);
	rec_num(out, cgrp->creator_uid);
	rec_num(out, cgrp->creator_gid);
	rec_end(out, start);
}

static const char *file_name(const struct cgroup *cgrp, unsigned file)
{
	if (file == CG_DIR)
		return "";
	return cg_root_file(cgrp->root, file)->name;
}

void rec_attr(GString *out, const struct cgroup *cgrp, unsigned file)
{
	gsize start = out->len;
	struct cg_iattr attr;

	cgroup_iattr(cgrp, file, &attr);
	rec_group(out, "attr", cgrp);
	rec_str(out, file_name(cgrp, file));
	rec_num(out, attr.uid);
	rec_num(out, attr.gid);
	rec_num(out, attr.mode & 07777);
	rec_end(out, start);
}

void rec_write(GString *out, const struct cgroup *cgrp, unsigned file, const char *text)
{
	gsize start = out->len;

	rec_group(out, "write", cgrp);
	rec_str(out, file_name(cgrp, file));
	rec_str(out, text);
	rec_end(out, start);
}

void rec_task(GString *out, const struct task *t, const GString *group)
{
	gsize start = out->len;

	rec_group_esc(out, "task", group);
	rec_num(out, (uint64_t)t->tid);
	rec_num(out, t->ident.ino);
	rec_num(out, t->joined_ns);
	rec_end(out, start);
}

