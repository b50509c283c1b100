/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The allocator's originals file: see alloc_orig.h. */
#include "alloc/alloc_orig.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "lib/failcount.h"

#include "alloc/alloc_nice.h"
#include "state/state_file.h"

#define ORIG_VERSION 1
/* Written anew when it has this many lines more than 4 per live record. */
#define ORIG_REWRITE_SLACK 1024

struct alloc_orig {
	struct state_dir dir;
	char *name, *tmp_name;
	char *header;
	const char *kinds;		/* the record letters this file takes */
	int fd;
	GString *buf;			/* records not written yet */
	unsigned lines;			/* records in the file and in buf */
	struct failcount fails;		/* writes of the file */
	GHashTable *left_tasks;		/* tid -> struct orig_task *, the last daemon's */
	GHashTable *left_ags;		/* id -> struct orig_autogroup * */
	GHashTable *left_idle;		/* tid -> struct orig_idle * */
};

static void append_task(GString *out, const struct orig_task *t)
{
	g_string_append_printf(out, "t %d %" PRIu64 " %d ", t->tid, t->ino, t->nice);
	cpumask_print_list(&t->cpus, out);
	g_string_append_c(out, '\n');
}

static void append_autogroup(GString *out, const struct orig_autogroup *ag)
{
	g_string_append_printf(out, "a %d %d %" PRIu64 " %d\n", ag->id, ag->tid, ag->ino,
			       ag->nice);
}

static bool nice_ok(int nice)
{
	return nice >= NICE_MIN && nice <= NICE_MAX;
}

/* One whole line of the file: false if it is not a record of its kinds. */
static bool take_line(struct alloc_orig *o, const char *line)
{
	struct orig_task t = { 0 };
	struct orig_autogroup ag = { 0 };
	struct orig_idle id = { 0 };
	char cpus[4096];
	int end = -1;

	if (!line[0] || !strchr(o->kinds, line[0])) {
		return false;
	} else if (sscanf(line, "t %d %" SCNu64 " %d %4095s%n", &t.tid, &t.ino, &t.nice, cpus,
		   &end) == 4 && !line[end] && t.tid > 0 && nice_ok(t.nice) &&
	    cpumask_parselist(cpus, &t.cpus, CPUMASK_BITS) == 0 && !cpumask_empty(&t.cpus)) {
		g_hash_table_insert(o->left_tasks, GINT_TO_POINTER(t.tid), g_memdup2(&t, sizeof(t)));
	} else if (sscanf(line, "T %d %" SCNu64 "%n", &t.tid, &t.ino, &end) == 2 && !line[end]) {
		struct orig_task *had = g_hash_table_lookup(o->left_tasks, GINT_TO_POINTER(t.tid));

		if (had && had->ino == t.ino)
			g_hash_table_remove(o->left_tasks, GINT_TO_POINTER(t.tid));
	} else if (sscanf(line, "a %d %d %" SCNu64 " %d%n", &ag.id, &ag.tid, &ag.ino, &ag.nice,
			  &end) == 4 && !line[end] && ag.tid > 0 && nice_ok(ag.nice)) {
		g_hash_table_insert(o->left_ags, GINT_TO_POINTER(ag.id), g_memdup2(&ag, sizeof(ag)));
	} else if (sscanf(line, "A %d%n", &ag.id, &end) == 1 && !line[end]) {
		g_hash_table_remove(o->left_ags, GINT_TO_POINTER(ag.id));
	} else if (sscanf(line, "i %d %" SCNu64 "%n", &id.tid, &id.ino, &end) == 2 &&
		   !line[end] && id.tid > 0) {
		g_hash_table_insert(o->left_idle, GINT_TO_POINTER(id.tid), g_memdup2(&id, sizeof(id)));
	} else if (sscanf(line, "I %d %" SCNu64 "%n", &id.tid, &id.ino, &end) == 2 && !line[end]) {
		struct orig_idle *had = g_hash_table_lookup(o->left_idle, GINT_TO_POINTER(id.tid));

		if (had && had->ino == id.ino)
			g_hash_table_remove(o->left_idle, GINT_TO_POINTER(id.tid));
	} else {
		return false;
	}
	return true;
}

/* Takes in the records of a file of this boot (a line cut short by a
 * crash is not whole: ignored). */
static void take_file(struct alloc_orig *o, int fd)
{
	GString *text = g_string_new(NULL);
	char chunk[65536];
	ssize_t n;
	char **lines;

	while ((n = read(fd, chunk, sizeof(chunk))) > 0)
		g_string_append_len(text, chunk, n);
	lines = g_strsplit(text->str, "\n", -1);
	/* The header, then whole lines: the last piece has no newline. */
	if (lines[0] && strcmp(lines[0], o->header) == 0)
		for (char **l = lines + 1; *l && l[1]; l++)
			if (!take_line(o, *l))
				g_message("%s/%s: skipped a bad line: %.80s", o->dir.path, o->name, *l);
	g_strfreev(lines);
	g_string_free(text, TRUE);
}

static struct alloc_orig *open_file(const char *state, const char *suffix, const char *kinds,
				    const char *boot_id, GError **err)
{
	struct alloc_orig *o = g_new0(struct alloc_orig, 1);
	char *base = g_path_get_basename(state);
	bool created;
	int fd;

	o->fd = -1;
	o->kinds = kinds;
	o->name = g_strconcat(base, suffix, NULL);
	o->tmp_name = g_strconcat(base, suffix, ".tmp", NULL);
	o->header = g_strdup_printf("%s %d %s", ALLOC_ORIG_MAGIC, ORIG_VERSION, boot_id);
	o->buf = g_string_new(NULL);
	o->left_tasks = g_hash_table_new_full(NULL, NULL, NULL, g_free);
	o->left_ags = g_hash_table_new_full(NULL, NULL, NULL, g_free);
	o->left_idle = g_hash_table_new_full(NULL, NULL, NULL, g_free);
	g_free(base);
	if (!state_dir_open(&o->dir, state, err) ||
	    (fd = state_file_open_rw(&o->dir, o->name, ALLOC_ORIG_MAGIC, true, &created,
				     err)) < 0) {
		alloc_orig_close(o, false);
		return NULL;
	}
	take_file(o, fd);
	close(fd);
	/* Anew: what was left, without the lines that forgot things. */
	alloc_orig_rewrite_begin(o);
	alloc_orig_rewrite_commit(o);
	if (o->fd < 0) {
		g_set_error(err, G_FILE_ERROR, G_FILE_ERROR_FAILED, "cannot write %s/%s",
			    o->dir.path, o->name);
		alloc_orig_close(o, false);
		return NULL;
	}
	return o;
}

struct alloc_orig *alloc_orig_open(const char *state, const char *boot_id, GError **err)
{
	return open_file(state, ".orig", "tTaA", boot_id, err);
}

struct alloc_orig *alloc_orig_open_idle(const char *state, const char *boot_id, GError **err)
{
	return open_file(state, ".idle", "iI", boot_id, err);
}

void alloc_orig_close(struct alloc_orig *o, bool done)
{
	if (!o)
		return;
	alloc_orig_flush(o);
	if (done && o->dir.fd >= 0 && unlinkat(o->dir.fd, o->name, 0) < 0)
		g_warning("%s/%s: %s", o->dir.path, o->name, g_strerror(errno));
	if (o->fd >= 0)
		close(o->fd);
	state_dir_close(&o->dir);
	g_hash_table_destroy(o->left_tasks);
	g_hash_table_destroy(o->left_ags);
	g_hash_table_destroy(o->left_idle);
	g_string_free(o->buf, TRUE);
	g_free(o->header);
	g_free(o->name);
	g_free(o->tmp_name);
	g_free(o);
}

bool alloc_orig_take_task(struct alloc_orig *o, pid_t tid, uint64_t ino,
			  struct orig_task *out)
{
	struct orig_task *t = g_hash_table_lookup(o->left_tasks, GINT_TO_POINTER(tid));

	if (!t || t->ino != ino)
		return false;
	*out = *t;
	g_hash_table_remove(o->left_tasks, GINT_TO_POINTER(tid));
	return true;
}

bool alloc_orig_take_autogroup(struct alloc_orig *o, int id, struct orig_autogroup *out)
{
	struct orig_autogroup *ag = g_hash_table_lookup(o->left_ags, GINT_TO_POINTER(id));

	if (!ag)
		return false;
	*out = *ag;
	g_hash_table_remove(o->left_ags, GINT_TO_POINTER(id));
	return true;
}

void alloc_orig_leftovers(struct alloc_orig *o, GArray *tasks, GArray *autogroups)
{
	GHashTableIter iter;
	struct orig_task *t;
	struct orig_autogroup *ag;

	g_hash_table_iter_init(&iter, o->left_tasks);
	while (g_hash_table_iter_next(&iter, NULL, (gpointer *)&t)) {
		g_array_append_val(tasks, *t);
		alloc_orig_drop_task(o, t->tid, t->ino);
	}
	g_hash_table_iter_init(&iter, o->left_ags);
	while (g_hash_table_iter_next(&iter, NULL, (gpointer *)&ag)) {
		g_array_append_val(autogroups, *ag);
		alloc_orig_drop_autogroup(o, ag->id);
	}
	g_hash_table_remove_all(o->left_tasks);
	g_hash_table_remove_all(o->left_ags);
}

bool alloc_orig_has_leftovers(const struct alloc_orig *o)
{
	return g_hash_table_size(o->left_tasks) || g_hash_table_size(o->left_ags) ||
	       g_hash_table_size(o->left_idle);
}

bool alloc_orig_take_idle(struct alloc_orig *o, pid_t tid, uint64_t ino)
{
	struct orig_idle *id = g_hash_table_lookup(o->left_idle, GINT_TO_POINTER(tid));

	return id && id->ino == ino && g_hash_table_remove(o->left_idle, GINT_TO_POINTER(tid));
}

void alloc_orig_idle_leftovers(struct alloc_orig *o, GArray *idle)
{
	GHashTableIter iter;
	struct orig_idle *id;

	g_hash_table_iter_init(&iter, o->left_idle);
	while (g_hash_table_iter_next(&iter, NULL, (gpointer *)&id)) {
		g_array_append_val(idle, *id);
		alloc_orig_drop_idle(o, id->tid, id->ino);
	}
	g_hash_table_remove_all(o->left_idle);
}

void alloc_orig_idle_left(const struct alloc_orig *o, GArray *idle)
{
	GHashTableIter iter;
	struct orig_idle *id;

	g_hash_table_iter_init(&iter, o->left_idle);
	while (g_hash_table_iter_next(&iter, NULL, (gpointer *)&id))
		g_array_append_val(idle, *id);
}

void alloc_orig_add_task(struct alloc_orig *o, const struct orig_task *t)
{
	append_task(o->buf, t);
	o->lines++;
}

void alloc_orig_drop_task(struct alloc_orig *o, pid_t tid, uint64_t ino)
{
	g_string_append_printf(o->buf, "T %d %" PRIu64 "\n", tid, ino);
	o->lines++;
}

void alloc_orig_add_autogroup(struct alloc_orig *o, const struct orig_autogroup *ag)
{
	append_autogroup(o->buf, ag);
	o->lines++;
}

void alloc_orig_drop_autogroup(struct alloc_orig *o, int id)
{
	g_string_append_printf(o->buf, "A %d\n", id);
	o->lines++;
}

void alloc_orig_add_idle(struct alloc_orig *o, pid_t tid, uint64_t ino)
{
	g_string_append_printf(o->buf, "i %d %" PRIu64 "\n", tid, ino);
	o->lines++;
}

void alloc_orig_drop_idle(struct alloc_orig *o, pid_t tid, uint64_t ino)
{
	g_string_append_printf(o->buf, "I %d %" PRIu64 "\n", tid, ino);
	o->lines++;
}

static void said(struct alloc_orig *o, int ret)
{
	if (ret < 0)
		failcount_fail(&o->fails, "%s/%s: cannot record what cgfused changes: %s (a "
			       "restart after a crash may not give it back)", o->dir.path, o->name,
			       g_strerror(-ret));
	else
		failcount_ok(&o->fails, "recording what cgfused changes");
}

void alloc_orig_flush(struct alloc_orig *o)
{
	int ret;

	if (!o->buf->len || o->fd < 0)
		return;
	ret = state_file_write_all(o->fd, o->buf->str, o->buf->len);
	said(o, ret);
	if (ret == 0)
		g_string_truncate(o->buf, 0);
}

bool alloc_orig_wants_rewrite(const struct alloc_orig *o, unsigned live)
{
	return o->lines > 4 * (live + g_hash_table_size(o->left_tasks) +
			       g_hash_table_size(o->left_ags) + g_hash_table_size(o->left_idle)) +
			  ORIG_REWRITE_SLACK;
}

void alloc_orig_rewrite_begin(struct alloc_orig *o)
{
	g_string_truncate(o->buf, 0);
	o->lines = 0;
}

/* On failure the records stay in buf, to be appended to the file there is
 * (a later line of a key overrides an earlier one). */
void alloc_orig_rewrite_commit(struct alloc_orig *o)
{
	GString *all = g_string_new(o->header);
	GHashTableIter iter;
	gpointer rec;
	int fd, ret;

	g_string_append_c(all, '\n');
	g_hash_table_iter_init(&iter, o->left_tasks);
	while (g_hash_table_iter_next(&iter, NULL, &rec))
		alloc_orig_add_task(o, rec);
	g_hash_table_iter_init(&iter, o->left_ags);
	while (g_hash_table_iter_next(&iter, NULL, &rec))
		alloc_orig_add_autogroup(o, rec);
	g_hash_table_iter_init(&iter, o->left_idle);
	while (g_hash_table_iter_next(&iter, NULL, &rec))
		alloc_orig_add_idle(o, ((struct orig_idle *)rec)->tid, ((struct orig_idle *)rec)->ino);
	g_string_append_len(all, o->buf->str, (gssize)o->buf->len);
	fd = ret = state_file_create(&o->dir, o->tmp_name);
	if (fd >= 0 && (ret = state_file_write_all(fd, all->str, all->len)) == 0 &&
	    renameat(o->dir.fd, o->tmp_name, o->dir.fd, o->name) < 0)
		ret = -errno;
	said(o, ret);
	if (ret == 0) {
		if (o->fd >= 0)
			close(o->fd);
		o->fd = fd;
		g_string_truncate(o->buf, 0);
	} else if (fd >= 0) {
		close(fd);
		unlinkat(o->dir.fd, o->tmp_name, 0);
	}
	g_string_free(all, TRUE);
}
