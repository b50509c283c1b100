#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# -o tracking=ptrace: when the daemon traces a task. Not before the writer
# of a move may move it (the permission check comes first, as on the
# kernel), and, daemonized, only in the process that serves, which then
# also places the children a member forked before it traced the member.

load helpers

setup() {
	cg_setup
}

teardown() {
	# The forker's children too (its own session).
	[[ -z ${FORKER:-} ]] || pkill -KILL -s "$FORKER"
	cg_teardown
}

# switches PID: how often PID left a CPU so far. A `sleep 1000` stays off
# it unless woken: a trace does (the tracer's interrupt to let it go).
switches() {
	local v n
	v=$(cg_status "$1" voluntary_ctxt_switches)
	n=$(cg_status "$1" nonvoluntary_ctxt_switches)
	echo $((v + n))
}

@test "a user who may not move a process gets EACCES, and the daemon never traces it" {
	local s i file before
	chmod 755 "$CG_TMP"
	cg_mount -o tracking=ptrace,allow_other
	mkdir "$MNT/g"
	chown 1234 "$MNT/g/tasks" "$MNT/g/cgroup.procs"
	cg_sleeper s
	cg_poll_until -x S cg_status "$s" State
	before=$(switches "$s")
	local CG_AS=(setpriv --reuid=1234 --regid=1234 --clear-groups)
	local CG_PYTHON=/usr/bin/python3	# one that user may run
	for ((i = 0; i < 20; i++)); do
		for file in tasks cgroup.procs; do
			run cg_write "$MNT/g/$file" "$s"
			assert_output "$E_ACCES"
			run cg_status "$s" TracerPid
			assert_output 0
		done
	done
	run switches "$s"
	assert_output "$before"
	# Root may: the daemon traces it from then on.
	CG_AS=()
	run cg_write "$MNT/g/tasks" "$s"
	assert_output "${#s}"
	cg_poll_until -m '^[1-9]' cg_status "$s" TracerPid
}

# every_child_in PID TASKS: each live child of PID is listed in TASKS.
every_child_in() {
	local c
	for c in $(cat /proc/"$1"/task/*/children 2>/dev/null); do
		[[ -d /proc/$c ]] || continue
		grep -qx "$c" "$2" || { echo "child $c of $1 is not in $2"; return 1; }
	done
}

@test "a member forking while cgfused restarts daemonized has every child in its group" {
	cg_mount -o tracking=ptrace
	mkdir "$MNT/g"
	# Once in the group (GO), a long sleep every 20 ms until told to stop.
	# What it forks before that is not the group's (short sleeps, gone).
	setsid bash -c 'until [[ -e $2 ]]; do sleep 0.01; done
		while [[ ! -e $1 ]]; do sleep 1000 & sleep 0.02; done; : >"$1.done"; wait' \
		forker "$CG_TMP/stop" "$CG_TMP/go" >/dev/null 2>&1 3>&- &
	FORKER=$!
	CG_HELPERS+=("$FORKER")
	echo "$FORKER" >"$MNT/g/cgroup.procs"
	touch "$CG_TMP/go"
	cg_poll_until -m '^[1-9]' cg_status "$FORKER" TracerPid
	fusermount3 -u "$MNT"
	cg_wait_gone "$CG_PID"
	"$CGFUSED" -o "state=$CG_TMP/mnt.state,config=none,rules=none,tracking=ptrace" "$MNT" 3>&-
	cg_wait_mounted "$MNT"
	# Its forks after the start are followed: a few more, then stop.
	cg_poll_until -m '^[1-9]' cg_status "$FORKER" TracerPid
	touch "$CG_TMP/stop"
	cg_poll_until test -e "$CG_TMP/stop.done"
	cg_poll_until every_child_in "$FORKER" "$MNT/g/tasks"
	run grep -x "$FORKER" "$MNT/g/tasks"
	assert_success
}
