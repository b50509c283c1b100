#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# The freezer on real processes: FROZEN stops every thread of
# the group (its CPU time stops growing) until THAWED; threads forked or
# moved in freeze, one moved out runs; the stop is a ptrace-stop, which a
# SIGCONT does not end and a shell does not see as Stopped; no thread stays
# frozen after the daemon stops or is killed, and a restart with the state
# freezes the group again.

load helpers
load freezer-helpers

setup() {
	cg_setup
	STATE=$CG_TMP/s.state
	cg_mount -o "state=$STATE"
	mkdir "$MNT/g"
}

teardown() {
	cg_teardown
}

# wait_state GROUP STATE: freezer.state reads STATE within 20 s.
wait_state() {
	cg_poll_until -x "$2" cat "$1/freezer.state"
}

# freeze GROUP (for freezer-helpers.bash): FROZEN, and freezer.state
# reads it.
freeze() {
	echo FROZEN >"$1/freezer.state"
	wait_state "$1" FROZEN
}

@test "freezer files: formats, modes, the kernel's errors; none in the root" {
	cg_require_root_user "root opens a read-only file for writing"
	run ls "$MNT"
	refute_output --partial freezer.
	run stat -c '%a %n' "$MNT/g/freezer.state" "$MNT/g/freezer.self_freezing" \
		"$MNT/g/freezer.parent_freezing"
	assert_output "644 $MNT/g/freezer.state
444 $MNT/g/freezer.self_freezing
444 $MNT/g/freezer.parent_freezing"
	mkdir "$MNT/g/c"
	cg_expect_read "$MNT/g/freezer.state" THAWED
	cg_expect "$MNT/g/freezer.state" '' FREEZING "$E_INVAL" THAWED
	cg_expect "$MNT/g/freezer.state" '' ' frozen ' "$E_INVAL" THAWED
	cg_expect "$MNT/g/freezer.state" '' 'FROZEN\n\n' ok FROZEN
	cg_expect_read "$MNT/g/c/freezer.state" FROZEN
	cg_expect_read "$MNT/g/c/freezer.parent_freezing" 1
	cg_expect_read "$MNT/g/c/freezer.self_freezing" 0
	cg_expect "$MNT/g/c/freezer.state" '' THAWED ok FROZEN
	cg_expect "$MNT/g/c/freezer.state" '' 'FROZEN\x00x' ok FROZEN
	cg_expect "$MNT/g/freezer.state" '' THAWED ok THAWED
	cg_expect_read "$MNT/g/c/freezer.state" FROZEN
	cg_expect_read "$MNT/g/c/freezer.self_freezing" 1
	cg_expect_read "$MNT/g/c/freezer.parent_freezing" 0
	cg_expect "$MNT/g/freezer.self_freezing" '' 1 "$E_INVAL" 0
	cg_expect_done
	# A frozen empty group is removed as any other.
	rmdir "$MNT/g/c"
}

@test "FROZEN stops every thread of a busy group until THAWED" {
	local a b
	cg_busy a
	cg_busy b
	echo "$a" >"$MNT/g/cgroup.procs"
	echo "$b" >"$MNT/g/cgroup.procs"
	assert_runs "$a"
	freeze "$MNT/g"
	assert_frozen "$a"
	assert_frozen "$b"
	run grep '^freezer_frozen_threads' "$MNT/cgfused.stat"
	assert_output "freezer_frozen_threads 2"
	echo THAWED >"$MNT/g/freezer.state"
	assert_equal "$(<"$MNT/g/freezer.state")" THAWED
	assert_runs "$a"
	assert_runs "$b"
	run grep '^freezer_frozen_threads' "$MNT/cgfused.stat"
	assert_output "freezer_frozen_threads 0"
}

@test "a frozen group's subgroups freeze; a thread moved in freezes, one moved out runs" {
	local a b
	cg_busy a
	cg_busy b
	mkdir "$MNT/g/sub"
	echo "$a" >"$MNT/g/sub/cgroup.procs"
	freeze "$MNT/g"
	assert_frozen "$a"
	assert_runs "$b"
	echo "$b" >"$MNT/g/cgroup.procs"
	wait_state "$MNT/g" FROZEN
	assert_frozen "$b"
	echo "$a" >"$MNT/cgroup.procs"
	assert_runs "$a"
	assert_frozen "$b"
}

@test "children forked while the group freezes are frozen too" {
	local p tid n
	# A shell that forks a child every few ms (bounded: 400 at most).
	bash -c 'for ((i = 0; i < 400; i++)); do sleep 100 & sleep 0.005; done; wait' \
		>/dev/null 2>&1 3>&- &
	p=$!
	CG_HELPERS+=("$p")
	echo "$p" >"$MNT/g/cgroup.procs"
	cg_poll_until -ge 3 grep -c . "$MNT/g/tasks"
	freeze "$MNT/g"
	n=$(wc -l <"$MNT/g/tasks")
	for tid in $(<"$MNT/g/tasks"); do
		[[ $(state "$tid") == t ]] || { echo "$tid: $(state "$tid")" >&2; return 1; }
	done
	# Two passes later (each takes in the kernel's reports first), no
	# child came.
	passes_later 2
	assert_equal "$(wc -l <"$MNT/g/tasks")" "$n"
	# The children go with the shell (not ours to leave behind).
	for tid in $(<"$MNT/g/tasks"); do
		CG_HELPERS+=("$tid")
	done
}

freeze_job() {
	echo "$1" >"$MNT/g/cgroup.procs"
	freeze "$MNT/g"
	kill -CONT "$1"
	assert_frozen "$1"
}

@test "a SIGCONT does not thaw, and a frozen shell job is not Stopped (as SIGSTOP's is)" {
	job_shell freeze_job
	run cat "$CG_TMP/jobs"
	assert_output --regexp "$JOB Running"
	# The same shell sees SIGSTOP's stop: the check above can tell.
	job_shell stop_job
	run cat "$CG_TMP/jobs"
	assert_output --regexp "$JOB Stopped"
}

# freezing_traced: a busy loop of user 1234 (its PID in A) that root's
# strace (its PID in T) holds, in g, which is told FROZEN: the daemon has
# found it cannot stop it (ptrace allows one tracer, and user 1234 could
# not stop root's tracer to hold the loop with its help). The ptrace
# source cannot follow a thread another tracer has: there the move fails
# with EBUSY, the loop stays in the root, and REFUSED is set. Without
# CAP_SYS_NICE the daemon may not manage another user's loop at all: that
# refusal (EACCES) comes first, before the hold that would find the tracer.
freezing_traced() {
	local busy=$E_BUSY
	cg_has_cap sys_nice || busy=$E_ACCES
	setpriv --reuid=1234 --regid=1234 --clear-groups "$CG_PYTHON" -c 'while True: pass' \
		>/dev/null 2>&1 3>&- &
	A=$!
	CG_HELPERS+=("$A")
	cg_poll_until -x 1234 awk '/^Uid:/ { print $2 }' "/proc/$A/status"
	strace -qq -e trace=none -p "$A" >/dev/null 2>&1 3>&- &
	T=$!
	CG_HELPERS+=("$T")
	cg_wait_for "/proc/$A/status" "^TracerPid:[[:space:]]*$T\$"
	if [[ $(cg_watch_source) == ptrace ]]; then
		assert_equal "$(cg_write "$MNT/g/cgroup.procs" "$A")" "$busy"
		run grep -qx "$A" "$MNT/g/cgroup.procs"
		assert_failure
		REFUSED=1
		return
	fi
	echo "$A" >"$MNT/g/cgroup.procs"
	echo FROZEN >"$MNT/g/freezer.state"
	cg_poll_until -x "freezer_refused_threads 1" grep '^freezer_refused_threads' "$MNT/cgfused.stat"
}

@test "a thread another user's tracer holds is not frozen: the group stays FREEZING until it can be" {
	cg_require_root_user "a busy loop of user 1234 under root's strace"
	local A T a t REFUSED=
	freezing_traced
	[[ -z $REFUSED ]] || return 0	# ptrace: the move is refused (above)
	a=$A t=$T
	assert_equal "$(<"$MNT/g/freezer.state")" FREEZING
	assert_runs "$a"
	kill -INT "$t"	# strace lets go
	cg_wait_gone "$t"
	wait_state "$MNT/g" FROZEN
	assert_frozen "$a"
}

# The kernel counts a parent waiting in vfork() frozen (its wait is
# freezable); no ptrace stop can end that wait.
@test "a process waiting in vfork() for its child counts as frozen" {
	local p c st=0
	# env execs it: its pid is $! (LeakSanitizer off: cg_no_lsan).
	env ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
		"$VFORK_WAIT" "$MNT/g/cgroup.procs" >/dev/null 2>&1 3>&- &
	p=$!
	CG_HELPERS+=("$p")
	cg_poll_until grep -q . "/proc/$p/task/$p/children"
	c=$(<"/proc/$p/task/$p/children")
	c=${c% }
	CG_HELPERS+=("$c")
	cg_poll_until -m '^(kernel_clone|wait_for_vfork_done)$' cat "/proc/$p/wchan"
	run cat "$MNT/g/cgroup.procs"
	assert_output "$p
$c"
	freeze "$MNT/g"
	assert_frozen "$c"
	assert_equal "$(state "$p")" D
	echo THAWED >"$MNT/g/freezer.state"
	kill "$c"
	wait "$p" || st=$?
	assert_equal "$st" 0
}

# The state keeps what was asked (FROZEN), not what freezer.state shows
# meanwhile (FREEZING, which a write refuses), nor an ancestor's freeze.
@test "a group FREEZING at a snapshot comes back FROZEN; a child frozen by its parent only by it" {
	cg_require_root_user "a busy loop of user 1234 under root's strace"
	local A T a t REFUSED=
	mkdir "$MNT/g/c"
	freezing_traced
	[[ -z $REFUSED ]] || return 0	# ptrace: the move is refused (above)
	a=$A t=$T
	assert_equal "$(<"$MNT/g/freezer.state")" FREEZING
	# A clean stop: a snapshot of it, and an empty log.
	fusermount3 -u "$MNT"
	cg_wait_gone "$CG_PID"
	kill -INT "$t"
	cg_wait_gone "$t"
	cg_mount -o "state=$STATE"
	wait_state "$MNT/g" FROZEN
	assert_frozen "$a"
	assert_equal "$(<"$MNT/g/c/freezer.self_freezing")" 0
	assert_equal "$(<"$MNT/g/c/freezer.parent_freezing")" 1
	echo THAWED >"$MNT/g/freezer.state"
	assert_equal "$(<"$MNT/g/c/freezer.state")" THAWED
	assert_runs "$a"
}

@test "a child its own parent traces (PTRACE_TRACEME) freezes; after the thaw it runs" {
	local tm p c
	cg_traceme "$MNT/g" tm --pass
	[[ -n $tm ]] || return 0	# ptrace: no PTRACE_TRACEME (cg_traceme)
	read -r p c <<<"$tm"
	freeze "$MNT/g"
	assert_frozen "$c"
	assert_frozen "$p"
	echo THAWED >"$MNT/g/freezer.state"
	wait_state "$MNT/g" THAWED
	# Its tracer saw a SIGSTOP and passed it on: it does not stop.
	cg_poll_until -m '^[^tT]$' state "$c"
	assert_runs "$c"
}

@test "a traced child whose tracer left the group freezes, its tracer held until the thaw" {
	local tm p c
	cg_traceme "$MNT/g" tm
	[[ -n $tm ]] || return 0	# ptrace: no PTRACE_TRACEME (cg_traceme)
	read -r p c <<<"$tm"
	echo "$p" >"$MNT/cgroup.procs"
	freeze "$MNT/g"
	assert_frozen "$c"
	assert_equal "$(state "$p")" t
	echo THAWED >"$MNT/g/freezer.state"
	wait_state "$MNT/g" THAWED
	cg_poll_until -m '^[^tT]$' state "$p"
	cg_poll_until -m '^[^tT]$' state "$c"
	assert_runs "$c"
}

# The kernel lets the daemon's tracees go when its tracer thread ends, but
# a thread strace holds was stopped with SIGSTOP (strace held meanwhile):
# only the enforcement thread's give-back, a SIGCONT before strace is let
# go, keeps strace from passing the stop on for good.
@test "the daemon's stop lets a frozen thread that strace traces run again" {
	local a t
	cg_busy a
	strace -qq -e trace=none -p "$a" >/dev/null 2>&1 3>&- &
	t=$!
	CG_HELPERS+=("$t")
	cg_wait_for "/proc/$a/status" "^TracerPid:[[:space:]]*$t\$"
	if [[ $(cg_watch_source) == ptrace ]]; then
		return 0	# the move is refused (freezing_traced)
	fi
	# Let go after strace's own stop at its attach (held in that one,
	# the loop would need no SIGSTOP).
	cg_poll_until -m '^[^tT]$' state "$a"
	echo "$a" >"$MNT/g/cgroup.procs"
	freeze "$MNT/g"
	assert_frozen "$a"
	fusermount3 -u "$MNT"
	cg_wait_gone "$CG_PID"
	cg_poll_until -m '^[^tT]$' state "$a"
	assert_runs "$a"
}

# A signal sent while frozen waits (the kernel delivers it once the stop
# ends, whoever ends it).
@test "a frozen shell runs no USR1 trap while frozen, and runs it once the daemon is unmounted" {
	local b
	bash --norc -c "trap 'echo usr1 >>$CG_TMP/got' USR1; while :; do sleep 0.05; done" \
		>/dev/null 2>&1 3>&- &
	b=$!
	CG_HELPERS+=("$b")
	# Its trap is set (SigCgt has SIGUSR1, bit 9) before it is frozen:
	# a USR1 before it would kill the shell.
	cg_poll_until -m '^SigCgt:.*[2367abef][0-9a-f]{2}$' grep '^SigCgt' "/proc/$b/status"
	echo "$b" >"$MNT/g/cgroup.procs"
	freeze "$MNT/g"
	kill -USR1 "$b"
	# Delivered and waiting: SIGUSR1 (bit 9) in its pending set.
	cg_poll_until -m '[2367abef][0-9a-f]{2}$' awk '/^ShdPnd:/ { print $2 }' "/proc/$b/status"
	[[ ! -e $CG_TMP/got ]] || { echo "the frozen shell ran its trap" >&2; return 1; }
	fusermount3 -u "$MNT"
	cg_wait_for "$CG_TMP/got" usr1
}

# The kernel's v1 freezer holds SIGKILL until the thaw; a ptrace-stop does
# not (cgfused(8), FREEZING).
@test "SIGKILL kills a frozen thread, and its parent reaps it" {
	local a
	frozen_busy a "$MNT/g"
	kill -KILL "$a"
	# Its tracer (the daemon) must reap it first: only then is the
	# parent (this shell) told, and the process gone.
	cg_wait_gone "$a" 20
	wait_state "$MNT/g" FROZEN
	run cat "$MNT/g/tasks"
	assert_output ''
}

# stat_line NAME: NAME's line of cgfused.stat.
stat_line() {
	grep "^$1 " "$MNT/cgfused.stat"
}

@test "a throttled group freezes, stays frozen past its periods, and its quota holds after the thaw" {
	local a n
	cg_busy a
	echo "$a" >"$MNT/g/cgroup.procs"
	# 1 ms a second: throttled even on a loaded machine, then stopped
	# for the rest of the second.
	echo 1000000 >"$MNT/g/cpu.cfs_period_us"
	echo 1000 >"$MNT/g/cpu.cfs_quota_us"
	cg_poll_until -x t state "$a"	# throttled
	freeze "$MNT/g"
	# Held by both, seized once: neither is refused, and the periods'
	# ends do not let it run.
	assert_equal "$(stat_line freezer_refused_threads)" "freezer_refused_threads 0"
	assert_equal "$(stat_line quota_refused_threads)" "quota_refused_threads 0"
	assert_frozen "$a"	# 3 x 0.4 s: past a period's end
	assert_frozen "$a"
	assert_frozen "$a"
	echo THAWED >"$MNT/g/freezer.state"
	# Capped still: held while it pays back what it ran over its quota
	# before the throttle (a late first sample owes seconds at 1 ms a
	# second: design.md, Debt), or running its 1 ms.
	n=$(ran "$a")
	[[ $n -lt 100000000 ]] || { echo "capped at 0.1%, ran $n ns in 0.4 s" >&2; return 1; }
	# A new quota starts a period owing nothing, and 10 ms in 100 ms owes
	# 100 ms at most: the quota lets it run again, capped.
	echo 10000 >"$MNT/g/cpu.cfs_quota_us"
	echo 100000 >"$MNT/g/cpu.cfs_period_us"
	cg_poll_until -ge 1 ran "$a"
	n=$CG_POLLED
	[[ $n -lt 200000000 ]] || { echo "capped at 10%, ran $n ns in 0.4 s" >&2; return 1; }
	echo -1 >"$MNT/g/cpu.cfs_quota_us"
	assert_runs "$a"
}

@test "the daemon's stop thaws every thread" {
	local a
	frozen_busy a "$MNT/g"
	fusermount3 -u "$MNT"
	cg_wait_gone "$CG_PID"
	assert_runs "$a"
}

@test "kill -9 of the daemon leaves nothing frozen; a restart with the state freezes again" {
	local a
	frozen_busy a "$MNT/g"
	kill -KILL "$CG_PID"
	cg_wait_gone "$CG_PID"
	assert_runs "$a"
	cg_mount -o "state=$STATE"
	run cat "$MNT/g/cgroup.procs"
	assert_output "$a"
	wait_state "$MNT/g" FROZEN
	assert_frozen "$a"
	echo THAWED >"$MNT/g/freezer.state"
	assert_runs "$a"
}

@test "a state saved before the freezer joined the default hierarchy comes back in it" {
	fusermount3 -u "$MNT"
	cg_wait_gone "$CG_PID"
	cg_mount -o "state=$CG_TMP/old.state" -o controllers=cpu,cpuacct,cpuset
	mkdir "$MNT/old"
	echo 512 >"$MNT/old/cpu.shares"
	fusermount3 -u "$MNT"
	cg_wait_gone "$CG_PID"
	cg_mount -o "state=$CG_TMP/old.state"
	assert_equal "$(<"$MNT/old/cpu.shares")" 512
	assert_equal "$(<"$MNT/old/freezer.state")" THAWED
	run grep 'not applied' "$CG_TMP/cgfused.log"
	assert_output ''
}
