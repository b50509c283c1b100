#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# The v2 hierarchy (-o unified): its core files and rules, each expectation
# as the kernel's own v2 mount (/sys/fs/cgroup/unified here) answered it,
# recorded in docs/kernel-oracle.md ("cgroup v2").

load helpers

setup() {
	cg_setup
}

teardown() {
	cg_teardown
}

# user_python UID: a python3 the user may run (a version manager's under
# /root is not).
user_python() {
	local py
	for py in "$CG_PYTHON" /usr/bin/python3; do
		setpriv --reuid="$1" --regid="$1" --clear-groups "$py" -c '' 2>/dev/null &&
			{ echo "$py"; return 0; }
	done
	echo "no python3 that uid $1 may run" >&2
	return 1
}

# listing DIR: the names in DIR, one line, space-separated.
listing() {
	ls "$1" | tr '\n' ' '
}

@test "-o unified: one v2 hierarchy with every v2 controller at its root" {
	cg_mount_v2
	# The core's files, and the controllers' root files (cpuset's
	# effective sets; cpu's and pids' are all NOT_ON_ROOT).
	[ "$(listing "$MNT")" = "cgfused.stat cgroup.controllers cgroup.max.depth cgroup.max.descendants cgroup.procs cgroup.stat cgroup.subtree_control cgroup.threads cpu.stat cpu.stat.local cpuset.cpus.effective cpuset.cpus.isolated cpuset.mems.effective " ]
	# cpuacct and the v1 freezer are v1's only (cgrp_dfl_inhibit_ss_mask).
	[ "$(cat "$MNT/cgroup.controllers")" = "cpuset cpu pids" ]
	[ "$(cat "$MNT/cgroup.subtree_control")" = "" ]
	mkdir "$MNT/a"
	# No tasks, notify_on_release, release_agent, clone_children in v2.
	[ "$(listing "$MNT/a")" = "cgroup.controllers cgroup.events cgroup.freeze cgroup.kill cgroup.max.depth cgroup.max.descendants cgroup.procs cgroup.stat cgroup.subtree_control cgroup.threads cgroup.type cpu.stat cpu.stat.local " ]
	run stat -c '%A %n' "$MNT/a/cgroup.kill" "$MNT/a/cgroup.events" "$MNT/a/cgroup.type"
	assert_output $'--w------- '"$MNT/a/cgroup.kill"$'\n-r--r--r-- '"$MNT/a/cgroup.events"$'\n-rw-r--r-- '"$MNT/a/cgroup.type"
	# No rename on the default hierarchy.
	[ "$(cg_op rename "$MNT/a" "$MNT/b")" = "$E_PERM" ]
}

@test "-o unified refuses v1's options with one line" {
	local opt
	for opt in controllers=cpu clone_children noclone_children release_agent=/bin/true; do
		run --separate-stderr "$CGFUSED" -f -o unified -o "$opt" -o state=none \
			-o config=none -o rules=none "$MNT"
		[ "$status" -ne 0 ] || { echo "-o $opt accepted" >&2; return 1; }
		[ "${#stderr_lines[@]}" -eq 1 ] || { echo "-o $opt: $stderr" >&2; return 1; }
		[[ $stderr == "cgfused: ${opt%%=*} is a cgroup v1 option"* ]] ||
			{ echo "-o $opt: $stderr" >&2; return 1; }
		refute cg_is_mounted "$MNT"
	done
}

@test "cgroup.subtree_control: +/- in one write, all or nothing, top-down" {
	cg_mount_v2
	mkdir -p "$MNT/a/b"
	cg_expect "$MNT/cgroup.subtree_control" '' 'cpu' "$E_INVAL" ''
	cg_expect "$MNT/cgroup.subtree_control" '' '+nosuch' "$E_INVAL" ''
	cg_expect "$MNT/cgroup.subtree_control" '' '+cpuacct' "$E_INVAL" ''
	cg_expect "$MNT/cgroup.subtree_control" '' '+cpu +nosuch' "$E_INVAL" ''
	cg_expect "$MNT/cgroup.subtree_control" '' '+cpu -cpu' ok ''
	cg_expect "$MNT/cgroup.subtree_control" '' '-cpu +cpu' ok 'cpu'
	cg_expect "$MNT/cgroup.subtree_control" '' ' ' ok 'cpu'
	cg_expect "$MNT/cgroup.subtree_control" '' '+pids +cpuset\n' ok 'cpuset cpu pids'
	cg_expect "$MNT/cgroup.subtree_control" '' '-cpuset' ok 'cpu pids'
	# What the parent enables, else ENOENT, and nothing of the write.
	cg_expect_read "$MNT/a/cgroup.controllers" 'cpu pids'
	cg_expect "$MNT/a/cgroup.subtree_control" '' '+pids +cpuset' "$E_NOENT" ''
	cg_expect "$MNT/a/cgroup.subtree_control" '' '+cpu' ok 'cpu'
	cg_expect_read "$MNT/a/b/cgroup.controllers" 'cpu'
	cg_expect "$MNT/a/b/cgroup.subtree_control" '' '+pids' "$E_NOENT" ''
	# Disabling what a child enables: EBUSY.
	cg_expect "$MNT/cgroup.subtree_control" '' '-cpu' "$E_BUSY" 'cpu pids'
	cg_expect "$MNT/a/cgroup.subtree_control" '' '-cpu' ok ''
	cg_expect "$MNT/cgroup.subtree_control" '' '-cpu -pids' ok ''
	cg_expect_done
}

@test "cgroup.subtree_control: the no-internal-process rule, both ways" {
	local p q
	cg_mount_v2
	cg_sleeper p
	cg_sleeper q
	mkdir -p "$MNT/a/b"
	echo +cpu >"$MNT/cgroup.subtree_control"
	echo "$p" >"$MNT/a/b/cgroup.procs"
	# a holds no task: it may enable; then it takes none while a child
	# that is a domain is populated (cgroup_migrate_vet_dst).
	cg_expect "$MNT/a/cgroup.subtree_control" '' '+cpu' ok 'cpu'
	cg_expect "$MNT/a/cgroup.procs" '' "$q" "$E_BUSY" ''
	cg_expect "$MNT/a/cgroup.subtree_control" '' '-cpu' ok ''
	cg_expect "$MNT/a/cgroup.procs" '' "$q" ok "$q"
	# And the other way round: a with a task enables nothing.
	cg_expect "$MNT/a/cgroup.subtree_control" '' '+cpu' "$E_BUSY" ''
	cg_expect_done
	# The root is mixable.
	echo "$q" >"$MNT/cgroup.procs"
	[ "$(cat "$MNT/a/b/cgroup.procs")" = "$p" ]
}

@test "cgroup.type: threaded mode, its transitions and errors" {
	local p tids t g=$MNT/g
	cg_mount_v2
	mkdir -p "$g/a/t/t2" "$g/x"
	cg_expect "$g/a/cgroup.type" '' 'domain' "$E_INVAL" 'domain'
	cg_expect "$g/a/cgroup.type" '' 'domain threaded' "$E_INVAL" 'domain'
	cg_expect "$g/a/t/cgroup.type" '' 'threaded\n' ok 'threaded'
	cg_expect_read "$g/a/cgroup.type" 'domain threaded'
	cg_expect_read "$g/a/t/t2/cgroup.type" 'domain invalid'
	cg_expect_done
	cg_threads p
	# A domain invalid group takes no task.
	[ "$(cg_write "$g/a/t/t2/cgroup.procs" "$p")" = "$E_OPNOTSUPP" ]
	echo "$p" >"$g/a/cgroup.procs"
	# One thread into the threaded child, through cgroup.threads.
	t=$(cg_tids "$p" | tail -1)
	[ "$(cg_write "$g/a/t/cgroup.threads" "$t")" = "${#t}" ]
	[ "$(cat "$g/a/t/cgroup.threads")" = "$t" ]
	# A threaded group's processes are listed by its thread root.
	run cat "$g/a/t/cgroup.procs"
	assert_failure
	assert_output --partial "Operation not supported"
	[ "$(cat "$g/a/cgroup.procs")" = "$p" ]
	[ "$(grep -c . "$g/a/cgroup.threads")" -eq 3 ]
	# A thread leaves its domain only with its whole process.
	[ "$(cg_write "$g/x/cgroup.threads" "$t")" = "$E_OPNOTSUPP" ]
	# g has a populated domain child (a): it cannot be a thread root, so
	# x cannot turn threaded; the root could (it is mixable).
	[ "$(cg_write "$g/x/cgroup.type" threaded)" = "$E_OPNOTSUPP" ]
	[ "$(cat "$g/x/cgroup.type")" = domain ]
	mkdir "$MNT/y"
	[ "$(cg_write "$MNT/y/cgroup.type" threaded)" = 8 ]
	# Threads move within the thread subtree.
	[ "$(cg_write "$g/a/t/t2/cgroup.type" threaded)" = 8 ]
	[ "$(cat "$g/a/t/t2/cgroup.type")" = threaded ]
	[ "$(cg_write "$g/a/t/t2/cgroup.threads" "$t")" = "${#t}" ]
	[ "$(cg_write "$g/a/cgroup.threads" "$t")" = "${#t}" ]
	[ "$(grep -c . "$g/a/cgroup.threads")" -eq 4 ]
	# The whole process may move into a threaded group.
	echo "$p" >"$g/a/t/cgroup.procs"
	[ "$(grep -c . "$g/a/t/cgroup.threads")" -eq 4 ]
	[ "$(cat "$g/a/cgroup.procs")" = "$p" ]
	# Populated: a group cannot switch.
	mkdir "$g/a/t3"
	[ "$(cat "$g/a/t3/cgroup.type")" = "domain invalid" ]
	mkdir "$MNT/w"
	echo "$p" >"$MNT/w/cgroup.procs"
	[ "$(cg_write "$MNT/w/cgroup.type" threaded)" = "$E_OPNOTSUPP" ]
	# cgroup.kill is for processes: not in a threaded group.
	[ "$(cg_write "$g/a/t/cgroup.kill" 1)" = "$E_OPNOTSUPP" ]
}

@test "cgroup.events: populated up the tree, and poll() wakes on each change" {
	cg_require_root_user "root opens a read-only file for writing"
	local p w
	cg_mount_v2
	mkdir -p "$MNT/a/b"
	[ "$(cat "$MNT/a/b/cgroup.events")" = $'populated 0\nfrozen 0' ]
	[ "$(cg_write "$MNT/a/cgroup.events" 1)" = "$E_INVAL" ]
	cg_events_poller "$MNT/a/cgroup.events" "$CG_TMP/poll" 0
	w=$CG_POLLER
	cg_wait_for "$CG_TMP/poll" "read populated 0"
	cg_sleeper p
	echo "$p" >"$MNT/a/b/cgroup.procs"
	cg_wait_for "$CG_TMP/poll" "read populated 1"
	[ "$(cat "$MNT/a/cgroup.events")" = $'populated 1\nfrozen 0' ]
	kill "$p"
	cg_wait_for "$CG_TMP/poll" "read populated 0"
	wait "$w"
	[ "$(grep -c '^woke 10$' "$CG_TMP/poll")" -eq 2 ]
}

@test "cgroup.max.depth, cgroup.max.descendants (EAGAIN past them) and cgroup.stat" {
	cg_mount_v2
	mkdir -p "$MNT/g/a"
	cg_expect_read "$MNT/g/cgroup.max.depth" max
	cg_expect "$MNT/g/cgroup.max.depth" '' '-1' "$E_RANGE" max
	cg_expect "$MNT/g/cgroup.max.depth" '' 'foo' "$E_INVAL" max
	cg_expect "$MNT/g/cgroup.max.depth" '' '1' ok 1
	cg_expect "$MNT/g/cgroup.max.descendants" '' ' 3 ' ok 3
	cg_expect "$MNT/g/cgroup.max.descendants" '' '2147483647' ok max
	cg_expect_done
	[ "$(cg_op mkdir "$MNT/g/a/d")" = "$E_AGAIN" ]
	echo 0 >"$MNT/g/cgroup.max.depth"
	[ "$(cg_op mkdir "$MNT/g/e")" = "$E_AGAIN" ]
	echo max >"$MNT/g/cgroup.max.depth"
	echo 2 >"$MNT/g/cgroup.max.descendants"
	[ "$(cg_op mkdir "$MNT/g/a/d")" = ok ]
	[ "$(cg_op mkdir "$MNT/g/e")" = "$E_AGAIN" ]
	echo max >"$MNT/g/cgroup.max.descendants"
	echo +cpu >"$MNT/cgroup.subtree_control"
	echo +cpu >"$MNT/g/cgroup.subtree_control"
	[ "$(cat "$MNT/g/cgroup.stat")" = "nr_descendants 2
nr_subsys_cpuset 0
nr_subsys_cpu 2
nr_subsys_pids 0
nr_dying_descendants 0
nr_dying_subsys_cpuset 0
nr_dying_subsys_cpu 0
nr_dying_subsys_pids 0" ]
	[ "$(head -1 "$MNT/cgroup.stat")" = "nr_descendants 3" ]
}

@test "cgroup.kill: SIGKILL to the subtree, children forked meanwhile too" {
	local p l q
	cg_mount_v2
	mkdir -p "$MNT/a/b" "$MNT/c"
	cg_case '' '' "$MNT/a/cgroup.kill" '0' "$E_RANGE" '' ''
	cg_case '' '' "$MNT/a/cgroup.kill" '2' "$E_RANGE" '' ''
	cg_case '' '' "$MNT/a/cgroup.kill" 'x' "$E_INVAL" '' ''
	cg_expect_done
	run cat "$MNT/a/cgroup.kill"
	assert_failure
	cg_sleeper p
	# A loop that forks all the time.
	bash -c 'while :; do sleep 0.01; done' >/dev/null 2>&1 3>&- &
	l=$!
	CG_HELPERS+=("$l")
	cg_sleeper q
	echo "$p" >"$MNT/a/cgroup.procs"
	echo "$l" >"$MNT/a/b/cgroup.procs"
	echo "$q" >"$MNT/c/cgroup.procs"
	echo 1 >"$MNT/a/cgroup.kill"
	cg_wait_for "$MNT/a/cgroup.events" "populated 0"
	cg_wait_gone "$p"
	cg_wait_gone "$l"
	[ -z "$(cat "$MNT/a/b/cgroup.procs")" ]
	# Not in the subtree: alive.
	kill -0 "$q"
	# A process moved in afterwards is not killed.
	echo "$q" >"$MNT/a/cgroup.procs"
	sleep 0.3
	kill -0 "$q"
	[ "$(cat "$MNT/a/cgroup.procs")" = "$q" ]
}

# What freezing does is tests/v2-freeze.bats'.
@test "cgroup.freeze: the kernel's parsing" {
	cg_mount_v2
	mkdir "$MNT/a"
	cg_expect "$MNT/a/cgroup.freeze" '' '2' "$E_RANGE" 0
	cg_expect "$MNT/a/cgroup.freeze" '' '-1' "$E_RANGE" 0
	cg_expect "$MNT/a/cgroup.freeze" '' 'x' "$E_INVAL" 0
	cg_expect "$MNT/a/cgroup.freeze" '' '0' ok 0
	cg_expect "$MNT/a/cgroup.freeze" '' '1' ok 1
	cg_expect "$MNT/a/cgroup.freeze" '' '0' ok 0
	cg_expect_done
}

@test "cgroup.procs: the kernel's parsing and errno" {
	cg_require_kthreads	# pid 2 is kthreadd
	local p
	cg_mount_v2
	mkdir "$MNT/a"
	cg_sleeper p
	cg_expect "$MNT/a/cgroup.procs" '' 'abc' "$E_INVAL" ''
	cg_expect "$MNT/a/cgroup.procs" '' '-1' "$E_INVAL" ''
	cg_expect "$MNT/a/cgroup.procs" '' '99999999' "$E_SRCH" ''
	cg_expect "$MNT/a/cgroup.procs" '' '2' "$E_INVAL" ''
	cg_expect "$MNT/a/cgroup.procs" '' " $p\n" ok "$p"
	cg_expect_done
	grep -qx "$p" "$MNT/a/cgroup.threads"
	echo "$p" >"$MNT/cgroup.procs"
	[ -z "$(cat "$MNT/a/cgroup.procs")" ]
}

@test "delegation: a move needs write access to cgroup.procs of the common ancestor" {
	cg_require_root_user "it delegates to other users"
	cg_require_sys_nice "cgfused manages another user's task only with it"
	local p r
	cg_mount_v2 -o allow_other
	mkdir -p "$MNT/a/d1" "$MNT/a/d2" "$MNT/x"
	chown 1234:1234 "$MNT/a" "$MNT/a/cgroup.procs" "$MNT/a/d1/cgroup.procs" \
		"$MNT/a/d2/cgroup.procs"
	cg_sleeper_as 1234 p
	cg_sleeper r	# root's: v2 asks nothing of the task's owner
	echo "$p" >"$MNT/a/d1/cgroup.procs"
	echo "$r" >"$MNT/a/d1/cgroup.procs"
	local CG_PYTHON
	CG_PYTHON=$(user_python 1234)
	chmod 0755 "$CG_TMP"	# the user's way to the mount
	CG_AS=(setpriv --reuid=1234 --regid=1234 --clear-groups)
	[ "$(cg_write "$MNT/a/d2/cgroup.procs" "$p")" = "${#p}" ]
	[ "$(cg_write "$MNT/a/d2/cgroup.procs" "$r")" = "${#r}" ]
	# Out of the delegated subtree: x is not the user's.
	[ "$(cg_write "$MNT/x/cgroup.procs" "$p")" = "open: $E_ACCES" ]
	# From outside it: the common ancestor is the root.
	echo "$p" >"$MNT/x/cgroup.procs"
	[ "$(cg_write "$MNT/a/d1/cgroup.procs" "$p")" = "$E_ACCES" ]
	echo "$p" >"$MNT/a/d2/cgroup.procs"
	# Within it, but a's cgroup.procs is not the user's to write.
	chown 0:0 "$MNT/a/cgroup.procs"
	[ "$(cg_write "$MNT/a/d1/cgroup.procs" "$p")" = "$E_ACCES" ]
	CG_AS=()
	[ "$(cat "$MNT/a/d2/cgroup.procs")" = "$(printf '%s\n' "$p" "$r" | sort -n)" ]
}

@test "cpu.stat: usage in every group, from the threads' CPU time" {
	local b
	cg_mount_v2
	mkdir -p "$MNT/a/b"
	[ "$(cat "$MNT/a/cpu.stat")" = $'usage_usec 0\nuser_usec 0\nsystem_usec 0' ]
	# The root has every controller's css: cpu's lines follow.
	[ "$(cut -d' ' -f1 "$MNT/cpu.stat" | tr '\n' ' ')" = "usage_usec user_usec system_usec nr_periods nr_throttled throttled_usec nr_bursts burst_usec " ]
	bash -c 'while :; do :; done' >/dev/null 2>&1 3>&- &
	b=$!
	CG_HELPERS+=("$b")
	echo "$b" >"$MNT/a/b/cgroup.procs"
	cg_poll_until -ge 200000 awk '/^usage_usec/ { print $2 }' "$MNT/a/cpu.stat"
	# The parent counts its children's.
	(($(awk '/^usage_usec/ { print $2 }' "$MNT/a/b/cpu.stat") <= $(awk '/^usage_usec/ { print $2 }' "$MNT/a/cpu.stat")))
}

@test "a v2 hierarchy survives a restart: subtree_control, types, settings, members" {
	local p t
	cg_mount_v2 -o "state=$CG_TMP/v2.state"
	mkdir -p "$MNT/a/t" "$MNT/d"
	echo "+cpu +pids" >"$MNT/cgroup.subtree_control"
	echo "+cpu" >"$MNT/a/cgroup.subtree_control"
	echo threaded >"$MNT/a/t/cgroup.type"
	echo 5 >"$MNT/a/cgroup.max.depth"
	cg_threads p
	echo "$p" >"$MNT/a/cgroup.procs"
	t=$(cg_tids "$p" | tail -1)
	echo "$t" >"$MNT/a/t/cgroup.threads"
	fusermount3 -u "$MNT"
	cg_wait_gone "$CG_PID"
	cg_mount_v2 -o "state=$CG_TMP/v2.state"
	[ "$(cat "$MNT/cgroup.subtree_control")" = "cpu pids" ]
	[ "$(cat "$MNT/a/cgroup.subtree_control")" = "cpu" ]
	[ "$(cat "$MNT/a/cgroup.type")" = "domain threaded" ]
	[ "$(cat "$MNT/a/t/cgroup.type")" = "threaded" ]
	[ "$(cat "$MNT/d/cgroup.type")" = "domain" ]
	[ "$(cat "$MNT/a/cgroup.max.depth")" = 5 ]
	[ "$(cat "$MNT/a/cgroup.procs")" = "$p" ]
	[ "$(cat "$MNT/a/t/cgroup.threads")" = "$t" ]
	# And after kill -9, from the log.
	echo "-pids" >"$MNT/cgroup.subtree_control"
	mkdir "$MNT/d/e"
	mkdir "$MNT/a/t2"
	echo threaded >"$MNT/a/t2/cgroup.type"
	kill -KILL "$CG_PID"
	cg_wait_gone "$CG_PID"
	cg_mount_v2 -o "state=$CG_TMP/v2.state"
	[ "$(cat "$MNT/cgroup.subtree_control")" = "cpu" ]
	[ -d "$MNT/d/e" ]
	[ "$(cat "$MNT/a/t2/cgroup.type")" = "threaded" ]
	[ "$(cat "$MNT/a/cgroup.procs")" = "$p" ]
}
