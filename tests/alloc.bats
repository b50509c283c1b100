#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# The allocator's mechanics on real processes: which nice value and which
# affinity each member thread gets, inheritance by children, restoration
# when a task leaves its groups or the daemon stops. Shares of CPU are
# measured by the benchmark (make bench-fairness), never here: these tests
# use sleeping processes, whose nice follows from the hierarchy alone. The
# allocator applies changes within a pass (<= 100 ms); cg_poll_until waits
# up to 20 s for a value.

load helpers

setup() {
	cg_setup
	cg_mount
	cd "$MNT"
}

teardown() {
	cg_teardown
}

# nices PID: the nice values of every thread of a process, one line.
nices() {
	local tid out=()
	for tid in $(cg_tids "$1"); do
		out+=("$(nice_of "$tid")")
	done
	echo "${out[*]}"
}

# affinity_of TID: its CPUs, "0,1".
affinity_of() {
	"$CG_PYTHON" -c 'import os, sys
print(",".join(map(str, sorted(os.sched_getaffinity(int(sys.argv[1]))))))' "$1"
}

# nice_sleeper VAR NICE: a sleep started at nice NICE, outside the mount
# (a process whose cwd is in the mount keeps it busy).
nice_sleeper() {
	(cd / && exec nice -n "$2" sleep 1000) >/dev/null 2>&1 3>&- &
	CG_HELPERS+=("$!")
	printf -v "$1" %s "$!"
}

@test "a member's nice follows its group's cpu.shares" {
	local s
	mkdir g
	cg_sleeper s
	echo "$s" >g/tasks
	# Alone in a top-level group of 1024 shares: a nice-0 task's weight.
	cg_poll_until -x 0 nice_of "$s"
	# 2 shares is below the lightest nice (19, weight 15).
	echo 2 >g/cpu.shares
	cg_poll_until -x 19 nice_of "$s"
	echo 335 >g/cpu.shares
	cg_poll_until -x 5 nice_of "$s"
	run grep -x 'managed_threads 1' cgfused.stat
	assert_success
}

@test "a group's weight is divided among its threads" {
	local p
	mkdir g
	echo 4096 >g/cpu.shares
	cg_threads p
	echo "$p" >g/cgroup.procs
	# 4096 over 4 threads: 1024 each, nice 0; 4096 over 4 at 1/4 the
	# shares: 256 each, between nice 6 (272) and 7 (215): sleepers (not
	# dithered in time) three at 6 and one at 7, 1031 in all.
	cg_poll_until -x "0 0 0 0" nices "$p"
	echo 1024 >g/cpu.shares
	cg_poll_until -x "6 6 6 7" sorted_nices "$p"
}

# sorted_nices PID: nices PID, in ascending order.
sorted_nices() {
	local out
	out=$(nices "$1") || return 1
	echo $(printf '%s\n' $out | sort -n)
}

# take_turns SHARES: two spinners in a group of SHARES, whose weight per
# thread lies between nice 3 (526) and 4 (423), are each seen at both
# within 10 s (of wall time: the machine may be loaded; /proc is read
# without a fork), and at nothing else.
take_turns() {
	local i pid spinners=() end stat
	mkdir g
	# Two spinners only, for a few seconds: the machine is shared.
	for ((i = 0; i < 2; i++)); do
		(cd / && exec "$CG_PYTHON" -c 'while True: pass') >/dev/null 2>&1 3>&- &
		CG_HELPERS+=("$!")
		spinners+=("$!")
		echo "$!" >g/cgroup.procs
	done
	echo "$1" >g/cpu.shares
	declare -A seen=()
	end=$((SECONDS + 10))
	while ((SECONDS < end)); do
		for pid in "${spinners[@]}"; do
			read -r stat <"/proc/$pid/stat"
			stat=${stat##*) }
			set -- $stat
			seen[$pid]+=" ${17}"
		done
		[[ $(printf '%s\n' "${seen[@]}" | grep -c ' 3.* 4\| 4.* 3') -eq 2 ]] && break
		sleep 0.05
	done
	for pid in "${spinners[@]}"; do
		kill -KILL "$pid"
		wait "$pid" 2>/dev/null || true
	done
	for pid in "${spinners[@]}"; do
		[[ ${seen[$pid]} == *' 3'* && ${seen[$pid]} == *' 4'* ]] ||
			fail "pid $pid had the nice values${seen[$pid]}"
		# Before the allocator's first pass it may be seen at its own 0.
		[[ ! ${seen[$pid]} =~ \ ([125-9]|[0-9][0-9]) ]] ||
			fail "pid $pid had the nice values${seen[$pid]}"
	done
}

@test "busy threads that should weigh between two nice values take turns at each" {
	# 975 shares over 2 runnable threads: 487.5 each: 1.25 of the 2 at
	# nice 3, dithered in time, and the heavier nice goes round them pass
	# by pass (each is at 4 on a quarter of the passes or more).
	take_turns 975
}

@test "equal busy threads of which exactly one should be heavier take turns at it" {
	# 949 shares: 474.5 each, exactly one at nice 3 and one at 4; they
	# settled so for good, one getting a quarter more CPU.
	take_turns 949
}

@test "a member that leaves for the root gets its own nice and affinity back" {
	local s
	mkdir g
	echo 0 >g/cpuset.mems
	echo 1 >g/cpuset.cpus
	echo 100 >g/cpu.shares
	nice_sleeper s 3
	local before
	before=$(affinity_of "$s")
	echo "$s" >g/tasks
	cg_poll_until -x 1 affinity_of "$s"
	cg_poll_until -x 10 nice_of "$s"	# 100 shares: nice 10 (weight 110)
	echo "$s" >tasks
	cg_poll_until -x "$before" affinity_of "$s"
	cg_poll_until -x 3 nice_of "$s"
}

@test "cpuset.cpus changes move the members" {
	local s
	mkdir g
	echo 0 >g/cpuset.mems
	echo 0-1 >g/cpuset.cpus
	cg_sleeper s
	echo "$s" >g/tasks
	cg_poll_until -x 0,1 affinity_of "$s"
	echo 0 >g/cpuset.cpus
	cg_poll_until -x 0 affinity_of "$s"
	echo 1 >g/cpuset.cpus
	cg_poll_until -x 1 affinity_of "$s"
}

@test "a member's affinity grows with its cpuset, and when it moves to a wider one" {
	local s
	mkdir g h
	echo 0 >g/cpuset.mems
	echo 0 >g/cpuset.cpus
	echo 0 >h/cpuset.mems
	echo 0-1 >h/cpuset.cpus
	cg_sleeper s
	echo "$s" >g/tasks
	cg_poll_until -x 0 affinity_of "$s"
	# cgfused's own earlier setting is not the thread narrowing itself.
	echo 0-1 >g/cpuset.cpus
	cg_poll_until -x 0,1 affinity_of "$s"
	echo 0 >g/cpuset.cpus
	cg_poll_until -x 0 affinity_of "$s"
	echo "$s" >h/tasks
	cg_poll_until -x 0,1 affinity_of "$s"
}

@test "a member may narrow its own affinity inside its cpuset" {
	local s
	mkdir g
	echo 0 >g/cpuset.mems
	echo 0-1 >g/cpuset.cpus
	cg_sleeper s
	echo "$s" >g/tasks
	cg_poll_until -x 0,1 affinity_of "$s"
	"$CG_PYTHON" -c 'import os, sys; os.sched_setaffinity(int(sys.argv[1]), {1})' "$s"
	# Past the allocator's 5 s re-read of what others changed: kept.
	sleep 6
	run affinity_of "$s"
	assert_output 1
}

# stat_value NAME: a figure of cgfused.stat.
stat_value() {
	local name value
	while read -r name value; do
		[[ $name == "$1" ]] && echo "$value" && return 0
	done <cgfused.stat
	return 1
}

@test "a member that keeps widening its own affinity spends little time outside its cpuset" {
	local p out
	mkdir g
	echo 0 >g/cpuset.mems
	echo 1 >g/cpuset.cpus
	# A busy process that sets its affinity back to every CPU every 100
	# ms: the kernel lets it, as it knows nothing of cgfused's cpusets.
	(cd / && exec "$CG_PYTHON" -c 'import os, time
every = set(range(os.cpu_count()))
next = time.monotonic()
while True:
    if time.monotonic() >= next:
        os.sched_setaffinity(0, every)
        next += 0.1') >/dev/null 2>&1 3>&- &
	CG_HELPERS+=("$!")
	p=$!
	echo "$p" >g/tasks
	cg_poll_until -x 1 affinity_of "$p"
	# From its placing on, its affinity sampled every 2 ms for 5 s: the
	# fraction outside CPU 1. Each sampled pass reads a runnable member's
	# affinity (100 ms), a repeat escaper's every 10 ms (before: only a
	# reconcile, every 5 s, found the first escape).
	out=$("$CG_PYTHON" -c 'import os, sys, time
pid, out, n = int(sys.argv[1]), 0, 0
end = time.monotonic() + 5
while time.monotonic() < end:
    out += os.sched_getaffinity(pid) != {1}
    n += 1
    time.sleep(0.002)
print(n, out, round(100.0 * out / n, 1))' "$p")
	set -- $out
	echo "# affinity outside the cpuset in $3% of $1 samples" >&3
	# Generous, not to be timing-flaky on a loaded machine (cgfused(8)
	# gives the measured figure).
	(($1 >= 500))
	(($2 * 4 < $1))
	[[ $(stat_value affinity_escapes) -ge 2 ]]
}

# restart [cgfused options...]: kill -9 of the daemon, then a new one on
# the same mount point (its dead mount recovered) and the same state.
restart() {
	cd /
	kill -KILL "$CG_PID"
	cg_wait_gone "$CG_PID"
	cg_mount "$@"
	cd "$MNT"
}

# niced_member VAR AFFINITY_VAR: a sleeper of nice 3 in group g (2 shares,
# CPU 1), set to nice 19 and CPU 1; its affinity before, in AFFINITY_VAR.
niced_member() {
	local m
	mkdir g
	echo 0 >g/cpuset.mems
	echo 1 >g/cpuset.cpus
	echo 2 >g/cpu.shares
	nice_sleeper m 3
	printf -v "$2" %s "$(affinity_of "$m")"
	echo "$m" >g/tasks
	cg_poll_until -x 19 nice_of "$m"
	cg_poll_until -x 1 affinity_of "$m"
	printf -v "$1" %s "$m"
}

@test "after kill -9 and a restart a member stays managed, and gets its own nice and affinity back when it leaves" {
	local s before
	niced_member s before
	[[ $before == 0,1 ]]
	restart
	run cat g/tasks
	assert_output "$s"
	cg_poll_until -x 'managed_threads 1' grep -x 'managed_threads [0-9]*' cgfused.stat
	echo 335 >g/cpu.shares
	cg_poll_until -x 5 nice_of "$s"
	# What it had before the first daemon changed it (the file beside the
	# state kept it), not what the second found.
	echo "$s" >tasks
	cg_poll_until -x 3 nice_of "$s"
	cg_poll_until -x "$before" affinity_of "$s"
}

@test "after kill -9, a restart on which a member's group is gone gives it its own nice and affinity back" {
	local s before
	niced_member s before
	# Another hierarchy: the state's groups and members of cpu,cpuacct,cpuset
	# are not taken in, and nothing is managed.
	restart -o controllers=cpuacct
	cg_poll_until -x 3 nice_of "$s"
	cg_poll_until -x "$before" affinity_of "$s"
	run grep -x 'managed_threads 0' cgfused.stat
	assert_success
	# A clean stop, everything given back: no originals are left on file.
	[ -e "$CG_TMP/mnt.state.orig" ]
	cd /
	kill -TERM "$CG_PID"
	cg_wait_gone "$CG_PID"
	[ ! -e "$CG_TMP/mnt.state.orig" ]
}

@test "a sleeper of a tiny group does not push a busy member of another group off nice 0" {
	local s b i
	mkdir small big
	echo 2 >small/cpu.shares
	cg_sleeper s
	(cd / && exec sh -c 'while :; do :; done') >/dev/null 2>&1 3>&- &
	b=$!
	CG_HELPERS+=("$b")
	echo "$s" >small/tasks
	echo "$b" >big/tasks
	cg_poll_until -x 19 nice_of "$s"
	# 1024 shares alone at the top: a nice-0 thread's weight, whatever
	# the sleeper's group cannot be given (the kernel: an even split with
	# an unmanaged nice-0 loop). It was scaled up to nice -10.
	cg_poll_until -x 0 nice_of "$b"
	for ((i = 0; i < 10; i++)); do
		run nice_of "$b"
		assert_output 0
		sleep 0.1
	done
}

# spinner VAR PREFIX...: a busy loop (run through PREFIX: setsid,
# setpriv), outside the mount.
spinner() {
	local var=$1
	shift
	(cd / && exec "$@" bash -c 'while :; do :; done') >/dev/null 2>&1 3>&- &
	CG_HELPERS+=("$!")
	printf -v "$var" %s "$!"
}

# sid_of PID: its session id.
sid_of() {
	local stat
	stat=$(cat "/proc/$1/stat") || return 1
	stat=${stat##*) }
	set -- $stat
	echo "$4"
}

autogroup_nice() {
	local ag
	ag=$(cat "/proc/$1/autogroup") || return 1
	echo "${ag##* }"
}

@test "a member in a session with unmanaged threads leaves its autogroup alone" {
	# A user's process in this (root's) session, and one in a session of
	# its own: only the latter's autogroup nice is cgfused's to set; this
	# session's would weigh the shell, bats and the daemon too. Under CI
	# this session is init's, the root autogroup (an empty file, no nice
	# to set): left alone all the same.
	local mine u s i
	mine=$(autogroup_nice $$)
	mkdir a b
	spinner u setpriv --reuid=65534 --regid=65534 --clear-groups
	spinner s setsid
	cg_poll_until -x "$s" sid_of "$s"	# it has left this session
	echo "$u" >a/cgroup.procs
	echo "$s" >b/cgroup.procs
	echo 2 >a/cpu.shares
	echo 8192 >b/cpu.shares
	cg_poll_until -m '^-' autogroup_nice "$s"
	# Counted in a pass that finds both sessions busy (a slow pass, as
	# under ASan, can sample a spinner asleep and count nothing).
	cg_poll_until -x 'autogroups_left_alone 1' grep -x 'autogroups_left_alone [0-9]*' cgfused.stat
	for ((i = 0; i < 10; i++)); do
		assert_equal "$(autogroup_nice $$)" "$mine"
		sleep 0.1
	done
}

@test "a child forked by a member is in its group and managed like it" {
	local sh child
	mkdir g
	echo 2 >g/cpu.shares
	bash -c 'echo $$ > g/tasks; sleep 1000 & echo $! > "$1"; wait' sh "$CG_TMP/child" \
		>/dev/null 2>&1 3>&- &
	sh=$!
	CG_HELPERS+=("$sh")
	cg_poll_until test -s "$CG_TMP/child"
	child=$(cat "$CG_TMP/child")
	CG_HELPERS+=("$child")
	run cat g/tasks
	assert_output "$(printf '%s\n' "$sh" "$child" | sort -n)"
	cg_poll_until -x 19 nice_of "$child"
	cg_poll_until -x 19 nice_of "$sh"
}

@test "threads of a member process are each managed" {
	local p tid
	mkdir g
	echo 2 >g/cpu.shares
	cg_threads p
	echo "$p" >g/cgroup.procs
	cg_poll_until -x "19 19 19 19" nices "$p"
	for tid in $(cg_tids "$p"); do
		run cat g/tasks
		assert_line "$tid"
	done
}

@test "stopping the daemon gives every member its nice and affinity back" {
	local s before
	mkdir g
	echo 0 >g/cpuset.mems
	echo 1 >g/cpuset.cpus
	echo 2 >g/cpu.shares
	nice_sleeper s 4
	before=$(affinity_of "$s")
	echo "$s" >g/tasks
	cg_poll_until -x 19 nice_of "$s"
	cg_poll_until -x 1 affinity_of "$s"
	cd /
	fusermount3 -u "$MNT"
	cg_wait_gone "$CG_PID"
	run nice_of "$s"
	assert_output 4
	run affinity_of "$s"
	assert_output "$before"
}

@test "cgfused.stat says what the allocator did" {
	local s
	run cat cgfused.stat
	assert_success
	assert_line 'managed_threads 0'
	assert_line 'privileged 1'
	mkdir g
	echo 2 >g/cpu.shares
	cg_sleeper s
	echo "$s" >g/tasks
	cg_poll_until -x 19 nice_of "$s"
	run cat cgfused.stat
	assert_line 'managed_threads 1'
	assert_line 'tracked_tasks 1'
	assert_line --regexp '^nice_calls [1-9][0-9]*$'
	assert_line --regexp '^last_pass_us [0-9]+$'
	assert_line 'lost_event_resyncs 0'
	run cg_write cgfused.stat 1
	assert_output "$E_INVAL"
}

@test "a reused PID does not inherit the old process's membership" {
	mkdir g
	run "$REUSE_PID" "$MNT/g/tasks"
	assert_success
	assert_output --regexp '^[0-9]+ not listed$'
	run cat g/tasks
	assert_output ""
}

@test "a hierarchy with cpu alone: shares apply, nothing else is touched" {
	local s m2=$CG_TMP/cpu-only
	mkdir "$m2"
	cg_mount_at "$m2" -o controllers=cpu
	mkdir "$m2/g"
	echo 2 >"$m2/g/cpu.shares"
	nice_sleeper s 0
	echo "$s" >"$m2/g/tasks"
	cg_poll_until -x 19 nice_of "$s"
	run cat "$m2/g/tasks"
	assert_output "$s"
	[ -z "$(ls "$m2/g" | grep -v '^cgroup\.\|^cpu\.\|^tasks$\|^notify_on_release$')" ]
}

@test "threads in one group divide its weight by their own nice" {
	local s0 s10
	mkdir g
	nice_sleeper s0 0
	nice_sleeper s10 10
	cg_poll_until -x 10 nice_of "$s10"	# nice(1) has run
	echo "$s0" >g/tasks
	echo "$s10" >g/tasks
	# 1024 shares over weights 1024 (nice 0) and 110 (nice 10): 925 and
	# 99, nice 0 and nice 10 again (not 512 each, nice 3).
	cg_poll_until -x 10 nice_of "$s10"
	cg_poll_until -x 0 nice_of "$s0"
	# At 100 shares, 90 and 10; 10 is below nice 19's weight (15). Sleepers
	# do not push the scale up (that would lend every running thread of
	# the session more weight): 10 is clamped to nice 19
	# and 90 is nice 11 (87), not 10 (110).
	echo 100 >g/cpu.shares
	cg_poll_until -x 19 nice_of "$s10"
	cg_poll_until -x 11 nice_of "$s0"
}
