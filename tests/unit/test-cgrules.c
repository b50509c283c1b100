/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The rules file (config/cgrules.h): what the parser takes, where it says
 * a line is wrong, which rule a process matches, and which files
 * cgrules_load() refuses. Users and groups are the base system's: root (0)
 * and daemon (1), user and group alike. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib.h>
#include <glib/gstdio.h>

#include "config/cgrules.h"
#include "kernel/kfacade_exec.h"
#include "fake-kfacade.h"
#include "test-env.h"

static struct cgrules *parse(const char *text, GError **err)
{
	return cgrules_parse("t.rules", text, strlen(text), err);
}

/* The targets p gets, as "line:controllers:path" joined by " ". */
static char *placed(const struct cgrules *rules, uid_t uid, gid_t gid, const char *comm,
		    const char *exe)
{
	const struct cgrules_proc p = { uid, gid, comm, exe };
	GPtrArray *targets = cgrules_match(rules, &p);
	GString *out = g_string_new(NULL);

	for (guint i = 0; i < targets->len; i++) {
		const struct cgrules_target *t = targets->pdata[i];
		char *ctl = t->controllers ? g_strjoinv(",", t->controllers) : g_strdup("*");

		g_string_append_printf(out, "%s%d:%s:%s", i ? " " : "", t->line, ctl, t->path);
		g_free(ctl);
	}
	g_ptr_array_unref(targets);
	return g_string_free(out, FALSE);
}

#define assert_placed(rules, uid, gid, comm, exe, want)				\
	do {									\
		char *got_ = placed(rules, uid, gid, comm, exe);		\
		g_assert_cmpstr(got_, ==, want);				\
		g_free(got_);							\
	} while (0)

static void test_parse_and_match(void)
{
	GError *err = NULL;
	struct cgrules *r = parse("# who   controllers  where\n"
				  "\n"
				  "daemon:make   cpu,cpuacct   build/\n"
				  "%             cpuset        //build//small\n"
				  "  @daemon     *             /daemons  \r\n"
				  "*:/usr/bin/gcc*  cpu        /compilers\n"
				  "*:cc1*        cpu           /compilers/cc1\n"
				  "root:*        cpuset        /\n"
				  "%             cpu           /root\n"
				  "*             cpu           /rest\n", &err);

	g_assert_no_error(err);
	g_assert_nonnull(r);
	g_assert_cmpuint(cgrules_count(r), ==, 8);
	/* User and process, with the % line after it; paths normalised. */
	assert_placed(r, 1, 1, "make", "/usr/bin/make", "3:cpu,cpuacct:/build 4:cpuset:/build/small");
	/* The same user, another command: the group's rule, alone. */
	assert_placed(r, 1, 1, "sh", "/usr/bin/dash", "5:*:/daemons");
	/* @daemon by the process's group, whoever its user. */
	assert_placed(r, 1000, 1, "sh", "/usr/bin/dash", "5:*:/daemons");
	/* A path with '/' is the executable's, with a trailing '*'. */
	assert_placed(r, 1000, 1000, "gcc-14", "/usr/bin/gcc-14", "6:cpu:/compilers");
	assert_placed(r, 1000, 1000, "gcc-14", "/usr/local/bin/gcc-14", "10:cpu:/rest");
	/* A name without '/' is the executable's base name or the command
	 * name, which is a script's own name (its exe is the interpreter). */
	assert_placed(r, 1000, 1000, "cc1plus", "/usr/libexec/gcc/x/cc1plus", "7:cpu:/compilers/cc1");
	assert_placed(r, 1000, 1000, "cc1-wrapper", "/usr/bin/dash", "7:cpu:/compilers/cc1");
	assert_placed(r, 1000, 1000, "make", "/usr/bin/make", "10:cpu:/rest");
	/* The first rule decides: root's, then its % line, not the last. */
	assert_placed(r, 0, 0, "make", "/usr/bin/make", "8:cpuset:/ 9:cpu:/root");
	cgrules_free(r);

	/* No rule for it: nothing; a % line never starts a match. */
	r = parse("root cpu /r\n% cpuset /r2\n", &err);
	g_assert_no_error(err);
	assert_placed(r, 1, 1, "x", "/x", "");
	assert_placed(r, 0, 0, "x", "/x", "1:cpu:/r 2:cpuset:/r2");
	cgrules_free(r);

	/* An empty file, or only comments: no rules. */
	r = parse("# nothing\n\n", &err);
	g_assert_no_error(err);
	g_assert_cmpuint(cgrules_count(r), ==, 0);
	assert_placed(r, 0, 0, "x", "/x", "");
	cgrules_free(r);
}

static void test_parse_errors(void)
{
	static const struct {
		const char *text, *msg;
	} cases[] = {
		{ "root cpu\n", "t.rules:1: a rule is USER[:PROCESS] CONTROLLERS DESTINATION" },
		{ "#\nroot cpu /a ignore\n",
		  "t.rules:2: more than three fields (options are not supported)" },
		{ "no-such-user-x cpu /a\n", "t.rules:1: no such user" },
		{ "@no-such-group-x cpu /a\n", "t.rules:1: no such group" },
		{ "% cpu /a\n", "t.rules:1: '%' continues a rule, and none comes before it" },
		{ "root cpu /a\n%:make cpu /b\n", "t.rules:2: '%' takes no process name" },
		{ "root: cpu /a\n", "t.rules:1: an empty process name (write USER or USER:*)" },
		{ "root:m*ke cpu /a\n", "t.rules:1: '*' may only end a process name" },
		{ "root cpu,,cpuset /a\n", "t.rules:1: an empty controller name" },
		{ "root cpu;x /a\n", "t.rules:1: a controller name is letters, digits and '_'" },
		{ "root cpu /users/%u\n",
		  "t.rules:1: templates (%u, %g, %p ...) are not supported" },
		{ "root cpu /a/../b\n", "t.rules:1: '.' and '..' are not allowed in a destination" },
		{ "root cpu ./a\n", "t.rules:1: '.' and '..' are not allowed in a destination" },
	};
	GError *err = NULL;

	for (unsigned i = 0; i < G_N_ELEMENTS(cases); i++) {
		g_assert_null(parse(cases[i].text, &err));
		g_assert_nonnull(err);
		g_assert_cmpstr(err->message, ==, cases[i].msg);
		g_clear_error(&err);
	}
	g_assert_null(cgrules_parse("t.rules", "root cpu /a\0x", 13, &err));
	g_assert_cmpstr(err->message, ==, "t.rules: a NUL byte in the text");
	g_clear_error(&err);
}

/* A reference outlives the free of the first: the thread that places a
 * process may still use the rules a reload replaced. */
static void test_ref(void)
{
	GError *err = NULL;
	struct cgrules *r = parse("root cpu /a\n", &err), *ref = cgrules_ref(r);

	cgrules_free(r);
	assert_placed(ref, 0, 0, "x", "/x", "1:cpu:/a");
	cgrules_free(ref);
}

static void write_file(const char *path, const char *text, mode_t mode)
{
	g_assert_true(g_file_set_contents(path, text, -1, NULL));
	g_assert_cmpint(chmod(path, mode), ==, 0);
}

/* Loading path is refused for what (path or its directory), saying why. */
static void assert_refused(const char *path, const char *what, const char *why)
{
	GError *err = NULL;
	char *want = g_strdup_printf("rules %s refused: %s", what, why);

	g_assert_null(cgrules_load(path, &err));
	g_assert_error(err, G_FILE_ERROR, G_FILE_ERROR_PERM);
	g_assert_cmpstr(err->message, ==, want);
	g_clear_error(&err);
	g_free(want);
}

static void test_load(void)
{
	char *dir = g_dir_make_tmp("test-cgrules-XXXXXX", NULL);
	char *good = g_build_filename(dir, "good", NULL), *link = g_build_filename(dir, "link", NULL);
	char *open_ = g_build_filename(dir, "open", NULL), *other = g_build_filename(dir, "other", NULL);
	char *missing = g_build_filename(dir, "missing", NULL);
	GError *err = NULL;
	char *dir_why;
	struct cgrules *r;

	g_assert_nonnull(dir);
	write_file(good, "root cpu /a\n", 0644);
	r = cgrules_load(good, &err);
	g_assert_no_error(err);
	g_assert_cmpuint(cgrules_count(r), ==, 1);
	cgrules_free(r);
	/* Not followed: the link, even to a good file. */
	g_assert_cmpint(symlink(good, link), ==, 0);
	assert_refused(link, link, "it is a symbolic link (name the file itself)");
	write_file(open_, "root cpu /a\n", 0646);
	assert_refused(open_, open_, "it is writable by its group or others");
	write_file(other, "root cpu /a\n", 0644);
	/* The tests run as root, who alone can give a file away. */
	g_assert_cmpint(chown(other, 1, 1), ==, 0);
	assert_refused(other, other, "it belongs to another user");
	g_assert_null(cgrules_load(missing, &err));
	g_assert_error(err, G_FILE_ERROR, G_FILE_ERROR_NOENT);
	g_clear_error(&err);
	/* The directory is checked too, with every one above it (lib/dirpath.c). */
	g_assert_cmpint(chmod(dir, 0777), ==, 0);
	g_assert_null(cgrules_load(good, &err));
	g_assert_error(err, G_FILE_ERROR, G_FILE_ERROR_PERM);
	dir_why = g_strdup_printf("a directory on the path of %s, %s, is writable by its group "
				  "and others: chmod go-w it, or choose another with -o rules=FILE",
				  good, dir);
	g_assert_cmpstr(err->message, ==, dir_why);
	g_clear_error(&err);
	g_free(dir_why);
	g_assert_cmpint(chmod(dir, 0700), ==, 0);

	for (const char *const *f = (const char *const[]){ good, link, open_, other, NULL }; *f; f++)
		g_unlink(*f);
	g_rmdir(dir);
	g_free(missing);
	g_free(other);
	g_free(open_);
	g_free(link);
	g_free(good);
	g_free(dir);
}

/* Whether process pid is listed in group id's cgroup.procs, waiting up to
 * 10 s for the engine's thread to put it there. */
static bool placed_in(struct env *e, uint64_t id, pid_t pid)
{
	for (int i = 0; i < 10000; i++) {
		if (lists(e, id, "cgroup.procs", pid))
			return true;
		g_usleep(1000);
	}
	return false;
}

/* Exec placement on the fake kernel: what the rules match (effective
 * ids, comm, exe) and the sticky mark are read through the facade of the
 * process that exec'd; the engine's thread places the execs in order. */
static void test_exec_placement(void)
{
	struct env e;
	struct cgrules *r = parse("*:sleep   *   /a\n"
				  "@daemon  *   /b\n", NULL);
	struct cgrules_engine *eng;
	const struct task_uids u1000 = { 1000, 1000, 1000, 1000 };
	uint64_t a, b;

	g_assert_nonnull(r);
	env_setup(&e);
	for (pid_t p = 100; p <= 500; p += 100)
		fake_kf_add_process(e.fk, p, 1);
	a = mkdir_ok(&e, e.top[0], "a");
	b = mkdir_ok(&e, e.top[0], "b");
	fake_kf_set_uids(e.fk, 200, &u1000);
	fake_kf_set_exec(e.fk, 100, 0, "sleep", "/usr/bin/sleep", "CGFUSED_STICKY=1");
	fake_kf_set_exec(e.fk, 200, 1, "bash", "/usr/bin/bash", NULL);
	fake_kf_set_exec(e.fk, 300, 0, "bash", "/usr/bin/bash", "CGFUSED_STICKY=0");
	fake_kf_set_exec(e.fk, 400, 0, "sleep", "/usr/bin/sleep", NULL);
	eng = cgrules_engine_new(e.core, r);
	cgrules_engine_start(eng);
	/* 500 execs and is gone before the engine looks at it. */
	fake_kf_exec(e.fk, 500);
	fake_kf_exit(e.fk, 500);
	for (pid_t p = 100; p <= 400; p += 100)
		fake_kf_exec(e.fk, p);
	/* The last exec's placement: those before it are done. */
	g_assert_true(placed_in(&e, a, 400));
	g_assert_true(lists(&e, b, "cgroup.procs", 200));	/* by its gid */
	g_assert_false(lists(&e, a, "cgroup.procs", 100));	/* sticky */
	g_assert_true(lists(&e, e.top[0], "cgroup.procs", 100));
	g_assert_true(lists(&e, e.top[0], "cgroup.procs", 300));	/* no rule */
	cgrules_engine_free(eng);
	env_teardown(&e);
}

/* A /proc/PID directory planted in dir: an exec of /bin/sleep whose
 * "stat" shows the code and stack bounds given. */
static void plant_proc(const char *dir, const char *layout)
{
	g_autofree char *status = g_build_filename(dir, "status", NULL);
	g_autofree char *comm = g_build_filename(dir, "comm", NULL);
	g_autofree char *stat = g_build_filename(dir, "stat", NULL);
	g_autofree char *exe = g_build_filename(dir, "exe", NULL);
	g_autofree char *line = g_strdup_printf("42 (sle) ep) R 1 42 42 0 -1 4194304 90 0 0 0 0 0 "
						"0 0 20 0 1 0 5000 8806400 200 "
						"18446744073709551615 %s 0 0 0 0 0 0 0 0 0 0 0 0 "
						"0 0 0 0 0 0 0 0 0 0 0 0\n", layout);

	g_assert_true(g_file_set_contents(status, "Name:\tsleep\nUid:\t0\t0\t0\t0\n"
					  "Gid:\t0\t0\t0\t0\n", -1, NULL));
	g_assert_true(g_file_set_contents(comm, "sleep\n", -1, NULL));
	g_assert_true(g_file_set_contents(stat, line, -1, NULL));
	(void)unlink(exe);
	g_assert_cmpint(symlink("/bin/sleep", exe), ==, 0);
}

static bool open_planted(const char *dir)
{
	struct exec_proc p;
	bool ok = kexec_proc_open_at(NULL, open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC), &p);

	if (ok) {
		g_assert_cmpstr(p.comm, ==, "sleep");
		g_assert_cmpstr(p.exe, ==, "/bin/sleep");
		kexec_proc_close(NULL, &p);
	}
	return ok;
}

/* A process looked at in the middle of an exec has its new name and exe,
 * and an empty environment (no sticky mark): not to be placed then, its
 * exec's own report follows. Once done (its code's bounds set), or to a
 * reader not allowed to see the bounds (1 1 0), it is. */
static void test_exec_proc_mid_exec(void)
{
	g_autofree char *dir = g_dir_make_tmp("cgrules-proc-XXXXXX", NULL);

	g_assert_nonnull(dir);
	plant_proc(dir, "0 0 0");
	g_assert_false(open_planted(dir));
	plant_proc(dir, "0 0 140736763321424");	/* its stack placed already */
	g_assert_false(open_planted(dir));
	plant_proc(dir, "94891252772864 94891252792745 140736763321424");
	g_assert_true(open_planted(dir));
	plant_proc(dir, "1 1 0");
	g_assert_true(open_planted(dir));
	g_assert_false(kexec_proc_open_at(NULL, -1, &(struct exec_proc){ 0 }));
	for (const char *const *f = (const char *const[]){ "status", "comm", "stat", "exe", NULL };
	     *f; f++) {
		g_autofree char *path = g_build_filename(dir, *f, NULL);

		g_assert_cmpint(unlink(path), ==, 0);
	}
	g_assert_cmpint(rmdir(dir), ==, 0);
}

int main(int argc, char *argv[])
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/cgrules/parse-and-match", test_parse_and_match);
	g_test_add_func("/cgrules/parse-errors", test_parse_errors);
	g_test_add_func("/cgrules/ref", test_ref);
	g_test_add_func("/cgrules/load", test_load);
	g_test_add_func("/cgrules/exec-placement", test_exec_placement);
	g_test_add_func("/cgrules/exec-proc-mid-exec", test_exec_proc_mid_exec);
	return g_test_run();
}
