/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The walk from / to a trusted file's directory (src/lib/dirpath.c), on a
 * temporary tree: top/p/d/file. */
#include "lib/dirpath.h"

#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct tree {
	char *top, *p, *d, *file;
};

static void tree_make(struct tree *t)
{
	GError *err = NULL;

	t->top = g_dir_make_tmp("dirpath-XXXXXX", &err);
	g_assert_no_error(err);
	t->p = g_build_filename(t->top, "p", NULL);
	t->d = g_build_filename(t->p, "d", NULL);
	t->file = g_build_filename(t->d, "file", NULL);
	g_assert_cmpint(mkdir(t->p, 0755), ==, 0);
	g_assert_cmpint(mkdir(t->d, 0755), ==, 0);
	/* mkdir's modes are masked; chmod's are not. */
	g_assert_cmpint(chmod(t->p, 0755), ==, 0);
	g_assert_cmpint(chmod(t->d, 0755), ==, 0);
}

static void tree_free(struct tree *t)
{
	char *link = g_build_filename(t->top, "link", NULL);

	unlink(link);
	g_free(link);
	g_assert_cmpint(rmdir(t->d), ==, 0);
	g_assert_cmpint(rmdir(t->p), ==, 0);
	g_assert_cmpint(rmdir(t->top), ==, 0);
	g_free(t->file);
	g_free(t->d);
	g_free(t->p);
	g_free(t->top);
}

/* dirpath_open(file) is refused with a message that has want. */
static void refused(const char *file, bool sticky_ok, const char *want)
{
	GError *err = NULL;
	char *real = NULL;

	g_assert_cmpint(dirpath_open(file, sticky_ok, "-o x=FILE", &real, &err), ==, -1);
	g_assert_error(err, G_FILE_ERROR, G_FILE_ERROR_PERM);
	g_assert_nonnull(strstr(err->message, want));
	g_assert_null(real);
	g_error_free(err);
}

/* dirpath_open(file) gives a directory descriptor of dir, at its path. */
static void accepted(const char *file, bool sticky_ok, const char *dir)
{
	GError *err = NULL;
	char *real = NULL;
	struct stat got, want;
	int fd = dirpath_open(file, sticky_ok, "-o x=FILE", &real, &err);

	g_assert_no_error(err);
	g_assert_cmpint(fd, >=, 0);
	g_assert_cmpint(fstat(fd, &got), ==, 0);
	g_assert_cmpint(stat(dir, &want), ==, 0);
	g_assert_cmpuint(got.st_dev, ==, want.st_dev);
	g_assert_cmpuint(got.st_ino, ==, want.st_ino);
	g_assert_true(fcntl(fd, F_GETFL) >= 0 && !(fcntl(fd, F_GETFL) & O_PATH));
	g_assert_cmpstr(real, ==, dir);
	close(fd);
	g_free(real);
}

static void test_ancestor_writable(void)
{
	struct tree t;
	char *want;

	tree_make(&t);
	accepted(t.file, false, t.d);
	g_assert_cmpint(chmod(t.p, 0757), ==, 0);
	want = g_strdup_printf("a directory on the path of %s, %s, is writable by others: "
			       "chmod go-w it, or choose another with -o x=FILE", t.file, t.p);
	refused(t.file, true, want);
	g_free(want);
	g_assert_cmpint(chmod(t.p, 0775), ==, 0);
	refused(t.file, true, ", is writable by its group:");
	/* Sticky above: nobody can rename d away. */
	g_assert_cmpint(chmod(t.p, 01777), ==, 0);
	accepted(t.file, false, t.d);
	tree_free(&t);
}

static void test_own_directory_sticky(void)
{
	struct tree t;

	tree_make(&t);
	g_assert_cmpint(chmod(t.d, 01777), ==, 0);
	refused(t.file, false, ", is writable by its group and others:");
	accepted(t.file, true, t.d);
	g_assert_cmpint(chmod(t.d, 01775), ==, 0);
	refused(t.file, false, ", is writable by its group:");
	tree_free(&t);
}

/* A link on the way is resolved, and what it leads to is walked. */
static void test_link_resolved(void)
{
	struct tree t;
	char *link, *file;

	tree_make(&t);
	link = g_build_filename(t.top, "link", NULL);
	file = g_build_filename(link, "file", NULL);
	g_assert_cmpint(symlink(t.d, link), ==, 0);
	accepted(file, false, t.d);
	g_assert_cmpint(chmod(t.p, 0757), ==, 0);
	refused(file, true, ", is writable by others:");
	g_free(file);
	g_free(link);
	tree_free(&t);
}

static void test_missing(void)
{
	GError *err = NULL;
	char *real = NULL;

	g_assert_cmpint(dirpath_open("/nonexistent-dirpath/x/file", true, "-o x=FILE", &real,
				     &err), ==, -1);
	g_assert_error(err, G_FILE_ERROR, G_FILE_ERROR_NOENT);
	g_assert_null(real);
	g_error_free(err);
}

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/dirpath/ancestor-writable", test_ancestor_writable);
	g_test_add_func("/dirpath/own-directory-sticky", test_own_directory_sticky);
	g_test_add_func("/dirpath/link-resolved", test_link_resolved);
	g_test_add_func("/dirpath/missing", test_missing);
	return g_test_run();
}
