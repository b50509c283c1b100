#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# The short soak (docs/soak.md): run-soak mounts its own cgfused on its own
# temporary directory, runs workers, a fork storm and faults, checks the
# invariants and cleans up after itself, whatever happens. The long one is
# `make soak` (300 s).

load helpers

FORK_STORM=${FORK_STORM:-$(dirname "$CGFUSED")/../tests/soak/fork-storm}

soak() {
	"$CG_PYTHON" "$TESTS_SRCDIR/soak/run-soak" --cgfused "$CGFUSED" \
		--fork-storm "$FORK_STORM" "$@" 3>&-
}

# has_state: cgfused can keep its state across a kill -9 (--state=FILE).
has_state() {
	"$CGFUSED" --help 2>&1 | grep -q -- --state
}

@test "a 20 s soak with client kills loses nothing and keeps the invariants" {
	[[ -x $FORK_STORM ]]
	run soak --seconds 20 --warmup 3 --fault-every 6 --verbose
	echo "$output"
	assert_success
	assert_line --regexp '^lost changes +0$'
	assert_line --regexp '^faults .*client kills [1-9]'
	if has_state; then
		assert_line --regexp '^faults .*daemon restarts [1-9]'
	else
		assert_line --partial 'off: cgfused has no --state'
	fi
	assert_line --regexp '^fork storms +[1-9][0-9]*: .* missing 0, stale 0'
	assert_line --regexp '^invariants +[^F]*$'
	assert_line --regexp '^idle sched calls +0 '
	assert_line 'result            PASS'
}

# The checker can fail: a restart that forgets the state (without a state
# file) must show up as lost acknowledged changes.
@test "a daemon restart without its state is counted as lost changes" {
	run soak --seconds 8 --warmup 1 --idle 0.5 --fault-every 2.5 --forget-state \
		--fork-storm /nonexistent
	echo "$output"
	assert_failure
	assert_line --regexp '^faults .*daemon restarts [1-9]'
	assert_line --regexp '^lost changes +[1-9][0-9]* \(state forgotten on purpose\)$'
	assert_line 'result            FAIL'
}
