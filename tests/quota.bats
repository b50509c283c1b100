#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# CPU bandwidth on real processes: a busy loop in a group with a
# quota uses about that share of a CPU (its own CPU time, measured here; a
# wide tolerance, the machine is shared: the point is that a cap holds at
# all), a parent's quota holds its subgroups, cpu.stat counts the
# throttling; removing the quota or leaving the group lets the thread run
# free, a thread its user stopped stays stopped, and no thread stays
# stopped after the daemon stops or is killed. cpu.idle makes the members
# SCHED_IDLE and gives them back SCHED_OTHER, after a kill -9 too.

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

# share PID SECONDS: the thread's CPU time over the next SECONDS, in
# thousandths of the wall time.
share() {
	local a b t0 t1
	a=$(cg_cpu_ns "$1")
	t0=$(date +%s%N)
	sleep "$2"
	b=$(cg_cpu_ns "$1")
	t1=$(date +%s%N)
	echo $(((b - a) * 1000 / (t1 - t0)))
}

# stat_field FILE NAME: the figure NAME of a cpu.stat-like file.
stat_field() {
	local k v
	while read -r k v; do
		[[ $k == "$2" ]] && { echo "$v"; return 0; }
	done <"$1"
	return 1
}

# wait_throttled PID: the thread is seen in a ptrace-stop ('t') within 20 s.
wait_throttled() {
	cg_poll_until -x t state "$1"
}

# assert_free PID: over 1 s (50 looks) the thread is never in a
# ptrace-stop, and it runs.
assert_free() {
	local i a
	a=$(cg_cpu_ns "$1")
	for ((i = 0; i < 50; i++)); do
		[[ $(state "$1") != t ]] || { echo "$1 is stopped (t) at look $i" >&2; return 1; }
		sleep 0.02
	done
	[[ $(cg_cpu_ns "$1") -gt $a ]] || { echo "$1 did not run" >&2; return 1; }
}

# wait_free PID: the thread leaves its stop within 20 s, then is free.
wait_free() {
	cg_poll_until -m '^[^t]$' state "$1" || return
	assert_free "$1"
}

# capped_in GROUP VAR: a busy loop in GROUP (made if need be), capped at
# 20% of a CPU, seen stopped.
capped_in() {
	local pid
	mkdir -p "$MNT/$1"
	cg_busy pid
	echo 20000 >"$MNT/$1/cpu.cfs_quota_us"
	echo "$pid" >"$MNT/$1/cgroup.procs"
	wait_throttled "$pid"
	printf -v "$2" %s "$pid"
}

# capped_busy VAR: the same in g.
capped_busy() {
	capped_in g "$1"
}

@test "a busy loop capped at 20% of a CPU uses less than twice that, and cpu.stat counts" {
	local a s
	capped_busy a
	s=$(share "$a" 3)
	echo "# share: $s/1000" >&3
	[[ $s -lt 400 ]] || { echo "capped at 200/1000, used $s/1000" >&2; return 1; }
	[[ $s -gt 0 ]] || { echo "the capped loop never ran" >&2; return 1; }
	[[ $(stat_field "$MNT/g/cpu.stat" nr_periods) -gt 10 ]]
	[[ $(stat_field "$MNT/g/cpu.stat" nr_throttled) -gt 10 ]]
	[[ $(stat_field "$MNT/g/cpu.stat" throttled_time) -gt 0 ]]
	[[ $(stat_field "$MNT/g/cpu.stat.local" throttled_time) -gt 0 ]]
	run grep -E '^quota_(capped|throttled)_groups ' "$MNT/cgfused.stat"
	assert_line 'quota_capped_groups 1'
}

# As on the kernel, a written quota starts with its full runtime: the CPU
# time a group used before is not charged to it, nor what it owed under
# the quota it had, the same value rewritten too. Measured in the loop's
# own CPU time from the write to its throttle (it is stopped then).
@test "a quota charges only what ran after it was written, rewritten too" {
	local a c0 c1 n
	cg_busy a
	echo "$a" >"$MNT/g/cgroup.procs"
	cg_poll_until -t 60 -ge 1000000000 cg_cpu_ns "$a"	# 1 s, uncapped
	# 1 ms a second: once throttled it is held until the period ends,
	# and for what it ran over its quota after.
	echo 1000000 >"$MNT/g/cpu.cfs_period_us"
	c0=$(cg_cpu_ns "$a")
	echo 1000 >"$MNT/g/cpu.cfs_quota_us"
	wait_throttled "$a"
	c1=$(cg_cpu_ns "$a")
	echo "# ran $((c1 - c0)) ns from the cap to its throttle" >&3
	[[ $((c1 - c0)) -ge 500000 ]] || { echo "throttled after $((c1 - c0)) ns of a 1 ms quota" >&2; return 1; }
	# The same quota again: a pass that began after the write (the
	# second published) lets it go, owing nothing, though its period is
	# not over; it runs half its quota at least before its throttle.
	c0=$(cg_cpu_ns "$a")
	n=$(stat_field "$MNT/cgfused.stat" quota_passes)
	echo 1000 >"$MNT/g/cpu.cfs_quota_us"
	cg_poll_until -ge $((n + 2)) stat_field "$MNT/cgfused.stat" quota_passes
	[[ $(state "$a") != t || $(cg_cpu_ns "$a") -gt $c0 ]] ||
		{ echo "still held after the quota was written again" >&2; return 1; }
	cg_poll_until -ge $((c0 + 500000)) cg_cpu_ns "$a"
	wait_throttled "$a"
	echo -1 >"$MNT/g/cpu.cfs_quota_us"
	wait_free "$a"
}

@test "a 10 ms period caps too" {
	local a s
	cg_busy a
	echo 10000 >"$MNT/g/cpu.cfs_period_us"
	echo 2000 >"$MNT/g/cpu.cfs_quota_us"
	echo "$a" >"$MNT/g/cgroup.procs"
	wait_throttled "$a"
	s=$(share "$a" 3)
	echo "# share: $s/1000" >&3
	[[ $s -lt 400 ]] || { echo "capped at 200/1000, used $s/1000" >&2; return 1; }
}

@test "nr_throttled grows while capped and stops growing once the quota is removed" {
	local a n1 n2
	capped_busy a
	n1=$(stat_field "$MNT/g/cpu.stat" nr_throttled)
	cg_poll_until -ge $((n1 + 1)) stat_field "$MNT/g/cpu.stat" nr_throttled
	echo -1 >"$MNT/g/cpu.cfs_quota_us"
	wait_free "$a"
	# Periods go on for another capped group (h's throttles grow): g's
	# would have grown meanwhile if it were still capped.
	local b nh
	capped_in h b
	n1=$(stat_field "$MNT/g/cpu.stat" nr_throttled)
	nh=$(stat_field "$MNT/h/cpu.stat" nr_throttled)
	cg_poll_until -ge $((nh + 2)) stat_field "$MNT/h/cpu.stat" nr_throttled
	assert_equal "$(stat_field "$MNT/g/cpu.stat" nr_throttled)" "$n1"
	echo -1 >"$MNT/h/cpu.cfs_quota_us"
	wait_free "$b"
	run grep '^quota_stopped_threads ' "$MNT/cgfused.stat"
	assert_output 'quota_stopped_threads 0'
}

@test "a parent's quota holds its subgroups; the child's cpu.stat.local counts it" {
	local a s
	mkdir "$MNT/g/c"
	cg_busy a
	echo 20000 >"$MNT/g/cpu.cfs_quota_us"
	echo "$a" >"$MNT/g/c/cgroup.procs"
	wait_throttled "$a"
	s=$(share "$a" 2)
	[[ $s -lt 400 ]] || { echo "capped at 200/1000 by the parent, used $s/1000" >&2; return 1; }
	[[ $(stat_field "$MNT/g/c/cpu.stat.local" throttled_time) -gt 0 ]]
	assert_equal "$(stat_field "$MNT/g/c/cpu.stat" nr_throttled)" 0
	[[ $(stat_field "$MNT/g/cpu.stat" nr_throttled) -gt 0 ]]
}

@test "a parent's 20% holds two busy children capped at 20% each: the group's usage stays near 20%" {
	local a b u0 u1 t0 t1 s
	mkdir "$MNT/g/c1" "$MNT/g/c2"
	echo 20000 >"$MNT/g/cpu.cfs_quota_us"
	echo 20000 >"$MNT/g/c1/cpu.cfs_quota_us"
	echo 20000 >"$MNT/g/c2/cpu.cfs_quota_us"
	cg_busy a
	cg_busy b
	echo "$a" >"$MNT/g/c1/cgroup.procs"
	echo "$b" >"$MNT/g/c2/cgroup.procs"
	wait_throttled "$a"
	u0=$(<"$MNT/g/cpuacct.usage")
	t0=$(date +%s%N)
	sleep 3
	u1=$(<"$MNT/g/cpuacct.usage")
	t1=$(date +%s%N)
	s=$(((u1 - u0) * 1000 / (t1 - t0)))
	echo "# the children's sum: $s/1000" >&3
	# Each child's own cap alone would let them have 400/1000.
	[[ $s -lt 300 ]] || { echo "capped at 200/1000 by the parent, used $s/1000" >&2; return 1; }
	[[ $s -gt 0 ]] || { echo "the capped loops never ran" >&2; return 1; }
}

@test "a child its own parent traces (PTRACE_TRACEME) is held to its group's quota" {
	local tm p c s
	echo 20000 >"$MNT/g/cpu.cfs_quota_us"
	cg_traceme "$MNT/g" tm
	[[ -n $tm ]] || return 0	# ptrace: no PTRACE_TRACEME (cg_traceme)
	read -r p c <<<"$tm"
	wait_throttled "$c"
	s=$(share "$c" 3)
	echo "# share: $s/1000" >&3
	[[ $s -lt 300 ]] || { echo "capped at 200/1000, used $s/1000" >&2; return 1; }
	[[ $s -gt 0 ]] || { echo "the capped child never ran" >&2; return 1; }
}

@test "a member moved out of the capped group runs free" {
	local a
	capped_busy a
	echo "$a" >"$MNT/cgroup.procs"
	wait_free "$a"
}

# stat_line NAME: NAME's figure in cgfused.stat.
stat_line() {
	stat_field "$MNT/cgfused.stat" "$1"
}

@test "a thread its user stopped stays stopped through throttling and after" {
	local a n stopped=T
	capped_busy a
	# A group-stopped tracee (the ptrace source traces every member)
	# shows t: stopped all the same.
	[[ $(cg_watch_source) != ptrace ]] || stopped=t
	kill -STOP "$a"
	# Periods end (two passes more): the throttle lets it go, its own
	# stop stays.
	n=$(stat_line quota_passes)
	cg_poll_until -ge $((n + 2)) stat_line quota_passes
	cg_poll_until -x "$stopped" state "$a"
	echo -1 >"$MNT/g/cpu.cfs_quota_us"
	# The daemon has taken the quota away (nothing capped, nobody held).
	cg_poll_until -x 0 stat_line quota_capped_groups
	cg_poll_until -x 0 stat_line quota_stopped_threads
	assert_equal "$(state "$a")" "$stopped"
	kill -CONT "$a"
	assert_free "$a"
}

@test "the daemon's stop resumes every throttled thread" {
	local a
	capped_busy a
	fusermount3 -u "$MNT"
	cg_wait_gone "$CG_PID"
	assert_free "$a"
}

@test "kill -9 of the daemon leaves no thread stopped; a restart with the state caps again" {
	local a
	capped_busy a
	kill -KILL "$CG_PID"
	cg_wait_gone "$CG_PID"
	assert_free "$a"
	cg_mount -o "state=$STATE"
	assert_equal "$(<"$MNT/g/cpu.cfs_quota_us")" 20000
	wait_throttled "$a"
}

# policy PID: the thread's scheduling policy number (/proc/PID/sched):
# 0 SCHED_OTHER, 3 SCHED_BATCH, 5 SCHED_IDLE.
policy() {
	local k colon v
	while read -r k colon v; do
		[[ $k == policy ]] && { echo "$v"; return 0; }
	done <"/proc/$1/sched"
	return 1
}

# wait_policy PID N: the thread's policy is N within 20 s.
wait_policy() {
	cg_poll_until -x "$2" policy "$1"
}

@test "cpu.idle 1 makes the subtree's threads SCHED_IDLE; 0, or leaving, gives SCHED_OTHER back" {
	cg_require_sys_nice "cpu.idle 1 is refused without it"
	local a b
	mkdir "$MNT/g/c"
	cg_sleeper a
	cg_sleeper b
	echo "$a" >"$MNT/g/c/cgroup.procs"
	echo "$b" >"$MNT/g/cgroup.procs"
	assert_equal "$(policy "$a")" 0
	echo 1 >"$MNT/g/cpu.idle"
	wait_policy "$a" 5
	wait_policy "$b" 5
	run grep '^idle_threads ' "$MNT/cgfused.stat"
	assert_output 'idle_threads 2'
	echo "$b" >"$MNT/cgroup.procs"
	wait_policy "$b" 0
	echo 0 >"$MNT/g/cpu.idle"
	wait_policy "$a" 0
}

@test "cpu.idle leaves a thread that was not SCHED_OTHER as it was" {
	cg_require_sys_nice "cpu.idle 1 is refused without it"
	local a b
	cg_sleeper a
	cg_sleeper b
	chrt -b -p 0 "$a"
	echo "$a" >"$MNT/g/cgroup.procs"
	echo "$b" >"$MNT/g/cgroup.procs"
	echo 1 >"$MNT/g/cpu.idle"
	wait_policy "$b" 5	# the pass that took b looked at a too
	assert_equal "$(policy "$a")" 3
	echo 0 >"$MNT/g/cpu.idle"
	wait_policy "$b" 0
	assert_equal "$(policy "$a")" 3
}

@test "the daemon's stop gives SCHED_OTHER back to an idle group's threads" {
	cg_require_sys_nice "cpu.idle 1 is refused without it"
	local a
	cg_sleeper a
	echo "$a" >"$MNT/g/cgroup.procs"
	echo 1 >"$MNT/g/cpu.idle"
	wait_policy "$a" 5
	fusermount3 -u "$MNT"
	cg_wait_gone "$CG_PID"
	assert_equal "$(policy "$a")" 0
}

# idle_then_killed VAR [PID]: a sleeper (or process PID) in g made
# SCHED_IDLE by cpu.idle 1 (its PID in VAR), then kill -9 of the daemon,
# which gives nothing back.
idle_then_killed() {
	local m=${2:-}
	[[ -n $m ]] || cg_sleeper m
	echo "$m" >"$MNT/g/cgroup.procs"
	echo 1 >"$MNT/g/cpu.idle"
	wait_policy "$m" 5
	[ -e "$STATE.idle" ]
	kill -KILL "$CG_PID"
	cg_wait_gone "$CG_PID"
	assert_equal "$(policy "$m")" 5
	printf -v "$1" %s "$m"
}

@test "after kill -9, a restart without the idle group gives SCHED_OTHER back to what the last daemon made idle" {
	cg_require_sys_nice "cpu.idle 1 is refused without it"
	local a own
	# Idle by its own choice, in the group too: never the daemon's.
	cg_sleeper own
	chrt -i -p 0 "$own"
	echo "$own" >"$MNT/g/cgroup.procs"
	idle_then_killed a
	# The state gone (STATE.idle kept): the new daemon has no group g.
	rm -f "$STATE" "$STATE".log*
	cg_mount -o "state=$STATE"
	wait_policy "$a" 0
	[ ! -e "$MNT/g" ]
	assert_equal "$(policy "$own")" 5
	# A clean stop with nothing left to give back removes the file.
	fusermount3 -u "$MNT"
	cg_wait_gone "$CG_PID"
	[ ! -e "$STATE.idle" ]
}

# idle_child_then_killed VAR CHILD: a member of g made SCHED_IDLE (its PID
# in VAR), kill -9 of the daemon, then the member forks a sleep (its PID
# in CHILD), which inherits SCHED_IDLE and is on no record.
idle_child_then_killed() {
	local member c fifo=$CG_TMP/go pidf=$CG_TMP/child.pid
	mkfifo "$fifo"
	# Forks a sleep once told (blocked opening the fifo until then).
	bash -c 'read -r _ <"$1"; sleep 1000 & echo $! >"$2"; wait' _ "$fifo" "$pidf" \
		>/dev/null 2>&1 3>&- &
	CG_HELPERS+=("$!")
	idle_then_killed member "$!"
	echo go >"$fifo"
	cg_poll_until test -s "$pidf"
	c=$(<"$pidf")
	CG_HELPERS+=("$c")
	assert_equal "$(policy "$c")" 5
	run grep -c "^i $c " "$STATE.idle"
	assert_output 0
	printf -v "$1" %s "$member"
	printf -v "$2" %s "$c"
}

@test "after kill -9, a restart without the idle group gives SCHED_OTHER back to a child an idle thread forked meanwhile" {
	cg_require_sys_nice "cpu.idle 1 is refused without it"
	local a child
	idle_child_then_killed a child
	rm -f "$STATE" "$STATE".log*
	cg_mount -o "state=$STATE"
	wait_policy "$a" 0
	wait_policy "$child" 0
}

@test "after kill -9, a restart that keeps the group idle keeps a child an idle thread forked meanwhile, and gives it back at cpu.idle 0" {
	cg_require_sys_nice "cpu.idle 1 is refused without it"
	local a child
	idle_child_then_killed a child
	cg_mount -o "state=$STATE"
	# The child joins its parent's group, and is this daemon's.
	run grep -x "$child" "$MNT/g/cgroup.procs"
	assert_success
	run grep -x 'idle_threads 2' "$MNT/cgfused.stat"
	assert_success
	assert_equal "$(policy "$child")" 5
	echo 0 >"$MNT/g/cpu.idle"
	wait_policy "$a" 0
	wait_policy "$child" 0
}

@test "after kill -9, a restart with no cpu controller gives SCHED_OTHER back too" {
	cg_require_sys_nice "cpu.idle 1 is refused without it"
	local a
	idle_then_killed a
	cg_mount -o "state=$STATE" -o controllers=cpuacct
	wait_policy "$a" 0
	[ ! -e "$STATE.idle" ]
}

@test "after kill -9, a restart that keeps the group idle keeps the thread, and gives it back at cpu.idle 0" {
	cg_require_sys_nice "cpu.idle 1 is refused without it"
	local a
	idle_then_killed a
	cg_mount -o "state=$STATE"
	assert_equal "$(<"$MNT/g/cpu.idle")" 1
	run grep -x 'idle_threads 1' "$MNT/cgfused.stat"
	assert_success
	assert_equal "$(policy "$a")" 5
	echo 0 >"$MNT/g/cpu.idle"
	wait_policy "$a" 0
}
