/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A failure said once, then counted (src/lib/failcount.c). */
#include "lib/failcount.h"

/* Fails n times, expecting warnings only at 1, 10, 100, ... */
static void fail_times(struct failcount *fc, guint from, guint to)
{
	for (guint n = from; n <= to; n++) {
		if (n == 1)
			g_test_expect_message(G_LOG_DOMAIN, G_LOG_LEVEL_WARNING,
					      "agent: ENOENT (said once; repeats are counted)");
		else if (n == 10 || n == 100 || n == 1000)
			g_test_expect_message(G_LOG_DOMAIN, G_LOG_LEVEL_WARNING,
					      "agent: ENOENT (* times in a row)");
		failcount_fail(fc, "agent: %s", "ENOENT");
		g_test_assert_expected_messages();
	}
}

static void test_said_once_then_counted(void)
{
	struct failcount fc = { 0 };

	fail_times(&fc, 1, 1000);
	g_test_expect_message(G_LOG_DOMAIN, G_LOG_LEVEL_MESSAGE,
			      "agent works again, after 1000 failures");
	failcount_ok(&fc, "agent");
	g_test_assert_expected_messages();
	/* A success after a success says nothing; the count starts over. */
	failcount_ok(&fc, "agent");
	fail_times(&fc, 1, 10);
	g_test_expect_message(G_LOG_DOMAIN, G_LOG_LEVEL_MESSAGE,
			      "agent works again, after 10 failures");
	failcount_ok(&fc, "agent");
	g_test_assert_expected_messages();
	fail_times(&fc, 1, 1);
	g_test_expect_message(G_LOG_DOMAIN, G_LOG_LEVEL_MESSAGE,
			      "agent works again, after 1 failure");
	failcount_ok(&fc, "agent");
	g_test_assert_expected_messages();
}

int main(int argc, char *argv[])
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/failcount/said-once-then-counted", test_said_once_then_counted);
	return g_test_run();
}
