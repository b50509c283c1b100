/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Reading, parsing and matching the rules file (see config/cgrules.h). */
#include "config/cgrules.h"

#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <string.h>

#include "config/conf.h"

enum who { WHO_ANY, WHO_USER, WHO_GROUP, WHO_DITTO };

struct rule {
	enum who who;
	uid_t uid;		/* WHO_USER */
	gid_t gid;		/* WHO_GROUP */
	GArray *members;	/* WHO_GROUP: uid_t of the users it lists */
	char *process;		/* NULL: any */
	bool prefix;		/* process ended with '*' (stripped) */
	struct cgrules_target target;
};

struct cgrules {
	GPtrArray *rules;	/* struct rule *, in file order */
};

static void rule_free(gpointer p)
{
	struct rule *r = p;

	if (r->members)
		g_array_unref(r->members);
	g_free(r->process);
	g_strfreev(r->target.controllers);
	g_free(r->target.path);
	g_free(r);
}

static void rules_clear(gpointer p)
{
	struct cgrules *rules = p;

	g_ptr_array_unref(rules->rules);
}

struct cgrules *cgrules_ref(struct cgrules *rules)
{
	return g_atomic_rc_box_acquire(rules);
}

void cgrules_free(struct cgrules *rules)
{
	if (rules)
		g_atomic_rc_box_release_full(rules, rules_clear);
}

unsigned cgrules_count(const struct cgrules *rules)
{
	return rules->rules->len;
}

/* The user field: NULL, or why it is wrong. */
static const char *parse_who(struct rule *r, const char *who)
{
	if (strcmp(who, "*") == 0) {
		r->who = WHO_ANY;
	} else if (strcmp(who, "%") == 0) {
		r->who = WHO_DITTO;
	} else if (who[0] == '@') {
		struct group *gr = getgrnam(who + 1);

		if (!gr)
			return "no such group";
		r->who = WHO_GROUP;
		r->gid = gr->gr_gid;
		r->members = g_array_new(FALSE, FALSE, sizeof(uid_t));
		for (char **m = gr->gr_mem; *m; m++) {
			struct passwd *pw = getpwnam(*m);

			if (pw)
				g_array_append_val(r->members, pw->pw_uid);
		}
	} else {
		struct passwd *pw = getpwnam(who);

		if (!pw)
			return "no such user";
		r->who = WHO_USER;
		r->uid = pw->pw_uid;
	}
	return NULL;
}

static const char *parse_process(struct rule *r, const char *process)
{
	size_t len = strlen(process);

	if (!len)
		return "an empty process name (write USER or USER:*)";
	if (strcmp(process, "*") == 0)
		return NULL;
	r->prefix = process[len - 1] == '*';
	r->process = g_strndup(process, len - r->prefix);
	if (strchr(r->process, '*'))
		return "'*' may only end a process name";
	return NULL;
}

static const char *parse_controllers(struct rule *r, const char *list)
{
	if (strcmp(list, "*") == 0)
		return NULL;
	r->target.controllers = g_strsplit(list, ",", -1);
	for (char **c = r->target.controllers; *c; c++) {
		if (!**c)
			return "an empty controller name";
		for (const char *p = *c; *p; p++)
			if (!g_ascii_isalnum(*p) && *p != '_')
				return "a controller name is letters, digits and '_'";
	}
	return NULL;
}

/* "a/b/", "/a//b" -> "/a/b"; "/" stays. Nothing that leads elsewhere. */
static const char *parse_path(struct rule *r, const char *path)
{
	char **parts = g_strsplit(path, "/", -1);
	GString *norm = g_string_new(NULL);
	const char *why = NULL;

	if (strchr(path, '%'))
		why = "templates (%u, %g, %p ...) are not supported";
	for (char **p = parts; !why && *p; p++) {
		if (!**p)
			continue;
		if (strcmp(*p, ".") == 0 || strcmp(*p, "..") == 0)
			why = "'.' and '..' are not allowed in a destination";
		g_string_append_printf(norm, "/%s", *p);
	}
	g_strfreev(parts);
	if (!norm->len)
		g_string_append_c(norm, '/');
	r->target.path = g_string_free(norm, FALSE);
	return why;
}

/* One rule from its fields; NULL and *why if one is wrong. */
static struct rule *parse_rule(char **fields, int line, const char **why)
{
	struct rule *r = g_new0(struct rule, 1);
	char *colon = strchr(fields[0], ':');

	r->target.line = line;
	if (colon)
		*colon = '\0';
	if (!(*why = parse_who(r, fields[0])) && colon)
		*why = r->who == WHO_DITTO ? "'%' takes no process name"
					   : parse_process(r, colon + 1);
	if (!*why)
		*why = parse_controllers(r, fields[1]);
	if (!*why)
		*why = parse_path(r, fields[2]);
	if (*why)
		g_clear_pointer(&r, rule_free);
	return r;
}

struct cgrules *cgrules_parse(const char *path, const char *text, gsize len, GError **err)
{
	struct cgrules *rules = g_atomic_rc_box_new0(struct cgrules);
	char **lines;
	int n = 0;

	rules->rules = g_ptr_array_new_with_free_func(rule_free);
	if (memchr(text, '\0', len)) {
		g_set_error(err, G_FILE_ERROR, G_FILE_ERROR_INVAL, "%s: a NUL byte in the text",
			    path);
		cgrules_free(rules);
		return NULL;
	}
	lines = g_strsplit(text, "\n", -1);
	for (char **l = lines; *l; l++) {
		char *s = g_strstrip(*l), **fields;
		const char *why = NULL;
		struct rule *r = NULL;
		guint nf;

		n++;
		if (!*s || *s == '#')
			continue;
		fields = g_regex_split_simple("[ \t]+", s, 0, 0);
		nf = g_strv_length(fields);
		if (nf != 3)
			why = nf < 3 ? "a rule is USER[:PROCESS] CONTROLLERS DESTINATION"
				     : "more than three fields (options are not supported)";
		else if ((r = parse_rule(fields, n, &why)) && r->who == WHO_DITTO &&
			 !rules->rules->len)
			why = "'%' continues a rule, and none comes before it";
		g_strfreev(fields);
		if (why) {
			g_set_error(err, G_FILE_ERROR, G_FILE_ERROR_INVAL, "%s:%d: %s", path, n, why);
			if (r)
				rule_free(r);
			g_strfreev(lines);
			cgrules_free(rules);
			return NULL;
		}
		g_ptr_array_add(rules->rules, r);
	}
	g_strfreev(lines);
	return rules;
}

struct cgrules *cgrules_load(const char *path, GError **err)
{
	gsize len;
	char *text = conf_read_checked(path, "rules", &len, err);
	struct cgrules *rules = text ? cgrules_parse(path, text, len, err) : NULL;

	g_free(text);
	return rules;
}

static bool who_matches(const struct rule *r, const struct cgrules_proc *p)
{
	switch (r->who) {
	case WHO_ANY:
		return true;
	case WHO_USER:
		return r->uid == p->uid;
	case WHO_GROUP:
		if (r->gid == p->gid)
			return true;
		for (guint i = 0; i < r->members->len; i++)
			if (g_array_index(r->members, uid_t, i) == p->uid)
				return true;
		return false;
	case WHO_DITTO:
		break;
	}
	return false;
}

static bool name_matches(const struct rule *r, const char *name)
{
	return r->prefix ? g_str_has_prefix(name, r->process) : strcmp(name, r->process) == 0;
}

/* A name with a '/' is the executable's path; else its base name or the
 * command name (a script's own name: the kernel names it so). */
static bool process_matches(const struct rule *r, const struct cgrules_proc *p)
{
	const char *base = strrchr(p->exe, '/');

	if (!r->process)
		return true;
	if (strchr(r->process, '/'))
		return name_matches(r, p->exe);
	return name_matches(r, base ? base + 1 : p->exe) || name_matches(r, p->comm);
}

void cgrules_for_each_root_target(const struct cgrules *rules,
				  void (*fn)(void *data, const struct cgrules_target *t), void *data)
{
	static const struct cgrules_proc root = { 0, 0, "", "" };
	bool for_root = false;

	for (guint i = 0; i < rules->rules->len; i++) {
		struct rule *r = rules->rules->pdata[i];

		if (r->who != WHO_DITTO)
			for_root = who_matches(r, &root);
		if (for_root)
			fn(data, &r->target);
	}
}

GPtrArray *cgrules_match(const struct cgrules *rules, const struct cgrules_proc *p)
{
	GPtrArray *out = g_ptr_array_new();
	bool matched = false;

	for (guint i = 0; i < rules->rules->len; i++) {
		struct rule *r = rules->rules->pdata[i];

		if (matched && r->who != WHO_DITTO)
			break;
		if (matched || (r->who != WHO_DITTO && who_matches(r, p) && process_matches(r, p))) {
			matched = true;
			g_ptr_array_add(out, &r->target);
		}
	}
	return out;
}
