#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# cpuacct on real processes: a group counts the CPU time its members (and
# its descendants' members) ran while they were members, exited ones
# included; the root counts the whole system. Formats: docs/kernel-oracle.md.

load helpers

setup() {
	cg_setup
	cg_mount
	cd "$MNT"
	NR_CPU_IDS=$(($(sed 's/.*[-,]//' /sys/devices/system/cpu/possible) + 1))
}

teardown() {
	cg_teardown
}

# burn GROUP SECONDS: a process that joins GROUP, spins for SECONDS of CPU
# and exits; prints the CPU ns it used from just before it joined.
burn() {
	"$CG_PYTHON" -c '
import os, sys, time
start = time.thread_time_ns()
with open(sys.argv[1] + "/tasks", "w") as f:
    f.write(str(os.getpid()))
while time.thread_time_ns() - start < float(sys.argv[2]) * 1e9:
    pass
print(time.thread_time_ns() - start)
' "$1" "$2"
}

# burn_sys GROUP SECONDS: the same in system time (reads of /dev/zero);
# prints the system time in ns it used from just before it joined, as the
# kernel counts it (getrusage of the thread).
burn_sys() {
	"$CG_PYTHON" -c '
import os, resource, sys
def stime():
    return int(resource.getrusage(resource.RUSAGE_THREAD).ru_stime * 1e9)
start = stime()
with open(sys.argv[1] + "/tasks", "w") as f:
    f.write(str(os.getpid()))
buf = bytearray(1 << 20)
with open("/dev/zero", "rb", buffering=0) as z:
    while stime() - start < float(sys.argv[2]) * 1e9:
        z.readinto(buf)
print(stime() - start)
' "$1" "$2"
}

@test "a fresh group has used nothing, in the kernel's formats" {
	mkdir g
	local zeros
	zeros=$(printf '0 %.0s' $(seq "$NR_CPU_IDS"))
	run cg_bytes g/cpuacct.usage
	assert_output "b'0\\n'"
	run cg_bytes g/cpuacct.usage_percpu
	assert_output "b'$zeros\\n'"
	run cg_bytes g/cpuacct.stat
	assert_output "b'user 0\\nsystem 0\\n'"
	run head -1 g/cpuacct.usage_all
	assert_output "cpu user system"
	run wc -l <g/cpuacct.usage_all
	assert_output "$((NR_CPU_IDS + 1))"
}

@test "an exited member's CPU time stays counted, in its group and above" {
	local used usage
	mkdir -p g/sub
	used=$(burn g/sub 0.3)
	usage=$(cat g/sub/cpuacct.usage)
	# The group counted what the process ran after it joined: nearly all.
	((usage >= used * 9 / 10 && usage <= used + 50000000)) ||
		fail "usage $usage, the process used $used"
	run cat g/cpuacct.usage
	assert_output "$usage"
	# usage_percpu adds up to usage.
	local sum=0 v
	for v in $(cat g/sub/cpuacct.usage_percpu); do
		sum=$((sum + v))
	done
	[ "$sum" -eq "$usage" ]
	run cat tasks
	assert_success
}

@test "cpuacct.usage resets with 0 only" {
	mkdir g
	burn g 0.1 >/dev/null
	[ "$(cat g/cpuacct.usage)" -gt 0 ]
	run cg_write g/cpuacct.usage 1
	assert_output "$E_INVAL"
	run cg_write g/cpuacct.usage_percpu 0
	assert_output "$E_INVAL"
	run cg_write g/cpuacct.usage 0
	assert_output 1
	run cat g/cpuacct.usage
	assert_output 0
}

@test "the root counts the whole system" {
	local a b
	a=$(cat cpuacct.usage)
	burn . 0.2 >/dev/null
	b=$(cat cpuacct.usage)
	((b - a >= 100000000)) || fail "the root went from $a to $b"
	run cat cpuacct.stat
	assert_line --regexp '^user [1-9][0-9]*$'
	assert_line --regexp '^system [0-9]+$'
}

@test "system time is counted, in ns and in USER_HZ ticks" {
	local used sys ticks
	mkdir g
	used=$(burn_sys g 0.3)
	sys=$(cat g/cpuacct.usage_sys)
	# From /proc/TID/stat's ticks: within two ticks of what it used.
	((sys >= used - 20000000 && sys <= used + 20000000)) ||
		fail "usage_sys $sys, the process used $used ns of system time"
	ticks=$(($(getconf CLK_TCK) * sys / 1000000000))
	run cat g/cpuacct.stat
	assert_line "system $ticks"
	run cat g/cpuacct.usage_percpu_sys
	local sum=0 v
	for v in $output; do
		sum=$((sum + v))
	done
	[ "$sum" -eq "$sys" ]
}
