/* SPDX-License-Identifier: GPL-2.0-or-later */
/* JSON strings (see top_json.h). */
#include "tools/top_json.h"

void json_string(GString *out, const char *s)
{
	char *valid = g_utf8_make_valid(s, -1);

	g_string_append_c(out, '"');
	for (const unsigned char *p = (const unsigned char *)valid; *p; p++) {
		if (*p == '"' || *p == '\\')
			g_string_append_printf(out, "\\%c", *p);
		else if (*p < 0x20 || *p == 0x7f)
			g_string_append_printf(out, "\\u%04x", *p);
		else
			g_string_append_c(out, (char)*p);
	}
	g_string_append_c(out, '"');
	g_free(valid);
}

void json_value(GString *out, const char *value)
{
	if (g_regex_match_simple("^-?[0-9]+(\\.[0-9]+)?$", value, 0, 0))
		g_string_append(out, value);
	else
		json_string(out, value);
}
