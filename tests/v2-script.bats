#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# What the v2 hierarchy had to pass: tests/v2-script.sh, a job script written for the
# kernel's cgroup v2 (mkdir, +cpu +cpuset, cpu.weight, cpuset.cpus, moves,
# poll of cgroup.events, cgroup.kill, rmdir), runs unchanged on a cgfused
# mount (-o unified); its output and errors are checked line by line.
# Where no cpu or cpuset is enabled, the same script runs on the kernel's
# own v2 mount too (/sys/fs/cgroup/unified: cpu and cpuset are bound to v1
# on this hybrid machine, so their steps fail there as they do on cgfused)
# and both must say the same. The kernel's group is the test's own; the
# script's workers are its own children.

load helpers

KERNEL_V2=/sys/fs/cgroup/unified

setup() {
	cg_setup
	S=$TESTS_SRCDIR/v2-script.sh
	KGROUP=
}

teardown() {
	local d
	if [[ -n $KGROUP && -d $KGROUP ]]; then
		# A failed run may have left its workers there: only they can be.
		[[ -e $KGROUP/job/cgroup.kill ]] && echo 1 >"$KGROUP/job/cgroup.kill"
		for d in "$KGROUP"/job/*/ "$KGROUP"/job/ "$KGROUP"/; do
			[[ -d $d ]] && wait_empty "$d" && rmdir "$d"
		done
	fi
	cg_teardown
}

# wait_empty GROUP: up to 20 s for the group to hold no process.
wait_empty() {
	local i
	for ((i = 0; i < 400; i++)); do
		grep -q '^populated 0' "$1/cgroup.events" 2>/dev/null && return 0
		[[ -e $1/cgroup.events ]] || return 0
		sleep 0.05
	done
	return 1
}

# run_script PARENT OUT: runs the script in PARENT, its stdout to OUT.out
# and its stderr to OUT.err. Bash's notice of a job killed by a signal
# names the worker's PID and the line the shell was at when it reaped it
# (the kill is asynchronous), the PID padded to five columns (a fresh
# machine's PIDs are short): both are taken out.
run_script() {
	bash "$S" "$1" >"$2.out" 2>"$2.raw" </dev/null 3>&-
	echo "exit $?" >>"$2.out"
	sed -E 's/: line [0-9]+: +[0-9]+ Killed +/: Killed /' "$2.raw" >"$2.err"
}

@test "the v2 job script runs unchanged on cgfused with cpu and cpuset" {
	cg_mount_v2
	echo "+cpu +cpuset" >"$MNT/cgroup.subtree_control"
	run_script "$MNT" "$CG_TMP/c"
	run cat "$CG_TMP/c.out"
	assert_output "type: domain
controllers: cpuset cpu
subtree_control: cpuset cpu
web controllers: cpuset cpu
web weight: 200
batch weight: 50
batch cpus: 0
web: its worker
batch: its worker
job populated 1
job procs: 0
events: populated 0
web worker: status 137
batch worker: status 137
web populated 0
removed
job: gone
exit 0"
	run cat "$CG_TMP/c.err"
	assert_output "$S: line 59: echo: write error: Invalid argument
$S: line 72: echo: write error: No such process
rmdir: failed to remove 'job/web': Device or resource busy
$S: line 76: echo: write error: Device or resource busy
$S: Killed sleep 1000
$S: Killed sleep 1000
rmdir: failed to remove 'job': Device or resource busy"
	[ -z "$(ls -d "$MNT"/*/ 2>/dev/null)" ]
}

@test "the v2 job script without cpu and cpuset: the kernel's output and errors" {
	[[ -f $KERNEL_V2/cgroup.procs ]] ||
		{ echo "no cgroup v2 mount at $KERNEL_V2 to compare with" >&2; return 1; }
	KGROUP=$KERNEL_V2/cgfused-bats-script-$$
	mkdir "$KGROUP"
	run_script "$KGROUP" "$CG_TMP/k"
	cg_mount_v2
	mkdir "$MNT/g"
	run_script "$MNT/g" "$CG_TMP/c"
	# What the kernel said, so that the comparison is not of two failures.
	run cat "$CG_TMP/k.out"
	assert_line --index 0 "type: domain"
	assert_line "job populated 1"
	assert_line "events: populated 0"
	assert_line "web worker: status 137"
	assert_line "job: gone"
	assert_line "exit 0"
	run cat "$CG_TMP/k.err"
	assert_line "$S: line 48: echo: write error: No such file or directory"
	assert_line "$S: line 52: job/web/cpu.weight: Permission denied"
	assert_line "rmdir: failed to remove 'job/web': Device or resource busy"
	# cgfused, line by line.
	diff -u "$CG_TMP/k.out" "$CG_TMP/c.out"
	diff -u "$CG_TMP/k.err" "$CG_TMP/c.err"
}
