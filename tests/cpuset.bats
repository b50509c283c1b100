#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# The cpuset controller: cpuset.cpus and cpuset.mems (list syntax,
# normalised output, subset of the parent, absent CPUs, busy groups),
# effective_cpus/effective_mems, clone_children, and attaching to an empty
# cpuset, and the flag files (cpu_exclusive ... sched_relax_domain_level). Expectations: docs/kernel-oracle.md §4 (a machine with CPUs 0-1
# and memory node 0).

load helpers

setup() {
	cg_setup
	ONLINE_CPUS=$(cat /sys/devices/system/cpu/online)
	# The first CPU number the kernel does not know (nr_cpu_ids).
	NR_CPU_IDS=$(($(sed 's/.*[-,]//' /sys/devices/system/cpu/possible) + 1))
}

teardown() {
	cg_teardown
}

# mount_default / mount_noclone: the default mount (clone_children) or one
# where new groups start with empty cpusets.
mount_default() {
	cg_mount
	cd "$MNT"
}

mount_noclone() {
	cg_mount -o noclone_children
	cd "$MNT"
}

@test "the root cpuset has every online CPU and memory node" {
	mount_default
	[ "$ONLINE_CPUS" = 0-1 ]
	run cg_bytes cpuset.cpus
	assert_output "b'0-1\\n'"
	run cg_bytes cpuset.mems
	assert_output "b'0\\n'"
	run cg_bytes cpuset.effective_cpus
	assert_output "b'0-1\\n'"
	run cg_bytes cpuset.effective_mems
	assert_output "b'0\\n'"
}

@test "with clone_children (the default) a new group has its parent's cpus and mems" {
	mount_default
	run cat cgroup.clone_children
	assert_output 1
	mkdir g
	run cat g/cpuset.cpus
	assert_output 0-1
	run cat g/cpuset.mems
	assert_output 0
	run cat g/cpuset.effective_cpus
	assert_output 0-1
	run cat g/cpuset.effective_mems
	assert_output 0
	run cat g/cgroup.clone_children
	assert_output 1
	echo 1 >g/cpuset.cpus
	mkdir g/k
	run cat g/k/cpuset.cpus
	assert_output 1
}

@test "with clone_children, mkdir g then echo PID > g/tasks works at once" {
	mount_default
	local p
	cg_sleeper p
	mkdir g
	echo "$p" >g/tasks
	run cat g/tasks
	assert_output "$p"
}

@test "with noclone_children a new group's cpus, mems and effective sets are empty" {
	mount_noclone
	run cat cgroup.clone_children
	assert_output 0
	mkdir g
	local f
	for f in cpuset.cpus cpuset.mems cpuset.effective_cpus cpuset.effective_mems; do
		run cg_bytes "g/$f"
		assert_output "b'\\n'"
	done
	run cat g/cgroup.clone_children
	assert_output 0
}

@test "clone_children set on a parent gives new children its cpus and mems" {
	mount_noclone
	echo 1 >cgroup.clone_children
	mkdir k1
	run cat k1/cpuset.cpus
	assert_output 0-1
	run cat k1/cpuset.mems
	assert_output 0
	run cat k1/cpuset.effective_cpus
	assert_output 0-1
	run cat k1/cgroup.clone_children
	assert_output 1
}

@test "attaching to a group with an empty cpuset fails with ENOSPC" {
	mount_noclone
	local p
	cg_sleeper p
	mkdir g
	run cg_write g/tasks "$p"
	assert_output "$E_NOSPC"
	run cg_write g/cgroup.procs "$p"
	assert_output "$E_NOSPC"
	run bash -c "echo $p > g/tasks"
	assert_failure
	assert_output "bash: line 1: echo: write error: No space left on device"
	run cat g/tasks
	assert_output ""
	run cat tasks
	assert_line "$p"
}

@test "attaching needs both cpus and mems: either empty gives ENOSPC" {
	mount_noclone
	local p
	cg_sleeper p
	mkdir g h
	echo 0 >g/cpuset.cpus
	run cg_write g/tasks "$p"
	assert_output "$E_NOSPC"
	run cg_write g/cgroup.procs "$p"
	assert_output "$E_NOSPC"
	echo 0 >h/cpuset.mems
	run cg_write h/tasks "$p"
	assert_output "$E_NOSPC"
	echo 0 >g/cpuset.mems
	run cg_write g/tasks "$p"
	assert_output "${#p}"
	run cat g/tasks
	assert_output "$p"
}

# ---- cpuset.cpus -------------------------------------------------------------------

@test "cpuset.cpus takes the kernel's list syntax and reads it back as ranges" {
	mount_default
	mkdir g
	local f=g/cpuset.cpus c=g/cpuset.effective_cpus
	cg_expect $f 0 '0' ok 0
	cg_expect $f 0 '1' ok 1
	cg_expect $f 0 '1-1' ok 1
	cg_expect $f 1 '00' ok 0
	cg_expect $f 0 '01' ok 1
	local list
	for list in '0-1' '0,1' '1,0' '0-1\n' '0,,1' '0-1,1' '0 1' '0\t1' '0-1:2/2'; do
		cg_expect $f 0 "$list" ok 0-1
		cg_expect_read $c 0-1
	done
	for list in ' 0 ' ' 0' '0 ' ',0' '0,' '0\x00junk' '0-1:1/2'; do
		cg_expect $f 1 "$list" ok 0
		cg_expect_read $c 0
	done
	cg_expect_done
}

@test "cpuset.cpus: a newline or a space empties it, a 0-byte write changes nothing" {
	mount_default
	mkdir g
	cg_expect g/cpuset.cpus 0 '\n' ok ''
	cg_expect g/cpuset.cpus 0 ' ' ok ''
	cg_expect g/cpuset.cpus 0 '' 0 0
	cg_expect_done
	echo >g/cpuset.cpus
	run cg_bytes g/cpuset.cpus
	assert_output "b'\\n'"
	run cg_bytes g/cpuset.effective_cpus
	assert_output "b'\\n'"
}

@test "cpuset.cpus refuses malformed lists with EINVAL" {
	mount_default
	mkdir g
	local bad
	for bad in '1-0' '0-' '-1' 'abc' '0x1' '0-1:1'; do
		cg_expect g/cpuset.cpus 0 "$bad" "$E_INVAL" 0
	done
	cg_expect_done
}

@test "cpuset.cpus refuses CPUs the kernel does not know with ERANGE" {
	mount_default
	mkdir g
	local bad
	for bad in "$NR_CPU_IDS" "0-$NR_CPU_IDS" "0-$((NR_CPU_IDS + 1))" 4096; do
		cg_expect g/cpuset.cpus 0 "$bad" "$E_RANGE" 0
	done
	cg_expect g/cpuset.cpus 0 '99999999999' "$E_OVERFLOW" 0
	cg_expect_done
	run bash -c "echo $NR_CPU_IDS > g/cpuset.cpus"
	assert_failure
	assert_output "bash: line 1: echo: write error: Numerical result out of range"
}

@test "effective_cpus and effective_mems follow the group's own sets" {
	mount_default
	mkdir g
	echo 1 >g/cpuset.cpus
	run cat g/cpuset.effective_cpus
	assert_output 1
	echo 0-1 >g/cpuset.cpus
	run cat g/cpuset.effective_cpus
	assert_output 0-1
	echo >g/cpuset.cpus
	run cg_bytes g/cpuset.effective_cpus
	assert_output "b'\\n'"
	echo >g/cpuset.mems
	run cg_bytes g/cpuset.effective_mems
	assert_output "b'\\n'"
	echo 0 >g/cpuset.mems
	run cat g/cpuset.effective_mems
	assert_output 0
}

@test "effective_cpus and effective_mems are read-only: writing gives EINVAL" {
	cg_require_root_user "root opens a read-only file for writing"
	mount_default
	mkdir g
	run cg_write g/cpuset.effective_cpus 0
	assert_output "$E_INVAL"
	run cg_write g/cpuset.effective_mems 0
	assert_output "$E_INVAL"
	run cat g/cpuset.effective_cpus
	assert_output 0-1
}

@test "a child's cpus must be a subset of its parent's: EACCES" {
	mount_default
	mkdir sub
	echo 0 >sub/cpuset.cpus
	mkdir sub/kid
	run cat sub/kid/cpuset.cpus
	assert_output 0
	cg_expect sub/kid/cpuset.cpus '' '1' "$E_ACCES" 0
	cg_expect sub/kid/cpuset.cpus '' '0-1' "$E_ACCES" 0
	cg_expect sub/kid/cpuset.cpus '' '0' ok 0
	cg_expect_done
	run bash -c 'echo 1 > sub/kid/cpuset.cpus'
	assert_failure
	assert_output "bash: line 1: echo: write error: Permission denied"
}

@test "a parent's cpus cannot shrink below a child's: EBUSY" {
	mount_default
	mkdir sub sub/kid
	echo 0 >sub/kid/cpuset.cpus
	cg_expect sub/cpuset.cpus '' '1' "$E_BUSY" 0-1
	cg_expect_done
	echo 1 >sub/kid/cpuset.cpus
	cg_expect sub/cpuset.cpus '' '1' ok 1
	cg_expect_done
	run bash -c 'echo 0 > sub/cpuset.cpus'
	assert_failure
	assert_output "bash: line 1: echo: write error: Device or resource busy"
}

@test "emptying the cpus or mems of a group with a task fails with EBUSY" {
	mount_default
	local p
	cg_sleeper p
	mkdir g
	echo "$p" >g/tasks
	cg_expect g/cpuset.cpus '' '\n' "$E_BUSY" 0-1
	cg_expect g/cpuset.cpus '' ' ' "$E_BUSY" 0-1
	cg_expect g/cpuset.mems '' '\n' "$E_BUSY" 0
	cg_expect g/cpuset.cpus '' '1' ok 1
	cg_expect_done
	run bash -c 'echo > g/cpuset.cpus'
	assert_failure
	assert_output "bash: line 1: echo: write error: Device or resource busy"
}

@test "emptying a group whose child uses its cpus or mems fails with EBUSY" {
	mount_default
	mkdir g g/kid
	cg_expect g/cpuset.cpus '' '\n' "$E_BUSY" 0-1
	cg_expect g/cpuset.mems '' '\n' "$E_BUSY" 0
	cg_expect_done
}

# ---- cpuset.mems -------------------------------------------------------------------

@test "cpuset.mems takes the list syntax for node 0" {
	mount_default
	mkdir g
	local f=g/cpuset.mems list
	for list in '0' '0,0' '0-0' ' 0 ' '0\n' '0-1:1/2' '0\x00junk'; do
		cg_expect $f '\n' "$list" ok 0
		cg_expect_read g/cpuset.effective_mems 0
	done
	cg_expect $f 0 '\n' ok ''
	cg_expect $f 0 '' 0 0
	cg_expect_done
}

@test "cpuset.mems refuses absent nodes and malformed lists with EINVAL, huge nodes with ERANGE" {
	mount_default
	mkdir g
	local bad
	for bad in '1' '0-1' '64' '1-0' 'abc'; do
		cg_expect g/cpuset.mems 0 "$bad" "$E_INVAL" 0
	done
	cg_expect g/cpuset.mems 0 '1024' "$E_RANGE" 0
	cg_expect_done
}

@test "a child's mems must be within its parent's (EACCES); a parent's cannot drop a child's (EBUSY)" {
	mount_noclone
	mkdir p p/kid
	echo 0 >p/cpuset.cpus
	echo 0 >p/kid/cpuset.cpus
	cg_expect p/kid/cpuset.mems '' '0' "$E_ACCES" ''
	cg_expect_done
	echo 0 >p/cpuset.mems
	cg_expect p/kid/cpuset.mems '' '0' ok 0
	cg_expect p/cpuset.mems '' '\n' "$E_BUSY" 0
	cg_expect_done
}

# ---- the flag files ----------------------------------------------------------------
# docs/kernel-oracle.md §4, "The flag files": measured in a group of our own
# in /sys/fs/cgroup/cpuset on 6.18.

FLAGS='cpu_exclusive mem_exclusive mem_hardwall memory_migrate memory_spread_page memory_spread_slab sched_load_balance'

@test "the flag files: the kernel's defaults and modes, in the root and in a new group" {
	mount_default
	mkdir g
	local f
	for f in cpu_exclusive:1 mem_exclusive:1 mem_hardwall:0 memory_migrate:0 \
		memory_pressure:0 memory_pressure_enabled:0 memory_spread_page:0 \
		memory_spread_slab:0 sched_load_balance:1 sched_relax_domain_level:-1; do
		cg_expect_read "cpuset.${f%:*}" "${f#*:}"
	done
	for f in cpu_exclusive:0 mem_exclusive:0 mem_hardwall:0 memory_migrate:0 \
		memory_pressure:0 memory_spread_page:0 memory_spread_slab:0 \
		sched_load_balance:1 sched_relax_domain_level:-1; do
		cg_expect_read "g/cpuset.${f%:*}" "${f#*:}"
	done
	cg_expect_done
	# memory_pressure_enabled is the root's only; memory_pressure is read-only.
	[ -e cpuset.memory_pressure_enabled ]
	[ ! -e g/cpuset.memory_pressure_enabled ]
	run stat -c '%a %n' g/cpuset.memory_pressure g/cpuset.cpu_exclusive \
		g/cpuset.sched_relax_domain_level cpuset.memory_pressure_enabled
	assert_output "444 g/cpuset.memory_pressure
644 g/cpuset.cpu_exclusive
644 g/cpuset.sched_relax_domain_level
644 cpuset.memory_pressure_enabled"
}

@test "a flag takes what the kernel's int takes: 2 sets it, 2^32 clears it, -1 and blanks are EINVAL" {
	cg_require_root_user "root opens a read-only file for writing"
	mount_noclone
	mkdir g
	local f
	for f in $FLAGS; do
		f=g/cpuset.$f
		cg_expect $f 0 1 ok 1
		cg_expect $f 1 0 ok 0
		cg_expect $f 0 2 ok 1
		cg_expect $f 0 0x10 ok 1
		cg_expect $f 1 4294967296 ok 0
		cg_expect $f 0 4294967297 ok 1
		cg_expect $f 0 18446744073709551615 ok 1
		cg_expect $f 0 18446744073709551616 "$E_RANGE" 0
		cg_expect $f 1 -1 "$E_INVAL" 1
		cg_expect $f 1 ' 0' "$E_INVAL" 1
		cg_expect $f 1 '0 ' "$E_INVAL" 1
	done
	# The root's memory_pressure_enabled is !!val.
	cg_expect cpuset.memory_pressure_enabled 0 4294967296 ok 1
	cg_expect cpuset.memory_pressure_enabled 1 0 ok 0
	cg_expect g/cpuset.memory_pressure '' 0 "$E_INVAL" 0
	cg_expect_done
}

@test "sched_relax_domain_level takes -1 to 2 (this machine's domains), EINVAL past them" {
	mount_noclone
	mkdir g
	local f=g/cpuset.sched_relax_domain_level v
	for v in -1 0 1 2; do
		cg_expect $f 0 "$v" ok "$v"
	done
	for v in -2 3 8 4294967296 -4294967296; do
		cg_expect $f 1 "$v" "$E_INVAL" 1
	done
	cg_expect $f 1 9223372036854775808 "$E_RANGE" 1
	cg_expect cpuset.sched_relax_domain_level -1 2 ok 2
	cg_expect_done
}

@test "exclusive flags: only under an exclusive parent (EACCES), kept by a parent with an exclusive child (EBUSY)" {
	mount_noclone
	mkdir p p/a
	echo 0-1 >p/cpuset.cpus
	echo 0 >p/cpuset.mems
	echo 0 >p/a/cpuset.cpus
	echo 0 >p/a/cpuset.mems
	cg_expect p/a/cpuset.cpu_exclusive '' 1 "$E_ACCES" 0
	cg_expect p/a/cpuset.mem_exclusive '' 1 "$E_ACCES" 0
	cg_expect p/cpuset.cpu_exclusive '' 1 ok 1
	cg_expect p/cpuset.mem_exclusive '' 1 ok 1
	cg_expect p/a/cpuset.cpu_exclusive '' 1 ok 1
	cg_expect p/a/cpuset.mem_exclusive '' 1 ok 1
	cg_expect p/cpuset.cpu_exclusive '' 0 "$E_BUSY" 1
	cg_expect p/cpuset.mem_exclusive '' 0 "$E_BUSY" 1
	cg_expect_done
	# The mount's root is exclusive and may stop being so once no child is.
	echo 0 >p/a/cpuset.cpu_exclusive
	echo 0 >p/cpuset.cpu_exclusive
	cg_expect cpuset.cpu_exclusive '' 0 ok 0
	cg_expect p/cpuset.cpu_exclusive '' 1 "$E_ACCES" 0
	cg_expect_done
}

@test "exclusive siblings may not overlap: EINVAL on the flag or on the cpus and mems that would" {
	mount_noclone
	mkdir a b
	echo 0 >a/cpuset.cpus
	echo 0 >a/cpuset.mems
	echo 1 >a/cpuset.cpu_exclusive
	cg_expect b/cpuset.cpus '' 0 "$E_INVAL" ''
	cg_expect b/cpuset.cpus '' 1 ok 1
	cg_expect b/cpuset.cpu_exclusive '' 1 ok 1
	cg_expect b/cpuset.cpus '' 0-1 "$E_INVAL" 1
	cg_expect a/cpuset.cpus '' 0-1 "$E_INVAL" 0
	cg_expect a/cpuset.cpu_exclusive '' 0 ok 0
	# b is exclusive: a may still not take its CPU.
	cg_expect a/cpuset.cpus '' 0-1 "$E_INVAL" 0
	# Memory nodes: mem_exclusive on either side.
	cg_expect b/cpuset.mems '' 0 ok 0
	cg_expect a/cpuset.mem_exclusive '' 1 "$E_INVAL" 0
	cg_expect b/cpuset.mem_exclusive '' 1 "$E_INVAL" 0
	cg_expect b/cpuset.mems '' '\n' ok ''
	cg_expect a/cpuset.mem_exclusive '' 1 ok 1
	cg_expect b/cpuset.mems '' 0 "$E_INVAL" ''
	# The other flags have no sibling rule.
	cg_expect b/cpuset.mem_hardwall '' 1 ok 1
	cg_expect_done
}

@test "at mkdir: spread flags come from the parent, the rest are the defaults; no clone beside an exclusive sibling" {
	mount_default
	mkdir p
	echo 1 >p/cpuset.memory_spread_page
	echo 1 >p/cpuset.memory_spread_slab
	echo 1 >p/cpuset.memory_migrate
	echo 1 >p/cpuset.mem_hardwall
	echo 0 >p/cpuset.sched_load_balance
	echo 1 >p/cpuset.sched_relax_domain_level
	mkdir p/c
	local f
	for f in memory_spread_page:1 memory_spread_slab:1 memory_migrate:0 mem_hardwall:0 \
		sched_load_balance:1 sched_relax_domain_level:-1 cpus:0-1 mems:0; do
		cg_expect_read "p/c/cpuset.${f%:*}" "${f#*:}"
	done
	cg_expect_done
	# clone_children copies nothing once a sibling is exclusive.
	echo 1 >p/cpuset.cpu_exclusive
	echo 0 >p/c/cpuset.cpus
	echo 1 >p/c/cpuset.cpu_exclusive
	mkdir p/d
	cg_expect_read p/d/cpuset.cpus ''
	cg_expect_read p/d/cpuset.mems ''
	cg_expect_done
	echo 0 >p/c/cpuset.cpu_exclusive
	mkdir p/e
	cg_expect_read p/e/cpuset.cpus 0-1
	cg_expect_done
}
