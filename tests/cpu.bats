#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# The cpu controller: cpu.shares, cpu.cfs_period_us, cpu.cfs_quota_us (with
# the hierarchical bandwidth rule) and cpu.stat.
# Expectations: docs/kernel-oracle.md §0 and §3.

load helpers

setup() {
	cg_setup
	cg_mount
	cd "$MNT"
	mkdir g
}

teardown() {
	cg_teardown
}

@test "defaults of a new group: shares 1024, period 100000, quota -1" {
	run cg_bytes g/cpu.shares
	assert_output "b'1024\\n'"
	run cg_bytes g/cpu.cfs_period_us
	assert_output "b'100000\\n'"
	run cg_bytes g/cpu.cfs_quota_us
	assert_output "b'-1\\n'"
}

@test "defaults of the root: shares 1024, period 100000, quota -1" {
	run cat cpu.shares
	assert_output 1024
	run cat cpu.cfs_period_us
	assert_output 100000
	run cat cpu.cfs_quota_us
	assert_output -1
}

@test "cpu.stat reads all counters 0, exactly, in a group and in the root" {
	local expected="b'nr_periods 0\\nnr_throttled 0\\nthrottled_time 0\\nnr_bursts 0\\nburst_time 0\\n'"
	run cg_bytes g/cpu.stat
	assert_output "$expected"
	run cg_bytes cpu.stat
	assert_output "$expected"
}

@test "cpu.stat is read-only: root opens it for writing, the write gives EINVAL" {
	cg_require_root_user "root opens a read-only file for writing"
	run cg_write g/cpu.stat 0
	assert_output "$E_INVAL"
	run bash -c 'echo 0 > g/cpu.stat'
	assert_failure
	assert_output "bash: line 1: echo: write error: Invalid argument"
	run cat g/cpu.stat
	assert_line "nr_periods 0"
}

@test "echo VALUE > cpu.shares sets it" {
	echo 2048 >g/cpu.shares
	run cat g/cpu.shares
	assert_output 2048
	echo 5 >>g/cpu.shares
	run cat g/cpu.shares
	assert_output 5
}

@test "cpu.shares clamps to 2..262144 without an error, even near 2^64" {
	local f=g/cpu.shares
	cg_expect $f 1024 '0' ok 2
	cg_expect $f 1024 '1' ok 2
	cg_expect $f 1024 '2' ok 2
	cg_expect $f 1024 '3' ok 3
	cg_expect $f 1024 '262144' ok 262144
	cg_expect $f 1024 '262145' ok 262144
	cg_expect $f 1024 '1000000' ok 262144
	cg_expect $f 1024 '18446744073709551615' ok 262144
	cg_expect $f 1024 '9223372036854775807' ok 262144
	cg_expect $f 1024 '9223372036854775808' ok 262144
	cg_expect $f 1024 '18014398509481989' ok 262144
	cg_expect $f 1024 '17592186044416' ok 262144
	cg_expect $f 1024 '4398046511104' ok 262144
	cg_expect_done
}

@test "cpu.shares parses a u64 in base 0 with one optional newline" {
	local f=g/cpu.shares
	cg_expect $f 1024 '100\n' ok 100
	cg_expect $f 1024 '+100' ok 100
	cg_expect $f 1024 '100\x00junk' ok 100
	cg_expect $f 1024 '0x100' ok 256
	cg_expect $f 1024 '010' ok 8
	cg_expect $f 1024 '' 0 1024
	cg_expect_done
}

@test "cpu.shares refuses parse errors with EINVAL and keeps its value" {
	local f=g/cpu.shares bad
	for bad in '08' '-1' 'abc' ' 100 ' ' 100' '100 ' '100\n\n' '\n' '100abc' '-0' '1.5'; do
		cg_expect $f 1024 "$bad" "$E_INVAL" 1024
	done
	cg_expect_done
	run bash -c 'echo abc > g/cpu.shares'
	assert_failure
	assert_output "bash: line 1: echo: write error: Invalid argument"
}

@test "cpu.shares refuses a number beyond 2^64-1 with ERANGE" {
	cg_expect g/cpu.shares 1024 '18446744073709551616' "$E_RANGE" 1024
	cg_expect g/cpu.shares 1024 '99999999999999999999999' "$E_RANGE" 1024
	cg_expect_done
	run bash -c 'echo 18446744073709551616 > g/cpu.shares'
	assert_failure
	assert_output "bash: line 1: echo: write error: Numerical result out of range"
}

@test "cpu.shares takes a 4096-byte write; 4097 bytes give E2BIG" {
	cg_expect g/cpu.shares 1024 "$(printf '%04095d' 512)" ok 330
	cg_expect g/cpu.shares 1024 "$(printf '%04096d' 512)" ok 330
	cg_expect g/cpu.shares 1024 "$(printf '%04097d' 512)" "$E_2BIG" 1024
	cg_expect_done
}

@test "the root's cpu.shares cannot be written: EINVAL, even with its own value" {
	run cg_write cpu.shares 1024
	assert_output "$E_INVAL"
	run cg_write cpu.shares 2048
	assert_output "$E_INVAL"
	run cat cpu.shares
	assert_output 1024
}

@test "cpu.shares and the bandwidth settings are not inherited at mkdir" {
	echo 512 >g/cpu.shares
	echo 50000 >g/cpu.cfs_quota_us
	echo 200000 >g/cpu.cfs_period_us
	mkdir g/c
	run cat g/c/cpu.shares
	assert_output 1024
	run cat g/c/cpu.cfs_quota_us
	assert_output -1
	run cat g/c/cpu.cfs_period_us
	assert_output 100000
}

# ---- cfs_period_us ---------------------------------------------------------------

@test "cpu.cfs_period_us takes 1000..1000000 (base 0)" {
	local f=g/cpu.cfs_period_us
	cg_expect $f 100000 '1000' ok 1000
	cg_expect $f 100000 '1001' ok 1001
	cg_expect $f 200000 '100000' ok 100000
	cg_expect $f 100000 '1000000' ok 1000000
	cg_expect $f 100000 '5000\n' ok 5000
	cg_expect $f 100000 '0x1000' ok 4096
	cg_expect $f 100000 '+2000' ok 2000
	cg_expect $f 100000 '' 0 100000
	cg_expect_done
}

@test "cpu.cfs_period_us refuses out-of-range values and parse errors with EINVAL" {
	local f=g/cpu.cfs_period_us bad
	for bad in '999' '1000001' '0' '-1' 'abc' ' 5000' '5000 ' '4294967296' \
		'18446744073709551615' '08'; do
		cg_expect $f 100000 "$bad" "$E_INVAL" 100000
	done
	cg_expect $f 100000 '18446744073709551616' "$E_RANGE" 100000
	cg_expect_done
}

# ---- cfs_quota_us ----------------------------------------------------------------

@test "cpu.cfs_quota_us: any negative value means unlimited and reads -1" {
	local f=g/cpu.cfs_quota_us
	cg_expect $f 50000 '-1' ok -1
	cg_expect $f 50000 '-2' ok -1
	cg_expect $f 50000 '-9223372036854775808' ok -1
	cg_expect $f 50000 '-1\n' ok -1
	cg_expect $f 50000 '-100000' ok -1
	cg_expect_done
}

@test "cpu.cfs_quota_us takes 1000..2^44-1 (base 0)" {
	local f=g/cpu.cfs_quota_us
	cg_expect $f -1 '1000' ok 1000
	cg_expect $f -1 '1001' ok 1001
	cg_expect $f -1 '50000' ok 50000
	cg_expect $f -1 '1000000' ok 1000000
	cg_expect $f -1 '+5000' ok 5000
	cg_expect $f -1 '5000\n' ok 5000
	cg_expect $f -1 '0x1000' ok 4096
	cg_expect $f -1 '17592186044415' ok 17592186044415
	cg_expect $f 50000 '' 0 50000
	cg_expect_done
}

@test "cpu.cfs_quota_us refuses 0, <1000, >=2^44 and parse errors with EINVAL" {
	local f=g/cpu.cfs_quota_us bad
	for bad in '0' '999' '-0' '17592186044416' '17592186044415000' '9223372036854775807' \
		'abc' ' 5000' '5000 ' '08'; do
		cg_expect $f -1 "$bad" "$E_INVAL" -1
	done
	cg_expect_done
}

@test "cpu.cfs_quota_us refuses numbers beyond a signed 64-bit range with ERANGE" {
	local f=g/cpu.cfs_quota_us bad
	for bad in '9223372036854775808' '18446744073709551615' '-9223372036854775809'; do
		cg_expect $f -1 "$bad" "$E_RANGE" -1
	done
	cg_expect_done
}

# ---- the hierarchical rule ---------------------------------------------------------
# A child's quota/period ratio may not exceed its nearest limited ancestor's.

@test "a child's quota may not exceed its parent's ratio (h 0.5: c 100000 EINVAL, 50000 ok)" {
	mkdir h h/c
	echo 50000 >h/cpu.cfs_quota_us
	cg_expect h/c/cpu.cfs_quota_us '' '100000' "$E_INVAL" -1
	cg_expect h/c/cpu.cfs_quota_us '' '50001' "$E_INVAL" -1
	cg_expect h/c/cpu.cfs_quota_us '' '50000' ok 50000
	cg_expect_done
}

@test "a child's period may not raise its ratio above its parent's" {
	mkdir h h/c
	echo 50000 >h/cpu.cfs_quota_us
	echo 50000 >h/c/cpu.cfs_quota_us
	cg_expect h/c/cpu.cfs_period_us '' '50000' "$E_INVAL" 100000
	cg_expect h/c/cpu.cfs_period_us '' '200000' ok 200000
	cg_expect_done
}

@test "an unlimited child passes its ancestor's limit down to a grandchild" {
	mkdir h h/c h/c/gc
	echo 50000 >h/cpu.cfs_quota_us
	cg_expect h/c/cpu.cfs_quota_us '' '-1' ok -1
	cg_expect h/c/gc/cpu.cfs_quota_us '' '60000' "$E_INVAL" -1
	cg_expect h/c/gc/cpu.cfs_quota_us '' '40000' ok 40000
	cg_expect_done
}

@test "a parent's quota may not go below a descendant's ratio; -1 always works" {
	mkdir h h/c h/c/gc
	echo 50000 >h/cpu.cfs_quota_us
	echo 40000 >h/c/gc/cpu.cfs_quota_us
	cg_expect h/cpu.cfs_quota_us '' '30000' "$E_INVAL" 50000
	cg_expect h/cpu.cfs_quota_us '' '-1' ok -1
	cg_expect_done
}

@test "child first: the parent may then not go below the child's ratio, equal is fine" {
	mkdir h2 h2/c
	cg_expect h2/c/cpu.cfs_quota_us '' '80000' ok 80000
	cg_expect h2/cpu.cfs_quota_us '' '50000' "$E_INVAL" -1
	cg_expect h2/cpu.cfs_quota_us '' '80000' ok 80000
	cg_expect h2/cpu.cfs_period_us '' '200000' "$E_INVAL" 100000
	cg_expect_done
}

@test "every way of breaking the bandwidth rules gives EINVAL and changes nothing" {
	mkdir h2 h2/c
	echo 80000 >h2/c/cpu.cfs_quota_us
	echo 80000 >h2/cpu.cfs_quota_us
	cg_expect h2/c/cpu.cfs_period_us '' '999' "$E_INVAL" 100000
	cg_expect h2/c/cpu.cfs_period_us '' '1000' "$E_INVAL" 100000
	cg_expect h2/c/cpu.cfs_quota_us '' '500' "$E_INVAL" 80000
	cg_expect h2/c/cpu.cfs_quota_us '' '17592186044416' "$E_INVAL" 80000
	cg_expect h2/c/cpu.cfs_quota_us '' '2000000000' "$E_INVAL" 80000
	cg_expect_done
}

@test "unrelated groups do not limit each other" {
	mkdir a b
	echo 10000 >a/cpu.cfs_quota_us
	cg_expect b/cpu.cfs_quota_us '' '1000000' ok 1000000
	cg_expect_done
	mkdir a/c
	cg_expect a/c/cpu.cfs_quota_us '' '10000' ok 10000
	cg_expect a/c/cpu.cfs_quota_us '' '10001' "$E_INVAL" 10000
	cg_expect_done
}

# ---- cfs_burst_us, idle, stat.local, rt_period_us, rt_runtime_us ------------------
# Each expectation was tried on this machine's kernel (kernel 6.18, cgroup v1
# cpu), in a group of its own.

@test "the newer cpu files: defaults in a group and in the root" {
	run cg_bytes g/cpu.cfs_burst_us
	assert_output "b'0\\n'"
	run cg_bytes g/cpu.idle
	assert_output "b'0\\n'"
	run cg_bytes g/cpu.stat.local
	assert_output "b'throttled_time 0\\n'"
	run cg_bytes g/cpu.rt_period_us
	assert_output "b'1000000\\n'"
	run cg_bytes g/cpu.rt_runtime_us
	assert_output "b'0\\n'"
	run cat cpu.rt_runtime_us
	assert_output 950000
	run cat cpu.rt_period_us
	assert_output 1000000
	run cat cpu.idle
	assert_output 0
}

@test "cpu.cfs_burst_us: up to 2^64/1000 without a quota, at most the quota with one" {
	local f=g/cpu.cfs_burst_us
	cg_expect $f 0 '1000' ok 1000
	cg_expect $f 0 '0x10' ok 16
	cg_expect $f 0 '5\n' ok 5
	cg_expect $f 0 '18446744073709551' ok 18446744073709551
	cg_expect $f 0 '18446744073709552' "$E_INVAL" 0
	cg_expect $f 0 '-1' "$E_INVAL" 0
	cg_expect $f 0 'abc' "$E_INVAL" 0
	cg_expect $f 0 '18446744073709551616' "$E_RANGE" 0
	cg_expect g/cpu.cfs_quota_us -1 '50000' ok 50000
	cg_expect $f 0 '50000' ok 50000
	cg_expect $f 0 '50001' "$E_INVAL" 0
	cg_expect $f '' '40000' ok 40000
	# the quota cannot go below the burst, nor to 2^44-1 with one
	cg_expect g/cpu.cfs_quota_us '' '30000' "$E_INVAL" 50000
	cg_expect g/cpu.cfs_quota_us '' '17592186044415' "$E_INVAL" 50000
	cg_expect g/cpu.cfs_quota_us '' '-1' ok -1
	cg_expect_done
	run cg_write cpu.cfs_burst_us 5
	assert_output "$E_INVAL"
}

@test "cpu.idle takes 0 or 1 (base 0), not in the root" {
	cg_require_sys_nice "cpu.idle 1 is refused without it"
	local f=g/cpu.idle bad
	cg_expect $f 0 '1' ok 1
	cg_expect $f 0 '1\n' ok 1
	cg_expect $f 0 '0x1' ok 1
	cg_expect $f 1 '0' ok 0
	for bad in '-1' '2' 'abc' '1000000' ' 1' '1 '; do
		cg_expect $f 0 "$bad" "$E_INVAL" 0
	done
	cg_expect_done
	run cg_write cpu.idle 1
	assert_output "$E_INVAL"
	run cat cpu.idle
	assert_output 0
}

@test "cpu.stat.local is read-only" {
	cg_require_root_user "root opens a read-only file for writing"
	run cg_write g/cpu.stat.local 0
	assert_output "$E_INVAL"
}

@test "cpu.rt_runtime_us: at most the period, the parent's, the global 95%; not 0 in the root" {
	mkdir g/sub
	local f=g/cpu.rt_runtime_us
	cg_expect g/sub/cpu.rt_runtime_us '' '1000' "$E_INVAL" 0
	cg_expect $f '' '-1' "$E_INVAL" 0
	cg_expect $f '' '-2' "$E_INVAL" 0
	cg_expect $f '' '950001' "$E_INVAL" 0
	cg_expect $f '' '1000000' "$E_INVAL" 0
	cg_expect $f '' '500000' ok 500000
	cg_expect g/sub/cpu.rt_runtime_us '' '1000' ok 1000
	cg_expect g/sub/cpu.rt_runtime_us '' '500001' "$E_INVAL" 1000
	# the children's sum stays within the parent's
	cg_expect $f '' '0' "$E_INVAL" 500000
	cg_expect g/cpu.rt_period_us '' '500000' "$E_INVAL" 1000000
	cg_expect g/cpu.rt_period_us '' '4294967295' "$E_INVAL" 1000000
	cg_expect g/cpu.rt_period_us '' '0x100000' ok 1048576
	cg_expect_done
	run cg_write cpu.rt_runtime_us 0
	assert_output "$E_INVAL"
	run cat cpu.rt_runtime_us
	assert_output 950000
}

@test "cpu.rt_period_us: not 0, not under the runtime, up to 2^64/1000" {
	local f=g/cpu.rt_period_us
	cg_expect $f '' '0' "$E_INVAL" 1000000
	cg_expect $f '' '1' ok 1
	cg_expect $f '' '2000000' ok 2000000
	cg_expect $f '' '18446744073709552' "$E_INVAL" 2000000
	cg_expect $f '' '-1' "$E_INVAL" 2000000
	cg_expect g/cpu.rt_runtime_us '' '1000' ok 1000
	cg_expect $f '' '999' "$E_INVAL" 2000000
	cg_expect $f '' '1000' "$E_INVAL" 2000000
	cg_expect $f '' '1053' ok 1053
	cg_expect_done
}
