#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# Following forks, execs and exits (-o tracking=, kernel/watch.h): the
# proc connector on the host, the /proc scan anywhere, the choice inside a
# PID namespace without CAP_NET_ADMIN and CAP_SYS_NICE, and kernels before
# Linux 6.9 (no PIDFD_THREAD, simulated by a seccomp filter). The newcomer
# flow itself is tracking-check.sh's.

load helpers

setup() {
	cg_setup
}

teardown() {
	cg_teardown
}

# In a new PID namespace (and mount namespace, for its /proc), without
# CAP_NET_ADMIN and CAP_SYS_NICE: the namespace's processes all die with
# it (--kill-child), whatever happens.
in_pid_ns() {
	timeout -s KILL 120 unshare --pid --fork --kill-child --mount-proc \
		setpriv --inh-caps=-net_admin,-sys_nice --bounding-set=-net_admin,-sys_nice -- "$@"
}

@test "tracking=scan: a newcomer's children, threads and grandchildren follow it, exits leave" {
	cg_mount -o tracking=scan
	grep -q "tracking forks by /proc scan every 50 ms" "$CG_TMP/cgfused.log"
	run bash "$TESTS_SRCDIR/tracking-check.sh" "$MNT" scan
	assert_success
	grep -q "^task_watch_events [1-9]" "$MNT/cgfused.stat"
}

@test "tracking=auto on the host takes the proc connector" {
	cg_mount
	grep -q "tracking forks by the proc connector" "$CG_TMP/cgfused.log"
	run bash "$TESTS_SRCDIR/tracking-check.sh" "$MNT" connector
	assert_success
}

@test "tracking=auto in a PID namespace without CAP_NET_ADMIN takes ptrace" {
	run in_pid_ns bash "$TESTS_SRCDIR/tracking-ns.sh" "$CGFUSED" "$MNT" "$CG_TMP/ns.log" ptrace
	cat "$CG_TMP/ns.log"
	assert_success
	assert_line "children, threads and a grandchild followed"
	assert_line "exits left the group"
	grep -q "tracking forks by ptrace: the proc connector is refused" "$CG_TMP/ns.log"
}

@test "tracking=scan in a PID namespace without CAP_NET_ADMIN: children follow, exits leave" {
	run in_pid_ns bash "$TESTS_SRCDIR/tracking-ns.sh" "$CGFUSED" "$MNT" "$CG_TMP/ns.log" scan \
		-o tracking=scan
	cat "$CG_TMP/ns.log"
	assert_success
	assert_line "children, threads and a grandchild followed"
	assert_line "exits left the group"
	grep -q "tracking forks by /proc scan every 50 ms" "$CG_TMP/ns.log"
}

@test "tracking=auto in a PID namespace as root: the connector's silence is found, ptrace taken" {
	run timeout -s KILL 120 unshare --pid --fork --kill-child --mount-proc \
		bash "$TESTS_SRCDIR/tracking-ns.sh" "$CGFUSED" "$MNT" "$CG_TMP/ns.log" ptrace
	cat "$CG_TMP/ns.log"
	assert_success
	grep -q "tracking forks by ptrace: the proc connector does not deliver in this PID namespace" \
		"$CG_TMP/ns.log"
}

@test "tracking=auto in a user namespace (unshare -Urpfm): the connector is refused, ptrace taken" {
	run timeout -s KILL 120 unshare -Urpfm --kill-child --mount-proc \
		bash "$TESTS_SRCDIR/tracking-ns.sh" "$CGFUSED" "$MNT" "$CG_TMP/ns.log" ptrace
	cat "$CG_TMP/ns.log"
	assert_success
	assert_line "exits left the group"
	grep -q "tracking forks by ptrace: the proc connector is refused (Operation not permitted" \
		"$CG_TMP/ns.log"
}

@test "tracking=auto where nothing may be traced (seccomp fails ptrace): the scan taken" {
	run timeout -s KILL 120 unshare --pid --fork --kill-child --mount-proc \
		"$NO_PTRACE" bash "$TESTS_SRCDIR/tracking-ns.sh" "$CGFUSED" "$MNT" "$CG_TMP/ns.log" scan
	cat "$CG_TMP/ns.log"
	assert_success
	grep -q "tracking forks by /proc scan every 50 ms: the proc connector does not deliver.*; a child of its own cannot be traced (Operation not permitted)" \
		"$CG_TMP/ns.log"
}

@test "tracking=ptrace where nothing may be traced refuses to start, with one line" {
	run -1 cg_no_lsan timeout -s KILL 60 "$NO_PTRACE" "$CGFUSED" -f \
		-o state=none,config=none,rules=none,tracking=ptrace "$MNT"
	assert_output "cgfused: tracking=ptrace cannot work here: a child of its own cannot be traced (Operation not permitted)"
}

@test "tracking=connector in a PID namespace refuses to start, with one line" {
	run -1 timeout -s KILL 60 unshare --pid --fork --kill-child --mount-proc \
		"$CGFUSED" -f -o state=none,config=none,rules=none,tracking=connector "$MNT"
	assert_output "cgfused: tracking=connector cannot work here: the proc connector does not deliver in this PID namespace (a fork probe was not reported within 300 ms)"
}

@test "an unknown tracking= refuses to start" {
	run -1 "$CGFUSED" -f -o state=none,config=none,rules=none,tracking=netlink "$MNT"
	assert_output "cgfused: tracking=netlink: unknown (auto, connector, ptrace or scan)"
}

# A kernel without PIDFD_THREAD: cgfused under a seccomp filter.
mount_before_6_9() {
	printf '#!/bin/sh\nexec "%s" "%s" "$@"\n' "$NO_PIDFD_THREAD" "$CGFUSED" >"$CG_TMP/cgfused-6.1"
	chmod +x "$CG_TMP/cgfused-6.1"
	CGFUSED=$CG_TMP/cgfused-6.1 cg_mount "$@"
	grep -q "threads are known by id and start time, not by a pidfd (that needs Linux 6.9)" \
		"$CG_TMP/cgfused.log"
}

@test "before Linux 6.9 (no PIDFD_THREAD): attach works, children follow, exits leave" {
	mount_before_6_9
	run bash "$TESTS_SRCDIR/tracking-check.sh" "$MNT" connector
	assert_success
}

@test "before Linux 6.9, tracking=scan: children follow, exits leave" {
	mount_before_6_9 -o tracking=scan
	run bash "$TESTS_SRCDIR/tracking-check.sh" "$MNT" scan
	assert_success
}

# The scan tells an exec of a process it follows by its new name: the
# rules place it (cgfused.rules(5)).
@test "tracking=scan: a followed process that execs is placed by the rules" {
	local cmd=trk$$x$RANDOM p
	cmd=${cmd:0:15}
	cp "$(command -v sleep)" "$CG_TMP/$cmd"
	printf '*:%s  cpu  /placed\n' "$cmd" >"$CG_TMP/rules"
	cg_mount -o tracking=scan -o "rules=$CG_TMP/rules"
	mkdir "$MNT/g" "$MNT/placed"
	# It execs once a scan has seen it (an exec before that is not told
	# from its first image).
	bash -c '
scans() { sed -n "s/^task_watch_scans //p" "$1/cgfused.stat"; }
echo $BASHPID >"$1/g/tasks" || exit 1
s0=$(scans "$1")
until (($(scans "$1") >= s0 + 2)); do sleep 0.05; done
exec "$2" 1000' _ "$MNT" "$CG_TMP/$cmd" >/dev/null 2>&1 3>&- &
	p=$!
	CG_HELPERS+=("$p")
	cg_placed "$p" "$MNT/placed/cgroup.procs"
}

# The scan holds a pidfd per thread it follows, but at most half the
# descriptors the daemon may open; past them it asks about a thread
# without one. With 64 descriptors, 60 children are all followed, none is
# taken for gone, and the daemon still has descriptors to find one more.
@test "tracking=scan with few descriptors: every child is placed, and leaves when it exits" {
	local p n
	printf '#!/bin/sh\nulimit -n 64 || exit 1\nexec "%s" "$@"\n' "$CGFUSED" >"$CG_TMP/cgfused-64"
	chmod +x "$CG_TMP/cgfused-64"
	CGFUSED=$CG_TMP/cgfused-64 cg_mount -o tracking=scan
	mkdir "$MNT/g"
	mkfifo "$CG_TMP/go"
	bash -c 'echo $BASHPID >"$1/g/tasks" || exit 1
for i in $(seq 60); do sleep 1000 & done
read <"$2"
sleep 1000 &
exec sleep 1000' _ "$MNT" "$CG_TMP/go" >/dev/null 2>&1 3>&- &
	p=$!
	CG_HELPERS+=("$p")
	cg_poll_until -x 61 bash -c "wc -l <'$MNT/g/tasks'"
	# Still all there three scans later: none taken for gone.
	n=$(sed -n 's/^task_watch_scans //p' "$MNT/cgfused.stat")
	cg_poll_until -ge $((n + 3)) sed -n 's/^task_watch_scans //p' "$MNT/cgfused.stat"
	run wc -l <"$MNT/g/tasks"
	assert_output 61
	echo >"$CG_TMP/go"
	cg_poll_until -x 62 bash -c "wc -l <'$MNT/g/tasks'"
	kill -KILL $(cat "/proc/$p/task/$p/children")
	cg_poll_until -x "$p" cat "$MNT/g/tasks"
}
