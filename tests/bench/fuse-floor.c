/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuse-floor: the FUSE transport floor for attach-bench.  The smallest
 * libfuse3 low-level filesystem with the shape of a cgroup v1 hierarchy: a
 * root directory holding `tasks` and the directories made by mkdir, each
 * holding its own `tasks`.  Writes are accepted and dropped, `tasks` reads
 * empty, rmdir works.  What attach-bench measures here is only what the
 * FUSE round trips cost, so the distance from cgfused to this floor is what
 * cgfused itself spends.
 *
 * Files are opened the way cgroup control files must be: direct_io (size-0
 * files whose reads must not come from the page cache), no noflush, no
 * writeback cache.  So open + write + close costs the plain sequence OPEN,
 * WRITE, FLUSH, RELEASE.  Entries and attributes are cached for a day, so
 * no LOOKUP or GETATTR comes in between: this is the floor.  Directories are
 * one level deep (mkdir inside a group gives EPERM).
 *
 * Usage: fuse-floor [-f] [-d] [--mt] [-o OPT,...] MOUNTPOINT
 * The session loop is single-threaded (like -s) unless --mt is given; with
 * --mt, -o clone_fd, max_threads and max_idle_threads apply.
 */
#define FUSE_USE_VERSION 314
#include <errno.h>
#include <fuse_lowlevel.h>
#include <glib.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define TIMEOUT 86400.0

/*
 * Directory slot i has inode 2i+1 and its tasks file 2i+2; slot 0 is the
 * root (FUSE_ROOT_ID 1).  Slots are never reused, so neither are inode
 * numbers: no generation numbers needed, a removed slot answers ENOENT.
 * The lock matters only with --mt.
 */
static GPtrArray *slots;	/* slot -> group name, NULL once removed */
static GHashTable *by_name;	/* group name -> slot */
G_LOCK_DEFINE_STATIC(tree);

static fuse_ino_t slot_ino(guint slot)
{
	return 2 * (fuse_ino_t)slot + 1;
}

/* Called with the tree locked. */
static int fill_stat(fuse_ino_t ino, struct stat *st)
{
	guint slot = (ino - 1) / 2;

	if (ino == 0 || slot >= slots->len || !g_ptr_array_index(slots, slot))
		return ENOENT;
	memset(st, 0, sizeof *st);
	st->st_ino = ino;
	st->st_mode = ino % 2 ? S_IFDIR | 0755 : S_IFREG | 0644;
	st->st_nlink = ino % 2 ? 2 : 1;
	return 0;
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

static void floor_lookup(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	fuse_ino_t ino = 0;

	G_LOCK(tree);
	if (strcmp(name, "tasks") == 0) {
		ino = parent + 1;
	} else if (parent == FUSE_ROOT_ID) {
		gpointer slot = g_hash_table_lookup(by_name, name);

		if (slot)
			ino = slot_ino(GPOINTER_TO_UINT(slot));
	}
	reply_entry(req, ino);
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
	char *copy;

	(void)mode;
	if (parent != FUSE_ROOT_ID) {
		fuse_reply_err(req, EPERM);
		return;
	}
	G_LOCK(tree);
	if (strcmp(name, "tasks") == 0 || g_hash_table_contains(by_name, name)) {
		fuse_reply_err(req, EEXIST);
	} else {
		copy = g_strdup(name);
		g_ptr_array_add(slots, copy);
		g_hash_table_insert(by_name, copy,
				    GUINT_TO_POINTER(slots->len - 1));
		reply_entry(req, slot_ino(slots->len - 1));
	}
	G_UNLOCK(tree);
}

static void floor_rmdir(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	gpointer slot = NULL;

	G_LOCK(tree);
	if (parent == FUSE_ROOT_ID)
		slot = g_hash_table_lookup(by_name, name);
	if (slot) {
		g_hash_table_remove(by_name, name);
		g_free(g_ptr_array_index(slots, GPOINTER_TO_UINT(slot)));
		g_ptr_array_index(slots, GPOINTER_TO_UINT(slot)) = NULL;
	}
	G_UNLOCK(tree);
	fuse_reply_err(req, slot ? 0 : strcmp(name, "tasks") ? ENOENT : ENOTDIR);
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

/* Entry e (0-based) of a directory: ".", "..", "tasks", then in the root
 * slot e-2 for e >= 3.  The offset of an entry is e + 1. */
static void floor_readdir(fuse_req_t req, fuse_ino_t ino, size_t size,
			  off_t off, struct fuse_file_info *fi)
{
	char *buf = g_malloc(size);
	size_t used = 0;
	guint n;

	(void)fi;
	G_LOCK(tree);
	n = ino == FUSE_ROOT_ID ? slots->len + 2 : 3;
	for (guint e = off; e < n; e++) {
		static const char *const fixed[] = { ".", "..", "tasks" };
		const char *name = e < 3 ? fixed[e] : g_ptr_array_index(slots, e - 2);
		struct stat st = { 0 };
		size_t len;

		if (!name)
			continue;
		st.st_ino = e == 0 ? ino : e == 1 ? FUSE_ROOT_ID :
			    e == 2 ? ino + 1 : slot_ino(e - 2);
		st.st_mode = st.st_ino % 2 ? S_IFDIR : S_IFREG;
		len = fuse_add_direntry(req, buf + used, size - used, name,
					&st, e + 1);
		if (len > size - used)
			break;
		used += len;
	}
	G_UNLOCK(tree);
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

	slots = g_ptr_array_new_with_free_func(g_free);
	g_ptr_array_add(slots, g_strdup(""));	/* the root */
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
	g_ptr_array_free(slots, TRUE);
out_args:
	free(opts.mountpoint);
	fuse_opt_free_args(&args);
	return ret;
}
