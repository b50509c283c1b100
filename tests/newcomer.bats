#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# What a new user does first, as the README shows it: a group, a shell in
# it, its children following it, and cpu.shares dividing a CPU. Run as it
# is on the host, and by tests/modes/run-modes in every environment cgfused
# is meant for (root in a PID namespace without CAP_NET_ADMIN and
# CAP_SYS_NICE, a user namespace's root, a plain user): the same file, the
# same expectations, whatever task-watch source and nice range the daemon
# found there.

load helpers

setup() {
	cg_setup
	cg_mount
	cd "$MNT"
}

teardown() {
	cg_teardown
}

# in_tasks GROUP PID: PID is listed in GROUP/tasks.
in_tasks() {
	grep -qx "$2" "$1/tasks"
}

# not_in_tasks GROUP PID: PID is not listed in GROUP/tasks.
not_in_tasks() {
	! in_tasks "$@"
}

# nice_gap A B: B's nice minus A's.
nice_gap() {
	echo $(( $(nice_of "$2") - $(nice_of "$1") ))
}

@test "a shell placed in a group takes its children, grandchildren and threads along" {
	local sh child grandchild threads tid
	mkdir build
	run cat cgfused.stat
	assert_line --regexp '^task_watch (connector|ptrace|scan)$'
	# The shell puts itself in, then starts what a job would: a child,
	# a child of a child, a process with threads.
	bash -c 'echo $BASHPID > build/tasks
		sleep 1000 & echo $! > "$1/child"
		bash -c "sleep 1000 & echo \$! > $1/grandchild; wait" &
		'"$CG_PYTHON"' -c "
import threading, time
for _ in range(3):
    threading.Thread(target=time.sleep, args=(1000,), daemon=True).start()
time.sleep(1000)" & echo $! > "$1/threads"
		wait' sh "$CG_TMP" >/dev/null 2>&1 3>&- &
	sh=$!
	CG_HELPERS+=("$sh")
	cg_poll_until test -s "$CG_TMP/child" -a -s "$CG_TMP/grandchild" -a -s "$CG_TMP/threads"
	child=$(cat "$CG_TMP/child") grandchild=$(cat "$CG_TMP/grandchild")
	threads=$(cat "$CG_TMP/threads")
	CG_HELPERS+=("$child" "$grandchild" "$threads")
	cg_poll_until -x 4 cg_nthreads "$threads"
	cg_poll_until in_tasks build "$sh"
	cg_poll_until in_tasks build "$child"
	cg_poll_until in_tasks build "$grandchild"
	for tid in $(cg_tids "$threads"); do
		cg_poll_until in_tasks build "$tid"
	done
	# Nothing of theirs stayed behind in the root.
	run grep -x -e "$sh" -e "$child" -e "$grandchild" tasks
	assert_failure
	# An exit leaves the group.
	kill -KILL "$child"
	cg_poll_until not_in_tasks build "$child"
}

@test "cpu.shares 2048 against 1024 splits one CPU 2:1" {
	local a b a0 b0 a1 b1 g
	mkdir fast slow
	echo 2048 >fast/cpu.shares
	echo 1024 >slow/cpu.shares
	# One CPU for both: their cpusets (cgfused sets a member's affinity
	# to its cpuset's CPUs, so taskset alone would not hold).
	for g in fast slow; do
		echo 0 >$g/cpuset.cpus
		echo 0 >$g/cpuset.mems
	done
	# Two busy loops in one session (nice acts within one).
	"$CG_PYTHON" -c 'while True: pass' >/dev/null 2>&1 3>&- &
	a=$!
	"$CG_PYTHON" -c 'while True: pass' >/dev/null 2>&1 3>&- &
	b=$!
	CG_HELPERS+=("$a" "$b")
	echo "$a" >fast/tasks
	echo "$b" >slow/tasks
	cg_poll_until -x 0 cg_cpus_of "$a"
	cg_poll_until -x 0 cg_cpus_of "$b"
	# Placed: their nice values differ by the 3 steps of 2048:1024
	# (1.95x), wherever the daemon's allowed range puts them.
	cg_poll_until -x 3 nice_gap "$a" "$b"
	a0=$(cg_cpu_ns "$a") b0=$(cg_cpu_ns "$b")
	sleep 3
	a1=$(cg_cpu_ns "$a") b1=$(cg_cpu_ns "$b")
	# 2:1, within what a shared machine lets two loops on one CPU show.
	run "$CG_PYTHON" -c "r = ($a1 - $a0) / max($b1 - $b0, 1); print(round(r, 2)); exit(not 1.5 <= r <= 2.6)"
	echo "fast:slow = $output" >&2
	assert_success
}
