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
