#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# tasks and cgroup.procs: listing (thread ids / process ids, sorted, no
# repeats, no exited task), attaching by writing one id, the writer as 0,
# the root's view of the whole system, threads. Only processes started here
# are moved. Expectations: docs/kernel-oracle.md §0 and §2.

load helpers

setup() {
	cg_setup
	cg_mount
	cd "$MNT"
	mkdir t
}

teardown() {
	cg_teardown
}

# expect_attach FILE BYTES RESULT MEMBERS: with P moved back to the root
# first, one write of BYTES (where @P@ stands for P's id, @Q@ for Q's) to
# FILE gives RESULT, and t/tasks then lists MEMBERS (one a line, '' for none).
# Queued like cg_expect: cg_expect_done runs and checks them.
expect_attach() {
	local file=$1 bytes=${2//@P@/$P} want=$3 members=${4//@P@/$P}
	bytes=${bytes//@Q@/$Q}
	cg_case "$MNT/tasks" "$P" "$file" "$bytes" "$want" "$MNT/t/tasks" "$members"
}

# An id no task has: above pid_max.
no_such_pid() {
	echo $(($(cat /proc/sys/kernel/pid_max) + 1))
}

# ---- listing -------------------------------------------------------------------

@test "a new group's tasks and cgroup.procs are empty" {
	run cg_bytes t/tasks
	assert_output "b''"
	run cg_bytes t/cgroup.procs
	assert_output "b''"
}

@test "echo PID > tasks attaches the process; tasks and cgroup.procs list it" {
	local p
	cg_sleeper p
	echo "$p" >t/tasks
	run cg_bytes t/tasks
	assert_output "b'$p\\n'"
	run cg_bytes t/cgroup.procs
	assert_output "b'$p\\n'"
}

@test "tasks lists ids sorted ascending whatever the order they came in" {
	local a b c ids
	cg_sleeper a
	cg_sleeper b
	cg_sleeper c
	ids=$(printf '%s\n' "$a" "$b" "$c" | sort -n)
	local sorted=($ids)
	echo "${sorted[2]}" >t/tasks
	echo "${sorted[0]}" >t/tasks
	echo "${sorted[1]}" >t/cgroup.procs
	run cat t/tasks
	assert_output "$ids"
	run cat t/cgroup.procs
	assert_output "$ids"
}

@test "writing an id already in the group succeeds and lists it once" {
	local p
	cg_sleeper p
	echo "$p" >t/tasks
	run cg_write t/tasks "$p"
	assert_output "${#p}"
	run cg_write t/cgroup.procs "$p"
	assert_output "${#p}"
	run cat t/tasks
	assert_output "$p"
	run cat t/cgroup.procs
	assert_output "$p"
}

@test "a member that exits leaves tasks and cgroup.procs; rmdir then works" {
	local p q
	cg_sleeper p
	cg_sleeper q
	echo "$p" >t/tasks
	echo "$q" >t/tasks
	kill -KILL "$p"
	wait "$p" || true
	run cat t/tasks
	assert_output "$q"
	run cat t/cgroup.procs
	assert_output "$q"
	kill -KILL "$q"
	wait "$q" || true
	run cat t/tasks
	assert_output ""
	run rmdir t
	assert_success
	[ ! -e t ]
}

@test "rmdir right after the last member exited succeeds" {
	local p
	cg_sleeper p
	echo "$p" >t/tasks
	kill -KILL "$p"
	wait "$p" || true
	run rmdir t
	assert_success
	assert_output ""
}

# ---- writing ids ---------------------------------------------------------------

@test "tasks accepts one id with surrounding whitespace, + and a trailing NUL" {
	local P Q
	cg_sleeper P
	expect_attach t/tasks '@P@' ok '@P@'
	expect_attach t/tasks '@P@\n' ok '@P@'
	expect_attach t/tasks ' @P@' ok '@P@'
	expect_attach t/tasks '@P@ ' ok '@P@'
	expect_attach t/tasks '\t@P@\n' ok '@P@'
	expect_attach t/tasks '@P@\n\n' ok '@P@'
	expect_attach t/tasks '+@P@' ok '@P@'
	expect_attach t/tasks '@P@\x00junk' ok '@P@'
	expect_attach t/tasks '@P@\x00' ok '@P@'
	expect_attach t/tasks '' 0 ''
	cg_expect_done
}

@test "tasks parses ids in base 0: hex and octal of the PID attach it" {
	local P Q
	cg_sleeper P
	expect_attach t/tasks "$(printf '0x%x' "$P")" ok '@P@'
	expect_attach t/tasks "$(printf '0X%X' "$P")" ok '@P@'
	expect_attach t/tasks "$(printf '0%o' "$P")" ok '@P@'
	expect_attach t/tasks '08' "$E_INVAL" ''
	expect_attach t/tasks '0@P@9' "$E_INVAL" ''
	cg_expect_done
}

@test "tasks refuses garbage, negative ids and several ids in one write with EINVAL" {
	local P Q
	cg_sleeper P
	cg_sleeper Q
	local bad
	for bad in '-@P@' '-1' 'abc' '@P@abc' '\n' ' ' '@P@ @Q@' '@P@\n@Q@' '@P@,@Q@' '@P@\t@Q@' \
		'0x' '@P@.0' '1e3'; do
		expect_attach t/tasks "$bad" "$E_INVAL" ''
	done
	cg_expect_done
	run cat t/cgroup.procs
	assert_output ""
}

@test "tasks refuses an id no task has with ESRCH" {
	local P Q gone
	cg_sleeper P
	cg_sleeper gone
	kill -KILL "$gone"
	wait "$gone" || true
	expect_attach t/tasks "$(no_such_pid)" "$E_SRCH" ''
	# 32768 and 32769 are beyond pid_max on the oracle's machine.
	local id pid_max
	pid_max=$(cat /proc/sys/kernel/pid_max)
	for id in 32768 32769; do
		if ((id >= pid_max)); then expect_attach t/tasks "$id" "$E_SRCH" ''; fi
	done
	expect_attach t/tasks '4194304' "$E_SRCH" ''
	expect_attach t/tasks '2147483647' "$E_SRCH" ''
	expect_attach t/tasks "$gone" "$E_SRCH" ''
	cg_expect_done
	run bash -c "echo $gone > t/tasks"
	assert_failure
	assert_output "bash: line 1: echo: write error: No such process"
}

@test "tasks refuses ids that overflow an int with EINVAL (no wrap-around)" {
	local P Q
	cg_sleeper P
	expect_attach t/tasks '2147483648' "$E_INVAL" ''
	expect_attach t/tasks '4294967295' "$E_INVAL" ''
	expect_attach t/tasks '4294967296' "$E_INVAL" ''
	expect_attach t/tasks "$((4294967296 + P))" "$E_INVAL" ''
	expect_attach t/tasks '18446744073709551616' "$E_INVAL" ''
	expect_attach t/tasks '-2147483648' "$E_INVAL" ''
	cg_expect_done
}

@test "cgroup.procs parses ids exactly like tasks" {
	local P Q
	cg_sleeper P
	cg_sleeper Q
	expect_attach t/cgroup.procs '@P@' ok '@P@'
	expect_attach t/cgroup.procs '\t@P@\n\n' ok '@P@'
	expect_attach t/cgroup.procs '+@P@ ' ok '@P@'
	expect_attach t/cgroup.procs "$(printf '0x%x' "$P")" ok '@P@'
	expect_attach t/cgroup.procs "$(printf '0%o' "$P")" ok '@P@'
	expect_attach t/cgroup.procs '@P@\x00junk' ok '@P@'
	expect_attach t/cgroup.procs '' 0 ''
	expect_attach t/cgroup.procs '08' "$E_INVAL" ''
	expect_attach t/cgroup.procs '-@P@' "$E_INVAL" ''
	expect_attach t/cgroup.procs 'abc' "$E_INVAL" ''
	expect_attach t/cgroup.procs '@P@ @Q@' "$E_INVAL" ''
	expect_attach t/cgroup.procs '@P@\n@Q@' "$E_INVAL" ''
	expect_attach t/cgroup.procs '\n' "$E_INVAL" ''
	expect_attach t/cgroup.procs "$(no_such_pid)" "$E_SRCH" ''
	expect_attach t/cgroup.procs '2147483647' "$E_SRCH" ''
	expect_attach t/cgroup.procs '2147483648' "$E_INVAL" ''
	expect_attach t/cgroup.procs '18446744073709551616' "$E_INVAL" ''
	cg_expect_done
}

@test "the shell reports EINVAL for garbage written to tasks" {
	run bash -c 'echo abc > t/tasks'
	assert_failure
	assert_output "bash: line 1: echo: write error: Invalid argument"
	run bash -c 'echo 1 2 > t/tasks'
	assert_failure
	assert_output "bash: line 1: echo: write error: Invalid argument"
}

@test "writing 0 to tasks moves the writer itself" {
	run sh -c 'echo 0 > t/tasks && echo $$ && exec cat t/tasks'
	assert_success
	[ "${#lines[@]}" -eq 2 ]
	[ "${lines[0]}" -gt 0 ]
	[ "${lines[1]}" = "${lines[0]}" ]
}

@test "writing 0 to cgroup.procs moves the writer itself" {
	run sh -c 'echo 0 > t/cgroup.procs && echo $$ && exec cat t/cgroup.procs'
	assert_success
	[ "${#lines[@]}" -eq 2 ]
	[ "${lines[0]}" -gt 0 ]
	[ "${lines[1]}" = "${lines[0]}" ]
}

@test "after echo 0 > tasks, a child the shell forks starts in the group too" {
	# sh=$$ then the cat it forks: both are listed (kernel: sh=7209, 7209, 7210).
	run sh -c 'echo 0 > t/tasks; echo "sh=$$"; cat t/tasks & echo "cat=$!"; wait'
	assert_success
	local sh cat
	sh=$(printf '%s\n' "${lines[@]}" | sed -n 's/^sh=//p')
	cat=$(printf '%s\n' "${lines[@]}" | sed -n 's/^cat=//p')
	[ -n "$sh" ]
	[ -n "$cat" ]
	assert_line "$sh"
	assert_line "$cat"
	[ "${#lines[@]}" -eq 4 ]
}

# ---- the root ------------------------------------------------------------------

@test "the root's tasks lists every task not in a child group, kthreads included" {
	cg_require_kthreads
	local p
	cg_sleeper p
	run cat tasks
	assert_line 1
	assert_line 2
	assert_line "$p"
	assert_line "$$"
	echo "$p" >t/tasks
	run cat tasks
	assert_line 1
	assert_line 2
	refute_line "$p"
	run cat cgroup.procs
	assert_line 1
	assert_line 2
	refute_line "$p"
	run sort -n -c tasks
	assert_success
	run sort -n -c cgroup.procs
	assert_success
}

@test "the root's tasks lists each thread once, sorted, with all threads of the system" {
	# Every thread that exists before and after reading the root's tasks
	# (and is in no child group) is listed: compare with /proc.
	local before after listed missing
	before=$(ls /proc/[0-9]*/task | grep -E '^[0-9]+$' | sort -n)
	listed=$(cat tasks)
	after=$(ls /proc/[0-9]*/task | grep -E '^[0-9]+$' | sort -n)
	missing=$(comm -12 <(echo "$before" | sort) <(echo "$after" | sort) |
		comm -23 - <(echo "$listed" | sort))
	[ -z "$missing" ] || { echo "not listed: $missing" >&2; false; }
	[ "$(echo "$listed" | sort -n -u)" = "$listed" ]
}

@test "the root's cgroup.procs lists a process while one of its threads is in the root" {
	# The root's listing reads /proc outside the core lock, then drops
	# what child groups hold: a process with a thread left (untracked, or
	# moved back) is listed, one with every thread in a group is not.
	local py tids
	cg_threads py
	tids=($(cg_tids "$py"))
	echo "${tids[1]}" >t/tasks
	run cat cgroup.procs
	assert_line "$py"
	run cat tasks
	assert_line "${tids[0]}"
	refute_line "${tids[1]}"
	echo "$py" >t/cgroup.procs
	run cat cgroup.procs
	refute_line "$py"
	run cat tasks
	refute_line "${tids[0]}"
	echo "${tids[2]}" >tasks
	run cat cgroup.procs
	assert_line "$py"
	run cat t/cgroup.procs
	assert_output "$py"
}

@test "writing a PID to the root's tasks moves it back out of the group" {
	local p
	cg_sleeper p
	echo "$p" >t/tasks
	run cat t/tasks
	assert_output "$p"
	run cg_write tasks "$p"
	assert_output "${#p}"
	run cat t/tasks
	assert_output ""
	run cat tasks
	assert_line "$p"
	run rmdir t
	assert_success
}

@test "writing a PID to the root's cgroup.procs moves it back out of the group" {
	local p
	cg_sleeper p
	echo "$p" >t/cgroup.procs
	run cg_write cgroup.procs "$p"
	assert_output "${#p}"
	run cat t/cgroup.procs
	assert_output ""
	run cat cgroup.procs
	assert_line "$p"
}

@test "a kernel thread (kthreadd, pid 2) cannot be moved: EINVAL" {
	cg_require_kthreads
	grep -qx 'Kthread:[[:space:]]*1' /proc/2/status
	run cg_write t/tasks 2
	assert_output "$E_INVAL"
	run cat t/tasks
	assert_output ""
	run cat tasks
	assert_line 2
	run bash -c 'echo 2 > t/tasks'
	assert_failure
	assert_output "bash: line 1: echo: write error: Invalid argument"
}

# ---- threads -------------------------------------------------------------------

@test "writing a thread id to tasks moves only that thread" {
	local py tids
	cg_threads py
	tids=($(cg_tids "$py"))
	[ "${tids[0]}" = "$py" ]
	echo "${tids[2]}" >t/tasks
	run cat t/tasks
	assert_output "${tids[2]}"
	run cat t/cgroup.procs
	assert_output "$py"
	run cat cgroup.procs
	assert_line "$py"
	run cat tasks
	assert_line "${tids[0]}"
	assert_line "${tids[1]}"
	refute_line "${tids[2]}"
	assert_line "${tids[3]}"
	echo "${tids[3]}" >t/tasks
	run cat t/tasks
	assert_output "${tids[2]}"$'\n'"${tids[3]}"
	run cat t/cgroup.procs
	assert_output "$py"
}

@test "writing a thread id to cgroup.procs moves its whole process" {
	local py tids
	cg_threads py
	tids=($(cg_tids "$py"))
	echo "${tids[2]}" >t/cgroup.procs
	run cat t/tasks
	assert_output "$(printf '%s\n' "${tids[@]}")"
	run cat t/cgroup.procs
	assert_output "$py"
	run cat cgroup.procs
	refute_line "$py"
	run cat tasks
	local tid
	for tid in "${tids[@]}"; do
		refute_line "$tid"
	done
}

@test "writing a process id to tasks moves only its leader thread" {
	local py tids
	cg_threads py
	tids=($(cg_tids "$py"))
	echo "$py" >t/tasks
	run cat t/tasks
	assert_output "$py"
	run cat t/cgroup.procs
	assert_output "$py"
	run cat tasks
	refute_line "$py"
	assert_line "${tids[1]}"
	run cat cgroup.procs
	assert_line "$py"
}

@test "writing a process id to the root's cgroup.procs moves all its threads back" {
	local py tids
	cg_threads py
	tids=($(cg_tids "$py"))
	echo "$py" >t/cgroup.procs
	run cat t/tasks
	assert_output "$(printf '%s\n' "${tids[@]}")"
	echo "$py" >cgroup.procs
	run cat t/tasks
	assert_output ""
	run cat t/cgroup.procs
	assert_output ""
	run cat tasks
	local tid
	for tid in "${tids[@]}"; do
		assert_line "$tid"
	done
	run rmdir t
	assert_success
}

@test "threads of one process in two groups: each group's cgroup.procs lists the process" {
	local py tids
	mkdir u
	cg_threads py
	tids=($(cg_tids "$py"))
	echo "${tids[1]}" >t/tasks
	echo "${tids[2]}" >u/tasks
	run cat t/cgroup.procs
	assert_output "$py"
	run cat u/cgroup.procs
	assert_output "$py"
	run cat t/tasks
	assert_output "${tids[1]}"
	run cat u/tasks
	assert_output "${tids[2]}"
}

@test "a thread that exits leaves tasks; the process stays in cgroup.procs" {
	local py
	# A process whose second thread ends when told to (by a file appearing).
	"$CG_PYTHON" -c '
import os, sys, threading, time
def worker():
    while not os.path.exists(sys.argv[1]):
        time.sleep(0.02)
threading.Thread(target=worker).start()
time.sleep(1000)
' "$CG_TMP/stop" >/dev/null 2>&1 3>&- &
	py=$!
	CG_HELPERS+=("$py")
	cg_poll_until -x 2 cg_nthreads "$py"
	local tids=($(cg_tids "$py"))
	[ "${#tids[@]}" -eq 2 ]
	echo "$py" >t/cgroup.procs
	run cat t/tasks
	assert_output "${tids[0]}"$'\n'"${tids[1]}"
	touch "$CG_TMP/stop"
	cg_poll_until test ! -e "/proc/$py/task/${tids[1]}"
	run cat t/tasks
	assert_output "${tids[0]}"
	run cat t/cgroup.procs
	assert_output "$py"
}

@test "exec from a non-leader thread: the process stays in that thread's group, under its pid" {
	local py
	# A process whose second thread calls execve when told to: the kernel
	# gives it the leader's id, and the old thread id vanishes.
	"$CG_PYTHON" -c '
import os, sys, threading, time
def worker():
    while not os.path.exists(sys.argv[1]):
        time.sleep(0.02)
    os.execv(sys.argv[2], ["sleep", "1000"])
threading.Thread(target=worker).start()
time.sleep(1000)
' "$CG_TMP/go" "$(command -v sleep)" >/dev/null 2>&1 3>&- &
	py=$!
	CG_HELPERS+=("$py")
	cg_poll_until -x 2 cg_nthreads "$py"
	local tids=($(cg_tids "$py"))
	[ "${#tids[@]}" -eq 2 ]
	# Only the thread that will exec is a member.
	echo "${tids[1]}" >t/tasks
	run cat t/tasks
	assert_output "${tids[1]}"
	touch "$CG_TMP/go"
	cg_poll_until -x sleep cat "/proc/$py/comm"
	[ "$(cg_tids "$py")" = "$py" ]
	run cat t/tasks
	assert_output "$py"
	run cat t/cgroup.procs
	assert_output "$py"
	run grep -x -e "$py" -e "${tids[1]}" tasks
	assert_failure
}

@test "a child a member makes with clone(CLONE_PARENT) starts where cgfused(8) documents" {
	# The proc connector names the member's parent as the child's parent,
	# not the member; the kernel would have put the child in the group, as
	# the ptrace source does (it sees the member's own clone). The scan
	# reads the member's children, where it is not listed: the root too.
	local where=root
	[[ $(cg_watch_source) != ptrace ]] || where=group
	run "$CLONE_PARENT" "$MNT/t/tasks" "$MNT/tasks"
	assert_success
	assert_output --regexp "^[0-9]+ in $where\$"
}
