/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuse-floor: the FUSE transport floor for attach-bench.  The smallest
 * libfuse3 low-level filesystem with the shape of a cgroup v1 hierarchy: a
 * root directory holding `tasks`, `cpu.shares` and the directories made by
 * mkdir, each holding its own files and directories, to any depth.  Writes
 * are accepted and dropped, files read empty, rmdir of an empty directory
 * works.  What attach-bench measures here is only what the FUSE round trips
 * cost, so the distance from cgfused to this floor is what cgfused itself
 * spends.
 *
 * Files are opened the way cgroup control files must be: direct_io (size-0
 * files whose reads must not come from the page cache), no noflush, no
 * writeback cache.  So open + write + close costs the plain sequence OPEN,
 * WRITE, FLUSH, RELEASE.  Entries and attributes are cached for a day, so
 * no LOOKUP or GETATTR comes in between: this is the floor.
 *
 * Usage: fuse-floor [-f] [-d] [--mt] [-o OPT,...] MOUNTPOINT
 * The session loop is single-threaded (like -s) unless --mt is given; with
 * --mt, -o clone_fd, max_threads and max_idle_threads apply, and libfuse's
 * defaults otherwise, as for cgfused (src/main.c run_session).
 */
#define FUSE_USE_VERSION 314
#include <errno.h>
#include <fuse_lowlevel.h>
#include <glib.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define TIMEOUT 86400.0

/* The files of every directory; all read empty and drop what is written. */
static const char *const files[] = { "tasks", "cpu.shares" };
#define NFILES G_N_ELEMENTS(files)
#define SLOT_INOS (1 + NFILES)		/* a directory and its files */
#define FIXED (2 + NFILES)		/* ".", "..", then the files */

/*
 * Directory slot i has inode SLOT_INOS*i+1 and its files the inodes after
 * it; slot 0 is the root (FUSE_ROOT_ID 1).  Slots are never reused, so
 * neither are inode numbers: no generation numbers needed, a removed slot
 * answers ENOENT.  A directory is named in by_name as "PARENTSLOT/NAME".
 * The lock matters only with --mt.
 */
struct slot {
	char *key;		/* by_name's key, NULL once removed */
	guint parent;
	guint children;
};
static GArray *slots;		/* of struct slot */
static GHashTable *by_name;	/* "PARENTSLOT/NAME" -> slot */
G_LOCK_DEFINE_STATIC(tree);

static fuse_ino_t slot_ino(guint slot)
{
	return SLOT_INOS * (fuse_ino_t)slot + 1;
}

/* Called with the tree locked: the live slot of ino, or -1. */
static gint64 ino_slot(fuse_ino_t ino)
{
	guint slot = (ino - 1) / SLOT_INOS;

	if (ino == 0 || slot >= slots->len ||
	    !g_array_index(slots, struct slot, slot).key)
		return -1;
	return slot;
}

/* Called with the tree locked: the live directory slot of ino, or -1. */
static gint64 dir_slot(fuse_ino_t ino)
{
	return (ino - 1) % SLOT_INOS ? -1 : ino_slot(ino);
}

/* Called with the tree locked. */
static int fill_stat(fuse_ino_t ino, struct stat *st)
{
	bool dir = (ino - 1) % SLOT_INOS == 0;

	if (ino_slot(ino) < 0)
		return ENOENT;
	memset(st, 0, sizeof *st);
	st->st_ino = ino;
	st->st_mode = dir ? S_IFDIR | 0755 : S_IFREG | 0644;
	st->st_nlink = dir ? 2 : 1;
	return 0;
}

/* The index of a file name, or -1. */
static int file_index(const char *name)
{
	for (guint f = 0; f < NFILES; f++)
		if (strcmp(name, files[f]) == 0)
			return f;
	return -1;
}

/* Called with the tree locked. */
static void reply_entry(fuse_req_t req, fuse_ino_t ino)
{
	struct fuse_entry_param e = {
		.ino = ino,
		.attr_timeout = TIMEOUT,
		.entry_timeout = TIMEOUT,
	};
	int err = fill_stat(ino, &e.attr);

	if (err)
		fuse_reply_err(req, err);
	else
		fuse_reply_entry(req, &e);
}

static void floor_init(void *userdata, struct fuse_conn_info *conn)
{
	(void)userdata;
	/* writes must reach us as writes, with the caller's pid */
	conn->want &= ~FUSE_CAP_WRITEBACK_CACHE;
}

/* Called with the tree locked: the slot of directory name in slot parent,
 * or 0 (the root is nobody's child). */
static guint child_slot(guint parent, const char *name)
{
	char *key = g_strdup_printf("%u/%s", parent, name);
	guint slot = GPOINTER_TO_UINT(g_hash_table_lookup(by_name, key));

	g_free(key);
	return slot;
}

static void floor_lookup(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	int f = file_index(name);
	gint64 p;
	guint slot;

	G_LOCK(tree);
	p = dir_slot(parent);
	if (p < 0)
		fuse_reply_err(req, ENOENT);
	else if (f >= 0)
		reply_entry(req, parent + 1 + f);
	else if ((slot = child_slot(p, name)) != 0)
		reply_entry(req, slot_ino(slot));
	else
		fuse_reply_err(req, ENOENT);
	G_UNLOCK(tree);
}

static void floor_getattr(fuse_req_t req, fuse_ino_t ino,
			  struct fuse_file_info *fi)
{
	struct stat st;
	int err;

	(void)fi;
	G_LOCK(tree);
	err = fill_stat(ino, &st);
	G_UNLOCK(tree);
	if (err)
		fuse_reply_err(req, err);
	else
		fuse_reply_attr(req, &st, TIMEOUT);
}

static void floor_mkdir(fuse_req_t req, fuse_ino_t parent, const char *name,
			mode_t mode)
{
	struct slot new;
	gint64 p;

	(void)mode;
	G_LOCK(tree);
	p = dir_slot(parent);
	if (p < 0) {
		fuse_reply_err(req, ENOENT);
	} else if (file_index(name) >= 0 || child_slot(p, name)) {
		fuse_reply_err(req, EEXIST);
	} else {
		new.key = g_strdup_printf("%" G_GINT64_FORMAT "/%s", p, name);
		new.parent = p;
		new.children = 0;
		g_array_append_val(slots, new);
		g_array_index(slots, struct slot, p).children++;
		g_hash_table_insert(by_name, new.key,
				    GUINT_TO_POINTER(slots->len - 1));
		reply_entry(req, slot_ino(slots->len - 1));
	}
	G_UNLOCK(tree);
}

static void floor_rmdir(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	gint64 p;
	guint slot = 0;
	struct slot *s;
	int err = ENOENT;

	G_LOCK(tree);
	p = dir_slot(parent);
	if (p >= 0 && file_index(name) >= 0)
		err = ENOTDIR;
	else if (p >= 0)
		slot = child_slot(p, name);
	if (slot) {
		s = &g_array_index(slots, struct slot, slot);
		err = s->children ? ENOTEMPTY : 0;
	}
	if (slot && !err) {
		g_hash_table_remove(by_name, s->key);
		g_clear_pointer(&s->key, g_free);
		g_array_index(slots, struct slot, p).children--;
	}
	G_UNLOCK(tree);
	fuse_reply_err(req, err);
}

static void floor_open(fuse_req_t req, fuse_ino_t ino,
		       struct fuse_file_info *fi)
{
	(void)ino;
	fi->direct_io = 1;
	fuse_reply_open(req, fi);
}

static void floor_read(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
		       struct fuse_file_info *fi)
{
	(void)ino, (void)size, (void)off, (void)fi;
	fuse_reply_buf(req, NULL, 0);
}

static void floor_write(fuse_req_t req, fuse_ino_t ino, const char *buf,
			size_t size, off_t off, struct fuse_file_info *fi)
{
	(void)ino, (void)buf, (void)off, (void)fi;
	fuse_reply_write(req, size);
}

static void floor_flush(fuse_req_t req, fuse_ino_t ino,
			struct fuse_file_info *fi)
{
	(void)ino, (void)fi;
	fuse_reply_err(req, 0);
}

static void floor_release(fuse_req_t req, fuse_ino_t ino,
			  struct fuse_file_info *fi)
{
	(void)ino, (void)fi;
	fuse_reply_err(req, 0);
}

/* Entry e (0-based) of a directory: ".", "..", the files, then for
 * e >= FIXED slot e-FIXED+1 if it is a child.  The offset of an entry is
 * e + 1. */
static void floor_readdir(fuse_req_t req, fuse_ino_t ino, size_t size,
			  off_t off, struct fuse_file_info *fi)
{
	char *buf = g_malloc(size);
	size_t used = 0;
	gint64 dir;

	(void)fi;
	G_LOCK(tree);
	dir = dir_slot(ino);
	for (guint e = off; dir >= 0 && e < FIXED + slots->len - 1; e++) {
		struct slot *s = &g_array_index(slots, struct slot,
						e < FIXED ? 0 : e - FIXED + 1);
		const char *name;
		struct stat st = { 0 };
		size_t len;

		if (e == 0) {
			name = ".";
			st.st_ino = ino;
		} else if (e == 1) {
			name = "..";
			st.st_ino = slot_ino(g_array_index(slots, struct slot,
							   dir).parent);
		} else if (e < FIXED) {
			name = files[e - 2];
			st.st_ino = ino + e - 1;
		} else if (s->key && s->parent == dir) {
			name = strchr(s->key, '/') + 1;
			st.st_ino = slot_ino(e - FIXED + 1);
		} else {
			continue;
		}
		st.st_mode = (st.st_ino - 1) % SLOT_INOS ? S_IFREG : S_IFDIR;
		len = fuse_add_direntry(req, buf + used, size - used, name,
					&st, e + 1);
		if (len > size - used)
			break;
		used += len;
	}
	G_UNLOCK(tree);
	if (dir < 0)
		fuse_reply_err(req, ENOENT);
	else
		fuse_reply_buf(req, buf, used);
	g_free(buf);
}

static const struct fuse_lowlevel_ops floor_ops = {
	.init = floor_init,
	.lookup = floor_lookup,
	.getattr = floor_getattr,
	.mkdir = floor_mkdir,
	.rmdir = floor_rmdir,
	.open = floor_open,
	.read = floor_read,
	.write = floor_write,
	.flush = floor_flush,
	.release = floor_release,
	.readdir = floor_readdir,
};

struct floor_conf {
	int mt;
};

static const struct fuse_opt floor_opts[] = {
	{ "--mt", offsetof(struct floor_conf, mt), 1 },
	FUSE_OPT_END
};

int main(int argc, char *argv[])
{
	struct fuse_args args = FUSE_ARGS_INIT(argc, argv);
	struct floor_conf conf = { 0 };
	struct fuse_cmdline_opts opts;
	struct fuse_session *se;
	int ret = 1;

	if (fuse_opt_parse(&args, &conf, floor_opts, NULL) < 0 ||
	    fuse_parse_cmdline(&args, &opts) != 0)
		return 1;
	if (opts.show_help || !opts.mountpoint) {
		printf("usage: %s [-f] [-d] [--mt] [-o OPT,...] MOUNTPOINT\n",
		       argv[0]);
		fuse_cmdline_help();
		fuse_lowlevel_help();
		ret = !opts.show_help;
		goto out_args;
	}

	slots = g_array_new(FALSE, TRUE, sizeof(struct slot));
	g_array_set_size(slots, 1);		/* the root, its own parent */
	g_array_index(slots, struct slot, 0).key = g_strdup("");
	by_name = g_hash_table_new(g_str_hash, g_str_equal);

	se = fuse_session_new(&args, &floor_ops, sizeof floor_ops, NULL);
	if (!se)
		goto out_tree;
	if (fuse_set_signal_handlers(se) != 0)
		goto out_session;
	if (fuse_session_mount(se, opts.mountpoint) != 0)
		goto out_signals;
	fuse_daemonize(opts.foreground);
	if (conf.mt) {
		struct fuse_loop_config *cfg = fuse_loop_cfg_create();

		fuse_loop_cfg_set_clone_fd(cfg, opts.clone_fd);
		fuse_loop_cfg_set_max_threads(cfg, opts.max_threads);
		if (opts.max_idle_threads != UINT_MAX)	/* UINT_MAX: unset */
			fuse_loop_cfg_set_idle_threads(cfg,
						       opts.max_idle_threads);
		ret = fuse_session_loop_mt(se, cfg) != 0;
		fuse_loop_cfg_destroy(cfg);
	} else {
		ret = fuse_session_loop(se) != 0;
	}
	fuse_session_unmount(se);
out_signals:
	fuse_remove_signal_handlers(se);
out_session:
	fuse_session_destroy(se);
out_tree:
	g_hash_table_destroy(by_name);
	for (guint i = 0; i < slots->len; i++)
		g_free(g_array_index(slots, struct slot, i).key);
	g_array_free(slots, TRUE);
out_args:
	free(opts.mountpoint);
	fuse_opt_free_args(&args);
	return ret;
}
