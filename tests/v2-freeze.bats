#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# v2's freezer (-o unified) on real processes, as the kernel's
# /sys/fs/cgroup/unified answered (docs/kernel-oracle.md, section 9):
# cgroup.freeze 1 stops every thread of the subtree, forked or moved in
# meanwhile too, and a thread moved out runs; 0 thaws unless an ancestor
# freezes; cgroup.events says frozen 1 once every thread is stopped, and
# poll() wakes on each change; job control does not see it; nothing stays
# frozen after the daemon stops or dies, and a restart freezes again.

load helpers
load freezer-helpers

setup() {
	cg_setup
	STATE=$CG_TMP/s.state
	cg_mount_v2 -o "state=$STATE"
	mkdir -p "$MNT/a/b"
}

teardown() {
	cg_teardown
}

# wait_frozen GROUP 0|1: cgroup.events says frozen 0|1 within 20 s.
wait_frozen() {
	cg_wait_for -x "$1/cgroup.events" "frozen $2"
}

# freeze GROUP (for freezer-helpers.bash): cgroup.freeze 1, and
# cgroup.events says frozen 1.
freeze() {
	echo 1 >"$1/cgroup.freeze"
	wait_frozen "$1" 1
}

@test "cgroup.freeze: the kernel's parsing; reads what was written, not what an ancestor says" {
	cg_expect "$MNT/a/cgroup.freeze" '' '2' "$E_RANGE" 0
	cg_expect "$MNT/a/cgroup.freeze" '' '-1' "$E_RANGE" 0
	cg_expect "$MNT/a/cgroup.freeze" '' 'x' "$E_INVAL" 0
	cg_expect "$MNT/a/cgroup.freeze" '' ' 1 ' ok 1
	cg_expect_done
	assert_equal "$(<"$MNT/a/b/cgroup.freeze")" 0
	# Empty groups are frozen at once, below too (and a new one).
	wait_frozen "$MNT/a" 1
	wait_frozen "$MNT/a/b" 1
	mkdir "$MNT/a/c"
	wait_frozen "$MNT/a/c" 1
	echo 0 >"$MNT/a/cgroup.freeze"
	wait_frozen "$MNT/a" 0
	wait_frozen "$MNT/a/c" 0
}

@test "1 stops every thread of the subtree until 0; cgroup.events says frozen 1, then 0" {
	local p q
	cg_busy p
	cg_busy q
	echo "$p" >"$MNT/a/cgroup.procs"
	echo "$q" >"$MNT/a/b/cgroup.procs"
	assert_runs "$p"
	assert_equal "$(<"$MNT/a/cgroup.events")" $'populated 1\nfrozen 0'
	echo 1 >"$MNT/a/cgroup.freeze"
	wait_frozen "$MNT/a" 1
	wait_frozen "$MNT/a/b" 1
	assert_frozen "$p"
	assert_frozen "$q"
	run grep '^freezer_frozen_threads' "$MNT/cgfused.stat"
	assert_output "freezer_frozen_threads 2"
	# 0 below a frozen ancestor thaws nothing.
	echo 0 >"$MNT/a/b/cgroup.freeze"
	assert_frozen "$q"
	grep -qx 'frozen 1' "$MNT/a/b/cgroup.events"
	# The subgroup frozen itself stays so when the ancestor thaws.
	echo 1 >"$MNT/a/b/cgroup.freeze"
	echo 0 >"$MNT/a/cgroup.freeze"
	wait_frozen "$MNT/a" 0
	assert_runs "$p"
	assert_frozen "$q"
	grep -qx 'frozen 1' "$MNT/a/b/cgroup.events"
	echo 0 >"$MNT/a/b/cgroup.freeze"
	wait_frozen "$MNT/a/b" 0
	assert_runs "$q"
}

@test "poll() on cgroup.events wakes when frozen changes" {
	local p w
	cg_sleeper p
	echo "$p" >"$MNT/a/cgroup.procs"
	cg_events_poller "$MNT/a/cgroup.events" "$CG_TMP/poll" 1
	w=$CG_POLLER
	cg_wait_for "$CG_TMP/poll" 'read frozen 0'
	echo 1 >"$MNT/a/cgroup.freeze"
	cg_wait_for "$CG_TMP/poll" 'read frozen 1'
	echo 0 >"$MNT/a/cgroup.freeze"
	wait "$w"
	run cat "$CG_TMP/poll"
	assert_output $'read frozen 0\nwoke 10\nread frozen 1\nwoke 10\nread frozen 0'
}

# The kernel's cgroup_freeze() notifies a change an ancestor's freeze
# leaves without effect (its test_freezer "tree" case waits for it).
@test "a change of cgroup.freeze under a frozen ancestor wakes the group's pollers" {
	local w
	freeze "$MNT/a"
	wait_frozen "$MNT/a/b" 1
	cg_events_poller "$MNT/a/b/cgroup.events" "$CG_TMP/poll" 1
	w=$CG_POLLER
	cg_wait_for "$CG_TMP/poll" 'read frozen 1'
	echo 1 >"$MNT/a/b/cgroup.freeze"
	cg_wait_for "$CG_TMP/poll" 'woke'
	echo 0 >"$MNT/a/b/cgroup.freeze"
	wait "$w"
	run cat "$CG_TMP/poll"
	assert_output $'read frozen 1\nwoke 10\nread frozen 1\nwoke 10\nread frozen 1'
}

@test "threads forked or moved in freeze; a thread moved out runs" {
	local p q f tid n
	frozen_busy p "$MNT/a"
	cg_busy q
	echo "$q" >"$MNT/a/b/cgroup.procs"
	wait_frozen "$MNT/a/b" 1
	assert_frozen "$q"
	echo "$p" >"$MNT/cgroup.procs"
	assert_runs "$p"
	wait_frozen "$MNT/a" 1
	# A shell that forks a child every few ms (bounded: 400 at most),
	# frozen while it forks.
	bash -c 'for ((i = 0; i < 400; i++)); do sleep 100 & sleep 0.005; done; wait' \
		>/dev/null 2>&1 3>&- &
	f=$!
	CG_HELPERS+=("$f")
	echo "$f" >"$MNT/a/cgroup.procs"
	wait_frozen "$MNT/a" 1
	n=$(wc -l <"$MNT/a/cgroup.threads")
	for tid in $(<"$MNT/a/cgroup.threads"); do
		CG_HELPERS+=("$tid")	# the children go with the shell
		[[ $(state "$tid") == t ]] || { echo "$tid: $(state "$tid")" >&2; return 1; }
	done
	passes_later 2
	assert_equal "$(wc -l <"$MNT/a/cgroup.threads")" "$n"
}

@test "a SIGCONT does not thaw, and a frozen shell job is not Stopped" {
	freeze_job() {
		echo "$1" >"$MNT/a/cgroup.procs"
		freeze "$MNT/a"
		kill -CONT "$1"
		assert_frozen "$1"
	}
	job_shell freeze_job
	run cat "$CG_TMP/jobs"
	assert_output --regexp "$JOB Running"
}

@test "the daemon's stop thaws every thread" {
	local p
	frozen_busy p "$MNT/a"
	fusermount3 -u "$MNT"
	cg_wait_gone "$CG_PID"
	assert_runs "$p"
}

@test "kill -9 of the daemon leaves nothing frozen; a restart with the state freezes again" {
	local p
	frozen_busy p "$MNT/a"
	kill -KILL "$CG_PID"
	cg_wait_gone "$CG_PID"
	assert_runs "$p"
	cg_mount_v2 -o "state=$STATE"
	assert_equal "$(<"$MNT/a/cgroup.freeze")" 1
	wait_frozen "$MNT/a" 1
	assert_frozen "$p"
	echo 0 >"$MNT/a/cgroup.freeze"
	wait_frozen "$MNT/a" 0
	assert_runs "$p"
}
