#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# The controllers' files on a default (v2) hierarchy, `cgfused -o unified`:
# cpu, cpuset and pids enabled in the root's cgroup.subtree_control, then
# each file's names, formats, defaults, ranges and errno in a group. The
# expectations are the kernel's (docs/kernel-oracle.md, "v2 controllers":
# kernel/sched/core.c cpu_files, kernel/cgroup/cpuset.c dfl_files,
# kernel/cgroup/pids.c; this machine's kernel has cpu, cpuset and pids bound
# to v1, so they cannot be tried on /sys/fs/cgroup/unified). The v1 files
# of the same controllers share their storage: cpu.weight is cpu.shares
# (weight 100 = shares 1024), which tests/unit/test-v2-ctl.c checks.

load helpers

setup() {
	cg_setup
	cg_mount_v2
	cd "$MNT"
	echo "+cpu +cpuset +pids" >cgroup.subtree_control
	mkdir g
}

teardown() {
	cg_teardown
}

@test "v2 controller files: which, where, and their modes" {
	local f
	for f in cpu.weight cpu.weight.nice cpu.idle cpu.max cpu.max.burst \
		cpuset.cpus cpuset.mems cpuset.cpus.partition pids.max; do
		[[ -f g/$f ]] || { echo "g/$f missing" >&2; return 1; }
		[[ ! -e $f ]] || { echo "$f in the root" >&2; return 1; }
		run stat -c %A "g/$f"
		assert_output -- -rw-r--r--
	done
	for f in pids.current pids.peak pids.events pids.events.local; do
		[[ -f g/$f && ! -e $f ]] || { echo "$f: in the root or not in g" >&2; return 1; }
		run stat -c %A "g/$f"
		assert_output -- -r--r--r--
	done
	for f in cpu.stat cpu.stat.local cpuset.cpus.effective cpuset.mems.effective; do
		[[ -f g/$f && -f $f ]] || { echo "$f: not in both" >&2; return 1; }
	done
	[[ -f cpuset.cpus.isolated && ! -e g/cpuset.cpus.isolated ]]
	# No v1 file of theirs.
	for f in cpu.shares cpu.cfs_quota_us cpuset.effective_cpus cpuacct.usage tasks; do
		[[ ! -e g/$f ]] || { echo "v1's g/$f on v2" >&2; return 1; }
	done
}

@test "cpu: defaults" {
	cg_expect_read g/cpu.weight 100
	cg_expect_read g/cpu.weight.nice 0
	cg_expect_read g/cpu.idle 0
	cg_expect_read g/cpu.max 'max 100000'
	cg_expect_read g/cpu.max.burst 0
	cg_expect_read g/cpu.stat.local 'throttled_usec 0'
	cg_expect_done
	run cat g/cpu.stat
	assert_output "usage_usec 0
user_usec 0
system_usec 0
nr_periods 0
nr_throttled 0
throttled_usec 0
nr_bursts 0
burst_usec 0"
}

@test "cpu.weight: 1 to 10000, ERANGE outside" {
	local f=g/cpu.weight
	cg_expect $f 100 '1' ok 1
	cg_expect $f 100 '10000' ok 10000
	cg_expect $f 100 '150\n' ok 150
	cg_expect $f 100 '+50' ok 50
	cg_expect $f 100 '0x64' ok 100
	cg_expect $f 100 '0' "$E_RANGE" 100
	cg_expect $f 100 '10001' "$E_RANGE" 100
	cg_expect $f 100 '18446744073709551616' "$E_RANGE" 100
	cg_expect $f 100 '-1' "$E_INVAL" 100
	cg_expect $f 100 ' 100' "$E_INVAL" 100
	cg_expect $f 100 'abc' "$E_INVAL" 100
	cg_expect_done
}

@test "cpu.weight.nice: -20 to 19, the kernel's nearest nice both ways" {
	local f=g/cpu.weight.nice
	cg_case $f 0 $f '-20' ok g/cpu.weight 8668
	cg_case $f 0 $f '19' ok g/cpu.weight 1
	cg_case $f 0 $f '5' ok g/cpu.weight 33
	cg_expect $f 0 '20' "$E_RANGE" 0
	cg_expect $f 0 '-21' "$E_RANGE" 0
	cg_expect $f 0 'abc' "$E_INVAL" 0
	cg_case g/cpu.weight 150 '' '' '' $f -2
	cg_case g/cpu.weight 10000 '' '' '' $f -20
	cg_case g/cpu.weight 1 '' '' '' $f 19
	# 90 is 922 (921.6 rounded): 102 from nice 0's 1024 and from nice 1's
	# 820; the kernel's loop stops at the first that is no nearer: 0.
	cg_case g/cpu.weight 90 '' '' '' $f 0
	cg_expect_done
}

@test "cpu.idle: 0 or 1; an idle group has weight 1 and takes no other" {
	local f=g/cpu.idle
	cg_expect $f 0 '2' "$E_INVAL" 0
	cg_expect $f 0 '-1' "$E_INVAL" 0
	cg_case '' '' $f '1' ok g/cpu.weight 1
	cg_expect g/cpu.weight '' '200' "$E_INVAL" 1
	cg_expect g/cpu.weight.nice '' '0' "$E_INVAL" 19
	cg_case '' '' $f '0' ok g/cpu.weight 100
	cg_expect_done
}

@test "cpu.max: \$MAX [\$PERIOD], the kernel's ranges" {
	local f=g/cpu.max r='max 100000'
	cg_expect $f "$r" '50000 100000' ok '50000 100000'
	cg_expect $f "$r" '50000' ok '50000 100000'
	cg_expect $f "$r" 'max 200000\n' ok 'max 200000'
	cg_expect $f "$r" '1000 1000' ok '1000 1000'
	cg_expect $f "$r" '1000000 1000000' ok '1000000 1000000'
	cg_expect $f "$r" '999 100000' "$E_INVAL" "$r"
	cg_expect $f "$r" '1000 999' "$E_INVAL" "$r"
	cg_expect $f "$r" '1000 1000001' "$E_INVAL" "$r"
	cg_expect $f "$r" '17592186044416 100000' "$E_INVAL" "$r"
	cg_expect $f "$r" '-1' "$E_INVAL" "$r"
	# The kernel's sscanf("%20s %llu") takes no sign: a period that is not
	# a number is left out, and the period stays (blkio's "%llu" refuses
	# "-5" on this kernel, docs/kernel-oracle.md section 10).
	cg_expect $f "$r" 'max -5' ok "$r"
	cg_expect $f "$r" '50000 -5' ok '50000 100000'
	cg_expect $f "$r" 'MAX' "$E_INVAL" "$r"
	cg_expect $f "$r" '\n' "$E_INVAL" "$r"
	cg_expect_done
}

@test "cpu.max: a child may ask for more than its parent; the burst within the quota" {
	mkdir g/c
	echo "+cpu" >g/cgroup.subtree_control
	cg_case g/cpu.max '20000 100000' g/c/cpu.max '80000 100000' ok g/c/cpu.max '80000 100000'
	cg_expect g/c/cpu.max.burst '' '80000' ok 80000
	cg_expect g/c/cpu.max.burst '' '80001' "$E_INVAL" 80000
	cg_expect g/c/cpu.max '' '70000' "$E_INVAL" '80000 100000'
	cg_expect g/c/cpu.max '' 'max' ok 'max 100000'
	cg_expect g/c/cpu.max.burst '' '1000000000' ok 1000000000
	cg_expect_done
}

@test "cpu.stat counts what the group's threads run" {
	# It joins g first, then runs 0.3 s of CPU, then sleeps.
	"$CG_PYTHON" -c 'import os, sys, time
with open(sys.argv[1], "w") as f:
    f.write(str(os.getpid()))
t = time.process_time() + 0.3
while time.process_time() < t: pass
time.sleep(1000)' g/cgroup.procs >/dev/null 2>&1 3>&- &
	CG_HELPERS+=("$!")
	cg_poll_until -ge 250000 awk '$1 == "usage_usec" { print $2 }' g/cpu.stat ||
		{ cat g/cpu.stat >&2; return 1; }
	# user + system is the usage (cputime_adjust()), but for the three
	# figures' rounding down to µs each, as the kernel's.
	run awk '{ v[$1] = $2 } END { d = v["usage_usec"] - v["user_usec"] - v["system_usec"]; print d }' g/cpu.stat
	[[ $output == 0 || $output == 1 ]] || { cat g/cpu.stat >&2; return 1; }
	run awk '$1 == "usage_usec" { print ($2 >= 250000) }' cpu.stat
	assert_output 1
}

@test "cpuset: v2's sets, effective within the parent's" {
	mkdir g/k
	echo "+cpuset" >g/cgroup.subtree_control
	cg_expect_read g/cpuset.cpus ''
	cg_expect_read g/cpuset.mems ''
	cg_expect_read g/cpuset.cpus.partition member
	cg_expect_read g/cpuset.cpus.effective "$(cat cpuset.cpus.effective)"
	cg_expect_read g/cpuset.mems.effective "$(cat cpuset.mems.effective)"
	cg_case g/cpuset.cpus 0 g/k/cpuset.cpus '0-1' ok g/k/cpuset.cpus.effective 0
	cg_expect g/k/cpuset.cpus '' '4096' "$E_RANGE" 0-1
	cg_expect g/k/cpuset.cpus '' 'abc' "$E_INVAL" 0-1
	cg_expect g/cpuset.mems '' '1023' "$E_INVAL" ''
	cg_expect_done
}

# cpus_allowed PID WANT: PID's affinity is WANT within 20 s.
cpus_allowed() {
	cg_poll_until -x "Cpus_allowed_list:	$2" grep Cpus_allowed_list "/proc/$1/status"
}

@test "cpuset: a populated group may ask for nothing" {
	local pid
	cg_sleeper pid
	echo 0 >g/cpuset.cpus
	echo "$pid" >g/cgroup.procs
	run cg_write g/cpuset.cpus '\n'
	assert_output 1
	run cat g/cpuset.cpus.effective
	assert_output "$(cat cpuset.cpus.effective)"
	# What the allocator applies: the effective set.
	cpus_allowed "$pid" "$(cat cpuset.cpus.effective)"
}

@test "cpuset: a member whose group asks for nothing follows its parent's cpus" {
	local pid all
	all=$(cat cpuset.cpus.effective)
	echo +cpuset >g/cgroup.subtree_control
	mkdir g/h
	cg_sleeper pid
	echo "$pid" >g/h/cgroup.procs
	cpus_allowed "$pid" "$all"
	echo 1 >g/cpuset.cpus
	run cat g/h/cpuset.cpus.effective
	assert_output 1
	cpus_allowed "$pid" 1
	echo >g/cpuset.cpus
	cpus_allowed "$pid" "$all"
}

@test "cpuset.cpus.partition: root, and the kernel's invalid states" {
	local all
	all=$(cat cpuset.cpus.effective)
	mkdir h
	cg_expect g/cpuset.cpus.partition '' 'root' ok \
		'root invalid (cpuset.cpus and cpuset.cpus.exclusive are empty)'
	cg_expect g/cpuset.cpus.partition '' 'Root' "$E_INVAL" \
		'root invalid (cpuset.cpus and cpuset.cpus.exclusive are empty)'
	cg_case '' '' g/cpuset.cpus 0 ok g/cpuset.cpus.partition root
	cg_expect_read g/cpuset.cpus.effective 0
	cg_case '' '' h/cpuset.cpus 0 ok g/cpuset.cpus.partition \
		'root invalid (Cpu list in cpuset.cpus not exclusive)'
	cg_case '' '' h/cpuset.cpus '\n' ok g/cpuset.cpus.partition root
	cg_case '' '' g/cpuset.cpus.partition member ok cpuset.cpus.effective "$all"
	cg_expect_done
}

@test "cpuset.cpus.exclusive: what a partition takes, exclusive among siblings" {
	local f=g/cpuset.cpus.exclusive
	mkdir h
	[[ ! -e cpuset.cpus.exclusive && ! -e cpuset.cpus.exclusive.effective ]]
	run stat -c %A $f g/cpuset.cpus.exclusive.effective
	assert_output $'-rw-r--r--\n-r--r--r--'
	cg_expect_read $f ''
	cg_expect_read g/cpuset.cpus.exclusive.effective ''
	cg_expect $f '' 'abc' "$E_INVAL" ''
	cg_expect $f '' '4096' "$E_RANGE" ''
	# Within the parent's effective exclusive CPUs (the root's: all).
	cg_case '' '' $f ' 1\n' ok g/cpuset.cpus.exclusive.effective 1
	cg_expect_read $f 1
	# A sibling's cpuset.cpus.exclusive may not meet it ...
	cg_expect h/cpuset.cpus.exclusive '' '0-1' "$E_INVAL" ''
	cg_expect h/cpuset.cpus.exclusive '' '0' ok 0
	cg_expect h/cpuset.cpus.exclusive '' '\n' ok ''
	# ... nor take all of a sibling's cpuset.cpus; cpuset.cpus is never refused.
	cg_case '' '' h/cpuset.cpus 1 ok h/cpuset.cpus 1
	cg_case '' '' g/cpuset.cpus.exclusive 0-1 "$E_INVAL" g/cpuset.cpus.exclusive 1
	cg_expect_done
	# The partition takes cpuset.cpus.exclusive's CPUs, whatever the
	# siblings' cpuset.cpus and its own (empty here).
	echo root >g/cpuset.cpus.partition
	cg_expect_read g/cpuset.cpus.partition root
	cg_expect_read g/cpuset.cpus.effective 1
	cg_expect_read g/cpuset.cpus.exclusive.effective 1
	cg_expect_read cpuset.cpus.effective 0
	cg_expect_read h/cpuset.cpus.effective 0
	cg_expect_read cpuset.cpus.isolated ''
	cg_expect_done
	# Cleared, the partition asks for cpuset.cpus, which is empty.
	echo >$f
	cg_expect_read g/cpuset.cpus.partition \
		'root invalid (cpuset.cpus and cpuset.cpus.exclusive are empty)'
	cg_expect_read g/cpuset.cpus.exclusive.effective ''
	cg_expect_read cpuset.cpus.effective 0-1
	cg_expect_done
}

@test "pids: v2's files, and pids.events counts the limited group's refusals" {
	cg_expect_read g/pids.max max
	cg_expect_read g/pids.current 0
	cg_expect_read g/pids.peak 0
	cg_expect_read g/pids.events 'max 0'
	cg_expect_read g/pids.events.local 'max 0'
	cg_expect g/pids.max max '4194304' ok 4194304
	cg_expect g/pids.max max '4194305' "$E_INVAL" max
	cg_expect g/pids.max max '-1' "$E_INVAL" max
	cg_expect_done
	mkdir g/c
	echo "+pids" >g/cgroup.subtree_control
	echo 1 >g/pids.max
	"$CG_PYTHON" - g/c 3>&- <<'EOF'
import os, sys, time
with open(sys.argv[1] + "/cgroup.procs", "w") as f:
    f.write(str(os.getpid()))
try:
    pid = os.fork()
except BlockingIOError:
    sys.exit(0)
if pid == 0:
    time.sleep(20)
    os._exit(0)
os.waitpid(pid, 0)
EOF
	run cat g/pids.events g/pids.events.local g/c/pids.events g/c/pids.events.local
	assert_output "max 1
max 1
max 0
max 0"
}

@test "a controller disabled and enabled again: a new css, with the defaults" {
	local all p
	all=$(cat cpuset.cpus.effective)
	cg_sleeper p
	echo "$p" >g/cgroup.procs
	echo 300 >g/cpu.weight
	echo "50000 100000" >g/cpu.max
	echo 1000 >g/cpu.max.burst
	echo 0 >g/cpuset.cpus
	echo 0 >g/cpuset.mems
	echo root >g/cpuset.cpus.partition
	echo 10 >g/pids.max
	[ "$(cat g/cpuset.cpus.partition)" = root ]
	[ "$(cat cpuset.cpus.effective)" != "$all" ]
	# `-cpu +cpu` in one write: the last wins, cpu stays, and its css.
	echo "-cpu +cpu" >cgroup.subtree_control
	[ "$(cat g/cpu.weight)" = 300 ]
	echo "-cpu -cpuset -pids" >cgroup.subtree_control
	[ ! -e g/cpu.weight ] && [ ! -e g/cpuset.cpus ] && [ ! -e g/pids.max ]
	# The partition went with its css: its CPU is the root's again.
	[ "$(cat cpuset.cpus.effective)" = "$all" ]
	echo "+cpu +cpuset +pids" >cgroup.subtree_control
	cg_expect_read g/cpu.weight 100
	cg_expect_read g/cpu.weight.nice 0
	cg_expect_read g/cpu.max 'max 100000'
	cg_expect_read g/cpu.max.burst 0
	cg_expect_read g/cpuset.cpus ''
	cg_expect_read g/cpuset.mems ''
	cg_expect_read g/cpuset.cpus.partition member
	cg_expect_read g/cpuset.cpus.effective "$all"
	cg_expect_read g/pids.max max
	cg_expect_read g/pids.events 'max 0'
	# What it counts is still true: the sleeper.
	cg_expect_read g/pids.current 1
	cg_expect_read g/pids.peak 1
	cg_expect_done
	# The allocator sees the new css: the sleeper may run on every CPU.
	cpus_allowed "$p" "$all"
}
